// libFuzzer target: checkTupleText (tuple_checks.h) on every input.
#include "fuzz/fuzz_target.h"
#include "fuzz/tuple_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rl::fuzz::runCheck("tuple_text_fuzz", rl::fuzz::checkTupleText, data, size);
}
