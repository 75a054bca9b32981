// libFuzzer target: checkBackupFile (cli_checks.h) on every input.
#include "fuzz/cli_checks.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rl::fuzz::runCheck("backup_file_fuzz", rl::fuzz::checkBackupFile, data, size);
}
