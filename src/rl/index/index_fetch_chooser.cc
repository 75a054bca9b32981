#include "rl/index/index_fetch_chooser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "fdb/database.h"
#include "rl/context/record_context.h"

namespace rl {

namespace {

// The cost model's constants (docs/index_fetch.md, "Cost model"): the client's time per row
// of each method, per kB of record (the same for both: each copies a record's bytes as often
// as the other), and remote fetch's extra time per scan (the mapper), measured on the embedded
// engine without delay, where a round trip costs only the client's work around it.
constexpr double kScanAndFetchMicrosPerRow = 1.35;
constexpr double kRemoteMicrosPerScan = 1.3;
constexpr double kRemoteMicrosPerRow = 0.8;
constexpr double kMicrosPerKb = 0.06;
// An observed round trip includes the client's own work around it (a few microseconds on the
// embedded engine, already in the constants above): only what exceeds this is waiting.
constexpr double kClientMicrosPerRoundTrip = 10;
// Bytes a mapped entry counts besides its record (index key and value, overheads).
constexpr double kMappedEntryBytes = 80;
// Index entries per index batch of a scan-and-fetch (ITERATOR mode's first batches hold
// about this many short entries).
constexpr double kIndexEntriesPerBatch = 100;
// ITERATOR mode's byte limits, batch by batch (docs/semantics.md, "Streaming modes").
constexpr double kIteratorBytes[] = {4096,  6144,  9216,  13824, 20736,
                                     31104, 46656, 69984, 80000, 120000};
// A mapped batch maps entries ten at a time until its byte budget is spent; after a batch of
// entries of at least kLargeEntryBytes, remote fetch asks for kLargeBatchBytes a batch
// (index_fetch.cc, RemoteFetchCursor).
constexpr int64_t kMappedEntriesPerStep = 10;
constexpr double kLargeEntryBytes = 16 << 10;
constexpr double kLargeBatchBytes = 2 << 20;
// The weight of a new observation in the running averages.
constexpr double kRoundTripWeight = 0.2;
constexpr double kRecordWeight = 0.05;
// Records assumed when none were observed.
constexpr double kAssumedRecordBytes = 200;
// Mappers cached per database (forgotten all at once past this many).
constexpr size_t kCachedMappers = 1000;

// The mapped batches remote fetch needs for `rows` rows of `entryBytes` each.
int64_t mappedBatches(int64_t rows, double entryBytes) {
  int64_t batches = 0;
  for (int64_t left = rows; left > 0; ++batches) {
    int64_t entries = 0;
    if (batches > 0 && entryBytes >= kLargeEntryBytes) {
      entries = std::clamp<int64_t>(static_cast<int64_t>(kLargeBatchBytes / entryBytes), 10, 1000);
    } else {
      const double limit = kIteratorBytes[std::min<size_t>(static_cast<size_t>(batches), 9)];
      entries = static_cast<int64_t>(std::ceil(limit / entryBytes));
      entries = std::max<int64_t>(
          kMappedEntriesPerStep,
          (entries + kMappedEntriesPerStep - 1) / kMappedEntriesPerStep * kMappedEntriesPerStep);
    }
    left -= entries;
  }
  return batches;
}

}  // namespace

FetchChoice chooseIndexFetch(const FetchCostInputs& in, bool explain) {
  FetchChoice choice;
  if (!in.remoteUsable) {
    choice.method = IndexFetchMethod::kScanAndFetch;
    if (explain) choice.reason = "remote fetch cannot serve this scan: " + in.whyNotRemote;
    return choice;
  }
  int64_t rows = in.expectedRows.value_or(kAdaptiveUnboundedRows);
  if (in.rowLimit > 0) rows = std::min<int64_t>(rows, in.rowLimit);
  rows = std::max<int64_t>(rows, 1);
  const double recordBytes = in.averageRecordBytes.value_or(kAssumedRecordBytes);
  const double kb = recordBytes / 1000;
  const double wait = std::max(0.0, in.roundTripMicros - kClientMicrosPerRoundTrip);
  const double pipeline = static_cast<double>(std::max<size_t>(in.pipelineSize, 1));
  const auto n = static_cast<double>(rows);

  // SCAN_AND_FETCH: the index batches, then rounds of `pipeline` record loads in flight (the
  // first load waits for the first index batch).
  const double safRoundTrips = std::ceil(n / kIndexEntriesPerBatch) + std::ceil(n / pipeline);
  choice.scanAndFetchMicros =
      safRoundTrips * wait + n * (kScanAndFetchMicrosPerRow + kMicrosPerKb * kb);
  // USE_REMOTE_FETCH: one mapped batch after another.
  const auto remoteRoundTrips =
      static_cast<double>(mappedBatches(rows, recordBytes + kMappedEntryBytes));
  choice.remoteFetchMicros = remoteRoundTrips * wait + kRemoteMicrosPerScan +
                             n * (kRemoteMicrosPerRow + kMicrosPerKb * kb);

  choice.method = choice.remoteFetchMicros < choice.scanAndFetchMicros
                      ? IndexFetchMethod::kUseRemoteFetch
                      : IndexFetchMethod::kScanAndFetch;
  if (!explain) return choice;
  choice.reason = fmt::format(
      "{} rows ({}), records of {:.0f} bytes{}{}, round trip {:.0f} us ({:.0f} us waiting): "
      "SCAN_AND_FETCH ~{:.0f} us ({:.0f} round trips), USE_REMOTE_FETCH ~{:.0f} us ({:.0f} "
      "round trips)",
      rows,
      in.rowLimit > 0 && rows == in.rowLimit ? "the row limit"
      : in.expectedRows                      ? "expected"
                                             : "no limit: assumed",
      recordBytes, in.averageRecordBytes ? " on average" : " (assumed: none observed)",
      in.splitFraction ? fmt::format(", {:.0f}% split", *in.splitFraction * 100) : "",
      in.roundTripMicros, wait, choice.scanAndFetchMicros, safRoundTrips, choice.remoteFetchMicros,
      remoteRoundTrips);
  return choice;
}

FetchObservations::ScanView FetchObservations::beginScan(std::string_view storePrefix,
                                                         std::optional<double> roundTrip) {
  std::lock_guard lock(mutex_);
  if (roundTrip) observeRoundTripLocked(*roundTrip);
  ScanView view;
  view.roundTripMicros = roundTripMicros_;
  view.servesMappedReads = mappedReads_ != MappedReads::kUnsupported;
  view.mappedReadsConfirmed = mappedReads_ == MappedReads::kServed;
  view.generation = generation_.load(std::memory_order_relaxed);
  auto it = stores_.find(storePrefix);
  if (it == stores_.end()) return view;
  const RecordSizes& sizes = it->second;
  if (sizes.observed > 0) view.recordSizes = sizes;
  view.settled = roundTripMicros_.has_value() && sizes.observed >= kSettledRecords;
  return view;
}

std::optional<double> FetchObservations::roundTripMicros() const {
  std::lock_guard lock(mutex_);
  return roundTripMicros_;
}

void FetchObservations::observeRoundTrip(double micros) {
  std::lock_guard lock(mutex_);
  observeRoundTripLocked(micros);
}

void FetchObservations::observeRoundTripLocked(double micros) {
  changedLocked();
  roundTripMicros_ = roundTripMicros_
                         ? (1 - kRoundTripWeight) * *roundTripMicros_ + kRoundTripWeight * micros
                         : micros;
}

std::optional<FetchObservations::RecordSizes> FetchObservations::recordSizes(
    std::string_view storePrefix) const {
  std::lock_guard lock(mutex_);
  auto it = stores_.find(storePrefix);
  if (it == stores_.end()) return std::nullopt;
  return it->second;
}

void FetchObservations::observeRecord(std::string_view storePrefix, int64_t bytes, bool split) {
  std::lock_guard lock(mutex_);
  auto it = stores_.find(storePrefix);
  if (it == stores_.end()) it = stores_.emplace(std::string(storePrefix), RecordSizes{}).first;
  RecordSizes& sizes = it->second;
  // The plain mean for the first records, then a running average (so a store whose records
  // change size is followed).
  const double weight = std::max(kRecordWeight, 1.0 / static_cast<double>(sizes.observed + 1));
  sizes.averageBytes += weight * (static_cast<double>(bytes) - sizes.averageBytes);
  sizes.splitFraction += weight * ((split ? 1.0 : 0.0) - sizes.splitFraction);
  ++sizes.observed;
  changedLocked();
}

bool FetchObservations::servesMappedReads() const {
  std::lock_guard lock(mutex_);
  return mappedReads_ != MappedReads::kUnsupported;
}

bool FetchObservations::mappedReadsConfirmed() const {
  std::lock_guard lock(mutex_);
  return mappedReads_ == MappedReads::kServed;
}

void FetchObservations::setServesMappedReads(bool serves) {
  std::lock_guard lock(mutex_);
  const MappedReads status = serves ? MappedReads::kServed : MappedReads::kUnsupported;
  if (status != mappedReads_) changedLocked();
  mappedReads_ = status;
}

FetchObservations::MapperLookup FetchObservations::lookUpMapper(
    std::string_view key, std::optional<std::string>* mapper) const {
  std::lock_guard lock(mutex_);
  auto it = mappers_.find(key);
  if (it == mappers_.end()) return MapperLookup::kNotCached;
  if (!it->second) return MapperLookup::kNone;
  if (mapper != nullptr) *mapper = it->second;
  return MapperLookup::kMapper;
}

void FetchObservations::cacheMapper(std::string_view key,
                                    const std::optional<std::string>& mapper) {
  std::lock_guard lock(mutex_);
  if (mappers_.size() >= kCachedMappers) mappers_.clear();
  mappers_.emplace(std::string(key), mapper);
}

void FetchObservations::clear() {
  std::lock_guard lock(mutex_);
  mappers_.clear();
  roundTripMicros_.reset();
  stores_.clear();
  mappedReads_ = MappedReads::kUnknown;
  changedLocked();
}

uint64_t FetchObservations::nextId() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

FetchObservations& fetchObservationsFor(RecordContext& context) {
  struct Entry {
    std::weak_ptr<fdb::DatabaseBackend> database;
    std::unique_ptr<FetchObservations> observations;
  };
  static std::mutex mutex;
  static std::vector<Entry>* entries = new std::vector<Entry>();  // never destroyed
  static FetchObservations* shared = new FetchObservations();
  const std::shared_ptr<fdb::DatabaseBackend>& database = context.databaseBackend();
  if (database == nullptr) return *shared;
  // The thread's last answer, while its database lives (its entry is erased only once the
  // database is gone): no lock and no reference count on the scan path.
  struct LastFound {
    const fdb::DatabaseBackend* database = nullptr;
    std::weak_ptr<fdb::DatabaseBackend> alive;
    FetchObservations* observations = nullptr;
  };
  thread_local LastFound last;
  if (last.database == database.get() && !last.alive.expired()) return *last.observations;
  FetchObservations& found = [&]() -> FetchObservations& {
    std::lock_guard lock(mutex);
    for (auto it = entries->begin(); it != entries->end();) {
      std::shared_ptr<fdb::DatabaseBackend> held = it->database.lock();
      if (held == database) return *it->observations;
      // A database gone: its observations go too (nobody can ask for them again).
      it = held == nullptr ? entries->erase(it) : it + 1;
    }
    entries->push_back(Entry{database, std::make_unique<FetchObservations>()});
    return *entries->back().observations;
  }();
  last = LastFound{database.get(), database, &found};
  return found;
}

std::optional<double> observedRoundTripMicros(RecordContext& context) {
  const int64_t trips = context.transaction().roundTrips().total();
  if (trips <= 0) return std::nullopt;
  const auto elapsed = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                                 context.createTime())
                           .count();
  return elapsed / static_cast<double>(trips);
}

}  // namespace rl
