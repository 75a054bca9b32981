// What every libFuzzer target here does with an input: runs its check (a *_checks.h
// function from the input to "" or what failed) and aborts with the failure, so that libFuzzer
// keeps the input.
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
//     return rl::fuzz::runCheck("printable_fuzz", rl::fuzz::checkPrintable, data, size);
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace rl::fuzz {

template <typename Check>
int runCheck(const char* target, Check check, const uint8_t* data, size_t size) {
  const std::string failure = check(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!failure.empty()) {
    std::fprintf(stderr, "%s: %s\n", target, failure.c_str());
    std::abort();
  }
  return 0;
}

}  // namespace rl::fuzz
