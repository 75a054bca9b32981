// The serialized form of a key-value cursor's continuation (docs/format.md, "Cursor
// continuations"): the key suffix wrapped in a KeyValueCursorContinuation proto with its magic
// number, or the raw suffix.
#pragma once

#include <cstdint>
#include <string_view>

#include "fdb/bytes.h"

namespace rl {

// KeyValueCursorContinuation.magic_number: tells a wrapped continuation from a raw suffix.
inline constexpr int64_t kKeyValueContinuationMagic = 6773487359078157740LL;

// The suffix wrapped as a KeyValueCursorContinuation{inner_continuation, magic_number}.
fdb::Bytes wrapKeyValueContinuation(std::string_view keySuffix);
// The key suffix a continuation names: the inner continuation of a wrapped one (parsed, with
// the right magic number), otherwise the bytes themselves (a raw suffix).
fdb::Bytes unwrapKeyValueContinuation(std::string_view continuation);

}  // namespace rl
