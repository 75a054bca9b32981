// The online indexer: a new index that opening a store of more than 200 records left DISABLED
// (or WRITE_ONLY) is built in budgeted transactions, its progress in the range set at
// P+(6, sk), resumed by a later run, kept right under concurrent saves and failed commits, then
// marked READABLE, and checked clean by the store checker.
#include "rl/store/online_indexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record_store_test_util.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/record_core_exception.h"
#include "rl/store/store_checker.h"
#include "test_database.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

constexpr char kIndex[] = "by_price_name";

class OnlineIndexerTest : public RecordStoreTest {
 protected:
  // Orders 0..count-1 (name "n<i % 7>", price i), in transactions of 200.
  void saveOrders(int count) {
    for (int first = 0; first < count; first += 200) {
      withStore([&](RecordStore& store) {
        for (int i = first; i < std::min(count, first + 200); ++i) {
          store.saveRecord(makeOrder(i, "n" + std::to_string(i % 7), i));
        }
      });
    }
  }

  // The metadata with a new index `name` on (price, name), or a unique one on name alone; the
  // store opened with it, which leaves the index in the state returned.
  IndexState addIndex(bool unique = false, RecordStoreOptions options = {}) {
    RecordMetaDataBuilder builder(Order::descriptor()->file());
    if (unique) {
      builder.addIndex("Order", Index(kIndex, field("name"), Index::kValue,
                                      {{std::string(Index::kUniqueOption), "true"}}));
    } else {
      builder.addIndex("Order", Index(kIndex, concat(field("price"), field("name"))));
    }
    metaData = builder.build();
    return withStore([&](RecordStore& store) { return store.indexState(kIndex); }, options);
  }

  IndexBuildReport build(OnlineIndexerOptions options = {},
                         const std::function<void(const IndexBuildReport&)>& afterStep = {}) {
    return OnlineIndexer(db, testLocation(), metaData, kIndex, options).run(afterStep);
  }

  IndexState state() {
    return withStore([&](RecordStore& store) { return store.indexState(kIndex); });
  }
  size_t entries() { return keysWithPrefix(fdb::Tuple{2, kIndex}.pack()).size(); }
  std::vector<fdb::Bytes> rangeSetKeys() { return keysWithPrefix(fdb::Tuple{6, kIndex}.pack()); }

  CheckReport check() { return StoreChecker(db, testLocation(), metaData).run(); }
};

TEST_F(OnlineIndexerTest, ADisabledIndexIsBuiltInSeveralTransactionsAndMarkedReadable) {
  saveOrders(1'000);
  ASSERT_EQ(addIndex(), IndexState::kDisabled);
  OnlineIndexerOptions options;
  options.recordsPerTransaction = 300;
  std::vector<int64_t> scannedAfterEachStep;
  const IndexBuildReport report = build(options, [&](const IndexBuildReport& progress) {
    scannedAfterEachStep.push_back(progress.recordsScanned);
  });
  EXPECT_EQ(report.transactions, 4);
  EXPECT_EQ(scannedAfterEachStep, (std::vector<int64_t>{300, 600, 900, 1'000}));
  EXPECT_EQ(report.recordsScanned, 1'000);
  EXPECT_EQ(report.recordsIndexed, 1'000);
  EXPECT_FALSE(report.resumed);
  EXPECT_FALSE(report.alreadyReadable);
  EXPECT_EQ(report.state, IndexState::kReadable);
  EXPECT_EQ(state(), IndexState::kReadable);
  EXPECT_EQ(entries(), 1'000u);
  EXPECT_TRUE(rangeSetKeys().empty());  // marking it readable forgets the build
  const CheckReport checked = check();
  EXPECT_TRUE(checked.ok()) << checked.summary();
  EXPECT_NE(std::find(checked.indexesChecked.begin(), checked.indexesChecked.end(), kIndex),
            checked.indexesChecked.end());
  // In index order: price, then name.
  withStore([&](RecordStore& store) {
    CursorPtr<IndexEntry> cursor = store.scanIndex(
        kIndex, TupleRange::between(fdb::Tuple{10}, fdb::Tuple{13}), std::nullopt, {});
    std::vector<fdb::Tuple> keys;
    for (auto result = cursor->next(); result.hasValue(); result = cursor->next()) {
      keys.push_back(result.value().key);
    }
    EXPECT_EQ(keys, (std::vector<fdb::Tuple>{{10, "n3", 10}, {11, "n4", 11}, {12, "n5", 12}}));
  });
}

TEST_F(OnlineIndexerTest, AStoppedBuildKeepsItsProgressInTheRangeSetAndResumes) {
  saveOrders(1'000);
  ASSERT_EQ(addIndex(), IndexState::kDisabled);
  OnlineIndexerOptions options;
  options.recordsPerTransaction = 300;
  options.maxTransactions = 2;
  const IndexBuildReport stopped = build(options);
  EXPECT_EQ(stopped.transactions, 2);
  EXPECT_EQ(stopped.recordsScanned, 600);
  EXPECT_EQ(stopped.state, IndexState::kWriteOnly);
  EXPECT_EQ(state(), IndexState::kWriteOnly);
  EXPECT_EQ(entries(), 600u);
  // The Java Record Layer's RangeSet: one range from 0x00 to the first record not indexed.
  const fdb::Bytes rangeKey = fdb::Tuple{6, kIndex, fdb::ByteString{"\x00"s}}.pack();
  EXPECT_EQ(rangeSetKeys(), std::vector<fdb::Bytes>{rangeKey});
  EXPECT_EQ(rawGet(rangeKey), fdb::Tuple{600}.pack());

  options.maxTransactions = 0;
  const IndexBuildReport resumed = build(options);
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.recordsScanned, 400);
  EXPECT_EQ(resumed.transactions, 2);
  EXPECT_EQ(resumed.state, IndexState::kReadable);
  EXPECT_EQ(entries(), 1'000u);
  EXPECT_TRUE(check().ok());
}

TEST_F(OnlineIndexerTest, SavesAndDeletesDuringTheBuildAreIndexed) {
  saveOrders(1'000);
  ASSERT_EQ(addIndex(), IndexState::kDisabled);
  OnlineIndexerOptions options;
  options.recordsPerTransaction = 250;
  int step = 0;
  build(options, [&](const IndexBuildReport&) {
    ++step;
    // Between steps: change records behind the build and ahead of it, add and delete some.
    withStore([&](RecordStore& store) {
      store.saveRecord(makeOrder(10 * step, "changed", 5'000 + step));   // built
      store.saveRecord(makeOrder(900 + step, "changed", 6'000 + step));  // not yet
      store.saveRecord(makeOrder(2'000 + step, "new", step));            // past the end
      store.deleteRecord(fdb::Tuple{step});                              // built
      store.deleteRecord(fdb::Tuple{990 + step});                        // not yet
    });
  });
  EXPECT_EQ(state(), IndexState::kReadable);
  const CheckReport checked = check();
  EXPECT_TRUE(checked.ok()) << checked.summary();
  EXPECT_EQ(entries(), static_cast<size_t>(1'000 + step - 2 * step));
}

TEST_F(OnlineIndexerTest, FailedCommitsAreRetriedAndCountedOnce) {
  RL_SKIP_UNLESS_EMBEDDED_ENGINE("fault injection is fdb::EngineOptions'");
  saveOrders(1'000);
  ASSERT_EQ(addIndex(), IndexState::kDisabled);
  const std::vector<fdb::KeyValue> contents = allKeyValues();
  fdb::EngineOptions faulty;
  faulty.faults.enabled = true;
  faulty.faults.seed = 5;
  faulty.faults.notCommitted = 0.3;
  db = rl::tests::openTestDatabase(faulty);
  run([&](RecordContext& context) {
    for (const fdb::KeyValue& row : contents) context.transaction().set(row.key, row.value);
  });
  OnlineIndexerOptions options;
  options.recordsPerTransaction = 100;
  const IndexBuildReport report = build(options);
  EXPECT_EQ(report.transactions, 10);
  EXPECT_EQ(report.recordsScanned, 1'000);
  EXPECT_EQ(report.state, IndexState::kReadable);
  EXPECT_EQ(entries(), 1'000u);
}

TEST_F(OnlineIndexerTest, AByteBudgetStopsAStepButEachStepIndexesARecord) {
  saveOrders(20);
  withStore([&](RecordStore& store) {
    Order large = makeOrder(7, "large", 7);
    large.set_payload(std::string(300'000, 'p'));  // split across keys
    store.saveRecord(large);
  });
  // An index on a small store is built while opening; make it DISABLED to build it here.
  addIndex();
  withStore([&](RecordStore& store) { store.markIndexDisabled(kIndex); });
  OnlineIndexerOptions options;
  options.recordBytesPerTransaction = 1'000;
  std::vector<int64_t> scanned;
  const IndexBuildReport report =
      build(options, [&](const IndexBuildReport& step) { scanned.push_back(step.recordsScanned); });
  // The small records before the large one; the large one alone, over the budget; the rest.
  EXPECT_EQ(scanned, (std::vector<int64_t>{7, 8, 20}));
  EXPECT_EQ(report.recordsScanned, 20);
  EXPECT_EQ(report.state, IndexState::kReadable);
  EXPECT_TRUE(check().ok());
}

TEST_F(OnlineIndexerTest, AWriteOnlyIndexWithoutARangeSetIsBuiltFromTheFirstRecord) {
  saveOrders(300);
  RecordStoreOptions writeOnly;
  writeOnly.userVersionChecker.needRebuildIndex = [](const Index&, int64_t count, bool onNew) {
    return writeOnlyIfTooManyRecordsForRebuild(count, onNew);
  };
  ASSERT_EQ(addIndex(false, writeOnly), IndexState::kWriteOnly);
  EXPECT_TRUE(rangeSetKeys().empty());
  const IndexBuildReport report = build();
  EXPECT_FALSE(report.resumed);
  EXPECT_EQ(report.recordsScanned, 300);
  EXPECT_EQ(report.state, IndexState::kReadable);
  EXPECT_EQ(entries(), 300u);
}

TEST_F(OnlineIndexerTest, AReadableIndexIsLeftAlone) {
  saveOrders(10);
  const std::vector<fdb::KeyValue> before = allKeyValues();
  const IndexBuildReport report = OnlineIndexer(db, testLocation(), metaData, "Order$price").run();
  EXPECT_TRUE(report.alreadyReadable);
  EXPECT_EQ(report.transactions, 0);
  EXPECT_EQ(report.recordsScanned, 0);
  EXPECT_EQ(report.state, IndexState::kReadable);
  EXPECT_EQ(allKeyValues(), before);
}

TEST_F(OnlineIndexerTest, AUniqueIndexWhoseRecordsViolateItStaysWriteOnly) {
  saveOrders(300);  // names repeat every 7 records
  ASSERT_EQ(addIndex(/*unique=*/true), IndexState::kDisabled);
  const IndexBuildReport report = build();
  EXPECT_EQ(report.recordsScanned, 300);
  EXPECT_EQ(report.state, IndexState::kWriteOnly);
  EXPECT_EQ(report.uniquenessViolations, 300);
  EXPECT_EQ(state(), IndexState::kWriteOnly);
  // Built already: a second run rescans nothing and says the same.
  const IndexBuildReport again = build();
  EXPECT_TRUE(again.resumed);
  EXPECT_EQ(again.recordsScanned, 0);
  EXPECT_EQ(again.state, IndexState::kWriteOnly);
  EXPECT_EQ(again.uniquenessViolations, 300);
}

TEST_F(OnlineIndexerTest, AnIndexTheMetadataDoesNotHaveIsAnError) {
  saveOrders(3);
  EXPECT_THROW(OnlineIndexer(db, testLocation(), metaData, "nope").run(),
               RecordCoreArgumentException);
}

}  // namespace
}  // namespace rl::store_test
