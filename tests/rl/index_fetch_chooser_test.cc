// IndexFetchMethod::kAdaptive: the chooser's decisions under controlled inputs (the cost
// model of docs/index_fetch.md), and adaptive scans returning exactly what the fixed methods
// return (rows, order, continuations, stops) on random stores, whichever method they choose.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/index/index_fetch.h"
#include "rl/index/index_fetch_chooser.h"
#include "rl/index/index_fetch_method.h"
#include "rl/index/remote_fetch_mapper.h"
#include "rl/record/split_helper.h"
#include "test_database.h"

namespace {

using fdb::Bytes;
using fdb::Tuple;
using rl::FetchCostInputs;
using rl::IndexFetchMethod;
using rl::RecordContext;

constexpr IndexFetchMethod kScan = IndexFetchMethod::kScanAndFetch;
constexpr IndexFetchMethod kRemote = IndexFetchMethod::kUseRemoteFetch;

FetchCostInputs inputs(std::optional<double> recordBytes, int rowLimit, double roundTripMicros) {
  FetchCostInputs in;
  in.averageRecordBytes = recordBytes;
  in.splitFraction = recordBytes ? std::optional(*recordBytes > 100'000 ? 1.0 : 0.0) : std::nullopt;
  in.rowLimit = rowLimit;
  in.roundTripMicros = roundTripMicros;
  return in;
}

constexpr double kSmall = 150;      // one key-value
constexpr double kSplit = 100'100;  // two chunks
constexpr double kNoDelay = 2;      // the embedded engine: a round trip is a call
constexpr double kNetwork = 500;    // 250 us each way

// --- The chooser alone ---

TEST(IndexFetchChooserTest, SmallRecordsOverANetworkGoRemote) {
  // Scan-and-fetch waits ~n/10 round trips, remote fetch a handful of mapped batches.
  rl::FetchChoice choice = rl::chooseIndexFetch(inputs(kSmall, 0, kNetwork));
  EXPECT_EQ(choice.method, kRemote) << choice.reason;
  EXPECT_LT(choice.remoteFetchMicros * 5, choice.scanAndFetchMicros) << choice.reason;
}

TEST(IndexFetchChooserTest, WithoutDelayRecordsOfAnySizeGoRemoteBeyondOneRow) {
  // Round trips cost nothing, so the client's time per row decides: both methods copy a
  // record's bytes equally often, remote fetch saves the read per record and pays the mapper
  // once, which one row does not earn back.
  for (double bytes : {kSmall, kSplit}) {
    for (double rtt : {0.0, kNoDelay}) {
      EXPECT_EQ(rl::chooseIndexFetch(inputs(bytes, 1, rtt)).method, kScan) << bytes << " " << rtt;
      for (int limit : {0, 10}) {
        rl::FetchChoice choice = rl::chooseIndexFetch(inputs(bytes, limit, rtt));
        EXPECT_EQ(choice.method, kRemote) << "limit " << limit << ": " << choice.reason;
      }
    }
  }
}

TEST(IndexFetchChooserTest, ALimitOfOneOverANetworkSavesTheSecondRoundTrip) {
  // Scan-and-fetch: the index batch, then the record; remote fetch: one mapped read.
  for (double bytes : {kSmall, kSplit}) {
    rl::FetchChoice choice = rl::chooseIndexFetch(inputs(bytes, 1, kNetwork));
    EXPECT_EQ(choice.method, kRemote) << choice.reason;
  }
}

TEST(IndexFetchChooserTest, ASplitRecordAloneGoesRemoteOnceARoundTripCostsMoreThanTheMapper) {
  // One split record: scan-and-fetch makes two round trips (the index batch, then the
  // record), remote fetch one; without waiting the mapper's cost keeps the scan in the client.
  double threshold = -1;
  for (double rtt = 0; rtt <= 2000 && threshold < 0; rtt += 1) {
    if (rl::chooseIndexFetch(inputs(kSplit, 1, rtt)).method == kRemote) threshold = rtt;
  }
  EXPECT_GT(threshold, 0);
  EXPECT_LE(threshold, kNetwork);
  EXPECT_EQ(rl::chooseIndexFetch(inputs(kSplit, 0, kNetwork)).method, kRemote);
}

TEST(IndexFetchChooserTest, ExpectedRowsAndTheRowLimitBoundTheCost) {
  FetchCostInputs in = inputs(kSmall, 0, kNetwork);
  in.expectedRows = 5;
  rl::FetchChoice fewExpected = rl::chooseIndexFetch(in);
  in.rowLimit = 2;
  rl::FetchChoice limited = rl::chooseIndexFetch(in);
  EXPECT_LT(fewExpected.scanAndFetchMicros,
            rl::chooseIndexFetch(inputs(kSmall, 0, kNetwork)).scanAndFetchMicros);
  EXPECT_LT(limited.scanAndFetchMicros, fewExpected.scanAndFetchMicros);
  EXPECT_NE(limited.reason.find("2 rows (the row limit)"), std::string::npos) << limited.reason;
}

TEST(IndexFetchChooserTest, NoRemoteFetchMeansScanAndFetchWhateverTheCosts) {
  FetchCostInputs in = inputs(kSmall, 0, 100'000);
  in.remoteUsable = false;
  in.whyNotRemote = "the database does not serve mapped range reads";
  rl::FetchChoice choice = rl::chooseIndexFetch(in);
  EXPECT_EQ(choice.method, kScan);
  EXPECT_NE(choice.reason.find("does not serve mapped range reads"), std::string::npos);
}

TEST(IndexFetchChooserTest, UnobservedRecordsAreAssumedSmall) {
  rl::FetchChoice choice = rl::chooseIndexFetch(inputs(std::nullopt, 0, kNetwork));
  EXPECT_EQ(choice.method, kRemote);
  EXPECT_NE(choice.reason.find("assumed"), std::string::npos) << choice.reason;
}

TEST(FetchObservationsTest, RunningAveragesFollowWhatIsObserved) {
  rl::FetchObservations observations;
  EXPECT_FALSE(observations.roundTripMicros());
  observations.observeRoundTrip(100);
  EXPECT_DOUBLE_EQ(*observations.roundTripMicros(), 100);
  for (int i = 0; i < 100; ++i) observations.observeRoundTrip(500);
  EXPECT_NEAR(*observations.roundTripMicros(), 500, 1);

  EXPECT_FALSE(observations.recordSizes("a"));
  observations.observeRecord("a", 100, false);
  observations.observeRecord("a", 300, true);
  EXPECT_DOUBLE_EQ(observations.recordSizes("a")->averageBytes, 200);
  EXPECT_DOUBLE_EQ(observations.recordSizes("a")->splitFraction, 0.5);
  EXPECT_FALSE(observations.recordSizes("b"));

  EXPECT_TRUE(observations.servesMappedReads());
  EXPECT_FALSE(observations.mappedReadsConfirmed());
  observations.setServesMappedReads(true);
  EXPECT_TRUE(observations.mappedReadsConfirmed());
  EXPECT_TRUE(observations.beginScan("a", std::nullopt).mappedReadsConfirmed);
  observations.setServesMappedReads(false);
  EXPECT_FALSE(observations.servesMappedReads());
  EXPECT_FALSE(observations.mappedReadsConfirmed());
  EXPECT_FALSE(observations.beginScan("a", std::nullopt).servesMappedReads);
  observations.clear();
  EXPECT_TRUE(observations.servesMappedReads());
  EXPECT_FALSE(observations.mappedReadsConfirmed());
  EXPECT_FALSE(observations.roundTripMicros());
}

// --- Adaptive scans against the fixed methods ---

struct Row {
  Bytes indexKey;
  Bytes record;
  std::optional<Bytes> continuation;
  friend bool operator==(const Row&, const Row&) = default;
};

struct Page {
  std::vector<Row> rows;
  rl::NoNextReason reason = rl::NoNextReason::kSourceExhausted;
  std::optional<Bytes> continuation;
  fdb::RoundTrips trips;
  friend bool operator==(const Page& a, const Page& b) {
    return a.rows == b.rows && a.reason == b.reason && a.continuation == b.continuation;
  }
};

class AdaptiveFetchTest : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();
  const Bytes storePrefix = Tuple{"adaptive", 1}.pack();
  rl::IndexScanSpec spec =
      rl::IndexScanSpec::of(storePrefix, "by_value", rl::index::entryPrimaryKeyPositions({}, 1, 1));

  void SetUp() override { observations().clear(); }
  void TearDown() override { observations().clear(); }

  rl::FetchObservations& observations() {
    RecordContext context(db);
    return rl::fetchObservationsFor(context);
  }

  // `n` records of random sizes (a fifth of them split), indexed by a random value.
  void fill(std::mt19937& random, int n) {
    std::uniform_int_distribution<int> value(0, 50);
    std::uniform_int_distribution<int> fifth(0, 4);
    for (int first = 0; first < n; first += 20) {
      rl::runInContext(db, [&](RecordContext& context) {
        for (int id = first; id < std::min(n, first + 20); ++id) {
          const size_t size = fifth(random) == 0 ? 120'000 + static_cast<size_t>(id) : 20 + id;
          rl::saveWithSplit(context, spec.recordsSubspace, Tuple{id},
                            Bytes(size, static_cast<char>('a' + id % 26)), std::nullopt);
          context.transaction().set(spec.indexSubspace.pack(Tuple{value(random), id}), "");
        }
      });
    }
  }

  Page scan(IndexFetchMethod method, const rl::TupleRange& range,
            const rl::ScanProperties& properties, const std::optional<Bytes>& continuation) {
    RecordContext context(db);
    const fdb::RoundTrips before = context.transaction().roundTrips();
    auto cursor = rl::scanIndexRecords(context, spec, range, continuation, properties, method);
    Page page;
    while (true) {
      auto result = cursor->next();
      if (!result.hasValue()) {
        page.reason = result.noNextReason();
        page.continuation = result.continuation().toBytes();
        break;
      }
      Row row{Bytes(result.value().entry.rawKey()), "", result.continuation().toBytes()};
      if (result.value().record) row.record = result.value().record->rawRecord;
      page.rows.push_back(std::move(row));
    }
    page.trips = context.transaction().roundTrips() - before;
    return page;
  }
};

// Pages through random ranges with random limits, both directions: every adaptive page equals
// the fixed methods' page from the same continuation, under observations that make ADAPTIVE
// choose either method.
TEST_F(AdaptiveFetchTest, SameRowsOrderAndContinuationsAsTheFixedMethods) {
  std::mt19937 random(23);
  fill(random, 60);
  std::uniform_int_distribution<int> bound(0, 52);
  std::uniform_int_distribution<int> limit(0, 12);
  int choseRemote = 0;
  int choseScan = 0;
  for (int round = 0; round < 12; ++round) {
    // Alternate the observations so that both choices are exercised: a long round trip on a
    // database not yet known to serve mapped reads (remote fetch with its fallback) or known
    // to (without), or a database taken not to serve them.
    observations().clear();
    for (int i = 0; i < 10; ++i) observations().observeRoundTrip(5'000);
    if (round % 3 != 0) observations().setServesMappedReads(round % 3 == 1);
    int low = bound(random);
    int high = bound(random);
    if (low > high) std::swap(low, high);
    const rl::TupleRange range =
        round % 3 == 0 ? rl::TupleRange::all() : rl::TupleRange::between(Tuple{low}, Tuple{high});
    rl::ExecuteProperties execute;
    execute.returnedRowLimit = limit(random);
    const rl::ScanProperties properties(execute, round % 4 >= 2);
    SCOPED_TRACE("round " + std::to_string(round));
    std::optional<Bytes> continuation;
    for (int page = 0; page < 100; ++page) {
      const Page local = scan(kScan, range, properties, continuation);
      const Page remote = scan(kRemote, range, properties, continuation);
      const Page adaptive = scan(IndexFetchMethod::kAdaptive, range, properties, continuation);
      ASSERT_EQ(remote, local) << "page " << page;
      ASSERT_EQ(adaptive, local) << "page " << page;
      if (adaptive.trips.mappedRangeReads > 0) {
        ++choseRemote;
      } else {
        ++choseScan;
      }
      if (local.reason == rl::NoNextReason::kSourceExhausted) break;
      // The next page from the adaptive page's continuation (equal to the others').
      continuation = adaptive.continuation;
    }
  }
  EXPECT_GT(choseRemote, 0);
  EXPECT_GT(choseScan, 0);
}

TEST_F(AdaptiveFetchTest, ChoiceFollowsTheObservations) {
  std::mt19937 random(7);
  fill(random, 30);
  rl::ExecuteProperties execute;
  const rl::ScanProperties properties(execute, false);
  // A long round trip: remote fetch.
  for (int i = 0; i < 10; ++i) observations().observeRoundTrip(5'000);
  EXPECT_FALSE(observations().mappedReadsConfirmed());
  Page page = scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, std::nullopt);
  EXPECT_GT(page.trips.mappedRangeReads, 0);
  EXPECT_EQ(page.trips.rangeReads, 0);
  // Its mapped reads succeeded: the next remote scans go without a fallback.
  EXPECT_TRUE(observations().mappedReadsConfirmed());
  const Page again =
      scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, std::nullopt);
  EXPECT_EQ(again.rows, page.rows);
  EXPECT_GT(again.trips.mappedRangeReads, 0);
  // The scan observed the store's records.
  ASSERT_TRUE(observations().recordSizes(storePrefix));
  EXPECT_GT(observations().recordSizes(storePrefix)->observed, 0);

  // A database that does not serve mapped reads: scan-and-fetch, however long round trips are.
  observations().setServesMappedReads(false);
  page = scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, std::nullopt);
  EXPECT_EQ(page.trips.mappedRangeReads, 0);
  EXPECT_GT(page.trips.rangeReads, 30);
  RecordContext context(db);
  rl::FetchChoice choice = rl::chooseAdaptiveFetch(context, spec, properties);
  EXPECT_EQ(choice.method, kScan);
  EXPECT_NE(choice.reason.find("does not serve mapped range reads"), std::string::npos);

  // Snapshot reads cannot use remote fetch: scan-and-fetch.
  observations().setServesMappedReads(true);
  rl::ExecuteProperties snapshot;
  snapshot.isolation = rl::IsolationLevel::kSnapshot;
  choice = rl::chooseAdaptiveFetch(context, spec, rl::ScanProperties(snapshot, false));
  EXPECT_EQ(choice.method, kScan);
  EXPECT_NE(choice.reason.find("snapshot"), std::string::npos) << choice.reason;
}

// Once the observations are settled, a thread's next scans of the same index reuse the choice
// (no record sampled) for up to 15 scans, and not once the observations change.
TEST_F(AdaptiveFetchTest, SettledChoiceIsReusedUntilTheObservationsChange) {
  std::mt19937 random(5);
  fill(random, 30);
  const rl::ScanProperties properties(rl::ExecuteProperties{}, false);
  for (int i = 0; i < 10; ++i) observations().observeRoundTrip(5'000);
  observations().setServesMappedReads(true);
  for (int i = 0; i < rl::FetchObservations::kSettledRecords; ++i) {
    observations().observeRecord(storePrefix, 100, false);
  }
  const Page first = scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, {});
  EXPECT_GT(first.trips.mappedRangeReads, 0);
  const int64_t observed = observations().recordSizes(storePrefix)->observed;
  for (int i = 0; i < 15; ++i) {
    const Page again = scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, {});
    ASSERT_EQ(again, first) << "scan " << i;
    ASSERT_GT(again.trips.mappedRangeReads, 0);
  }
  EXPECT_EQ(observations().recordSizes(storePrefix)->observed, observed);
  // The reuse ran out: this scan chooses afresh and samples its records.
  EXPECT_EQ(scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, {}), first);
  EXPECT_GT(observations().recordSizes(storePrefix)->observed, observed);

  // A change of the observations is followed by the very next scan.
  EXPECT_GT(scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, {})
                .trips.mappedRangeReads,
            0);
  observations().setServesMappedReads(false);
  Page page = scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, {});
  EXPECT_EQ(page.trips.mappedRangeReads, 0);
  EXPECT_EQ(page.rows, first.rows);
  observations().setServesMappedReads(true);
  page = scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), properties, {});
  EXPECT_GT(page.trips.mappedRangeReads, 0);
  // Another row limit is another choice: one row costs too little to wait for.
  rl::ExecuteProperties one;
  one.returnedRowLimit = 1;
  for (int i = 0; i < 50; ++i) observations().observeRoundTrip(0);
  page =
      scan(IndexFetchMethod::kAdaptive, rl::TupleRange::all(), rl::ScanProperties(one, false), {});
  EXPECT_EQ(page.trips.mappedRangeReads, 0);
  ASSERT_EQ(page.rows.size(), 1u);
  EXPECT_EQ(page.rows[0].indexKey, first.rows[0].indexKey);
}

// The fixed remote methods build an index's mapper once per database too: after one scan it is
// cached, and the next scans find it there.
TEST_F(AdaptiveFetchTest, FixedRemoteFetchCachesTheMapper) {
  std::mt19937 random(3);
  fill(random, 10);
  const rl::ScanProperties properties(rl::ExecuteProperties{}, false);
  std::string key(spec.indexSubspace.key());
  for (int position : *spec.entryPrimaryKeyPositions) {
    key.append(reinterpret_cast<const char*>(&position), 4);
  }
  EXPECT_EQ(observations().lookUpMapper(key, nullptr),
            rl::FetchObservations::MapperLookup::kNotCached);
  const Page first = scan(kRemote, rl::TupleRange::all(), properties, {});
  std::optional<std::string> mapper;
  EXPECT_EQ(observations().lookUpMapper(key, &mapper),
            rl::FetchObservations::MapperLookup::kMapper);
  EXPECT_TRUE(mapper.has_value());
  EXPECT_EQ(scan(kRemote, rl::TupleRange::all(), properties, {}), first);
  EXPECT_EQ(
      scan(IndexFetchMethod::kUseRemoteFetchWithFallback, rl::TupleRange::all(), properties, {}),
      first);
}

// A transaction that refuses mapped reads (read-your-writes disabled: 2108
// unsupported_operation, as a backend without getMappedRange answers): the adaptive scan falls
// back to scan-and-fetch with the same rows, and later scans no longer try remote fetch.
TEST_F(AdaptiveFetchTest, FallsBackWhereMappedReadsAreRefused) {
  std::mt19937 random(11);
  fill(random, 30);
  const rl::ScanProperties properties(rl::ExecuteProperties{}, false);
  const Page expected = scan(kScan, rl::TupleRange::all(), properties, std::nullopt);
  for (int i = 0; i < 10; ++i) observations().observeRoundTrip(5'000);
  auto refusing = [&] {
    RecordContext context(db);
    context.transaction().setOption(fdb::TransactionOption::kReadYourWritesDisable);
    auto cursor = rl::scanIndexRecords(context, spec, rl::TupleRange::all(), std::nullopt,
                                       properties, IndexFetchMethod::kAdaptive);
    std::vector<Bytes> keys;
    while (true) {
      auto result = cursor->next();
      if (!result.hasValue()) break;
      keys.emplace_back(result.value().entry.rawKey());
    }
    return std::pair(keys, context.transaction().roundTrips());
  };
  std::vector<Bytes> expectedKeys;
  for (const Row& row : expected.rows) expectedKeys.push_back(row.indexKey);
  auto [keys, trips] = refusing();
  EXPECT_EQ(keys, expectedKeys);
  EXPECT_FALSE(observations().servesMappedReads());
  EXPECT_FALSE(observations().mappedReadsConfirmed());
  // Known not to serve them: scan-and-fetch from the start, no mapped read tried.
  std::tie(keys, trips) = refusing();
  EXPECT_EQ(keys, expectedKeys);
  EXPECT_EQ(trips.mappedRangeReads, 0);
}

TEST_F(AdaptiveFetchTest, EachDatabaseHasItsOwnObservations) {
  fdb::Database other = fdb::Database::open("memory:");
  RecordContext here(db);
  RecordContext there(other);
  EXPECT_NE(&rl::fetchObservationsFor(here), &rl::fetchObservationsFor(there));
  EXPECT_EQ(&rl::fetchObservationsFor(here), &observations());
}

}  // namespace
