// RecordStore::scanIndexRecords: every fetch method returns the same records, typed as the
// store's metadata says, and a store the storage server cannot map falls back.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "record_store_test_util.h"
#include "rl/index/index_fetch_method.h"

namespace rl::store_test {
namespace {

// (price, id, name, payload size) of every row, in order, and the stop reason.
struct Rows {
  std::vector<std::tuple<int64_t, int64_t, std::string, size_t>> rows;
  NoNextReason reason = NoNextReason::kSourceExhausted;
  std::optional<fdb::Bytes> continuation;
};

class RecordStoreFetchTest : public RecordStoreTest {
 protected:
  // 30 orders, prices 300 - 10 * id (so the index order is the reverse of the ids); every
  // fifth carries a payload long enough to split.
  void fill(const StoreLocation& location) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      for (int64_t id = 0; id < 30; ++id) {
        Order order = makeOrder(id, "n" + std::to_string(id), 300 - 10 * id);
        if (id % 5 == 0) order.set_payload(std::string(150'000, static_cast<char>('a' + id % 26)));
        store.saveRecord(order);
      }
    });
  }

  Rows scan(const StoreLocation& location, IndexFetchMethod method, const TupleRange& range,
            ScanProperties properties, std::optional<fdb::Bytes> continuation = std::nullopt) {
    return runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      Rows out;
      CursorPtr<FetchedRecord> cursor =
          store.scanIndexRecords("Order$price", range, continuation, properties, method);
      CursorResult<FetchedRecord> result = cursor->next();
      for (; result.hasValue(); result = cursor->next()) {
        const FetchedRecord& row = result.value();
        EXPECT_TRUE(row.record.has_value());
        const auto& order = dynamic_cast<const Order&>(*row.record->record);
        EXPECT_EQ(row.entry.primaryKey(), fdb::Tuple{order.id()});
        EXPECT_EQ(row.record->primaryKey, fdb::Tuple{order.id()});
        EXPECT_TRUE(row.record->version.has_value());  // the schema stores versions
        EXPECT_EQ(row.entry.key().getInt(0), order.price());
        out.rows.emplace_back(order.price(), order.id(), order.name(), order.payload().size());
      }
      out.reason = result.noNextReason();
      out.continuation = result.continuation().toBytes();
      return out;
    });
  }
};

TEST_F(RecordStoreFetchTest, EveryMethodReturnsTheSameRecordsBothWays) {
  const StoreLocation location = StoreLocation::tuple(fdb::Tuple{"app", 5});
  fill(location);
  for (bool reverse : {false, true}) {
    ScanProperties properties;
    properties.reverse = reverse;
    Rows byScan = scan(location, IndexFetchMethod::kScanAndFetch, TupleRange::all(), properties);
    ASSERT_EQ(byScan.rows.size(), 30u);
    // Forward is by price: ids 29, 28, ... 0; every fifth record split.
    const auto& first = reverse ? byScan.rows.back() : byScan.rows.front();
    EXPECT_EQ(std::get<1>(first), 29);
    EXPECT_EQ(std::get<3>(byScan.rows[reverse ? 0 : 29]), 150'000u);  // id 0
    for (IndexFetchMethod method :
         {IndexFetchMethod::kUseRemoteFetch, IndexFetchMethod::kUseRemoteFetchWithFallback}) {
      Rows other = scan(location, method, TupleRange::all(), properties);
      EXPECT_EQ(other.rows, byScan.rows) << indexFetchMethodName(method);
      EXPECT_EQ(other.reason, byScan.reason);
    }
  }
}

TEST_F(RecordStoreFetchTest, AScanStoppedUnderOneMethodResumesUnderTheOther) {
  const StoreLocation location = StoreLocation::tuple(fdb::Tuple{"app", 5});
  fill(location);
  ScanProperties limited;
  limited.execute.returnedRowLimit = 7;
  Rows firstPart = scan(location, IndexFetchMethod::kUseRemoteFetch, TupleRange::all(), limited);
  ASSERT_EQ(firstPart.rows.size(), 7u);
  EXPECT_EQ(firstPart.reason, NoNextReason::kReturnLimitReached);
  Rows rest = scan(location, IndexFetchMethod::kScanAndFetch, TupleRange::all(), ScanProperties(),
                   firstPart.continuation);
  Rows whole = scan(location, IndexFetchMethod::kScanAndFetch, TupleRange::all(), ScanProperties());
  firstPart.rows.insert(firstPart.rows.end(), rest.rows.begin(), rest.rows.end());
  EXPECT_EQ(firstPart.rows, whole.rows);
}

TEST_F(RecordStoreFetchTest, AStoreTheServerCannotMapFallsBackOrSaysWhy) {
  // A raw prefix that is not a tuple: the storage server could not build record keys.
  const StoreLocation location = StoreLocation::rawPrefix(std::string("\xfe\x01", 2));
  fill(location);
  Rows byScan = scan(location, IndexFetchMethod::kScanAndFetch, TupleRange::all(), {});
  Rows fallback =
      scan(location, IndexFetchMethod::kUseRemoteFetchWithFallback, TupleRange::all(), {});
  EXPECT_EQ(fallback.rows, byScan.rows);
  EXPECT_THROW(scan(location, IndexFetchMethod::kUseRemoteFetch, TupleRange::all(), {}),
               UnsupportedRemoteFetchIndexException);
  // The store's logger hears about the fallback.
  std::vector<std::string> logged;
  RecordStoreOptions options;
  options.logger = [&](std::string_view line) { logged.emplace_back(line); };
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData, options);
    logged.clear();
    auto cursor =
        store.scanIndexRecords("Order$price", TupleRange::all(), std::nullopt, ScanProperties(),
                               IndexFetchMethod::kUseRemoteFetchWithFallback);
    EXPECT_TRUE(cursor->next().hasValue());
  });
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("using SCAN_AND_FETCH"), std::string::npos) << logged[0];
}

TEST_F(RecordStoreFetchTest, RemoteFetchReadsRecordsWithTheIndexInMappedReadsOnly) {
  const StoreLocation location = StoreLocation::tuple(fdb::Tuple{"app", 5});
  fill(location);
  for (IndexFetchMethod method :
       {IndexFetchMethod::kScanAndFetch, IndexFetchMethod::kUseRemoteFetch}) {
    fdb::RoundTrips trips = runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      fdb::RoundTrips before = context.transaction().roundTrips();
      CursorPtr<FetchedRecord> cursor = store.scanIndexRecords(
          "Order$price", TupleRange::all(), std::nullopt, ScanProperties(), method);
      int rows = 0;
      while (cursor->next().hasValue()) ++rows;
      EXPECT_EQ(rows, 30);
      fdb::RoundTrips after = context.transaction().roundTrips();
      fdb::RoundTrips spent;
      spent.reads = after.reads - before.reads;
      spent.rangeReads = after.rangeReads - before.rangeReads;
      spent.mappedRangeReads = after.mappedRangeReads - before.mappedRangeReads;
      return spent;
    });
    if (method == IndexFetchMethod::kUseRemoteFetch) {
      EXPECT_GT(trips.mappedRangeReads, 0);
      EXPECT_EQ(trips.rangeReads, 0);
      EXPECT_EQ(trips.reads, 0);
    } else {
      EXPECT_EQ(trips.mappedRangeReads, 0);
      EXPECT_GE(trips.rangeReads, 30);  // the index, then one range read per record at least
    }
  }
}

}  // namespace
}  // namespace rl::store_test
