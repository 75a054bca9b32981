// rl::chooseIndexFetch — how IndexFetchMethod::kAdaptive picks SCAN_AND_FETCH or
// USE_REMOTE_FETCH for one index scan, and the cheap observations it picks from
// (docs/index_fetch.md has the cost model and the measurements behind it).
//
//   rl::FetchCostInputs in;
//   in.rowLimit = 1;
//   in.roundTripMicros = 500;
//   rl::FetchChoice choice = rl::chooseIndexFetch(in);
//   // choice.method == kUseRemoteFetch, choice.reason says why
//
// The observations (round trips of a database, record sizes of a store) live in one
// FetchObservations per database, found with fetchObservationsFor(context): a running
// round-trip estimate fed by the adaptive scans that choose afresh from their own
// transaction's round trips so far, and per store a running average of the records' stored
// sizes fed by the records the scans return. A thread reuses its last choice for the same
// index while the observations are settled and unchanged (docs/index_fetch.md, "What a choice
// costs").
//
// Thread-safety: chooseIndexFetch is a pure function; FetchObservations is safe to use from
// any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "rl/index/index_fetch_method.h"

namespace rl {

class RecordContext;

// Rows a scan with neither a row limit nor an expected row count is costed for.
inline constexpr int64_t kAdaptiveUnboundedRows = 1000;

// What the chooser knows about one scan.
struct FetchCostInputs {
  // Remote fetch can serve this scan (the store and index map, the read is serializable) and
  // the database serves mapped reads; `whyNotRemote` says otherwise.
  bool remoteUsable = true;
  std::string whyNotRemote;
  int rowLimit = 0;                     // the returned-row limit (0: none)
  std::optional<int64_t> expectedRows;  // the rows the caller expects, if it knows
  // The store's records: the running average of their stored bytes and of the fraction of
  // them stored in more than one key-value (nullopt: nothing observed yet).
  std::optional<double> averageRecordBytes;
  std::optional<double> splitFraction;
  double roundTripMicros = 0;  // the database's running round-trip estimate
  size_t pipelineSize = 10;    // SCAN_AND_FETCH's record loads in flight
};

struct FetchChoice {
  IndexFetchMethod method = IndexFetchMethod::kScanAndFetch;
  std::string reason;  // one line: the inputs and the estimated costs
  double scanAndFetchMicros = 0;
  double remoteFetchMicros = 0;
};

// The method the cost model (docs/index_fetch.md) says is cheaper for `inputs`; with
// `explain`, also the reason (a formatted line: left out on the scan path).
FetchChoice chooseIndexFetch(const FetchCostInputs& inputs, bool explain = true);

// The observations of one database.
class FetchObservations {
 public:
  // The running round-trip estimate in microseconds (nullopt: none observed yet).
  std::optional<double> roundTripMicros() const;
  // Folds in a round trip that took `micros`.
  void observeRoundTrip(double micros);

  struct RecordSizes {
    double averageBytes = 0;
    double splitFraction = 0;
    int64_t observed = 0;  // records
  };

  // What a scan starting now knows, under one lock: folds in `roundTrip` (if any) first.
  struct ScanView {
    std::optional<double> roundTripMicros;
    std::optional<RecordSizes> recordSizes;
    bool servesMappedReads = true;
    bool mappedReadsConfirmed = false;  // a mapped read of an adaptive scan succeeded
    // The round trip is known and the store has kSettledRecords records observed: a choice
    // made from this view may be reused (see generation()) and records need sampling only
    // now and then; before, every scan samples its records.
    bool settled = false;
    uint64_t generation = 0;  // generation() when the view was taken
  };
  // Records a store needs observed before its views are settled.
  static constexpr int64_t kSettledRecords = 64;
  ScanView beginScan(std::string_view storePrefix, std::optional<double> roundTrip);
  // The store's records (by store prefix), if any were observed.
  std::optional<RecordSizes> recordSizes(std::string_view storePrefix) const;
  // Folds in one record of the store: its stored bytes, whether it spans several key-values.
  void observeRecord(std::string_view storePrefix, int64_t bytes, bool split);

  // Whether the database serves mapped range reads: true until a mapped read failed as
  // unsupported (or a test says otherwise).
  bool servesMappedReads() const;
  // Whether it is known to serve them: an adaptive scan's mapped read succeeded (adaptive
  // scans then use remote fetch without a fallback to scan-and-fetch).
  bool mappedReadsConfirmed() const;
  // Known to serve them (true) or not to (false).
  void setServesMappedReads(bool serves);

  // Remote fetch's mapper of an index (by a key naming the index and its primary-key
  // positions), as cached: copied into `*mapper` (if not null) when there is one.
  enum class MapperLookup { kNotCached, kNone, kMapper };
  MapperLookup lookUpMapper(std::string_view key, std::optional<std::string>* mapper) const;
  void cacheMapper(std::string_view key, const std::optional<std::string>& mapper);

  // Forgets everything (tests).
  void clear();

  // Changes whenever what a choice depends on changes (a round trip or record observed, the
  // mapped reads' status, clear()): a choice made from a view of generation g still holds
  // while generation() == g. Read without the lock.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Unique among the observations of this process (a pointer may be reused).
  uint64_t id() const { return id_; }

 private:
  void observeRoundTripLocked(double micros);
  void changedLocked() { generation_.fetch_add(1, std::memory_order_release); }

  static uint64_t nextId();
  const uint64_t id_ = nextId();
  std::atomic<uint64_t> generation_{0};
  mutable std::mutex mutex_;
  std::optional<double> roundTripMicros_;
  std::map<std::string, RecordSizes, std::less<>> stores_;
  enum class MappedReads { kUnknown, kServed, kUnsupported };
  MappedReads mappedReads_ = MappedReads::kUnknown;
  std::map<std::string, std::optional<std::string>, std::less<>> mappers_;
};

// The observations of the database `context` runs on (one shared set for contexts made from
// a bare transaction).
FetchObservations& fetchObservationsFor(RecordContext& context);

// The round trip `context` has observed so far: the time since it began over the round trips
// its transaction made (nullopt before the first).
std::optional<double> observedRoundTripMicros(RecordContext& context);

}  // namespace rl
