// Record and index scans resumed from continuations in new transactions, both directions,
// over small and split records; and the allocations of loading one record.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "record_store_test_util.h"
#include "rl/index/index_scan_facts.h"

// A test-side allocation count: every operator new while `gCounting` is set. (Replacing
// the global operator new makes GCC see malloc'd pointers reach free through inlined
// deletes, which is what this replacement does on purpose.)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<bool> gCounting{false};
std::atomic<int64_t> gAllocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (gCounting.load(std::memory_order_relaxed))
    gAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's buffer uses them): left to the library's, they
// would pair its allocator with the free() above, which ASan reports as a mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (gCounting.load(std::memory_order_relaxed))
    gAllocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace rl::store_test {
namespace {

using namespace std::string_literals;

class RecordStoreScanTest : public RecordStoreTest {
 protected:
  void SetUp() override {
    withStore([](RecordStore& store) {
      for (int i = 1; i <= 9; ++i) {
        Order order = makeOrder(i, "n" + std::to_string(i), 100 - i);
        if (i % 3 == 0) order.set_payload(std::string(150'000, 'p'));  // split in two chunks
        store.saveRecord(order);
      }
    });
  }

  // Every primary key, `limit` per transaction, resuming from the continuation.
  std::vector<int64_t> scanAllRecords(bool reverse, int limit, const TupleRange& range) {
    std::vector<int64_t> ids;
    std::optional<fdb::Bytes> continuation;
    for (int transactions = 0; transactions < 50; ++transactions) {
      bool done = withStore([&](RecordStore& store) {
        ExecuteProperties execute;
        execute.returnedRowLimit = limit;
        auto cursor = store.scanRecords(range, continuation, ScanProperties(execute, reverse));
        while (true) {
          auto result = cursor->next();
          if (!result.hasValue()) {
            continuation = result.continuation().toBytes();
            return result.noNextReason() == NoNextReason::kSourceExhausted;
          }
          ids.push_back(result.value().primaryKey.getInt(0));
          EXPECT_EQ(result.value().size.isSplit, result.value().primaryKey.getInt(0) % 3 == 0);
        }
      });
      if (done) return ids;
    }
    ADD_FAILURE() << "scan did not finish";
    return ids;
  }

  std::vector<int64_t> scanAllIndex(bool reverse, int limit) {
    std::vector<int64_t> ids;
    std::optional<fdb::Bytes> continuation;
    for (int transactions = 0; transactions < 50; ++transactions) {
      bool done = withStore([&](RecordStore& store) {
        ExecuteProperties execute;
        execute.returnedRowLimit = limit;
        auto cursor =
            store.scanIndex("Order$price", TupleRange::between(fdb::Tuple{92}, fdb::Tuple{99}),
                            continuation, ScanProperties(execute, reverse));
        while (true) {
          auto result = cursor->next();
          if (!result.hasValue()) {
            continuation = result.continuation().toBytes();
            return result.noNextReason() == NoNextReason::kSourceExhausted;
          }
          ids.push_back(result.value().primaryKey.getInt(0));
        }
      });
      if (done) return ids;
    }
    ADD_FAILURE() << "scan did not finish";
    return ids;
  }
};

TEST_F(RecordStoreScanTest, RecordScansResumeAcrossTransactionsBothWays) {
  const std::vector<int64_t> forward{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<int64_t> backward{9, 8, 7, 6, 5, 4, 3, 2, 1};
  for (int limit : {1, 2, 4, 0}) {
    EXPECT_EQ(scanAllRecords(false, limit, TupleRange::all()), forward) << limit;
    EXPECT_EQ(scanAllRecords(true, limit, TupleRange::all()), backward) << limit;
  }
  EXPECT_EQ(scanAllRecords(false, 2, TupleRange::between(fdb::Tuple{3}, fdb::Tuple{7})),
            (std::vector<int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(scanAllRecords(true, 2, TupleRange::betweenInclusive(fdb::Tuple{3}, fdb::Tuple{7})),
            (std::vector<int64_t>{7, 6, 5, 4, 3}));
}

TEST_F(RecordStoreScanTest, RecordContinuationIsTheLastKeyOfTheLastRecord) {
  withStore([](RecordStore& store) {
    ExecuteProperties execute;
    execute.returnedRowLimit = 3;
    auto cursor = store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties(execute));
    CursorResult<LoadedRecord> third = cursor->next();
    third = cursor->next();
    third = cursor->next();
    ASSERT_TRUE(third.hasValue());
    ASSERT_EQ(third.value().primaryKey, fdb::Tuple{3});
    // Record 3 is split: its last key is (3, 2), so the key suffix after P+(1) is 15 03 15 02.
    EXPECT_EQ(third.continuation().keySuffix(), "\x15\x03\x15\x02"s);
  });
}

TEST_F(RecordStoreScanTest, IndexScansResumeAcrossTransactionsBothWays) {
  // Prices 100 - id: the range [92, 99) holds ids 8 down to 2, in price order.
  const std::vector<int64_t> forward{8, 7, 6, 5, 4, 3, 2};
  const std::vector<int64_t> backward{2, 3, 4, 5, 6, 7, 8};
  for (int limit : {1, 3, 0}) {
    EXPECT_EQ(scanAllIndex(false, limit), forward) << limit;
    EXPECT_EQ(scanAllIndex(true, limit), backward) << limit;
  }
}

TEST_F(RecordStoreScanTest, IndexScanFactsDescribeTheStore) {
  withStore([](RecordStore& store) {
    const IndexScanFacts facts = indexScanFacts(store, "Order$price");
    EXPECT_EQ(facts.indexSubspace.key(), "\x15\x02\x02Order$price\x00"s);
    EXPECT_EQ(facts.recordsSubspace.key(), "\x15\x01"s);
    EXPECT_EQ(facts.columnSize, 1);
    EXPECT_EQ(facts.commonPrimaryKeyLength, 1);
    EXPECT_EQ(facts.entryPrimaryKeyPositions, std::vector<int>{1});
    EXPECT_TRUE(facts.splitLongRecords);
    EXPECT_FALSE(facts.oldVersionFormat);
  });
}

TEST_F(RecordStoreScanTest, LoadRecordAllocations) {
  RecordContext context(db);
  RecordStore store = RecordStore::open(context, testLocation(), metaData);
  const fdb::Tuple primaryKey{4};
  ASSERT_TRUE(store.loadRecord<Order>(primaryKey).has_value());  // warm up
  gAllocations = 0;
  gCounting = true;
  std::optional<TypedRecord<Order>> typed = store.loadRecord<Order>(primaryKey);
  gCounting = false;
  const int64_t typedAllocations = gAllocations.exchange(0);
  gCounting = true;
  std::optional<LoadedRecord> dynamic = store.loadRecord(primaryKey);
  gCounting = false;
  const int64_t dynamicAllocations = gAllocations.exchange(0);
  ASSERT_TRUE(typed && dynamic);
  EXPECT_EQ(typed->record.name(), "n4");
  RecordProperty("typed_load_allocations", static_cast<int>(typedAllocations));
  RecordProperty("dynamic_load_allocations", static_cast<int>(dynamicAllocations));
  std::printf("loadRecord allocations: typed %lld, dynamic %lld\n",
              static_cast<long long>(typedAllocations), static_cast<long long>(dynamicAllocations));
  EXPECT_LE(typedAllocations, 20);
  EXPECT_LE(dynamicAllocations, 20);
}

}  // namespace
}  // namespace rl::store_test
