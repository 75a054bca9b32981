// The reads of EngineTransaction: the merged view of the database and the transaction's own
// writes, point reads, selectors, range reads and mapped range reads, with the read
// conflict ranges FoundationDB records for them (docs/semantics.md: "Read-your-writes", "Conflict
// ranges", "Key selectors", "Range reads", "Mapped range reads").
#include <algorithm>
#include <array>
#include <cstring>

#include "engine/engine_transaction.h"
#include "engine/mapper.h"
#include "engine/ryw_segments.h"
#include "engine/touched_range_read.h"
#include "engine/transaction_internal.h"

namespace fdb::engine {

using namespace internal;

namespace {

const WriteMap kNoWrites;

// QUICK_GET_KEY_VALUES_LIMIT / _BYTES: the most one mapped entry's range returns.
constexpr size_t kMappedRangeRowLimit = 2000;
constexpr int64_t kMappedRangeByteLimit = 10000000;
// The storage server maps index entries in batches of this many.
constexpr size_t kMappedBatchSize = 10;
// Bytes a mapped entry counts besides its keys and values (docs/semantics.md, "Mapped range
// reads").
constexpr int64_t kMappedEntryOverhead = 24;

// touchesKnown looks through this many of the read conflict ranges known_ has yet to learn,
// rather than have it learn them.
constexpr uint32_t kLearntConflictsLookedAt = 8;

// The keys of a result's first and last rows, in read order (nullptr when it has none).
template <typename Rows>
const std::string_view* firstRowKey(const Rows& rows) {
  return rows.empty() ? nullptr : &rows.front().key;
}
template <typename Rows>
const std::string_view* lastRowKey(const Rows& rows) {
  return rows.empty() ? nullptr : &rows.back().key;
}

}  // namespace

int64_t internal::modeByteLimit(StreamingMode mode, int iteration) {
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

const WriteMap& EngineTransaction::visibleWrites(bool snapshot) const {
  if (options_.readYourWritesDisabled) return kNoWrites;
  if (snapshot && options_.snapshotRyw <= 0) return kNoWrites;
  return writes_;
}

// ---- The merged view ----------------------------------------------------------------

std::optional<Bytes> EngineTransaction::valueOf(const Engine::Reader& reader,
                                                const WriteMap& writes, std::string_view key) {
  WriteMap::KeyState state = writes.lookup(key);
  switch (state.kind) {
    case WriteMap::KeyState::Kind::kKnown:
      return state.value ? std::optional<Bytes>(Bytes(*state.value)) : std::nullopt;
    case WriteMap::KeyState::Kind::kPendingOps:
      return WriteMap::applyOps(*state.ops, reader.get(key));
    case WriteMap::KeyState::Kind::kUnwritten: return reader.get(key);
    case WriteMap::KeyState::Kind::kUnreadable: throwUnreadable(key);
  }
  return std::nullopt;
}

std::optional<KeyValue> EngineTransaction::nextVisible(const Engine::Reader& reader,
                                                       const WriteMap& writes,
                                                       std::string_view from,
                                                       std::string_view end) const {
  if (end.empty() || end > maxReadKey()) end = maxReadKey();
  // The first database row at or after `from` that the transaction's writes leave alone.
  std::optional<KeyValue> fromDatabase;
  Bytes position(from);
  while ((fromDatabase = reader.firstAtOrAfter(position, end))) {
    if (writes.hasPoint(fromDatabase->key)) {
      position = keyAfter(fromDatabase->key);
    } else if (std::optional<std::string_view> clearedEnd =
                   writes.clearedRangeEnd(fromDatabase->key)) {
      position = std::max(keyAfter(fromDatabase->key), Bytes(*clearedEnd));
    } else {
      break;
    }
  }
  // The first written key before that whose value is present.
  std::optional<KeyValue> fromWrites;
  writes.forEachPointFrom(from, fromDatabase ? std::string_view(fromDatabase->key) : end,
                          [&](std::string_view key) {
                            std::optional<Bytes> value = valueOf(reader, writes, key);
                            if (!value) return false;
                            fromWrites = KeyValue{Bytes(key), std::move(*value)};
                            return true;
                          });
  std::optional<KeyValue>& found = fromWrites ? fromWrites : fromDatabase;
  // Stepping over keys that depend on the versionstamp is reading them.
  if (writes.touchesUnreadable(from, found ? keyAfter(found->key) : end)) throwUnreadable(from);
  return std::move(found);
}

std::optional<KeyValue> EngineTransaction::previousVisible(const Engine::Reader& reader,
                                                           const WriteMap& writes,
                                                           std::string_view before,
                                                           std::string_view begin) const {
  std::string_view limit = std::min(before, std::string_view(maxReadKey()));
  std::optional<KeyValue> fromDatabase;
  Bytes position(limit);
  while ((fromDatabase = reader.lastBefore(position, begin))) {
    if (writes.hasPoint(fromDatabase->key)) {
      position = fromDatabase->key;
    } else if (std::optional<std::string_view> clearedBegin =
                   writes.clearedRangeBegin(fromDatabase->key)) {
      position = std::min(fromDatabase->key, Bytes(*clearedBegin));
    } else {
      break;
    }
  }
  std::optional<KeyValue> fromWrites;
  Bytes bound = fromDatabase ? keyAfter(fromDatabase->key) : Bytes(begin);
  writes.forEachPointBefore(limit, bound, [&](std::string_view key) {
    std::optional<Bytes> value = valueOf(reader, writes, key);
    if (!value) return false;
    fromWrites = KeyValue{Bytes(key), std::move(*value)};
    return true;
  });
  std::optional<KeyValue>& found = fromWrites ? fromWrites : fromDatabase;
  if (writes.touchesUnreadable(found ? std::string_view(found->key) : begin, limit)) {
    throwUnreadable(limit);
  }
  return std::move(found);
}

Bytes EngineTransaction::resolve(const Engine::Reader& reader, const WriteMap& writes,
                                 std::string_view key, int offset, bool* ranOffStart,
                                 bool* ranOffEnd) const {
  // docs/semantics.md, "Key selectors": the last key < key, then `offset` keys further; ""
  // before the first key, maxReadKey past the last.
  Bytes position(key);
  if (offset >= 1) {
    std::optional<KeyValue> found;
    for (int i = 0; i < offset; ++i) {
      found = nextVisible(reader, writes, position);
      if (!found) {
        if (i < offset - 1) *ranOffEnd = true;
        return maxReadKey();
      }
      position = keyAfter(found->key);
    }
    return found->key;
  }
  for (int i = 0; i <= -offset; ++i) {
    std::optional<KeyValue> found = previousVisible(reader, writes, position);
    if (!found) {
      *ranOffStart = true;
      return Bytes();
    }
    position = found->key;
  }
  return position;
}

void EngineTransaction::resolveRange(const Engine::Reader& reader, const WriteMap& writes,
                                     std::string_view beginKey, int beginOffset,
                                     std::string_view endKey, int endOffset,
                                     ResolvedRange* range) const {
  // A bound "first key >= k" selects the same rows as k itself: no need to look at (or to
  // be able to read) what follows it, nor to copy k.
  if (beginOffset == 1) {
    range->begin = beginKey;
  } else {
    range->beginStorage =
        resolve(reader, writes, beginKey, beginOffset, &range->ranOffStart, &range->ranOffEnd);
    range->begin = range->beginStorage;
  }
  if (endOffset == 1) {
    range->end = endKey;
  } else {
    range->endStorage =
        resolve(reader, writes, endKey, endOffset, &range->ranOffStart, &range->ranOffEnd);
    range->end = range->endStorage;
  }
  // Selectors that resolve to an empty range say nothing about the ends of the data. (When
  // a selector did run off an end, compare the fully resolved keys, as FoundationDB does: a
  // "first key >= k" bound then stands for that key, not for k.)
  if (range->ranOffStart || range->ranOffEnd) {
    bool unused = false;
    Bytes fullBegin = beginOffset == 1 ? resolve(reader, writes, beginKey, 1, &unused, &unused)
                                       : Bytes(range->begin);
    Bytes fullEnd =
        endOffset == 1 ? resolve(reader, writes, endKey, 1, &unused, &unused) : Bytes(range->end);
    if (fullBegin >= fullEnd) range->ranOffStart = range->ranOffEnd = false;
  }
}

// ---- Point reads and selectors ------------------------------------------------------

template <typename Out>
auto EngineTransaction::getTo(std::string_view key, bool snapshot, Out out) {
  if (std::optional<Error> e = blockingError(false)) return out.fail(*e);
  hasReadOrWritten_ = true;
  beginOperation();
  return out.runRead([&]() __attribute__((always_inline))->std::optional<Bytes> {
    // Only keys from "\xff" on (the system space: maxReadKey() is there too) take the
    // system checks.
    size_t readLimit = kReadKeySizeLimit;
    if (key.starts_with('\xff')) {
      if (key >= maxReadKey() && key != kMetadataVersionKey) {
        throw Error(errors::kKeyOutsideLegalRange,
                    fmt::format("key '{}' is in the system key space", printable(key)));
      }
      readLimit = kSystemKeySizeLimit;
    }
    if (key.size() > readLimit) return std::nullopt;  // such keys cannot exist
    const WriteMap& writes = visibleWrites(snapshot);
    WriteMap::KeyState state = writes.lookup(key);
    if (state.kind == WriteMap::KeyState::Kind::kKnown) {
      return state.value ? std::optional<Bytes>(Bytes(*state.value)) : std::nullopt;
    }
    if (state.kind == WriteMap::KeyState::Kind::kUnreadable && !options_.bypassUnreadable) {
      throwUnreadable(key);
    }
    // Built where it is declared (no assignment): with bypass_unreadable, the database value.
    std::optional<Bytes> value = state.kind == WriteMap::KeyState::Kind::kUnreadable
                                     ? readAt(RoundTripKind::kRead).get(key)
                                     : valueOf(readAt(RoundTripKind::kRead), writes, key);
    if (!snapshot) addReadConflictKey(key);
    // The database's value of the key is known from now on (FoundationDB's snapshot cache).
    // With no writes to see, the read conflict range just added is [key, key + '\0'). (A key
    // goes to known_ before what it has yet to learn from the read conflict ranges: keys are
    // added in any order.)
    if (state.kind != WriteMap::KeyState::Kind::kUnreadable && remembersReads() &&
        (snapshot || !writes_.invisible() || !learntLastConflict())) {
      known_.insertKey(key);
    }
    return value;
  });
}

Future<std::optional<Bytes>> EngineTransaction::get(std::string_view key, bool snapshot) {
  if (isSpecialKey(key)) [[unlikely]]
    return getSpecialKey(key);
  return getTo(key, snapshot, AsFuture<std::optional<Bytes>>{this});
}
void EngineTransaction::get(std::string_view key, bool snapshot,
                            Completion<std::optional<Bytes>>& done) {
  if (isSpecialKey(key)) [[unlikely]]
    return getSpecialKey(key, done);
  getTo(key, snapshot, ToCompletion<std::optional<Bytes>>{this, done});
}

Future<Bytes> EngineTransaction::getKey(KeySelectorRef selector, bool snapshot) {
  if (std::optional<Error> e = blockingError(false)) return Future<Bytes>::failed(*e);
  hasReadOrWritten_ = true;
  beginOperation();
  return AsFuture<Bytes>{this}.runRead([&] {
    if (selector.key > maxReadKey()) {
      throw Error(errors::kKeyOutsideLegalRange,
                  fmt::format("selector key '{}' is beyond the readable key space",
                              printable(selector.key)));
    }
    Bytes key = selector.orEqual ? keyAfter(selector.key) : Bytes(selector.key);
    Bytes result;
    {
      Engine::Reader reader = readAt(RoundTripKind::kRead);
      bool ranOffStart = false, ranOffEnd = false;
      result =
          resolve(reader, visibleWrites(snapshot), key, selector.offset, &ranOffStart, &ranOffEnd);
      if (remembersReads())
        rememberSelectorRead(reader, visibleWrites(snapshot), key, selector.offset);
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

// ---- Range reads --------------------------------------------------------------------

int64_t EngineTransaction::validateRange(KeySelectorRef begin, KeySelectorRef end,
                                         const RangeOptions& options) const {
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
    throw Error(errors::kExactModeWithoutLimits, "EXACT streaming mode needs a row or byte limit");
  }
  if (begin.key > maxReadKey() || end.key > maxReadKey()) {
    throw Error(errors::kKeyOutsideLegalRange, "range endpoint beyond the readable key space");
  }
  int64_t byteLimit = modeByteLimit(options.mode, options.iteration);
  if (options.targetBytes > 0) {
    byteLimit =
        byteLimit < 0 ? options.targetBytes : std::min<int64_t>(byteLimit, options.targetBytes);
  }
  return byteLimit;
}

void EngineTransaction::addRangeReadConflict(KeySelectorRef begin, KeySelectorRef end,
                                             std::string_view beginKey, std::string_view endKey,
                                             const std::string_view* firstRow,
                                             const std::string_view* lastRow, bool more,
                                             bool reverse, const ResolvedRange& range) {
  // FoundationDB's rule (RYWImpl::addConflictRange over GetRangeReq; docs/semantics.md, "Conflict
  // ranges"): the span between the selectors' keys; a limited read stops depending on what lies
  // beyond its last row in the direction it read; a selector that ran off an end of the data
  // depends on everything up to that end; and the span always covers the rows returned.
  std::string_view conflictBegin, conflictEnd;
  Bytes afterHighestRow;  // the storage of conflictEnd when it is past the last row
  if (beginKey < endKey) {
    conflictBegin = beginKey;
    conflictEnd = endKey;
    if (!reverse && end.offset > 0 && more) conflictEnd = beginKey;
    if (reverse && begin.offset <= 1 && more) conflictBegin = endKey;
  } else {
    conflictBegin = endKey;
    conflictEnd = beginKey;
  }
  if (range.ranOffStart && begin.offset <= 0) conflictBegin = std::string_view();
  if (range.ranOffEnd && end.offset > 0) conflictEnd = maxReadKey();
  if (firstRow != nullptr) {
    std::string_view lowestRow = reverse ? *lastRow : *firstRow;
    std::string_view highestRow = reverse ? *firstRow : *lastRow;
    if ((reverse || begin.offset <= 0) && lowestRow < conflictBegin) conflictBegin = lowestRow;
    if ((!reverse || end.offset > 0) && conflictEnd <= highestRow) {
      afterHighestRow = keyAfter(highestRow);
      conflictEnd = afterHighestRow;
    }
  }
  if (conflictBegin < conflictEnd) addReadConflict(conflictBegin, conflictEnd);
}

bool EngineTransaction::touchesKnown(const WriteMap& writes, std::string_view begin,
                                     std::string_view end) {
  // What reads learnt is in known_ and in the first conflictsLearnt_ read conflict ranges:
  // looked at there while they are few.
  if (conflictsLearnt_ > kLearntConflictsLookedAt) learnConflicts();
  bool touched = known_.touches(begin, end);
  for (size_t i = 0; i < conflictsLearnt_ && !touched; ++i) {
    KeyRangeView learnt = readConflicts_[i];
    touched = begin < learnt.end && learnt.begin <= end;
  }
  if (!touched && !writes.invisible()) {
    touched = writes.touchesWrites(begin, end) ||
              writes.lookup(end).kind != WriteMap::KeyState::Kind::kUnwritten;
  }
  // The read walks what is known around it, not only within it: known_ needs all of it.
  if (touched) knownReads();
  return touched;
}

void EngineTransaction::learnConflicts() {
  for (size_t i = 0; i < conflictsLearnt_; ++i) {
    KeyRangeView range = readConflicts_[i];
    // A point read's [key, key + '\0') is the key's: the same pieces, found cheaper.
    if (range.end.size() == range.begin.size() + 1 && range.end.back() == '\0' &&
        std::memcmp(range.begin.data(), range.end.data(), range.begin.size()) == 0) {
      known_.insertKey(range.begin);
    } else {
      known_.insert(range.begin, range.end);
    }
  }
  // There are read conflict ranges, and none is left to learn from: no later one is taken
  // (until the attempt is cleared).
  conflictsLearnt_ = 0;
}

void EngineTransaction::rememberRead(std::string_view begin, std::string_view end, bool reverse,
                                     const std::string_view* lastRow) {
  if (lastRow == nullptr) {
    knownReads().insert(begin, end);
  } else if (!reverse) {
    knownReads().insert(begin, keyAfter(*lastRow));
  } else {
    knownReads().insert(*lastRow, end);
  }
}

void EngineTransaction::rememberSelectorRead(const Engine::Reader& reader, const WriteMap& writes,
                                             std::string_view key, int offset) {
  // FoundationDB resolves "first key >= key" as a forward range read of one row from `key`, and
  // "last key < key" as a reverse one below it; what those reads learn is remembered. (Other
  // offsets step over several keys: their reads are not modelled.)
  if (offset != 0 && offset != 1) return;
  const bool reverse = offset == 0;
  const std::string_view readBegin = reverse ? std::string_view() : key;
  const std::string_view readEnd = reverse ? key : std::string_view(maxReadKey());
  if (readBegin >= readEnd) return;
  std::optional<KeyValue> row;
  RangeTally tally;
  auto takeRange = [&](std::string_view from, std::string_view to) {
    if (tally.limited || from >= to) return;
    row =
        reverse ? previousVisible(reader, writes, to, from) : nextVisible(reader, writes, from, to);
    if (row) {
      tally.rows = 1;
      tally.limited = true;
    }
  };
  if (touchesKnown(writes, readBegin, readEnd)) {
    RywSegments segments(reader, writes, known_, maxReadKey());
    readTouchedRange(segments, known_, reader, readBegin, readEnd, reverse, RangeLimits{1, -1},
                     tally, takeRange);
  } else {
    takeRange(readBegin, readEnd);
    std::string_view lastRow = row ? std::string_view(row->key) : std::string_view();
    rememberRead(readBegin, readEnd, reverse, row ? &lastRow : nullptr);
  }
}

template <typename Out>
auto EngineTransaction::getRangeTo(KeySelectorRef begin, KeySelectorRef end,
                                   const RangeOptions& options, bool snapshot, Out out) {
  if (std::optional<Error> e = blockingError(false)) return out.fail(*e);
  hasReadOrWritten_ = true;
  beginOperation();
  return out.runRead([&] {
    RangeResult result;
    const RangeRequest request(begin, end, options, validateRange(begin, end, options));
    if (request.empty) return result;
    const int64_t byteLimit = request.byteLimit;
    const size_t rowLimit = request.rowLimit;
    const std::string_view beginKey = request.beginKey;
    const std::string_view endKey = request.endKey;

    const WriteMap& writes = visibleWrites(snapshot);
    const bool reverse = options.reverse;
    ResolvedRange range;
    bool remember = false;  // whether known_ is to learn what the database read returned
    {
      Engine::Reader reader = readAt(RoundTripKind::kRangeRead);
      resolveRange(reader, writes, beginKey, begin.offset, endKey, end.offset, &range);
      const std::string_view resolvedBegin = range.begin;
      const std::string_view resolvedEnd = range.end;
      RangeTally tally;
      RangeRowsBuilder& rows = threadRangeRowsBuilder();
      auto take = [&](std::string_view key, std::string_view value) {
        tally.bytes += static_cast<int64_t>(key.size() + value.size() + 8);
        rows.append(key, value);
        if (++tally.rows >= rowLimit || (byteLimit >= 0 && tally.bytes >= byteLimit)) {
          tally.limited = true;
        }
      };
      // The merged view's rows of [from, to) in read order, until a limit is reached.
      auto takeRange = [&](std::string_view from, std::string_view to)
          __attribute__((always_inline)) {
        if (writes.invisible()) {
          // Nothing of this transaction's own shows: one pass over the store.
          reader.scan(from, std::min(to, std::string_view(maxReadKey())), reverse,
                      [&](std::string_view key, std::string_view value) {
                        take(key, value);
                        return !tally.limited;
                      });
        } else if (!reverse) {
          Bytes position(from);
          while (!tally.limited && std::string_view(position) < to) {
            std::optional<KeyValue> row = nextVisible(reader, writes, position, to);
            if (!row) break;
            take(row->key, row->value);
            position = keyAfter(row->key);
          }
        } else {
          Bytes position(to);
          while (!tally.limited && from < std::string_view(position)) {
            std::optional<KeyValue> row = previousVisible(reader, writes, position, from);
            if (!row) break;
            take(row->key, row->value);
            position = std::move(row->key);
          }
        }
      };
      // Two "first key >= k" selectors leave the keys as they are: the request is not empty.
      const bool nonEmpty = (begin.offset == 1 && end.offset == 1) || resolvedBegin < resolvedEnd;
      bool touched = false;
      bool more = false;
      if (nonEmpty) {
        touched = remembersReads() && touchesKnown(writes, resolvedBegin, resolvedEnd);
        if (touched) {
          // Pieces of the range are known: read as FoundationDB's read-your-writes layer does,
          // which may stop early (docs/semantics.md, "Range reads").
          RywSegments segments(reader, writes, known_, maxReadKey());
          more = readTouchedRange(segments, known_, reader, resolvedBegin, resolvedEnd, reverse,
                                  RangeLimits{rowLimit, byteLimit}, tally, takeRange);
        } else {
          takeRange(resolvedBegin, resolvedEnd);
          more = tally.limited;
        }
      }
      result.rows = rows.build();
      result.more = more && !result.rows.empty();
      remember = nonEmpty && !touched && remembersReads();
    }
    if (!snapshot) {
      addRangeReadConflict(begin, end, beginKey, endKey, firstRowKey(result.rows),
                           lastRowKey(result.rows), result.more, options.reverse, range);
    }
    // What the read learnt: [range.begin, range.end), or up to its last row when it stopped at
    // a limit. With two "first key >= k" selectors and no writes to see, that is the read
    // conflict range just added, exactly (addRangeReadConflict).
    if (remember && (snapshot || begin.offset != 1 || end.offset != 1 || !writes_.invisible() ||
                     !learntLastConflict())) {
      rememberRead(range.begin, range.end, reverse,
                   result.more ? lastRowKey(result.rows) : nullptr);
    }
    return result;
  });
}

// A range read is the special key space's when its begin key is in it and its end key at most
// its end (ReadYourWritesTransaction::getRange).
static bool isSpecialRange(KeySelectorRef begin, KeySelectorRef end) {
  return isSpecialKey(begin.key) && end.key >= kSystemKeysEnd && end.key <= kSpecialKeysEnd;
}

Future<RangeResult> EngineTransaction::getRange(KeySelectorRef begin, KeySelectorRef end,
                                                const RangeOptions& options, bool snapshot) {
  if (isSpecialRange(begin, end)) [[unlikely]]
    return getSpecialRange(begin, end, options);
  return getRangeTo(begin, end, options, snapshot, AsFuture<RangeResult>{this});
}
void EngineTransaction::getRange(KeySelectorRef begin, KeySelectorRef end,
                                 const RangeOptions& options, bool snapshot,
                                 Completion<RangeResult>& done) {
  if (isSpecialRange(begin, end)) [[unlikely]]
    return getSpecialRange(begin, end, options, done);
  getRangeTo(begin, end, options, snapshot, ToCompletion<RangeResult>{this, done});
}

// ---- Mapped range reads -------------------------------------------------------------

Future<MappedRangeResult> EngineTransaction::getMappedRange(KeySelectorRef begin,
                                                            KeySelectorRef end,
                                                            std::string_view mapperBytes,
                                                            const RangeOptions& options,
                                                            bool snapshot) {
  if (std::optional<Error> e = blockingError(false)) return Future<MappedRangeResult>::failed(*e);
  hasReadOrWritten_ = true;
  beginOperation();
  return deliver(guarded<MappedRangeResult>([&] {
    if (snapshot || options_.readYourWritesDisabled) {
      throw Error(kUnsupportedOperation,
                  "mapped range reads are serializable and need read-your-writes");
    }
    if (begin.key >= kSystemKeysEnd) {
      throw Error(errors::kClientInvalidOperation, "mapped range read in the special key space");
    }
    const RangeRequest request(begin, end, options, validateRange(begin, end, options));
    Mapper mapper = Mapper::parse(mapperBytes);
    MappedRangeResult result;
    if (request.empty) return result;
    const int64_t byteLimit = request.byteLimit;
    const size_t rowLimit = request.rowLimit;
    const std::string_view beginKey = request.beginKey;
    const std::string_view endKey = request.endKey;

    // It does not read this transaction's writes: anything they touched is an error.
    auto failIfWritten = [&](std::string_view from, std::string_view to) {
      if (writes_.touchesWrites(from, to)) {
        throw Error(kMappedRangeReadsYourWrites,
                    fmt::format("[{}, {}) holds writes of this transaction", printable(from),
                                printable(to)));
      }
    };

    // The index entries read, copied out of the store's views into one buffer.
    struct IndexRow {
      size_t keyOffset, keySize, valueSize;
    };
    std::vector<IndexRow> index;
    Bytes indexBytes;
    auto indexKey = [&](const IndexRow& row) {
      return std::string_view(indexBytes).substr(row.keyOffset, row.keySize);
    };
    auto indexValue = [&](const IndexRow& row) {
      return std::string_view(indexBytes).substr(row.keyOffset + row.keySize, row.valueSize);
    };
    bool primaryMore = false;
    ResolvedRange range;
    {
      // One engine operation: the index scan and every secondary read at one version.
      Engine::Reader reader = readAt(RoundTripKind::kMappedRangeRead);
      resolveRange(reader, kNoWrites, beginKey, begin.offset, endKey, end.offset, &range);
      const std::string_view resolvedBegin = range.begin;
      const std::string_view resolvedEnd = range.end;
      failIfWritten(std::min(beginKey, resolvedBegin), std::max(endKey, resolvedEnd));
      // The index prefetch gets a fifth of the byte budget (docs/semantics.md, "Mapped range
      // reads").
      int64_t prefetchBytes = byteLimit < 0 ? -1 : std::max<int64_t>(1, byteLimit / 5);
      int64_t bytes = 0;
      reader.scan(
          resolvedBegin, resolvedEnd, options.reverse,
          [&](std::string_view key, std::string_view value) {
            index.push_back(IndexRow{indexBytes.size(), key.size(), value.size()});
            indexBytes.append(key).append(value);
            bytes += static_cast<int64_t>(key.size() + value.size() + 8);
            if (index.size() >= rowLimit || (prefetchBytes >= 0 && bytes >= prefetchBytes)) {
              primaryMore = true;
              return false;
            }
            return true;
          });
      // Map the entries in batches of ten until a batch exhausts the byte budget.
      MappedRangeRowsBuilder& entries = threadMappedRangeRowsBuilder();
      int64_t mappedBytes = 0;
      Bytes rangeBegin;
      Bytes rangeEnd;
      const std::string_view readable = maxReadKey();
      for (size_t i = 0; i < index.size(); ++i) {
        if (i % kMappedBatchSize == 0 && byteLimit >= 0 && mappedBytes >= byteLimit) break;
        const std::string_view entryKey = indexKey(index[i]);
        const std::string_view entryValue = indexValue(index[i]);
        mapper.buildInto(entryKey, entryValue, rangeBegin);
        // The range's end without a new buffer: strinc for a range, else the key + 0x00.
        rangeEnd.assign(rangeBegin);
        if (!mapper.isRange()) {
          rangeEnd.push_back('\0');
        } else {
          while (!rangeEnd.empty() && static_cast<uint8_t>(rangeEnd.back()) == 0xff) {
            rangeEnd.pop_back();
          }
          if (rangeEnd.empty()) rangeEnd = strinc(rangeBegin);  // throws strinc's error
          rangeEnd.back() = static_cast<char>(static_cast<uint8_t>(rangeEnd.back()) + 1);
        }
        mappedBytes +=
            kMappedEntryOverhead + static_cast<int64_t>(entryKey.size() + entryValue.size());
        failIfWritten(rangeBegin, rangeEnd);
        entries.addEntry(entryKey, entryValue, rangeBegin, rangeEnd);
        size_t rangeRows = 0;
        int64_t rangeBytes = 0;
        reader.scan(rangeBegin, std::min<std::string_view>(rangeEnd, readable), false,
                    [&](std::string_view key, std::string_view value) {
                      if (rangeRows >= kMappedRangeRowLimit || rangeBytes >= kMappedRangeByteLimit)
                        return false;
                      rangeBytes += static_cast<int64_t>(key.size() + value.size());
                      mappedBytes +=
                          kMappedEntryOverhead + static_cast<int64_t>(key.size() + value.size());
                      entries.addRangeRow(key, value);
                      ++rangeRows;
                      return true;
                    });
      }
      result.rows = entries.build();
    }
    result.more = !result.rows.empty() && (primaryMore || result.rows.size() < index.size());

    // Read conflicts: the primary range as a range read of the entries returned, and every
    // secondary range.
    addRangeReadConflict(begin, end, beginKey, endKey, firstRowKey(result.rows),
                         lastRowKey(result.rows), result.more, options.reverse, range);
    for (const MappedKeyValue& entry : result.rows)
      addReadConflict(entry.rangeBegin, entry.rangeEnd);
    return result;
  }));
}

}  // namespace fdb::engine
