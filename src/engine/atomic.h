// The atomic operations of FoundationDB (docs/semantics.md, "Atomic operations"), as pure
// functions of the existing value and the parameter. The engine applies them at commit; the
// read-your-writes layer applies the same functions to show a transaction its own pending
// operations.
#pragma once

#include <optional>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/types.h"

namespace fdb::engine {

// The largest value APPEND_IF_FITS may produce (VALUE_SIZE_LIMIT).
inline constexpr size_t kValueSizeLimit = 100000;

// Whether `type` is an atomic operation the engine applies with applyAtomicOp (every
// mutation type except the versionstamped ones).
bool isPlainAtomicOp(MutationType type);
bool isValidMutationType(int code);

// The value after `type` with `param` on `existing` (nullopt = absent before / cleared after).
// REQUIRES: isPlainAtomicOp(type).
std::optional<Bytes> applyAtomicOp(MutationType type, const std::optional<Bytes>& existing,
                                   std::string_view param);

}  // namespace fdb::engine
