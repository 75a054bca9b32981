// EngineTransaction in the special key space [\xff\xff, \xff\xff\xff) (special_keys.h;
// docs/semantics.md, "Special keys"): its reads, its writes with
// SPECIAL_KEY_SPACE_ENABLE_WRITES, and what they do to the commit.
#include "engine/engine_transaction.h"
#include "engine/special_keys.h"
#include "engine/transaction_internal.h"

namespace fdb::engine {

using namespace internal;

namespace {

const std::optional<Bytes> kNoErrorMessage;

}  // namespace

// ---- Reads ----------------------------------------------------------------------------------

const ConflictingKeys& EngineTransaction::conflictingKeys() const {
  static const ConflictingKeys kNone;
  if (pendingCommit_) {
    if (const ConflictingKeys* reported = pendingCommit_->conflictingKeys()) return *reported;
  }
  return conflictingKeys_ ? *conflictingKeys_ : kNone;
}

// Special keys are answered by the client, at once: without a read version, and also after
// commit() (only a poisoned transaction or a deferred error stops them, as FoundationDB's
// special key space waits on nothing else).
template <typename Out, typename Body>
auto EngineTransaction::readSpecialTo(Out out, Body body) {
  if (std::optional<Error> e = blockingError(/*allowedAfterCommit=*/true)) return out.fail(*e);
  beginOperation();
  return out.run([&] {
    const ConnectionRecord connection = settings_->connectionRecord();
    const SpecialKeyReadContext context{
        connection, *engine_,
        specialKeyWrites_ ? specialKeyWrites_->errorMessage() : kNoErrorMessage, conflictingKeys(),
        options_.specialKeySpaceRelaxed};
    return body(context);
  });
}

Future<std::optional<Bytes>> EngineTransaction::getSpecialKey(std::string_view key) {
  return readSpecialTo(
      AsFuture<std::optional<Bytes>>{this},
      [&](const SpecialKeyReadContext& context) { return readSpecialKey(key, context); });
}

void EngineTransaction::getSpecialKey(std::string_view key,
                                      Completion<std::optional<Bytes>>& done) {
  readSpecialTo(ToCompletion<std::optional<Bytes>>{this, done},
                [&](const SpecialKeyReadContext& context) { return readSpecialKey(key, context); });
}

Future<RangeResult> EngineTransaction::getSpecialRange(KeySelectorRef begin, KeySelectorRef end,
                                                       const RangeOptions& options) {
  return readSpecialTo(AsFuture<RangeResult>{this}, [&](const SpecialKeyReadContext& context) {
    return readSpecialRange(begin, end, options, context);
  });
}

void EngineTransaction::getSpecialRange(KeySelectorRef begin, KeySelectorRef end,
                                        const RangeOptions& options,
                                        Completion<RangeResult>& done) {
  readSpecialTo(ToCompletion<RangeResult>{this, done}, [&](const SpecialKeyReadContext& context) {
    return readSpecialRange(begin, end, options, context);
  });
}

// ---- Writes ---------------------------------------------------------------------------------

SpecialKeyWrites* EngineTransaction::specialKeyWrites() {
  if (!options_.specialKeySpaceEnableWrites) {
    deferError(Error(kSpecialKeysWriteDisabled, "writes to the special key space are disabled"));
    return nullptr;
  }
  if (!specialKeyWrites_) specialKeyWrites_ = std::make_unique<SpecialKeyWrites>();
  return specialKeyWrites_.get();
}

void EngineTransaction::setSpecialKey(std::string_view key, std::string_view value) {
  // FoundationDB's set hands special keys to their module before its used-during-commit check.
  if (poisonCode_ != 0) return;
  if (SpecialKeyWrites* writes = specialKeyWrites()) {
    if (std::optional<Error> e = writes->set(key, value, approximateSize_ > 0)) deferError(*e);
  }
}

void EngineTransaction::clearSpecialKey(std::string_view key) {
  if (SpecialKeyWrites* writes = specialKeyWrites()) {
    if (std::optional<Error> e = writes->clearKey(key)) deferError(*e);
  }
}

void EngineTransaction::clearSpecialRange(std::string_view begin, std::string_view end) {
  if (SpecialKeyWrites* writes = specialKeyWrites()) {
    if (std::optional<Error> e = writes->clearRange(begin, end)) deferError(*e);
  }
}

std::optional<Error> EngineTransaction::specialKeysCommitError() {
  if (!specialKeyWrites_ || !options_.specialKeySpaceEnableWrites) return std::nullopt;
  return specialKeyWrites_->commitError();
}

}  // namespace fdb::engine
