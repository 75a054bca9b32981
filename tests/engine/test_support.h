// Helpers shared by the engine's tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>

#include "fdb/bytes.h"
#include "fdb/error.h"

namespace fdb::engine::test_support {

// An int64 as 8 little-endian bytes (the operand of ADD), and back (absent: 0).
inline Bytes encodeInt64(int64_t n) {
  Bytes out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out;
}

inline int64_t decodeInt64(const std::optional<Bytes>& value) {
  int64_t n = 0;
  if (value) std::memcpy(&n, value->data(), std::min<size_t>(8, value->size()));
  return n;
}

// The code of the fdb::Error `f` throws, or 0 if it throws none.
inline int errorCode(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

}  // namespace fdb::engine::test_support
