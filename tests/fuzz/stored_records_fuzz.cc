// libFuzzer target: checkStoredRecords (record_checks.h) on every input.
#include "fuzz/fuzz_target.h"
#include "fuzz/record_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rl::fuzz::runCheck("stored_records_fuzz", rl::fuzz::checkStoredRecords, data, size);
}
