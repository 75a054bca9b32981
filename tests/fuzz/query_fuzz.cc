// libFuzzer target: checkQuery (query_checks.h) on every input.
#include "fuzz/fuzz_target.h"
#include "fuzz/query_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rl::fuzz::runCheck("query_fuzz", rl::fuzz::checkQuery, data, size);
}
