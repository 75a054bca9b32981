#include "rl/index/index_fetch.h"

#include <fmt/format.h>
#include <algorithm>
#include <memory>
#include <utility>

#include "fdb/error.h"
#include "fdb/transaction.h"
#include "fdb/types.h"
#include "rl/cursor/cursor_limit_manager.h"
#include "rl/cursor/fallback_cursor.h"
#include "rl/cursor/key_value_cursor.h"
#include "rl/index/index_fetch_chooser.h"
#include "rl/index/remote_fetch_mapper.h"
#include "rl/store/keyspace.h"

namespace rl {

std::string_view indexFetchMethodName(IndexFetchMethod method) {
  switch (method) {
    case IndexFetchMethod::kScanAndFetch: return "SCAN_AND_FETCH";
    case IndexFetchMethod::kUseRemoteFetch: return "USE_REMOTE_FETCH";
    case IndexFetchMethod::kUseRemoteFetchWithFallback: return "USE_REMOTE_FETCH_WITH_FALLBACK";
    case IndexFetchMethod::kAdaptive: return "ADAPTIVE";
  }
  return "UNKNOWN";
}

std::string_view indexOrphanBehaviorName(IndexOrphanBehavior behavior) {
  switch (behavior) {
    case IndexOrphanBehavior::kError: return "ERROR";
    case IndexOrphanBehavior::kSkip: return "SKIP";
    case IndexOrphanBehavior::kReturn: return "RETURN";
  }
  return "UNKNOWN";
}

IndexScanSpec IndexScanSpec::of(std::string_view storePrefix, const fdb::TupleElement& subspaceKey,
                                std::vector<int> entryPrimaryKeyPositions) {
  IndexScanSpec spec;
  spec.storePrefix = fdb::Bytes(storePrefix);
  const fdb::Subspace store = fdb::Subspace::fromBytes(storePrefix);
  spec.recordsSubspace = store.subspace(fdb::Tuple{keyspace::kRecord});
  spec.indexSubspace = store.subspace(fdb::Tuple{keyspace::kIndex, subspaceKey});
  spec.entryPrimaryKeyPositions =
      std::make_shared<const std::vector<int>>(std::move(entryPrimaryKeyPositions));
  return spec;
}

namespace {

[[noreturn]] void throwOrphan(const RawIndexEntry& entry, std::string_view how) {
  std::string primaryKey;
  try {
    primaryKey = fdb::printable(entry.primaryKey().pack());
  } catch (const RecordCoreException&) {
    primaryKey = "(not decodable)";
  }
  throw OrphanIndexEntryException(
      fmt::format("record not found for {} index entry: primary key {}, index key {}", how,
                  primaryKey, fdb::printable(entry.rawKey())));
}

// --- Index entries ---

// An index KeyValueCursor's rows as RawIndexEntry values viewing its batches.
class RawIndexEntryCursor : public RecordCursor<RawIndexEntry> {
 public:
  RawIndexEntryCursor(std::unique_ptr<KeyValueCursor> inner, size_t prefixLength,
                      std::shared_ptr<const std::vector<int>> positions)
      : inner_(std::move(inner)), prefixLength_(prefixLength), positions_(std::move(positions)) {}

  CursorResult<RawIndexEntry> next() override {
    CursorResult<fdb::KeyValueRef> result = inner_->next();
    if (!result.hasValue()) return result.asNoValue<RawIndexEntry>();
    const fdb::KeyValueRef& row = result.value();
    return result.withValueOf(
        RawIndexEntry(inner_->currentBatch(), row.key, row.value, prefixLength_, positions_));
  }

 private:
  std::unique_ptr<KeyValueCursor> inner_;
  size_t prefixLength_;
  std::shared_ptr<const std::vector<int>> positions_;
};

std::unique_ptr<RawIndexEntryCursor> makeIndexEntryCursor(
    RecordContext& context, const IndexScanSpec& spec, const TupleRange& range,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties) {
  auto inner = std::make_unique<KeyValueCursor>(context, spec.indexSubspace, range, properties,
                                                continuation);
  return std::make_unique<RawIndexEntryCursor>(std::move(inner), spec.indexSubspace.key().size(),
                                               spec.entryPrimaryKeyPositions);
}

SplitLoadOptions loadOptions(const IndexScanSpec& spec, const ScanProperties& properties) {
  SplitLoadOptions options;
  options.splitLongRecords = spec.splitLongRecords;
  options.missingUnsplitRecordSuffix = spec.omitUnsplitSuffix;
  options.isolation = properties.execute.isolation;
  return options;
}

// --- SCAN_AND_FETCH ---

// One entry's record load, in flight (mapPipelined waits on get()).
class PendingIndexedRecord {
 public:
  PendingIndexedRecord(RawIndexEntry entry, PendingRecordLoad load, IndexOrphanBehavior orphans)
      : entry_(std::move(entry)), load_(std::move(load)), orphans_(orphans) {}

  IndexedRawRecord get() {
    std::optional<RawRecord> record = load_.get();
    if (!record && orphans_ == IndexOrphanBehavior::kError) throwOrphan(entry_, "an");
    return IndexedRawRecord{std::move(entry_), std::move(record)};
  }

 private:
  RawIndexEntry entry_;
  PendingRecordLoad load_;
  IndexOrphanBehavior orphans_;
};

// Starts the record load of each entry (a function object, so that the pipelined cursor
// calls it without a std::function; it keeps one buffer for the packed primary keys).
class StartRecordLoad {
 public:
  StartRecordLoad(RecordContext& context, const IndexScanSpec& spec, SplitLoadOptions options,
                  IndexOrphanBehavior orphans)
      : context_(&context), records_(spec.recordsSubspace), options_(options), orphans_(orphans) {}

  PendingIndexedRecord operator()(RawIndexEntry&& entry) {
    primaryKey_.clear();
    entry.appendPackedPrimaryKey(primaryKey_);
    PendingRecordLoad load(*context_, records_, std::string_view(primaryKey_), options_);
    return PendingIndexedRecord(std::move(entry), std::move(load), orphans_);
  }

 private:
  RecordContext* context_;
  fdb::Subspace records_;
  SplitLoadOptions options_;
  IndexOrphanBehavior orphans_;
  fdb::Bytes primaryKey_;
};

CursorPtr<IndexedRawRecord> scanAndFetch(RecordContext& context, const IndexScanSpec& spec,
                                         const TupleRange& range,
                                         const std::optional<fdb::Bytes>& continuation,
                                         const ScanProperties& properties,
                                         IndexOrphanBehavior orphans, size_t pipelineSize) {
  CursorPtr<RawIndexEntry> entries =
      makeIndexEntryCursor(context, spec, range, continuation, properties);
  CursorPtr<IndexedRawRecord> records = mapPipelined(
      std::move(entries), StartRecordLoad(context, spec, loadOptions(spec, properties), orphans),
      pipelineSize == 0 ? 1 : pipelineSize);
  if (orphans != IndexOrphanBehavior::kSkip) return records;
  return filter(std::move(records),
                [](const IndexedRawRecord& indexed) { return indexed.record.has_value(); });
}

// --- USE_REMOTE_FETCH ---

// A mapped batch larger than this is not kept alive by entries whose records were copied out
// of it (RemoteFetchCursor::next).
constexpr size_t kPinnedBatchBytes = 128 << 10;
// Mapped entries of at least this many bytes (with their records) get batches of about
// kMappedBatchBytes.
constexpr size_t kLargeMappedEntryBytes = 16 << 10;
constexpr size_t kMappedBatchBytes = 2 << 20;

// The index scan of a KeyValueCursor, read with getMappedRange: each entry comes with its
// record's key-values, assembled here (forward: mapped rows are in key order in both scan
// directions). Same range, selectors, batches, limits and continuations as the index scan.
class RemoteFetchCursor : public RecordCursor<IndexedRawRecord> {
 public:
  RemoteFetchCursor(RecordContext& context, const IndexScanSpec& spec, const TupleRange& range,
                    const ScanProperties& properties, const std::optional<fdb::Bytes>& continuation,
                    fdb::Bytes mapper, IndexOrphanBehavior orphans)
      : spec_(spec),
        orphans_(orphans),
        limits_(context.createTime(), properties.execute),
        unsplitter_(spec.recordsSubspace.key().size(), 0) {
    KeyValueScanBounds bounds = KeyValueScanBounds::of(
        spec.indexSubspace, KeyEndpoints::of(spec.indexSubspace, range), properties, continuation);
    prefixLength_ = bounds.prefixLength;
    lastSuffix_ = std::move(bounds.resumedSuffix);
    rowLimit_ = properties.execute.normalizedRowLimit();
    entries_.emplace(MappedSource{&context, std::move(mapper)}, std::move(bounds.begin),
                     std::move(bounds.end), rowLimit_,
                     toFdbStreamingMode(properties.streamingMode, rowLimit_), properties.reverse);
  }

  CursorResult<IndexedRawRecord> next() override {
    if (stopped_) return *stopped_;
    while (true) {
      if (!limits_.tryRecordScan()) {
        return stop(*limits_.stoppedReason());
      }
      const fdb::MappedKeyValue* mapped = entries_->next();
      if (mapped == nullptr) {
        return stop(rowLimit_ != 0 && valuesSeen_ >= rowLimit_ ? NoNextReason::kReturnLimitReached
                                                               : NoNextReason::kSourceExhausted);
      }
      limits_.reportScannedBytes(static_cast<int64_t>(mapped->key.size() + mapped->value.size()));
      ++valuesSeen_;
      if (!lastSuffix_) lastSuffix_.emplace();
      lastSuffix_->assign(mapped->key.substr(std::min(prefixLength_, mapped->key.size())));

      // An entry views its batch and keeps it alive. A batch of large records holds every
      // record's chunks: when a record is assembled out of its chunks (a copy), an entry
      // viewing the batch would pin them all for as long as the caller keeps the row, doubling
      // the memory a drained scan holds (docs/benchmarks.md, "indexfetch"). Such entries get
      // their own copy of their few bytes instead.
      const bool ownEntry =
          entries_->batch()->rows.blockBytes() > kPinnedBatchBytes && mapped->rangeRows.size() > 1;
      RawIndexEntry entry =
          ownEntry
              ? RawIndexEntry::copyOf(mapped->key, mapped->value, spec_.indexSubspace.key().size(),
                                      spec_.entryPrimaryKeyPositions)
              : RawIndexEntry(entries_->batch(), mapped->key, mapped->value,
                              spec_.indexSubspace.key().size(), spec_.entryPrimaryKeyPositions);
      std::optional<RawRecord> record = reconstruct(entry, mapped->rangeRows);
      if (!record) {
        if (orphans_ == IndexOrphanBehavior::kError) throwOrphan(entry, "a prefetched");
        if (orphans_ == IndexOrphanBehavior::kSkip) continue;
      } else {
        // The index entry's bytes are counted above; add the record's (docs/format.md, "Index
        // fetch").
        limits_.reportScannedBytes(static_cast<int64_t>(record->sizes.keySize) +
                                   record->sizes.valueSize);
      }
      return CursorResult<IndexedRawRecord>::withValue(
          IndexedRawRecord{std::move(entry), std::move(record)},
          Continuation::afterKeySuffix(*lastSuffix_));
    }
  }

 private:
  CursorResult<IndexedRawRecord> stop(NoNextReason reason) {
    if (reason == NoNextReason::kSourceExhausted) {
      stopped_ = CursorResult<IndexedRawRecord>::exhausted();
    } else {
      stopped_ = CursorResult<IndexedRawRecord>::withoutValue(
          reason, lastSuffix_ ? Continuation::afterKeySuffix(*lastSuffix_) : Continuation::start());
    }
    return *stopped_;
  }

  // The record from the key-values the mapper read for `entry` (nullopt: none).
  std::optional<RawRecord> reconstruct(const RawIndexEntry& entry, const fdb::KeyValueRefs& rows) {
    if (rows.empty()) return std::nullopt;
    if (!spec_.splitLongRecords && spec_.omitUnsplitSuffix) {
      // The legacy layout: the record is the one key-value at (pk) itself.
      RawRecord record{entry.primaryKey(), fdb::Bytes(rows.front().value), std::nullopt, {}};
      record.sizes.set(rows.front().key, rows.front().value);
      return record;
    }
    // Every row starts with the records subspace and the packed primary key.
    primaryKey_.clear();
    entry.appendPackedPrimaryKey(primaryKey_);
    unsplitter_ = SingleRecordUnsplitter(spec_.recordsSubspace.key().size(),
                                         spec_.recordsSubspace.key().size() + primaryKey_.size());
    unsplitter_.add(rows, entries_->batch());  // the record views the batch, as the entry does
    return unsplitter_.finish(fdb::Tuple::unpack(primaryKey_));
  }

  // Issues the mapped range reads (always serializable: FoundationDB refuses snapshot ones).
  struct MappedSource {
    RecordContext* context;
    fdb::Bytes mapper;
    fdb::Future<fdb::MappedRangeResult> read(const fdb::KeySelector& begin,
                                             const fdb::KeySelector& end,
                                             const fdb::RangeOptions& options) const {
      return context->transaction().getMappedRange(begin, end, mapper, options);
    }
    // Batches of large records are sized by bytes: ITERATOR mode's byte budgets hold ten of
    // them a batch (a mapped read maps ten entries at a time), as many round trips as ten
    // pipelined record loads; this asks for about kMappedBatchBytes a batch instead
    // (docs/index_fetch.md, "Batches of large records").
    int nextBatchRows(const fdb::MappedRangeResult& batch) const {
      if (batch.rows.empty()) return 0;
      const size_t perEntry = batch.rows.blockBytes() / batch.rows.size();
      if (perEntry < kLargeMappedEntryBytes) return 0;
      return static_cast<int>(std::clamp<size_t>(kMappedBatchBytes / perEntry, 10, 1000));
    }
  };

  const IndexScanSpec spec_;
  IndexOrphanBehavior orphans_;
  CursorLimitManager limits_;
  size_t prefixLength_ = 0;
  int rowLimit_ = 0;
  int valuesSeen_ = 0;
  std::optional<BatchedRangeReader<fdb::MappedRangeResult, MappedSource>> entries_;
  SingleRecordUnsplitter unsplitter_;
  fdb::Bytes primaryKey_;

  std::optional<fdb::Bytes> lastSuffix_;
  std::optional<CursorResult<IndexedRawRecord>> stopped_;
};

// Why remote fetch cannot serve this scan (nullopt: it can), and its mapper when it can.
// `observations` (if given) caches the mapper of each index.
std::optional<std::string> whyNotRemote(const IndexScanSpec& spec, const ScanProperties& properties,
                                        std::optional<fdb::Bytes>* mapperOut = nullptr,
                                        FetchObservations* observations = nullptr) {
  const std::vector<int>& positions =
      spec.entryPrimaryKeyPositions ? *spec.entryPrimaryKeyPositions : std::vector<int>{};
  if (positions.empty()) {
    return "remote fetch needs the records' primary key in the index entries (no primary-key "
           "positions given)";
  }
  if (properties.execute.isolation == IsolationLevel::kSnapshot) {
    return "remote fetch reads are serializable: getMappedRange refuses snapshot reads";
  }
  std::optional<fdb::Bytes> mapper;
  if (observations != nullptr) {
    // Built in place each scan: a thread's key keeps its capacity (no allocation per scan).
    thread_local fdb::Bytes cacheKey;
    cacheKey.assign(spec.indexSubspace.key());
    for (int position : positions) cacheKey.append(reinterpret_cast<const char*>(&position), 4);
    switch (observations->lookUpMapper(cacheKey, mapperOut)) {
      case FetchObservations::MapperLookup::kMapper: return std::nullopt;
      case FetchObservations::MapperLookup::kNone: break;  // explained below
      case FetchObservations::MapperLookup::kNotCached:
        mapper = index::remoteFetchMapper(spec.storePrefix, spec.indexSubspace.key(), positions);
        observations->cacheMapper(cacheKey, mapper);
    }
  } else {
    mapper = index::remoteFetchMapper(spec.storePrefix, spec.indexSubspace.key(), positions);
  }
  if (!mapper) {
    return fmt::format(
        "remote fetch cannot be used: the store prefix {} (or the index subspace {}) is not a "
        "tuple the storage server can parse (no nested tuples, UUIDs or big integers)",
        fdb::printable(spec.storePrefix), fdb::printable(spec.indexSubspace.key()));
  }
  if (mapperOut != nullptr) *mapperOut = std::move(mapper);
  return std::nullopt;
}

CursorPtr<IndexedRawRecord> remoteFetch(RecordContext& context, const IndexScanSpec& spec,
                                        const TupleRange& range,
                                        const std::optional<fdb::Bytes>& continuation,
                                        const ScanProperties& properties,
                                        IndexOrphanBehavior orphans,
                                        FetchObservations* observations = nullptr) {
  std::optional<fdb::Bytes> mapper;
  if (std::optional<std::string> why = whyNotRemote(spec, properties, &mapper, observations)) {
    throw UnsupportedRemoteFetchIndexException(*why);
  }
  return std::make_unique<RemoteFetchCursor>(context, spec, range, properties, continuation,
                                             std::move(*mapper), orphans);
}

// Remote fetch, falling back to scan-and-fetch when it cannot serve the scan or fails once
// (spec.log is told why). `onFailure` (if set) is told a failure of remote fetch's reads.
CursorPtr<IndexedRawRecord> remoteFetchWithFallback(
    RecordContext& context, const IndexScanSpec& spec, const TupleRange& range,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties,
    IndexOrphanBehavior orphanBehavior, size_t pipelineSize,
    std::function<void(const std::string&)> onFailure, FetchObservations* observations) {
  auto fallback = [&context, spec, range, properties, orphanBehavior, pipelineSize](
                      const std::optional<fdb::Bytes>& resumeAt, size_t returned) {
    // Go on from the last value returned: what was skipped and returned is done.
    ScanProperties rest = properties;
    if (returned > 0) {
      rest.execute.skip = 0;
      const int rowLimit = rest.execute.normalizedRowLimit();
      // The remote cursor stops at its row limit without reading further, so a failure
      // leaves at least one row to go.
      if (rowLimit != 0) {
        rest.execute.returnedRowLimit = std::max(1, rowLimit - static_cast<int>(returned));
      }
    }
    return scanAndFetch(context, spec, range, resumeAt, rest, orphanBehavior, pipelineSize);
  };
  CursorPtr<IndexedRawRecord> remote;
  try {
    remote =
        remoteFetch(context, spec, range, continuation, properties, orphanBehavior, observations);
  } catch (const std::exception& e) {
    // Remote fetch cannot serve this scan: the client fetches (docs/format.md, "Index fetch").
    if (spec.log) {
      spec.log(std::string("index fetch: remote fetch unavailable, using SCAN_AND_FETCH: ") +
               e.what());
    }
    return fallback(continuation, 0);
  }
  std::function<void(const std::string&)> onFallback;
  if (spec.log || onFailure) {
    onFallback = [log = spec.log, onFailure = std::move(onFailure)](const std::string& failure) {
      if (onFailure) onFailure(failure);
      if (log) log("index fetch: remote fetch failed, continuing with SCAN_AND_FETCH: " + failure);
    };
  }
  return std::make_unique<FallbackCursor<IndexedRawRecord>>(std::move(remote), fallback,
                                                            continuation, std::move(onFallback));
}

// Whether a mapped read failed because the backend does not serve mapped reads at all.
bool isUnsupportedMappedRead(const std::string& failure) {
  // unsupported_operation (2108): what a client or server without getMappedRange answers.
  return failure.find("unsupported_operation") != std::string::npos ||
         failure.find("2108") != std::string::npos;
}

// Records sampled from an adaptive scan (its first ones) for the store's observations.
constexpr int kObservedRecordsPerScan = 8;

// The cost model's inputs for a scan (docs/index_fetch.md); `view` from beginScan.
FetchCostInputs costInputs(const IndexScanSpec& spec, const ScanProperties& properties,
                           size_t pipelineSize, const FetchObservations::ScanView& view,
                           bool explain, FetchObservations& observations) {
  FetchCostInputs inputs;
  if (std::optional<std::string> why = whyNotRemote(spec, properties, nullptr, &observations)) {
    inputs.remoteUsable = false;
    if (explain) inputs.whyNotRemote = std::move(*why);
  } else if (!view.servesMappedReads) {
    inputs.remoteUsable = false;
    inputs.whyNotRemote = "the database does not serve mapped range reads";
  }
  inputs.rowLimit = properties.execute.normalizedRowLimit();
  inputs.expectedRows = spec.expectedRows;
  if (view.recordSizes) {
    inputs.averageRecordBytes = view.recordSizes->averageBytes;
    inputs.splitFraction = view.recordSizes->splitFraction;
  }
  inputs.roundTripMicros = view.roundTripMicros.value_or(0);
  inputs.pipelineSize = pipelineSize;
  return inputs;
}

// An adaptive scan's choice, reused by the thread's next scans of the same index with the same
// limits while the database's observations stay as they were (their generation), up to
// kReusedChoiceScans scans: the choice then costs a few comparisons instead of two locked
// lookups, a clock read and the cost model (docs/index_fetch.md, "What a choice costs").
constexpr int kReusedChoiceScans = 15;

struct ReusedChoice {
  uint64_t observationsId = 0;  // 0: nothing held
  uint64_t generation = 0;
  fdb::Bytes storePrefix;
  fdb::Bytes indexSubspace;
  std::shared_ptr<const std::vector<int>> positions;
  IsolationLevel isolation = IsolationLevel::kSerializable;
  int rowLimit = 0;
  std::optional<int64_t> expectedRows;
  size_t pipelineSize = 0;
  int scansLeft = 0;
  IndexFetchMethod method = IndexFetchMethod::kScanAndFetch;
  bool mappedReadsConfirmed = false;
  std::optional<fdb::Bytes> mapper;  // remote fetch's, when it was chosen

  bool holdsFor(const FetchObservations& observations, const IndexScanSpec& spec,
                const ScanProperties& properties, size_t pipeline) const {
    const auto samePositions = [&] {
      if (positions == spec.entryPrimaryKeyPositions) return true;
      return positions && spec.entryPrimaryKeyPositions &&
             *positions == *spec.entryPrimaryKeyPositions;
    };
    return observationsId == observations.id() && generation == observations.generation() &&
           rowLimit == properties.execute.normalizedRowLimit() &&
           isolation == properties.execute.isolation && pipelineSize == pipeline &&
           expectedRows == spec.expectedRows && storePrefix == spec.storePrefix &&
           indexSubspace == spec.indexSubspace.key() && samePositions();
  }
};

CursorPtr<IndexedRawRecord> adaptiveFetch(RecordContext& context, const IndexScanSpec& spec,
                                          const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties,
                                          IndexOrphanBehavior orphans, size_t pipelineSize) {
  FetchObservations& observations = fetchObservationsFor(context);
  thread_local ReusedChoice reused;
  if (reused.scansLeft > 0 && reused.holdsFor(observations, spec, properties, pipelineSize)) {
    --reused.scansLeft;
    if (reused.method != IndexFetchMethod::kUseRemoteFetch) {
      return scanAndFetch(context, spec, range, continuation, properties, orphans, pipelineSize);
    }
    if (reused.mappedReadsConfirmed && reused.mapper) {
      return std::make_unique<RemoteFetchCursor>(context, spec, range, properties, continuation,
                                                 *reused.mapper, orphans);
    }
  }
  // Choose afresh: fold in the round trip, sample the records (while the store is young, or
  // when the reused choice ran out), and remember the choice when the view is settled.
  const bool expired = reused.scansLeft == 0 && reused.observationsId == observations.id();
  const FetchObservations::ScanView view =
      observations.beginScan(spec.storePrefix, observedRoundTripMicros(context));
  const FetchChoice choice = chooseIndexFetch(
      costInputs(spec, properties, pipelineSize, view, false, observations), false);
  const bool sampleRecords = !view.settled || expired;
  reused.observationsId = 0;
  if (view.settled) {
    reused.observationsId = observations.id();
    reused.generation = view.generation;
    reused.storePrefix.assign(spec.storePrefix);
    reused.indexSubspace.assign(spec.indexSubspace.key());
    reused.positions = spec.entryPrimaryKeyPositions;
    reused.isolation = properties.execute.isolation;
    reused.rowLimit = properties.execute.normalizedRowLimit();
    reused.expectedRows = spec.expectedRows;
    reused.pipelineSize = pipelineSize;
    reused.scansLeft = kReusedChoiceScans;
    reused.method = choice.method;
    reused.mappedReadsConfirmed = view.mappedReadsConfirmed;
    reused.mapper.reset();
  }
  CursorPtr<IndexedRawRecord> cursor;
  // Set when remote fetch failed and scan-and-fetch took over (rows after that do not confirm
  // that the database serves mapped reads).
  std::shared_ptr<bool> remoteFailed;
  if (choice.method != IndexFetchMethod::kUseRemoteFetch) {
    cursor = scanAndFetch(context, spec, range, continuation, properties, orphans, pipelineSize);
  } else if (view.mappedReadsConfirmed) {
    // Known to serve mapped reads: no fallback layer between the caller and each row.
    std::optional<fdb::Bytes> mapper;
    if (std::optional<std::string> why = whyNotRemote(spec, properties, &mapper, &observations)) {
      throw UnsupportedRemoteFetchIndexException(*why);
    }
    if (view.settled) reused.mapper = *mapper;
    cursor = std::make_unique<RemoteFetchCursor>(context, spec, range, properties, continuation,
                                                 std::move(*mapper), orphans);
  } else {
    remoteFailed = std::make_shared<bool>(false);
    cursor = remoteFetchWithFallback(
        context, spec, range, continuation, properties, orphans, pipelineSize,
        [&observations, remoteFailed](const std::string& failure) {
          *remoteFailed = true;
          if (isUnsupportedMappedRead(failure)) observations.setServesMappedReads(false);
        },
        &observations);
  }
  if (!sampleRecords && !remoteFailed) return cursor;
  return map(std::move(cursor), [&observations, prefix = spec.storePrefix, sampleRecords,
                                 remoteFailed, seen = 0](IndexedRawRecord&& row) mutable {
    if (remoteFailed && !*remoteFailed) {
      // A row from a mapped read: the database serves them.
      observations.setServesMappedReads(true);
      remoteFailed.reset();
    }
    if (sampleRecords && seen < kObservedRecordsPerScan && row.record) {
      ++seen;
      observations.observeRecord(prefix,
                                 static_cast<int64_t>(row.record->sizes.keySize) +
                                     static_cast<int64_t>(row.record->sizes.valueSize),
                                 row.record->sizes.isSplit);
    }
    return std::move(row);
  });
}

}  // namespace

CursorPtr<RawIndexEntry> scanIndexEntries(RecordContext& context, const IndexScanSpec& spec,
                                          const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties) {
  return makeIndexEntryCursor(context, spec, range, continuation, properties);
}

CursorPtr<IndexedRawRecord> scanIndexRecords(
    RecordContext& context, const IndexScanSpec& spec, const TupleRange& range,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties,
    IndexFetchMethod method, IndexOrphanBehavior orphanBehavior, size_t pipelineSize) {
  switch (method) {
    case IndexFetchMethod::kScanAndFetch:
      return scanAndFetch(context, spec, range, continuation, properties, orphanBehavior,
                          pipelineSize);
    case IndexFetchMethod::kUseRemoteFetch:
      // The mapper of each index is built once per database (FetchObservations caches it).
      return remoteFetch(context, spec, range, continuation, properties, orphanBehavior,
                         &fetchObservationsFor(context));
    case IndexFetchMethod::kUseRemoteFetchWithFallback: break;
    case IndexFetchMethod::kAdaptive:
      return adaptiveFetch(context, spec, range, continuation, properties, orphanBehavior,
                           pipelineSize);
  }
  return remoteFetchWithFallback(context, spec, range, continuation, properties, orphanBehavior,
                                 pipelineSize, nullptr, &fetchObservationsFor(context));
}

FetchChoice chooseAdaptiveFetch(RecordContext& context, const IndexScanSpec& spec,
                                const ScanProperties& properties, size_t pipelineSize) {
  FetchObservations& observations = fetchObservationsFor(context);
  const FetchObservations::ScanView view =
      observations.beginScan(spec.storePrefix, observedRoundTripMicros(context));
  return chooseIndexFetch(costInputs(spec, properties, pipelineSize, view, true, observations),
                          true);
}

}  // namespace rl
