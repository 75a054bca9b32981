// The special key space of EngineTransaction, [\xff\xff, \xff\xff\xff): keys the client answers
// itself (docs/semantics.md, "Key space"). Of FoundationDB's modules the engine serves the
// conflicting keys of the transaction module (docs/semantics.md, "Conflicting keys"); every
// other special key reads as absent.
#include "engine/engine_transaction.h"
#include "engine/transaction_internal.h"

namespace fdb::engine {

using namespace internal;

const ConflictingKeys& EngineTransaction::conflictingKeys() const {
  static const ConflictingKeys kNone;
  if (pendingCommit_) {
    if (const ConflictingKeys* reported = pendingCommit_->conflictingKeys()) return *reported;
  }
  return conflictingKeys_ ? *conflictingKeys_ : kNone;
}

std::optional<Bytes> EngineTransaction::specialKeyValue(std::string_view key) const {
  if (key >= ConflictingKeys::kPrefix && key < ConflictingKeys::kEnd) {
    return conflictingKeys().value(key);
  }
  return std::nullopt;
}

RangeResult EngineTransaction::specialKeyRange(KeySelectorRef begin, KeySelectorRef end,
                                               const RangeOptions& options) const {
  int64_t byteLimit = validateRangeOptions(options);
  // A read of the transaction module, whose selectors' keys (orEqual folded in) lie in it.
  auto inModule = [](KeySelectorRef selector) {
    Bytes key(selector.key);
    if (selector.orEqual) key.push_back('\0');
    return key >= ConflictingKeys::kModuleBegin && key <= ConflictingKeys::kModuleEnd;
  };
  if (!inModule(begin) || !inModule(end)) return RangeResult();
  return conflictingKeys().rows(begin, end, static_cast<size_t>(options.limit), byteLimit,
                                options.reverse);
}

}  // namespace fdb::engine
