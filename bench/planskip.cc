// planskip — queries the planner plans to an index scan, with skip (docs/benchmarks.md,
// "planskip"), and the query layer's targets measured side by side, on the embedded engine.
//
// Fixture: orders_fixture.h's small store (1,000 Orders of one key-value each, price
// 10 * id + 5, the VALUE index price_idx), on the arms `rl` (no added delay) and
// `rl_delay250` (a simulated 250 us one-way delay per round trip).
//
// skip3/<rows>/<direction>/<method>/<arm>: a RecordQuery sorted by price (reversed for
// `reverse`) whose filter selects rows10 (price in [1005, 1095]: IDs 100..109) or rows1000
// (price >= 5: all), planned by store.planQuery with the fetch method (SCAN_AND_FETCH,
// pipeline 10; USE_REMOTE_FETCH) to Index(price_idx ...), executed with ExecuteProperties
// skip 3: 7 or 997 rows. The plan is made once, before the timer, and its explain line is
// checked. One operation = one record-layer transaction: a context, the store opened in it,
// executeQuery drained (its rows kept), a read-only commit. Every operation's rows are
// checked with the timer stopped: IDs and order, each row's index entry, primary key, every
// field, the payload's checksum, keys per record, and the terminal NoNextReason. Before and
// after the timed loop an instrumented run asserts the path with the round-trip counters:
// USE_REMOTE_FETCH makes mapped-range reads and no other reads after the open; SCAN_AND_FETCH
// no mapped reads, and one range read per returned record besides the index's — the skipped
// entries' records are not loaded. Label: digest=<hex> (result_digest.h) of the
// instrumented run's rows (index entries, fields, payload checksums, keys per record, in
// order) and terminal reason: the same for both fetch methods and both arms.
//
// targets/...: the targets, in the same run (`rl` arm):
//   targets/plan/five_indexes           RecordQueryPlanner::plan of a two-predicate query
//                                       (customer = "customer-3" AND price >= 1000) on
//                                       metadata with five indexes, the planner made once;
//   targets/plan/five_indexes/store     the same through store.planQuery on an open store;
//   targets/<rows>/query                the rows10 / rows1000 query (no skip) executed from
//                                       its plan (made once), SCAN_AND_FETCH, forward;
//   targets/<rows>/scanIndexRecords     the same rows by a hand-written scanIndexRecords of
//                                       the same range: the baseline.
// Counters: rl_bench_util.h (OpMeter), `rows` per operation and `allocs_per_row`; the plan
// benchmarks count allocations per plan. A failed check fails the benchmark and the process
// exits with status 1.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "alloc_counter.h"
#include "fdb/database.h"
#include "fdb/tuple.h"
#include "orders_fixture.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_fetch_method.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/query/queried_record.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "rl_bench_util.h"

namespace rl::bench {
namespace {

constexpr int kSkip = 3;

enum class Rows { kRows10, kRows1000 };
const char* rowsName(Rows rows) { return rows == Rows::kRows10 ? "rows10" : "rows1000"; }

std::atomic<bool> failed{false};  // a benchmark failed: the process exits with status 1

// Runs `body`; a failure skips the benchmark with its message and marks the run failed.
template <typename Body>
void guarded(benchmark::State& state, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    failed = true;
    state.SkipWithError(e.what());
  }
}

// The index range of each case: [1005, 1095] or [5, end).
TupleRange rangeOf(Rows rows) {
  return rows == Rows::kRows10
             ? TupleRange::betweenInclusive(fdb::Tuple{priceOf(100)}, fdb::Tuple{priceOf(109)})
             : TupleRange::between(fdb::Tuple{priceOf(0)}, std::nullopt);
}

// IDs the case selects, in the order of the scan, after `skip`.
std::vector<int64_t> idsOf(Rows rows, bool reverse, int skip) {
  std::vector<int64_t> ids;
  const int64_t first = rows == Rows::kRows10 ? 100 : 0;
  const int64_t end = rows == Rows::kRows10 ? 110 : kRecords;
  for (int64_t id = first; id < end; ++id) ids.push_back(id);
  if (reverse) std::reverse(ids.begin(), ids.end());
  ids.erase(ids.begin(), ids.begin() + std::min<ptrdiff_t>(skip, std::ssize(ids)));
  return ids;
}

struct QueryCase {
  RecordQuery query;
  std::string explain;  // the plan it must get
  std::vector<int64_t> ids;
  int skip = 0;
};

QueryCase queryCaseOf(Rows rows, bool reverse, int skip) {
  QueryCase c;
  if (rows == Rows::kRows10) {
    c.query.filter = Query::allOf(Query::field("price").greaterThanOrEquals(priceOf(100)),
                                  Query::field("price").lessThanOrEquals(priceOf(109)));
    c.explain = "Index(price_idx [[1005],[1095]]";
  } else {
    c.query.filter = Query::field("price").greaterThanOrEquals(priceOf(0));
    c.explain = "Index(price_idx [[5],>";
  }
  c.explain += reverse ? " REVERSE)" : ")";
  c.query.recordTypes = {"Order"};
  c.query.sort = field("price");
  c.query.sortReverse = reverse;
  c.ids = idsOf(rows, reverse, skip);
  c.skip = skip;
  return c;
}

// The case's plan with `method`, made once (in a transaction of its own) and checked.
RecordQueryPlanPtr planOf(ArmFixture& fixture, const Store& store, const QueryCase& c,
                          IndexFetchMethod method) {
  RecordQueryPlannerConfiguration configuration;
  configuration.indexFetchMethod = method;
  RecordQueryPlanPtr plan = runInContext(fixture.db, [&](RecordContext& context) {
    return RecordStore::open(context, store.location, fixture.metaData)
        .planQuery(c.query, configuration);
  });
  check(plan->explain() == c.explain, "plan " + plan->explain() + ", expected " + c.explain);
  check(plan->kind() == RecordQueryPlan::Kind::kIndex &&
            dynamic_cast<const RecordQueryIndexPlan&>(*plan).fetchMethod() == method,
        "an index plan with the fetch method asked for");
  return plan;
}

// The measured operation: open the store, drain the plan into `rows`; the stop reason. With
// `path`, also the round trips the query made after the open.
NoNextReason runQuery(ArmFixture& fixture, const Store& store, const RecordQueryPlan& plan,
                      int skip, std::vector<QueriedRecord>& rows, fdb::RoundTrips* path = nullptr) {
  return runInContext(fixture.db, [&](RecordContext& context) {
    rows.clear();
    RecordStore records = RecordStore::open(context, store.location, fixture.metaData);
    const fdb::RoundTrips afterOpen = context.transaction().roundTrips();
    ExecuteProperties execute;
    execute.skip = skip;
    CursorPtr<QueriedRecord> cursor = records.executeQuery(plan, std::nullopt, execute);
    CursorResult<QueriedRecord> r = cursor->next();
    for (; r.hasValue(); r = cursor->next()) rows.push_back(std::move(r.value()));
    if (path != nullptr) *path = minus(context.transaction().roundTrips(), afterOpen);
    return r.noNextReason();
  });
}

// One row against order `id` of the small store.
void checkRow(const std::optional<fdb::Tuple>& entry, const LoadedRecord& record, int64_t id,
              const Store& store, const std::string& which) {
  check(entry == (fdb::Tuple{priceOf(id), id}), which + ": index entry");
  check(record.primaryKey == fdb::Tuple{id}, which + ": primary key");
  check(record.size.keyCount == keysPerRecord(Size::kSmall), which + ": keys of the record");
  const auto& order = dynamic_cast<const Order&>(*record.record);
  check(isOrder(order, id, payloadSize(Size::kSmall), store.payloadSums[static_cast<size_t>(id)]),
        which + ": fields and payload checksum");
}

void validate(const std::vector<QueriedRecord>& rows, NoNextReason reason,
              const std::vector<int64_t>& ids, const Store& store) {
  check(reason == NoNextReason::kSourceExhausted,
        "terminal reason " + std::string(noNextReasonName(reason)));
  check(rows.size() == ids.size(),
        std::to_string(rows.size()) + " rows, not " + std::to_string(ids.size()));
  for (size_t k = 0; k < rows.size(); ++k) {
    const std::string which = "row " + std::to_string(k) + " (ID " + std::to_string(ids[k]) + ")";
    check(!rows[k].partial, which + ": a whole record");
    checkRow(rows[k].indexEntry ? std::optional(rows[k].indexEntry->key()) : std::nullopt, rows[k],
             ids[k], store, which);
  }
}

// Runs the query instrumented and asserts its path; the round trips after the open.
fdb::RoundTrips assertPath(ArmFixture& fixture, const Store& store, const RecordQueryPlan& plan,
                           const QueryCase& c, IndexFetchMethod method,
                           ResultDigest* digest = nullptr) {
  std::vector<QueriedRecord> rows;
  fdb::RoundTrips path;
  const NoNextReason reason = runQuery(fixture, store, plan, c.skip, rows, &path);
  validate(rows, reason, c.ids, store);
  if (digest != nullptr) {
    for (const QueriedRecord& row : rows) {
      if (row.indexEntry) digest->add(std::string_view(row.indexEntry->key().pack()));
      addOrder(*digest, dynamic_cast<const Order&>(*row.record), row.size.keyCount);
    }
    digest->add(noNextReasonName(reason));
  }
  const std::string counts = " (mapped " + std::to_string(path.mappedRangeReads) + ", ranges " +
                             std::to_string(path.rangeReads) + ", reads " +
                             std::to_string(path.reads) + ")";
  const auto returned = static_cast<int64_t>(c.ids.size());
  if (method == IndexFetchMethod::kUseRemoteFetch) {
    check(path.mappedRangeReads > 0 && path.rangeReads == 0 && path.reads == 0,
          "USE_REMOTE_FETCH: mapped-range reads only" + counts);
  } else {
    // The index's batches (at least one) and a load per returned record; a skipped entry's
    // record would be one more: at most returned + the index batches.
    const int64_t indexBatches = path.rangeReads - returned;
    check(
        path.mappedRangeReads == 0 && path.reads == 0 && indexBatches >= 1 &&
            indexBatches <= 1 + returned / 100,
        "SCAN_AND_FETCH: the index and a load per returned record, none for the skipped" + counts);
  }
  return path;
}

void runPlanSkip(benchmark::State& state, Arm arm, Rows rows, bool reverse,
                 IndexFetchMethod method) {
  guarded(state, [&] {
    ArmFixture& fixture = fixtureFor(arm);
    const Store& store = storeFor(fixture, Size::kSmall);
    const QueryCase c = queryCaseOf(rows, reverse, kSkip);
    const RecordQueryPlanPtr plan = planOf(fixture, store, c, method);
    const fdb::RoundTrips pathBefore = assertPath(fixture, store, *plan, c, method);
    OpMeter meter(fixture.db, state);
    std::vector<QueriedRecord> found;
    found.reserve(c.ids.size());
    for (auto _ : state) {
      meter.begin();
      const NoNextReason reason = runQuery(fixture, store, *plan, c.skip, found);
      meter.end();
      state.PauseTiming();
      validate(found, reason, c.ids, store);
      found.clear();
      state.ResumeTiming();
    }
    ResultDigest digest;
    const fdb::RoundTrips pathAfter = assertPath(fixture, store, *plan, c, method, &digest);
    check(pathAfter == pathBefore, "the same path before and after the loop");
    meter.report(state);
    digest.publish(state);
    state.counters["rows"] = static_cast<double>(c.ids.size());
    state.counters["path_mapped"] = static_cast<double>(pathAfter.mappedRangeReads);
    state.counters["path_ranges"] = static_cast<double>(pathAfter.rangeReads);
  });
}

// --- The targets ---

// The bench schema with five VALUE indexes, for planning.
RecordMetaData fiveIndexMetaData() {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index(std::string(kPriceIndex), field("price")));
  builder.addIndex("Order", Index("name_idx", field("name")));
  builder.addIndex("Order", Index("quantity_idx", field("quantity")));
  builder.addIndex("Order", Index("customer_idx", field("customer")));
  builder.addIndex("Order", Index("customer_price_idx", concat(field("customer"), field("price"))));
  return builder.build();
}

const RecordQuery& twoPredicateQuery() {
  static const RecordQuery kQuery{
      .recordTypes = {"Order"},
      .filter = Query::allOf(Query::field("customer").equalsValue("customer-3"),
                             Query::field("price").greaterThanOrEquals(1000)),
  };
  return kQuery;
}
constexpr const char* kTwoPredicatePlan =
    "Index(customer_price_idx [[customer-3, 1000],[customer-3]])";

// Plans the query `state.iterations()` times with `plan()`; counts allocations per plan.
template <typename Plan>
void measurePlanning(benchmark::State& state, Plan&& plan) {
  check(plan()->explain() == kTwoPredicatePlan, "the two-predicate plan");
  const AllocationCounts before = allocationCounts();
  for (auto _ : state) benchmark::DoNotOptimize(plan());
  const AllocationCounts spent = allocationCounts() - before;
  check(plan()->explain() == kTwoPredicatePlan, "the two-predicate plan after the loop");
  const double n = static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
  state.counters["allocs"] = static_cast<double>(spent.allocations) / n;
  state.counters["bytes"] = static_cast<double>(spent.bytes) / n;
}

void runPlanFiveIndexes(benchmark::State& state) {
  guarded(state, [&] {
    const RecordQueryPlanner planner(fiveIndexMetaData());
    measurePlanning(state, [&] { return planner.plan(twoPredicateQuery()); });
  });
}

void runPlanFiveIndexesThroughStore(benchmark::State& state) {
  guarded(state, [&] {
    // An empty store of its own: its indexes are readable from the start.
    fdb::Database db = fdb::Database::open("memory:");
    const RecordMetaData metaData = fiveIndexMetaData();
    const StoreLocation location = StoreLocation::tuple(fdb::Tuple{"planskip", "plan"});
    runInContext(db,
                 [&](RecordContext& context) { RecordStore::open(context, location, metaData); });
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      measurePlanning(state, [&] { return store.planQuery(twoPredicateQuery()); });
    });
  });
}

// The baseline: scanIndexRecords over the case's range, drained into `rows`.
NoNextReason runHandWritten(ArmFixture& fixture, const Store& store, Rows rows,
                            std::vector<FetchedRecord>& found) {
  return runInContext(fixture.db, [&](RecordContext& context) {
    found.clear();
    RecordStore records = RecordStore::open(context, store.location, fixture.metaData);
    CursorPtr<FetchedRecord> cursor =
        records.scanIndexRecords(kPriceIndex, rangeOf(rows), std::nullopt, ScanProperties(),
                                 IndexFetchMethod::kScanAndFetch);
    CursorResult<FetchedRecord> r = cursor->next();
    for (; r.hasValue(); r = cursor->next()) found.push_back(std::move(r.value()));
    return r.noNextReason();
  });
}

void runTargetQuery(benchmark::State& state, Rows rows) {
  guarded(state, [&] {
    ArmFixture& fixture = fixtureFor(Arm::kNoDelay);
    const Store& store = storeFor(fixture, Size::kSmall);
    const QueryCase c = queryCaseOf(rows, /*reverse=*/false, /*skip=*/0);
    const RecordQueryPlanPtr plan = planOf(fixture, store, c, IndexFetchMethod::kScanAndFetch);
    OpMeter meter(fixture.db, state);
    std::vector<QueriedRecord> found;
    found.reserve(c.ids.size());
    for (auto _ : state) {
      meter.begin();
      const NoNextReason reason = runQuery(fixture, store, *plan, 0, found);
      meter.end();
      state.PauseTiming();
      validate(found, reason, c.ids, store);
      found.clear();
      state.ResumeTiming();
    }
    meter.report(state);
    state.counters["rows"] = static_cast<double>(c.ids.size());
    state.counters["allocs_per_row"] = state.counters["allocs"] / static_cast<double>(c.ids.size());
  });
}

void runTargetHandWritten(benchmark::State& state, Rows rows) {
  guarded(state, [&] {
    ArmFixture& fixture = fixtureFor(Arm::kNoDelay);
    const Store& store = storeFor(fixture, Size::kSmall);
    const std::vector<int64_t> ids = idsOf(rows, /*reverse=*/false, /*skip=*/0);
    OpMeter meter(fixture.db, state);
    std::vector<FetchedRecord> found;
    found.reserve(ids.size());
    for (auto _ : state) {
      meter.begin();
      const NoNextReason reason = runHandWritten(fixture, store, rows, found);
      meter.end();
      state.PauseTiming();
      check(reason == NoNextReason::kSourceExhausted, "terminal reason");
      check(found.size() == ids.size(), std::to_string(found.size()) + " rows");
      for (size_t k = 0; k < found.size(); ++k) {
        check(found[k].record.has_value(), "a record fetched");
        checkRow(found[k].entry.key(), *found[k].record, ids[k], store, "row " + std::to_string(k));
      }
      found.clear();
      state.ResumeTiming();
    }
    meter.report(state);
    state.counters["rows"] = static_cast<double>(ids.size());
    state.counters["allocs_per_row"] = state.counters["allocs"] / static_cast<double>(ids.size());
  });
}

void registerAll() {
  for (Arm arm : {Arm::kNoDelay, Arm::kDelay250}) {
    for (Rows rows : {Rows::kRows10, Rows::kRows1000}) {
      for (bool reverse : {false, true}) {
        for (IndexFetchMethod method :
             {IndexFetchMethod::kScanAndFetch, IndexFetchMethod::kUseRemoteFetch}) {
          const std::string name = std::string("skip3/") + rowsName(rows) + "/" +
                                   (reverse ? "reverse" : "forward") + "/" +
                                   std::string(indexFetchMethodName(method)) + "/" + armName(arm);
          benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
            runPlanSkip(s, arm, rows, reverse, method);
          })->UseRealTime();
        }
      }
    }
  }
  benchmark::RegisterBenchmark("targets/plan/five_indexes", runPlanFiveIndexes);
  benchmark::RegisterBenchmark("targets/plan/five_indexes/store", runPlanFiveIndexesThroughStore);
  for (Rows rows : {Rows::kRows10, Rows::kRows1000}) {
    const std::string prefix = std::string("targets/") + rowsName(rows) + "/";
    benchmark::RegisterBenchmark((prefix + "query").c_str(), [=](benchmark::State& s) {
      runTargetQuery(s, rows);
    })->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "scanIndexRecords").c_str(), [=](benchmark::State& s) {
      runTargetHandWritten(s, rows);
    })->UseRealTime();
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
  return rl::bench::failed ? 1 : 0;
}
