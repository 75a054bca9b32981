// indexfetch — SCAN_AND_FETCH against USE_REMOTE_FETCH (docs/benchmarks.md, "indexfetch"),
// on the embedded engine.
//
// Fixture (orders_fixture.h, shared with planskip): 1,000 Orders (IDs 0..999, price
// 10 * id + 5, so the index order is the ID order) behind the VALUE index price_idx, in two
// stores of one database per arm, seeded and read back before any timer:
//   small  records of one key-value each (a 100-byte payload);
//   split  records with a 100,000-byte payload, stored as two chunks.
// Cases: small/split × limit1 (a scan over the whole index stopped after one row by a
// returned-row limit) / rows10 (IDs 100..109: prices [1005, 1095]) / rows1000 (all) ×
// forward/reverse × SCAN_AND_FETCH (pipeline size 10, the default) / USE_REMOTE_FETCH /
// ADAPTIVE (the method chosen per scan; docs/index_fetch.md).
// Arms: `rl` (no added delay) and `rl_delay250` (a simulated 250 us one-way delay per round
// trip: fdb::EngineOptions::oneWayDelayMicros).
//
// One operation = one record-layer transaction: a context, the store opened in it, the
// index scan drained (its rows kept), a read-only commit. Every operation's rows are checked
// with the timer stopped: IDs and order, each entry's key and primary key, every field, the
// payload's checksum, how many keys each record occupies, and the terminal NoNextReason.
// Before and after the timed loop an instrumented run asserts the path through the
// transaction's round-trip counters: USE_REMOTE_FETCH makes mapped-range reads and no other
// reads after the open; SCAN_AND_FETCH makes no mapped reads, and range reads for the index
// plus one per record; ADAPTIVE either of the two, the same before and after (`chose_remote`).
// Counters: rl_bench_util.h (OpMeter), and `path_mapped` / `path_ranges` (the instrumented
// run's reads after the open). Times are wall time. Label: digest=<hex> (result_digest.h) of
// the instrumented run's rows (index entries, fields, payload checksums, keys per record, in
// order) and terminal reason: the same for every fetch method and both arms.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fdb/database.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "orders_fixture.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_fetch_method.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "rl_bench_util.h"

namespace rl::bench {
namespace {

enum class Case { kLimit1, kRows10, kRows1000 };

const char* caseName(Case c) {
  switch (c) {
    case Case::kLimit1: return "limit1";
    case Case::kRows10: return "rows10";
    case Case::kRows1000: return "rows1000";
  }
  return "";
}

struct Scan {
  TupleRange range;
  ScanProperties properties;
  std::vector<int64_t> ids;  // expected, in order
  NoNextReason reason;
};

Scan scanOf(Case c, bool reverse) {
  Scan scan{TupleRange::all(),
            ScanProperties(ExecuteProperties{}, reverse),
            {},
            NoNextReason::kSourceExhausted};
  switch (c) {
    case Case::kLimit1:
      scan.properties.execute.returnedRowLimit = 1;
      scan.ids = {reverse ? kRecords - 1 : 0};
      scan.reason = NoNextReason::kReturnLimitReached;
      break;
    case Case::kRows10:
      scan.range = TupleRange::betweenInclusive(fdb::Tuple{priceOf(100)}, fdb::Tuple{priceOf(109)});
      for (int64_t id = 100; id < 110; ++id) scan.ids.push_back(id);
      break;
    case Case::kRows1000:
      for (int64_t id = 0; id < kRecords; ++id) scan.ids.push_back(id);
      break;
  }
  if (reverse) std::reverse(scan.ids.begin(), scan.ids.end());
  return scan;
}

// The measured operation: open the store, drain the scan into `rows`; the stop reason. With
// `path`, also the round trips the scan made after the open.
NoNextReason runScan(ArmFixture& fixture, const Store& store, const Scan& scan,
                     IndexFetchMethod method, std::vector<FetchedRecord>& rows,
                     fdb::RoundTrips* path = nullptr) {
  return runInContext(fixture.db, [&](RecordContext& context) {
    rows.clear();
    RecordStore records = RecordStore::open(context, store.location, fixture.metaData);
    const fdb::RoundTrips afterOpen = context.transaction().roundTrips();
    CursorPtr<FetchedRecord> cursor =
        records.scanIndexRecords(kPriceIndex, scan.range, std::nullopt, scan.properties, method);
    CursorResult<FetchedRecord> r = cursor->next();
    for (; r.hasValue(); r = cursor->next()) rows.push_back(std::move(r.value()));
    if (path != nullptr) *path = minus(context.transaction().roundTrips(), afterOpen);
    return r.noNextReason();
  });
}

void validate(const std::vector<FetchedRecord>& rows, NoNextReason reason, const Scan& scan,
              const Store& store, Size size) {
  check(reason == scan.reason, std::string("terminal reason ") +
                                   std::string(noNextReasonName(reason)) + ", expected " +
                                   std::string(noNextReasonName(scan.reason)));
  check(rows.size() == scan.ids.size(),
        std::to_string(rows.size()) + " rows, not " + std::to_string(scan.ids.size()));
  for (size_t k = 0; k < rows.size(); ++k) {
    const FetchedRecord& row = rows[k];
    const int64_t id = scan.ids[k];
    const std::string which = "row " + std::to_string(k) + " (ID " + std::to_string(id) + ")";
    check(row.entry.key() == (fdb::Tuple{priceOf(id), id}), which + ": index entry");
    check(row.entry.primaryKey() == fdb::Tuple{id}, which + ": entry primary key");
    check(row.record.has_value(), which + ": record fetched");
    check(row.record->primaryKey == fdb::Tuple{id}, which + ": record primary key");
    check(row.record->size.keyCount == keysPerRecord(size), which + ": keys of the record");
    const auto& order = dynamic_cast<const Order&>(*row.record->record);
    check(isOrder(order, id, payloadSize(size), store.payloadSums[static_cast<size_t>(id)]),
          which + ": fields and payload checksum");
  }
}

// Runs the scan instrumented and asserts its path; the round trips after the open.
fdb::RoundTrips assertPath(ArmFixture& fixture, const Store& store, const Scan& scan,
                           IndexFetchMethod method, Size size, ResultDigest* digest = nullptr) {
  std::vector<FetchedRecord> rows;
  fdb::RoundTrips path;
  const NoNextReason reason = runScan(fixture, store, scan, method, rows, &path);
  validate(rows, reason, scan, store, size);
  if (digest != nullptr) {
    for (const FetchedRecord& row : rows) {
      digest->add(std::string_view(row.entry.key().pack()));
      addOrder(*digest, dynamic_cast<const Order&>(*row.record->record), row.record->size.keyCount);
    }
    digest->add(noNextReasonName(reason));
  }
  const std::string method_name(indexFetchMethodName(method));
  const bool remotePath = method == IndexFetchMethod::kUseRemoteFetch ||
                          (method == IndexFetchMethod::kAdaptive && path.mappedRangeReads > 0);
  if (remotePath) {
    check(path.mappedRangeReads > 0 && path.rangeReads == 0 && path.reads == 0,
          method_name + ": mapped-range reads only (mapped " +
              std::to_string(path.mappedRangeReads) + ", ranges " +
              std::to_string(path.rangeReads) + ", reads " + std::to_string(path.reads) + ")");
  } else {
    check(path.mappedRangeReads == 0 &&
              path.rangeReads >= static_cast<int64_t>(scan.ids.size()) + 1 && path.reads == 0,
          method_name + ": an index scan and a read per record (mapped " +
              std::to_string(path.mappedRangeReads) + ", ranges " +
              std::to_string(path.rangeReads) + ", reads " + std::to_string(path.reads) + ")");
  }
  return path;
}

void runIndexFetch(benchmark::State& state, Arm arm, Size size, Case c, bool reverse,
                   IndexFetchMethod method) {
  try {
    ArmFixture& fixture = fixtureFor(arm);
    const Store& store = storeFor(fixture, size);
    const Scan scan = scanOf(c, reverse);
    if (method == IndexFetchMethod::kAdaptive) {
      // One scan first, so that the store's record sizes and the round-trip estimate are
      // observed, as they are for any store in use.
      std::vector<FetchedRecord> warmup;
      runScan(fixture, store, scan, method, warmup);
    }
    const fdb::RoundTrips pathBefore = assertPath(fixture, store, scan, method, size);
    OpMeter meter(fixture.db, state);
    std::vector<FetchedRecord> rows;
    rows.reserve(scan.ids.size());
    for (auto _ : state) {
      meter.begin();
      const NoNextReason reason = runScan(fixture, store, scan, method, rows);
      meter.end();
      state.PauseTiming();
      validate(rows, reason, scan, store, size);
      rows.clear();
      state.ResumeTiming();
    }
    ResultDigest digest;
    const fdb::RoundTrips pathAfter = assertPath(fixture, store, scan, method, size, &digest);
    // ADAPTIVE may choose again as its observations move.
    check(method == IndexFetchMethod::kAdaptive || pathAfter == pathBefore,
          "the same path before and after the loop");
    meter.report(state);
    digest.publish(state);
    state.counters["path_mapped"] = static_cast<double>(pathAfter.mappedRangeReads);
    state.counters["path_ranges"] = static_cast<double>(pathAfter.rangeReads);
    // ADAPTIVE: 1 when the instrumented runs took remote fetch's path, 0 for scan-and-fetch's.
    if (method == IndexFetchMethod::kAdaptive) {
      state.counters["chose_remote"] = pathAfter.mappedRangeReads > 0 ? 1 : 0;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void registerAll() {
  for (Arm arm : {Arm::kNoDelay, Arm::kDelay250}) {
    for (Size size : {Size::kSmall, Size::kSplit}) {
      for (Case c : {Case::kLimit1, Case::kRows10, Case::kRows1000}) {
        for (bool reverse : {false, true}) {
          for (IndexFetchMethod method :
               {IndexFetchMethod::kScanAndFetch, IndexFetchMethod::kUseRemoteFetch,
                IndexFetchMethod::kAdaptive}) {
            const std::string name = std::string(sizeName(size)) + "/" + caseName(c) + "/" +
                                     (reverse ? "reverse" : "forward") + "/" +
                                     std::string(indexFetchMethodName(method)) + "/" + armName(arm);
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
              runIndexFetch(s, arm, size, c, reverse, method);
            })->UseRealTime();
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace rl::bench

int main(int argc, char** argv) {
  rl::bench::retainFreedHeapForLargeRecords();
  rl::bench::registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  rl::bench::addLoadAverageContext();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
