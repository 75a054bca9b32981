#include "engine/engine_transaction.h"

#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>

#include "engine/atomic.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

// The end of the normal key space: the max read key without system-key access.
const Bytes kMaxKey = "\xff";
const Bytes kMetadataVersionKey = "\xff/metadataVersion";

constexpr size_t kKeySizeLimit = 10000;
// Longer keys cannot exist: reading one gives absent (10,000 plus the 8-byte tenant
// prefix allowance, getMaxReadKeySize).
constexpr size_t kReadKeySizeLimit = 10008;
constexpr int64_t kTransactionSizeLimit = 10000000;
// sizeof(MutationRef) and sizeof(KeyRangeRef) in FoundationDB's size accounting.
constexpr int64_t kMutationOverhead = 40;
constexpr int64_t kConflictRangeOverhead = 32;

constexpr double kInitialBackoffSeconds = 0.01;
constexpr double kMaxRetryDelaySeconds = 1.0;
constexpr double kProxyMemoryMaxBackoffSeconds = 30.0;

Bytes keyAfter(std::string_view key) { return Bytes(key) + '\0'; }

// Bytes a range read returns per batch by streaming mode (spec §3.2); -1 = unlimited.
int64_t modeByteLimit(StreamingMode mode, int iteration) {
  static constexpr std::array<int64_t, 10> kIteratorBytes = {4096,  6144,  9216,  13824, 20736,
                                                             31104, 46656, 69984, 80000, 120000};
  switch (mode) {
    case StreamingMode::kIterator:
      return kIteratorBytes[static_cast<size_t>(std::min(iteration, 10) - 1)];
    case StreamingMode::kExact: return -1;
    case StreamingMode::kSmall: return 256;
    case StreamingMode::kMedium: return 1000;
    case StreamingMode::kLarge: return 4096;
    case StreamingMode::kSerial:
    case StreamingMode::kWantAll: return 80000;
  }
  return -1;
}

// Why `key` may not be written by an ordinary operation, if it may not (spec §2.7, §2.10).
std::optional<Error> unwritableKeyError(std::string_view key, std::string_view operation) {
  if (key == kMetadataVersionKey) {
    return Error(errors::kClientInvalidOperation,
                 fmt::format("{} of \\xff/metadataVersion: only SET_VERSIONSTAMPED_VALUE with 14 "
                             "zero bytes may write it",
                             operation));
  }
  if (key >= kMaxKey) {
    return Error(errors::kKeyOutsideLegalRange,
                 fmt::format("{} of '{}' in the system key space", operation, printable(key)));
  }
  return std::nullopt;
}

[[noreturn]] void throwUnreadable(std::string_view key) {
  throw Error(1036,
              fmt::format("'{}' depends on this transaction's versionstamp",  // accessed_unreadable
                          printable(key)));
}

template <typename T, typename F>
Future<T> guarded(F&& body) {
  try {
    if constexpr (std::is_void_v<T>) {
      body();
      return Future<T>::ready();
    } else {
      return Future<T>::ready(body());
    }
  } catch (const Error& e) {
    return Future<T>::failed(e);
  }
}

}  // namespace

EngineTransaction::EngineTransaction(std::shared_ptr<Engine> engine)
    : engine_(std::move(engine)), backoffSeconds_(kInitialBackoffSeconds) {}

// ---- State machine ------------------------------------------------------------------

std::optional<Error> EngineTransaction::blockingError(bool allowedAfterCommit) {
  if (poison_) return poison_;
  if (commitCalled_ && !allowedAfterCommit) {
    poison_ = Error(errors::kUsedDuringCommit, "the transaction was used after commit()");
    return poison_;
  }
  if (deferredError_) return deferredError_;
  return std::nullopt;
}

bool EngineTransaction::acceptWrite() {
  if (poison_) return false;
  if (commitCalled_) {
    poison_ = Error(errors::kUsedDuringCommit, "the transaction was used after commit()");
    return false;
  }
  return true;
}

void EngineTransaction::deferError(Error error) {
  if (!deferredError_) deferredError_ = std::move(error);
}

int64_t EngineTransaction::readVersion() {
  if (!readVersion_) readVersion_ = engine_->getReadVersion();
  return *readVersion_;
}

void EngineTransaction::addReadConflict(std::string_view begin, std::string_view end) {
  for (KeyRange& range : writes_.subtractKnown(begin, end)) {
    approximateSize_ +=
        static_cast<int64_t>(range.begin.size() + range.end.size()) + kConflictRangeOverhead;
    readConflicts_.push_back(std::move(range));
  }
}

void EngineTransaction::addWriteConflict(std::string_view begin, std::string_view end) {
  approximateSize_ += static_cast<int64_t>(begin.size() + end.size()) + kConflictRangeOverhead;
  writeConflicts_.push_back(KeyRange{Bytes(begin), Bytes(end)});
}

void EngineTransaction::clearAttempt() {
  writes_ = WriteMap();
  readVersion_.reset();
  readConflicts_.clear();
  writeConflicts_.clear();
  approximateSize_ = 0;
  deferredError_.reset();
  poison_.reset();
  commitCalled_ = false;
  committedVersion_ = -1;
}

void EngineTransaction::reset() {
  clearAttempt();
  retries_ = 0;
  backoffSeconds_ = kInitialBackoffSeconds;
}

void EngineTransaction::cancel() {
  poison_ = Error(errors::kTransactionCancelled, "the transaction was cancelled");
}

Future<void> EngineTransaction::onError(const Error& error) {
  if (poison_) return Future<void>::failed(*poison_);
  int code = error.code();
  if (code < 0 || code > 30000) code = errors::kUnknownError;
  if (code == errors::kSuccess) {
    return Future<void>::failed(
        Error(errors::kClientInvalidOperation, "onError called with success (0)"));
  }
  // The retry limit (option retry_limit, unlimited by default) comes with the options.
  ++retries_;
  auto giveUp = [&] {
    poison_ = Error(errors::kTransactionCancelled, "onError returned a non-retryable error");
    return Future<void>::failed(code == error.code() ? error : Error(code));
  };
  double delaySeconds = 0;
  switch (code) {
    case 1020:    // not_committed
    case 1021:    // commit_unknown_result
    case 1038:    // database_locked
    case 1042:    // commit_proxy_memory_limit_exceeded
    case 1078:    // grv_proxy_memory_limit_exceeded
    case 1037:    // process_behind
    case 1051:    // batch_transaction_throttled
    case 1213:    // tag_throttled
    case 1079:    // blob_granule_request_failed
    case 1223: {  // proxy_tag_throttled
      // One generator per thread: seeding one per transaction would cost more than a read.
      thread_local std::mt19937_64 random(std::random_device{}());
      delaySeconds = backoffSeconds_ * std::uniform_real_distribution<double>(0, 1)(random);
      double cap =
          (code == 1042 || code == 1078) ? kProxyMemoryMaxBackoffSeconds : kMaxRetryDelaySeconds;
      backoffSeconds_ = std::min(backoffSeconds_ * 2, cap);
      break;
    }
    case 1007:  // transaction_too_old
    case 1009:  // future_version
      delaySeconds = std::min(kInitialBackoffSeconds, kMaxRetryDelaySeconds);
      break;
    case 1039:  // cluster_version_changed: retried at once
      return Future<void>::ready();
    default: return giveUp();
  }
  clearAttempt();
  engine_->clock().sleepMicros(static_cast<int64_t>(delaySeconds * 1e6));
  return Future<void>::ready();
}

// ---- Versions -----------------------------------------------------------------------

Future<int64_t> EngineTransaction::getReadVersion() {
  if (std::optional<Error> e = blockingError(/*allowedAfterCommit=*/true)) {
    return Future<int64_t>::failed(*e);
  }
  return guarded<int64_t>([&] { return readVersion(); });
}

void EngineTransaction::setReadVersion(int64_t version) {
  if (!acceptWrite()) return;
  if (version <= 0) {
    deferError(
        Error(errors::kVersionInvalid, fmt::format("read version {} is not positive", version)));
  } else if (readVersion_) {
    deferError(Error(errors::kReadVersionAlreadySet, "the read version is already set"));
  } else {
    readVersion_ = version;
  }
}

// ---- Reads --------------------------------------------------------------------------

std::optional<Bytes> EngineTransaction::valueOf(const Engine::Reader& reader,
                                                std::string_view key) const {
  WriteMap::KeyState state = writes_.lookup(key);
  switch (state.kind) {
    case WriteMap::KeyState::Kind::kKnown: return state.value;
    case WriteMap::KeyState::Kind::kPendingOps:
      return WriteMap::applyOps(*state.ops, reader.get(key));
    case WriteMap::KeyState::Kind::kUnwritten: return reader.get(key);
    case WriteMap::KeyState::Kind::kUnreadable: throwUnreadable(key);
  }
  return std::nullopt;
}

std::optional<KeyValue> EngineTransaction::nextVisible(const Engine::Reader& reader,
                                                       std::string_view from) const {
  // The first database row at or after `from` that the transaction's writes leave alone.
  std::optional<KeyValue> fromDatabase;
  Bytes position(from);
  while ((fromDatabase = reader.firstAtOrAfter(position, kMaxKey))) {
    if (writes_.hasPoint(fromDatabase->key)) {
      position = keyAfter(fromDatabase->key);
    } else if (std::optional<Bytes> clearedEnd = writes_.clearedRangeEnd(fromDatabase->key)) {
      position = std::max(keyAfter(fromDatabase->key), *clearedEnd);
    } else {
      break;
    }
  }
  // The first written key before that whose value is present.
  std::optional<KeyValue> fromWrites;
  writes_.forEachPointFrom(from, fromDatabase ? std::string_view(fromDatabase->key) : kMaxKey,
                           [&](const Bytes& key) {
                             std::optional<Bytes> value = valueOf(reader, key);
                             if (!value) return false;
                             fromWrites = KeyValue{key, std::move(*value)};
                             return true;
                           });
  std::optional<KeyValue>& found = fromWrites ? fromWrites : fromDatabase;
  // Stepping over keys that depend on the versionstamp is reading them.
  if (writes_.touchesUnreadable(from, found ? keyAfter(found->key) : kMaxKey)) {
    throwUnreadable(from);
  }
  return std::move(found);
}

std::optional<KeyValue> EngineTransaction::previousVisible(const Engine::Reader& reader,
                                                           std::string_view before) const {
  std::optional<KeyValue> fromDatabase;
  Bytes position(std::min(std::string_view(before), std::string_view(kMaxKey)));
  while ((fromDatabase = reader.lastBefore(position, ""))) {
    if (writes_.hasPoint(fromDatabase->key)) {
      position = fromDatabase->key;
    } else if (std::optional<Bytes> clearedBegin = writes_.clearedRangeBegin(fromDatabase->key)) {
      position = std::min(fromDatabase->key, *clearedBegin);
    } else {
      break;
    }
  }
  std::optional<KeyValue> fromWrites;
  Bytes bound = fromDatabase ? keyAfter(fromDatabase->key) : Bytes();
  writes_.forEachPointBefore(std::min(std::string_view(before), std::string_view(kMaxKey)), bound,
                             [&](const Bytes& key) {
                               std::optional<Bytes> value = valueOf(reader, key);
                               if (!value) return false;
                               fromWrites = KeyValue{key, std::move(*value)};
                               return true;
                             });
  std::optional<KeyValue>& found = fromWrites ? fromWrites : fromDatabase;
  if (writes_.touchesUnreadable(found ? std::string_view(found->key) : std::string_view(),
                                before)) {
    throwUnreadable(before);
  }
  return std::move(found);
}

Bytes EngineTransaction::resolve(const Engine::Reader& reader, std::string_view key, int offset,
                                 bool* ranOffStart, bool* ranOffEnd) const {
  // Spec §3.1: the last key < key, then `offset` keys further; "" before the first key,
  // maxKey past the last.
  Bytes position(key);
  if (offset >= 1) {
    std::optional<KeyValue> found;
    for (int i = 0; i < offset; ++i) {
      found = nextVisible(reader, position);
      if (!found) {
        if (i < offset - 1) *ranOffEnd = true;
        return kMaxKey;
      }
      position = keyAfter(found->key);
    }
    return found->key;
  }
  for (int i = 0; i <= -offset; ++i) {
    std::optional<KeyValue> found = previousVisible(reader, position);
    if (!found) {
      *ranOffStart = true;
      return Bytes();
    }
    position = found->key;
  }
  return position;
}

Future<std::optional<Bytes>> EngineTransaction::get(std::string_view key, bool snapshot) {
  if (std::optional<Error> e = blockingError(false))
    return Future<std::optional<Bytes>>::failed(*e);
  return guarded<std::optional<Bytes>>([&]() -> std::optional<Bytes> {
    if (key >= kMaxKey && key != kMetadataVersionKey) {
      throw Error(errors::kKeyOutsideLegalRange,
                  fmt::format("key '{}' is in the system key space", printable(key)));
    }
    if (key.size() > kReadKeySizeLimit) return std::nullopt;  // such keys cannot exist
    WriteMap::KeyState state = writes_.lookup(key);
    if (state.kind == WriteMap::KeyState::Kind::kKnown) return state.value;
    if (state.kind == WriteMap::KeyState::Kind::kUnreadable) throwUnreadable(key);
    std::optional<Bytes> value = valueOf(engine_->read(readVersion()), key);
    if (!snapshot) addReadConflict(key, keyAfter(key));
    return value;
  });
}

Future<Bytes> EngineTransaction::getKey(const KeySelector& selector, bool snapshot) {
  if (std::optional<Error> e = blockingError(false)) return Future<Bytes>::failed(*e);
  return guarded<Bytes>([&] {
    if (selector.key > kMaxKey) {
      throw Error(
          errors::kKeyOutsideLegalRange,
          fmt::format("selector key '{}' is beyond the normal key space", printable(selector.key)));
    }
    Bytes key = selector.orEqual ? keyAfter(selector.key) : selector.key;
    Bytes result;
    {
      Engine::Reader reader = engine_->read(readVersion());
      bool ranOffStart = false, ranOffEnd = false;
      result = resolve(reader, key, selector.offset, &ranOffStart, &ranOffEnd);
    }
    if (!snapshot) {
      if (selector.offset <= 0) {
        addReadConflict(result, key);
      } else {
        addReadConflict(key, keyAfter(result));
      }
    }
    return result;
  });
}

void EngineTransaction::addRangeReadConflict(const KeySelector& begin, const KeySelector& end,
                                             const Bytes& beginKey, const Bytes& endKey,
                                             const RangeResult& result, bool reverse,
                                             bool ranOffStart, bool ranOffEnd) {
  // FoundationDB's rule (RYWImpl::addConflictRange over GetRangeReq; spec §2.5): the span
  // between the selectors' keys; a limited read stops depending on what lies beyond its
  // last row in the direction it read; a selector that ran off an end of the data depends
  // on everything up to that end; and the span always covers the rows returned.
  Bytes conflictBegin, conflictEnd;
  if (beginKey < endKey) {
    conflictBegin = beginKey;
    conflictEnd = endKey;
    if (!reverse && end.offset > 0 && result.more) conflictEnd = beginKey;
    if (reverse && begin.offset <= 1 && result.more) conflictBegin = endKey;
  } else {
    conflictBegin = endKey;
    conflictEnd = beginKey;
  }
  if (ranOffStart && begin.offset <= 0) conflictBegin = Bytes();
  if (ranOffEnd && end.offset > 0) conflictEnd = kMaxKey;
  if (!result.rows.empty()) {
    const Bytes& lowest = reverse ? result.rows.back().key : result.rows.front().key;
    const Bytes& highest = reverse ? result.rows.front().key : result.rows.back().key;
    if (reverse || begin.offset <= 0) conflictBegin = std::min(conflictBegin, lowest);
    if ((!reverse || end.offset > 0) && conflictEnd <= highest) conflictEnd = keyAfter(highest);
  }
  if (conflictBegin < conflictEnd) addReadConflict(conflictBegin, conflictEnd);
}

Future<RangeResult> EngineTransaction::getRange(const KeySelector& begin, const KeySelector& end,
                                                const RangeOptions& options, bool snapshot) {
  if (std::optional<Error> e = blockingError(false)) return Future<RangeResult>::failed(*e);
  return guarded<RangeResult>([&] {
    int mode = static_cast<int>(options.mode);
    if (mode < -2 || mode > 4) {
      throw Error(errors::kClientInvalidOperation, fmt::format("unknown streaming mode {}", mode));
    }
    if (options.mode == StreamingMode::kIterator && options.iteration < 1) {
      throw Error(errors::kClientInvalidOperation, "ITERATOR streaming mode needs iteration >= 1");
    }
    if (options.limit < 0 || options.targetBytes < 0) {
      throw Error(errors::kRangeLimitsInvalid, "range limits must not be negative");
    }
    if (options.mode == StreamingMode::kExact && options.limit == 0 && options.targetBytes == 0) {
      throw Error(errors::kExactModeWithoutLimits,
                  "EXACT streaming mode needs a row or byte limit");
    }
    if (begin.key > kMaxKey || end.key > kMaxKey) {
      throw Error(errors::kKeyOutsideLegalRange, "range endpoint beyond the normal key space");
    }
    int64_t byteLimit = modeByteLimit(options.mode, options.iteration);
    if (options.targetBytes > 0) {
      byteLimit =
          byteLimit < 0 ? options.targetBytes : std::min<int64_t>(byteLimit, options.targetBytes);
    }
    const size_t rowLimit = options.limit > 0 ? static_cast<size_t>(options.limit) : SIZE_MAX;

    Bytes beginKey = begin.orEqual ? keyAfter(begin.key) : begin.key;
    Bytes endKey = end.orEqual ? keyAfter(end.key) : end.key;
    RangeResult result;
    // An inverted range is empty, not an error, and reads nothing.
    if (begin.offset >= end.offset && beginKey >= endKey) return result;

    Bytes resolvedBegin, resolvedEnd;
    bool limited = false;
    bool ranOffStart = false, ranOffEnd = false;  // by either selector
    {
      Engine::Reader reader = engine_->read(readVersion());
      resolvedBegin = resolve(reader, beginKey, begin.offset, &ranOffStart, &ranOffEnd);
      resolvedEnd = resolve(reader, endKey, end.offset, &ranOffStart, &ranOffEnd);
      // Selectors that resolve to an empty range say nothing about the ends of the data.
      if (resolvedBegin >= resolvedEnd) ranOffStart = ranOffEnd = false;
      int64_t bytes = 0;
      auto take = [&](KeyValue row) {
        bytes += static_cast<int64_t>(row.key.size() + row.value.size() + 8);
        result.rows.push_back(std::move(row));
        if (result.rows.size() >= rowLimit || (byteLimit >= 0 && bytes >= byteLimit)) {
          limited = true;
        }
      };
      if (!options.reverse) {
        Bytes position = resolvedBegin;
        while (!limited && resolvedBegin < resolvedEnd) {
          std::optional<KeyValue> row = nextVisible(reader, position);
          if (!row || row->key >= resolvedEnd) break;
          position = keyAfter(row->key);
          take(std::move(*row));
        }
      } else {
        Bytes position = resolvedEnd;
        while (!limited && resolvedBegin < resolvedEnd) {
          std::optional<KeyValue> row = previousVisible(reader, position);
          if (!row || row->key < resolvedBegin) break;
          position = row->key;
          take(std::move(*row));
        }
      }
    }
    result.more = limited && !result.rows.empty();

    if (!snapshot)
      addRangeReadConflict(begin, end, beginKey, endKey, result, options.reverse, ranOffStart,
                           ranOffEnd);
    return result;
  });
}

// ---- Writes -------------------------------------------------------------------------

void EngineTransaction::set(std::string_view key, std::string_view value) {
  if (!acceptWrite()) return;
  if (std::optional<Error> e = unwritableKeyError(key, "set")) return deferError(*e);
  if (key.size() > kKeySizeLimit) {
    return deferError(Error(errors::kKeyTooLarge, fmt::format("key of {} bytes", key.size())));
  }
  if (value.size() > kValueSizeLimit) {
    return deferError(
        Error(errors::kValueTooLarge, fmt::format("value of {} bytes", value.size())));
  }
  writes_.set(key, value);
  approximateSize_ += static_cast<int64_t>(key.size() + value.size()) + kMutationOverhead;
  addWriteConflict(key, keyAfter(key));
}

void EngineTransaction::clear(std::string_view key) {
  if (!acceptWrite()) return;
  if (std::optional<Error> e = unwritableKeyError(key, "clear")) return deferError(*e);
  if (key.size() > kReadKeySizeLimit) return;  // such keys cannot exist
  Bytes end = keyAfter(key);
  writes_.clearRange(key, end);
  approximateSize_ += static_cast<int64_t>(key.size() + end.size()) + kMutationOverhead;
  addWriteConflict(key, end);
}

void EngineTransaction::clearRange(std::string_view begin, std::string_view end) {
  if (!acceptWrite()) return;
  if (begin > end) {
    return deferError(Error(
        errors::kInvertedRange,
        fmt::format("clearRange begin '{}' is after end '{}'", printable(begin), printable(end))));
  }
  if (begin > kMaxKey || end > kMaxKey) {
    return deferError(
        Error(errors::kKeyOutsideLegalRange, "clearRange endpoint beyond the normal key space"));
  }
  if (begin == end) return;
  writes_.clearRange(begin, end);
  approximateSize_ += static_cast<int64_t>(begin.size() + end.size()) + kMutationOverhead;
  addWriteConflict(begin, end);
}

namespace {

// The offset a versionstamped operand names, if it is valid: its last four bytes
// (little-endian) must point at ten bytes inside what precedes them (spec §2.7).
std::optional<size_t> versionstampOffset(std::string_view operand) {
  if (operand.size() < 4) return std::nullopt;
  uint32_t offset = 0;
  for (size_t i = 0; i < 4; ++i) {
    offset |= static_cast<uint32_t>(static_cast<uint8_t>(operand[operand.size() - 4 + i]))
              << (8 * i);
  }
  if (static_cast<size_t>(offset) + 10 > operand.size() - 4) return std::nullopt;
  return offset;
}

}  // namespace

void EngineTransaction::atomicOp(std::string_view key, std::string_view param, MutationType type) {
  if (!acceptWrite()) return;
  if (!isValidMutationType(static_cast<int>(type))) {
    return deferError(
        Error(errors::kInvalidMutationType,
              fmt::format("mutation type {} is not an atomic operation", static_cast<int>(type))));
  }
  const bool stampsKey = type == MutationType::kSetVersionstampedKey;
  const bool stampsValue = type == MutationType::kSetVersionstampedValue;
  // A versionstamped key is checked without its 4-byte offset suffix.
  std::string_view writtenKey = stampsKey && key.size() >= 4 ? key.substr(0, key.size() - 4) : key;
  bool bumpsMetadataVersion = stampsValue && key == kMetadataVersionKey && param == Bytes(14, '\0');
  if (!bumpsMetadataVersion) {
    if (std::optional<Error> e = unwritableKeyError(writtenKey, "atomic op")) return deferError(*e);
  }
  if (writtenKey.size() > kKeySizeLimit) {
    return deferError(Error(errors::kKeyTooLarge, fmt::format("key of {} bytes", key.size())));
  }
  if (param.size() > kValueSizeLimit) {
    return deferError(
        Error(errors::kValueTooLarge, fmt::format("operand of {} bytes", param.size())));
  }
  approximateSize_ += static_cast<int64_t>(key.size() + param.size()) + kMutationOverhead;
  if (stampsKey) {
    std::optional<size_t> offset = versionstampOffset(key);
    if (!offset) {
      return deferError(
          Error(errors::kClientInvalidOperation, "versionstamp offset outside the key template"));
    }
    // Every key the operation may produce: the template with any versionstamp at least
    // the read version (0 when not yet known), up to ten 0xff bytes.
    Bytes low(writtenKey);
    Bytes high(writtenKey);
    int64_t floor = readVersion_.value_or(0);
    for (int i = 0; i < 8; ++i)
      low[*offset + i] = static_cast<char>((floor >> (56 - 8 * i)) & 0xff);
    low[*offset + 8] = low[*offset + 9] = 0;
    for (int i = 0; i < 10; ++i) high[*offset + i] = '\xff';
    Bytes highEnd = keyAfter(high);
    writes_.setVersionstampedKey(key, param, KeyRange{low, std::min(highEnd, kMaxKey)});
    return;  // versionstamped keys add no write conflict range
  }
  if (stampsValue) {
    if (!versionstampOffset(param)) {
      return deferError(
          Error(errors::kClientInvalidOperation, "versionstamp offset outside the value template"));
    }
    writes_.setVersionstampedValue(key, param);
  } else {
    writes_.atomicOp(key, type, param);
  }
  addWriteConflict(key, keyAfter(key));
}

void EngineTransaction::addConflictRange(std::string_view begin, std::string_view end,
                                         ConflictRangeType type) {
  // Inverted and out-of-range manual conflict ranges fail at the call (spec fact 10).
  if (begin > end) {
    throw Error(errors::kInvertedRange, fmt::format("conflict range begin '{}' is after end '{}'",
                                                    printable(begin), printable(end)));
  }
  if (!acceptWrite()) return;
  if (begin == end) return;
  bool metadataVersionRead = type == ConflictRangeType::kRead && begin == kMetadataVersionKey &&
                             end == keyAfter(kMetadataVersionKey);
  if ((begin > kMaxKey || end > kMaxKey) && !metadataVersionRead) {
    return deferError(
        Error(errors::kKeyOutsideLegalRange, "conflict range beyond the normal key space"));
  }
  if (type == ConflictRangeType::kRead) {
    addReadConflict(begin, end);
  } else {
    addWriteConflict(begin, end);
  }
}

// ---- Commit -------------------------------------------------------------------------

Future<int64_t> EngineTransaction::getApproximateSize() {
  if (std::optional<Error> e = blockingError(false)) return Future<int64_t>::failed(*e);
  return Future<int64_t>::ready(approximateSize_);
}

Future<void> EngineTransaction::commit() {
  if (std::optional<Error> e = blockingError(false)) return Future<void>::failed(*e);
  commitCalled_ = true;
  if (writes_.empty() && writeConflicts_.empty()) return Future<void>::ready();  // read-only
  return guarded<void>([&] {
    if (approximateSize_ > kTransactionSizeLimit) {
      throw Error(
          errors::kTransactionTooLarge,
          fmt::format("{} bytes exceed the limit of {}", approximateSize_, kTransactionSizeLimit));
    }
    CommitRequest request;
    request.readVersion = readVersion();
    request.readConflicts = std::move(readConflicts_);
    request.writeConflicts = std::move(writeConflicts_);
    request.mutations = writes_.mutations();
    committedVersion_ = engine_->commit(request);
  });
}

}  // namespace fdb::engine
