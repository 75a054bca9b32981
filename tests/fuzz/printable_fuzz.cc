// libFuzzer target: checkPrintable (cli_checks.h) on every input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/cli_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string failure =
      rl::fuzz::checkPrintable(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!failure.empty()) {
    std::fprintf(stderr, "printable_fuzz: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
