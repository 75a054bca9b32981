// The C API as this library implements it: the public header at its latest version.
#pragma once

#ifndef FDB_API_VERSION
#define FDB_API_VERSION 730
#endif
#include "foundationdb/fdb_c.h"

#include <cstring>

namespace fdb::capi {
// The integer code of a C enum argument, read as bytes: a C caller may pass any int, and in
// C++ loading an enum object whose value is outside its enumerators' range is undefined.
template <typename Enum>
int codeOf(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int));
  int code;
  std::memcpy(&code, &value, sizeof code);
  return code;
}
}  // namespace fdb::capi
