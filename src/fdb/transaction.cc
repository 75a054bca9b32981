#include "fdb/transaction.h"

#include <cstring>

#include "fdb/backend.h"

namespace fdb {
namespace {

// key + '\0', sized once.
Bytes keyAfter(std::string_view key) {
  Bytes after;
  after.reserve(key.size() + 1);
  after.append(key).push_back('\0');
  return after;
}

// Calls `use` with key + '\0', built on the stack when the key is short (a conflict key
// is copied by the backend, so the temporary need not outlive the call).
template <typename Use>
void withKeyAfter(std::string_view key, Use use) {
  constexpr size_t kStackKey = 256;
  if (key.size() >= kStackKey) {
    use(std::string_view(keyAfter(key)));
    return;
  }
  char after[kStackKey + 1];
  std::memcpy(after, key.data(), key.size());
  after[key.size()] = '\0';
  use(std::string_view(after, key.size() + 1));
}

// Views of the range's keys: a backend reads a selector's key during the call only.
KeySelectorRef beginOf(const KeyRange& range) {
  return KeySelectorRef::firstGreaterOrEqual(range.begin);
}
KeySelectorRef endOf(const KeyRange& range) {
  return KeySelectorRef::firstGreaterOrEqual(range.end);
}

// Reads every row of `range` batch by batch, as the bindings iterate (docs/semantics.md, "Range
// reads" step 5): each next batch starts after the last row and asks for the rows still wanted.
std::vector<KeyValue> readAll(TransactionBackend& backend, const KeyRange& range, int limit,
                              bool reverse, bool snapshot) {
  std::vector<KeyValue> rows;
  // Owned: the next batch's selectors are built from the rows collected so far.
  KeySelector begin = KeySelector::firstGreaterOrEqual(range.begin);
  KeySelector end = KeySelector::firstGreaterOrEqual(range.end);
  RangeOptions options;
  options.mode = limit > 0 ? StreamingMode::kExact : StreamingMode::kWantAll;
  options.reverse = reverse;
  while (true) {
    options.limit = limit > 0 ? limit - static_cast<int>(rows.size()) : 0;
    RangeResult batch = backend.getRange(begin, end, options, snapshot).get();
    rows.insert(rows.end(), batch.rows.begin(), batch.rows.end());
    if (!batch.more || batch.rows.empty() ||
        (limit > 0 && static_cast<int>(rows.size()) >= limit)) {
      return rows;
    }
    if (reverse) {
      end = KeySelector::firstGreaterOrEqual(rows.back().key);
    } else {
      begin = KeySelector::firstGreaterThan(rows.back().key);
    }
    ++options.iteration;
  }
}

}  // namespace

Future<std::optional<Bytes>> SnapshotReads::get(std::string_view key) const {
  return backend_->get(key, true);
}
Future<Bytes> SnapshotReads::getKey(KeySelectorRef selector) const {
  return backend_->getKey(selector, true);
}
Future<RangeResult> SnapshotReads::getRange(KeySelectorRef begin, KeySelectorRef end,
                                            const RangeOptions& options) const {
  return backend_->getRange(begin, end, options, true);
}
Future<RangeResult> SnapshotReads::getRange(const KeyRange& range,
                                            const RangeOptions& options) const {
  return backend_->getRange(beginOf(range), endOf(range), options, true);
}
std::vector<KeyValue> SnapshotReads::getRangeAll(const KeyRange& range, int limit,
                                                 bool reverse) const {
  return readAll(*backend_, range, limit, reverse, true);
}

Future<MappedRangeResult> SnapshotReads::getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                                        std::string_view mapper,
                                                        const RangeOptions& options) const {
  return backend_->getMappedRange(begin, end, mapper, options, true);
}

Transaction::Transaction(std::shared_ptr<TransactionBackend> backend)
    : backend_(std::move(backend)) {}

Future<int64_t> Transaction::getReadVersion() { return backend_->getReadVersion(); }
void Transaction::setReadVersion(int64_t version) { backend_->setReadVersion(version); }
Future<std::optional<Bytes>> Transaction::get(std::string_view key) {
  return backend_->get(key, false);
}
Future<Bytes> Transaction::getKey(KeySelectorRef selector) {
  return backend_->getKey(selector, false);
}
Future<RangeResult> Transaction::getRange(KeySelectorRef begin, KeySelectorRef end,
                                          const RangeOptions& options) {
  return backend_->getRange(begin, end, options, false);
}
Future<RangeResult> Transaction::getRange(const KeyRange& range, const RangeOptions& options) {
  return backend_->getRange(beginOf(range), endOf(range), options, false);
}
std::vector<KeyValue> Transaction::getRangeAll(const KeyRange& range, int limit, bool reverse) {
  return readAll(*backend_, range, limit, reverse, false);
}

void Transaction::set(std::string_view key, std::string_view value) { backend_->set(key, value); }
void Transaction::clear(std::string_view key) { backend_->clear(key); }
void Transaction::clearRange(std::string_view begin, std::string_view end) {
  backend_->clearRange(begin, end);
}
void Transaction::atomicOp(std::string_view key, std::string_view param, MutationType type) {
  backend_->atomicOp(key, param, type);
}

void Transaction::addReadConflictRange(std::string_view begin, std::string_view end) {
  backend_->addConflictRange(begin, end, ConflictRangeType::kRead);
}
void Transaction::addReadConflictKey(std::string_view key) {
  withKeyAfter(key, [&](std::string_view after) {
    backend_->addConflictRange(key, after, ConflictRangeType::kRead);
  });
}
void Transaction::addWriteConflictRange(std::string_view begin, std::string_view end) {
  backend_->addConflictRange(begin, end, ConflictRangeType::kWrite);
}
void Transaction::addWriteConflictKey(std::string_view key) {
  withKeyAfter(key, [&](std::string_view after) {
    backend_->addConflictRange(key, after, ConflictRangeType::kWrite);
  });
}

Future<MappedRangeResult> Transaction::getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                                      std::string_view mapper,
                                                      const RangeOptions& options) {
  return backend_->getMappedRange(begin, end, mapper, options, false);
}
Future<void> Transaction::watch(std::string_view key) { return backend_->watch(key); }

void Transaction::setOption(TransactionOption option) {
  backend_->setOption(static_cast<int>(option), std::nullopt);
}
void Transaction::setOption(TransactionOption option, int64_t value) {
  backend_->setOption(static_cast<int>(option), encodeOptionInt(value));
}
void Transaction::setOption(TransactionOption option, std::string_view value) {
  backend_->setOption(static_cast<int>(option), value);
}

Future<void> Transaction::commit() { return backend_->commit(); }
Future<Bytes> Transaction::getVersionstamp() { return backend_->getVersionstamp(); }
int64_t Transaction::getCommittedVersion() { return backend_->getCommittedVersion(); }
Future<int64_t> Transaction::getApproximateSize() { return backend_->getApproximateSize(); }
Future<void> Transaction::onError(const Error& error) { return backend_->onError(error); }
void Transaction::reset() { backend_->reset(); }
void Transaction::cancel() { backend_->cancel(); }
RoundTrips Transaction::roundTrips() const { return backend_->roundTrips(); }

}  // namespace fdb
