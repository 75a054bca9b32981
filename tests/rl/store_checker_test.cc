// The store checker: no problems on healthy stores (small, split, several types, many
// transactions), and each kind of problem found at its key when injected as raw bad keys.
#include "rl/store/store_checker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record_store_test_util.h"
#include "rl/metadata/metadata_builder.h"

namespace rl::store_test {
namespace {

class StoreCheckerTest : public RecordStoreTest {
 protected:
  CheckReport check(CheckOptions options = {}) {
    return StoreChecker(db, testLocation(), metaData, options).run();
  }

  // Orders 1..n (name "order-i", price 10*i, email "i@x"), a customer 1000, and order
  // 500, large enough to split into three chunks.
  void saveHealthyStore(int n = 10) {
    withStore([&](RecordStore& store) {
      for (int i = 1; i <= n; ++i) {
        store.saveRecord(
            makeOrder(i, "order-" + std::to_string(i), 10 * i, std::to_string(i) + "@x"));
      }
      Customer customer;
      customer.set_id(1000);
      customer.set_name("customer");
      store.saveRecord(customer);
      Order large = makeOrder(500, "large", 5);
      large.set_payload(std::string(250'000, 'p'));
      store.saveRecord(large);
    });
  }

  void rawSet(std::string_view key, std::string_view value) {
    run([&](RecordContext& context) { context.transaction().set(key, value); });
  }
  void rawClear(std::string_view key) {
    run([&](RecordContext& context) { context.transaction().clear(key); });
  }

  static fdb::Bytes key(const fdb::Tuple& tuple) { return tuple.pack(); }

  // The one problem of the report, which must be of `kind` at `at`.
  static void expectOnlyProblem(const CheckReport& report, CheckProblemKind kind,
                                const fdb::Bytes& at) {
    ASSERT_EQ(report.problems.size(), 1u) << report.summary();
    EXPECT_EQ(report.problems[0].kind, kind) << report.summary();
    EXPECT_EQ(report.problems[0].key, at) << report.summary();
    EXPECT_EQ(report.problems[0].printableKey, fdb::printable(at));
    EXPECT_FALSE(report.ok());
  }
};

TEST_F(StoreCheckerTest, HealthyStoreHasNoProblems) {
  saveHealthyStore();
  withStore([&](RecordStore& store) { store.deleteRecord(fdb::Tuple{3}); });
  const CheckReport report = check();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.recordsChecked, 11);  // 9 orders, the large one, the customer
  // Versions are stored inline: each small record has a version and a value, the large one
  // a version and 3 chunks.
  EXPECT_EQ(report.recordKeysScanned, 9 * 2 + 4 + 2);
  // Each order has a name, a price and an email entry (the large one's email is null).
  EXPECT_EQ(report.indexEntriesExpected, 10 * 3);
  EXPECT_EQ(report.indexEntriesScanned, 10 * 3);
  EXPECT_EQ(report.indexesChecked,
            (std::vector<std::string>{"Order$name", "Order$price", "Order$email"}));
  EXPECT_TRUE(report.indexesSkipped.empty());
  EXPECT_EQ(report.transactions, 1);
}

TEST_F(StoreCheckerTest, SmallBudgetsTakeManyTransactionsAndFindTheSame) {
  saveHealthyStore(40);
  // A missing entry, and a dangling one, somewhere in the middle.
  rawClear(key(fdb::Tuple{2, "Order$price", 200, 20}));
  rawSet(key(fdb::Tuple{2, "Order$name", "order-31x", 31}), "");
  CheckOptions small;
  small.maxItemsPerTransaction = 3;
  small.batchSize = 4;
  const CheckReport stepped = check(small);
  const CheckReport whole = check();
  EXPECT_GT(stepped.transactions, 20);
  EXPECT_EQ(whole.transactions, 1);
  EXPECT_EQ(stepped.recordsChecked, whole.recordsChecked);
  EXPECT_EQ(stepped.indexEntriesExpected, whole.indexEntriesExpected);
  EXPECT_EQ(stepped.indexEntriesScanned, whole.indexEntriesScanned);
  ASSERT_EQ(whole.problems.size(), 2u) << whole.summary();
  ASSERT_EQ(stepped.problems.size(), 2u) << stepped.summary();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(stepped.problems[i].kind, whole.problems[i].kind);
    EXPECT_EQ(stepped.problems[i].key, whole.problems[i].key);
  }
  EXPECT_EQ(whole.count(CheckProblemKind::kMissingIndexEntry), 1);
  EXPECT_EQ(whole.count(CheckProblemKind::kDanglingIndexEntry), 1);
}

TEST_F(StoreCheckerTest, KeysAndProblemsAreCountedOnceAcrossSteps) {
  // A step that stops inside a batch resumes at the record (or entry) it stopped before:
  // the keys after it in that batch are read again by the next step, and must be counted,
  // and their problems reported, by that step only. Two undecodable keys sit among the
  // records and the entries: one after record 15's keys, one after entry (100, 10).
  saveHealthyStore(40);
  const fdb::Bytes badRecordKey = fdb::Tuple{1, 15}.pack() + "\x99";
  const fdb::Bytes badEntry = fdb::Tuple{2, "Order$price", 100}.pack() + "\x99";
  rawSet(badRecordKey, "x");
  rawSet(badEntry, "");
  const CheckReport whole = check();
  EXPECT_EQ(whole.transactions, 1);
  // 40 orders and the customer with a version and a value each, the large order's version
  // and 3 chunks, the bad key; three entries for each order, and the bad one.
  EXPECT_EQ(whole.recordKeysScanned, 41 * 2 + 4 + 1) << whole.summary();
  EXPECT_EQ(whole.indexEntriesScanned, 41 * 3 + 1) << whole.summary();
  ASSERT_EQ(whole.problems.size(), 2u) << whole.summary();
  EXPECT_EQ(whole.problems[0].kind, CheckProblemKind::kUndecodableKey);
  EXPECT_EQ(whole.problems[0].key, badRecordKey);
  EXPECT_EQ(whole.problems[1].kind, CheckProblemKind::kUndecodableKey);
  EXPECT_EQ(whole.problems[1].key, badEntry);
  // Steps of 1 to 4 items in batches of 2 to 5 rows put the step boundaries everywhere.
  for (int items = 1; items <= 4; ++items) {
    for (int batch = 2; batch <= 5; ++batch) {
      SCOPED_TRACE(testing::Message() << items << " items a step, batches of " << batch);
      CheckOptions small;
      small.maxItemsPerTransaction = items;
      small.batchSize = batch;
      const CheckReport stepped = check(small);
      EXPECT_GT(stepped.transactions, 20);
      EXPECT_EQ(stepped.recordKeysScanned, whole.recordKeysScanned) << stepped.summary();
      EXPECT_EQ(stepped.indexEntriesScanned, whole.indexEntriesScanned) << stepped.summary();
      EXPECT_EQ(stepped.recordsChecked, whole.recordsChecked);
      EXPECT_EQ(stepped.indexEntriesExpected, whole.indexEntriesExpected);
      ASSERT_EQ(stepped.problems.size(), 2u) << stepped.summary();
      for (size_t i = 0; i < 2; ++i) EXPECT_EQ(stepped.problems[i].key, whole.problems[i].key);
    }
  }
}

TEST_F(StoreCheckerTest, StepsThatFailAreRetriedWithoutCountingTwice) {
  // Reads fail with transaction_too_old at random, in the middle of steps; run() retries
  // them and the report is the same as on a database without faults.
  RL_SKIP_UNLESS_EMBEDDED_ENGINE("fault injection through fdb::EngineOptions");
  saveHealthyStore(30);
  rawClear(key(fdb::Tuple{2, "Order$name", "order-7", 7}));
  const std::vector<fdb::KeyValue> contents = allKeyValues();
  fdb::EngineOptions faulty;
  faulty.faults.enabled = true;
  faulty.faults.seed = 7;
  faulty.faults.readVersionTooOld = 0.05;
  db = rl::tests::openTestDatabase(faulty);
  for (const fdb::KeyValue& row : contents) rawSet(row.key, row.value);
  CheckOptions small;
  small.maxItemsPerTransaction = 4;
  StoreChecker checker(db, testLocation(), metaData, small);
  int failed = 0;
  while (!checker.done()) {
    RecordContext context(db);
    try {
      checker.step(context);
    } catch (const fdb::Error& e) {
      ASSERT_EQ(e.code(), fdb::errors::kTransactionTooOld);
      ++failed;
    }
  }
  EXPECT_GT(failed, 0);
  const CheckReport& report = checker.report();
  EXPECT_EQ(report.recordsChecked, 32) << report.summary();
  EXPECT_EQ(report.indexEntriesExpected, 31 * 3);
  EXPECT_EQ(report.indexEntriesScanned, 31 * 3 - 1);
  expectOnlyProblem(report, CheckProblemKind::kMissingIndexEntry,
                    key(fdb::Tuple{2, "Order$name", "order-7", 7}));
}

TEST_F(StoreCheckerTest, MissingIndexEntry) {
  saveHealthyStore();
  const fdb::Bytes entry = key(fdb::Tuple{2, "Order$price", 30, 3});
  ASSERT_TRUE(rawGet(entry));
  rawClear(entry);
  expectOnlyProblem(check(), CheckProblemKind::kMissingIndexEntry, entry);
}

TEST_F(StoreCheckerTest, DanglingIndexEntryWithoutRecord) {
  saveHealthyStore();
  const fdb::Bytes entry = key(fdb::Tuple{2, "Order$name", "ghost", 77});
  rawSet(entry, "");
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kDanglingIndexEntry, entry);
  EXPECT_NE(report.problems[0].message.find("no record"), std::string::npos);
}

TEST_F(StoreCheckerTest, DanglingIndexEntryItsRecordDoesNotProduce) {
  saveHealthyStore();
  // Record 2 has price 20, not 21.
  const fdb::Bytes entry = key(fdb::Tuple{2, "Order$price", 21, 2});
  rawSet(entry, "");
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kDanglingIndexEntry, entry);
  EXPECT_NE(report.problems[0].message.find("does not produce"), std::string::npos);
}

TEST_F(StoreCheckerTest, DanglingIndexEntryOfATypeTheIndexDoesNotCover) {
  saveHealthyStore();
  const fdb::Bytes entry = key(fdb::Tuple{2, "Order$name", "customer", 1000});
  rawSet(entry, "");
  expectOnlyProblem(check(), CheckProblemKind::kDanglingIndexEntry, entry);
}

TEST_F(StoreCheckerTest, WrongIndexValue) {
  saveHealthyStore();
  const fdb::Bytes entry = key(fdb::Tuple{2, "Order$email", "4@x", 4});
  rawSet(entry, fdb::Tuple{"covering?"}.pack());
  expectOnlyProblem(check(), CheckProblemKind::kWrongIndexValue, entry);
}

TEST_F(StoreCheckerTest, UndecodableIndexKey) {
  saveHealthyStore();
  fdb::Bytes entry = fdb::Tuple{2, "Order$price"}.pack() + "\x99\x01";
  rawSet(entry, "");
  expectOnlyProblem(check(), CheckProblemKind::kUndecodableKey, entry);
}

TEST_F(StoreCheckerTest, GapInSplitChunks) {
  saveHealthyStore();
  const fdb::Bytes chunk2 = key(fdb::Tuple{1, 500, 2});
  const fdb::Bytes chunk3 = key(fdb::Tuple{1, 500, 3});
  ASSERT_TRUE(rawGet(chunk2));
  ASSERT_TRUE(rawGet(chunk3));
  rawClear(chunk2);
  // Only the layout is reported: the broken record's index entries cannot be judged.
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kBadSplit, chunk3);
  EXPECT_NE(report.problems[0].message.find("gap"), std::string::npos);
}

TEST_F(StoreCheckerTest, SplitRecordWithoutItsFirstChunk) {
  saveHealthyStore();
  rawClear(key(fdb::Tuple{1, 500, 1}));
  expectOnlyProblem(check(), CheckProblemKind::kBadSplit, key(fdb::Tuple{1, 500, 2}));
}

TEST_F(StoreCheckerTest, UnsplitValueFollowedBySplit) {
  saveHealthyStore();
  const fdb::Bytes chunk = key(fdb::Tuple{1, 4, 1});
  rawSet(chunk, "extra");
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kBadSplit, chunk);
  EXPECT_NE(report.problems[0].message.find("unsplit value followed by split"), std::string::npos)
      << report.summary();
}

TEST_F(StoreCheckerTest, VersionWithoutRecordAndBadVersionValue) {
  saveHealthyStore();
  const std::optional<fdb::Bytes> version = rawGet(key(fdb::Tuple{1, 2, -1}));
  ASSERT_TRUE(version);
  const fdb::Bytes lone = key(fdb::Tuple{1, 88, -1});
  rawSet(lone, *version);
  expectOnlyProblem(check(), CheckProblemKind::kBadSplit, lone);
  rawClear(lone);
  const fdb::Bytes bad = key(fdb::Tuple{1, 2, -1});
  rawSet(bad, "\x33short");
  expectOnlyProblem(check(), CheckProblemKind::kBadSplit, bad);
}

TEST_F(StoreCheckerTest, ARecordWhoseDataIsGoneButItsVersionIsLeftIsNoRecord) {
  // Record 3's value cleared, its inline version at (1, 3, -1) left: the Java Record Layer
  // refuses to load it (FoundSplitWithoutStartException), so it is no record. The version is
  // a bad split, the record is not counted, and its index entries dangle.
  saveHealthyStore();
  const fdb::Bytes version = key(fdb::Tuple{1, 3, -1});
  ASSERT_TRUE(rawGet(version));
  rawClear(key(fdb::Tuple{1, 3, 0}));
  const CheckReport report = check();
  EXPECT_EQ(report.recordsChecked, 11) << report.summary();  // 9 orders, large, customer
  EXPECT_EQ(report.recordKeysScanned, 9 * 2 + 1 + 4 + 2);
  EXPECT_EQ(report.indexEntriesExpected, 10 * 3);
  EXPECT_EQ(report.indexEntriesScanned, 11 * 3);
  ASSERT_EQ(report.problems.size(), 4u) << report.summary();
  EXPECT_EQ(report.problems[0].kind, CheckProblemKind::kBadSplit);
  EXPECT_EQ(report.problems[0].key, version);
  EXPECT_NE(report.problems[0].message.find("a version without its record"), std::string::npos)
      << report.summary();
  const std::vector<fdb::Bytes> entries = {key(fdb::Tuple{2, "Order$name", "order-3", 3}),
                                           key(fdb::Tuple{2, "Order$price", 30, 3}),
                                           key(fdb::Tuple{2, "Order$email", "3@x", 3})};
  for (size_t i = 0; i < entries.size(); ++i) {
    const CheckProblem& dangling = report.problems[i + 1];
    EXPECT_EQ(dangling.kind, CheckProblemKind::kDanglingIndexEntry) << report.summary();
    EXPECT_EQ(dangling.key, entries[i]) << report.summary();
    EXPECT_NE(dangling.message.find("no record"), std::string::npos) << report.summary();
  }

  // The same report, but for the version's problem, once the version is cleared too.
  rawClear(version);
  const CheckReport cleared = check();
  EXPECT_EQ(cleared.recordsChecked, 11) << cleared.summary();
  ASSERT_EQ(cleared.problems.size(), 3u) << cleared.summary();
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(cleared.problems[i].kind, CheckProblemKind::kDanglingIndexEntry);
    EXPECT_EQ(cleared.problems[i].key, entries[i]);
  }
}

TEST_F(StoreCheckerTest, ALoneVersionIsFoundWhenTheStepsAreSmall) {
  // A version-only record in the middle, with budgets of a few records a step: it is never
  // counted, whichever step reads it, and its entries dangle.
  saveHealthyStore(40);
  rawClear(key(fdb::Tuple{1, 20, 0}));
  CheckOptions small;
  small.maxItemsPerTransaction = 3;
  small.batchSize = 4;
  const CheckReport stepped = check(small);
  const CheckReport whole = check();
  EXPECT_GT(stepped.transactions, 10);
  EXPECT_EQ(whole.recordsChecked, 41) << whole.summary();  // 39 orders, large, customer
  EXPECT_EQ(stepped.recordsChecked, whole.recordsChecked);
  EXPECT_EQ(whole.count(CheckProblemKind::kBadSplit), 1) << whole.summary();
  EXPECT_EQ(whole.count(CheckProblemKind::kDanglingIndexEntry), 3) << whole.summary();
  ASSERT_EQ(stepped.problems.size(), whole.problems.size()) << stepped.summary();
  for (size_t i = 0; i < whole.problems.size(); ++i) {
    EXPECT_EQ(stepped.problems[i].kind, whole.problems[i].kind);
    EXPECT_EQ(stepped.problems[i].key, whole.problems[i].key);
  }
}

TEST_F(StoreCheckerTest, RecordKeyWithoutSuffixOrWithAnUnknownOne) {
  saveHealthyStore();
  const fdb::Bytes bare = key(fdb::Tuple{1, 600});
  rawSet(bare, "x");
  expectOnlyProblem(check(), CheckProblemKind::kBadSplit, bare);
  rawClear(bare);
  const fdb::Bytes unknown = key(fdb::Tuple{1, 600, -2});
  rawSet(unknown, "x");
  expectOnlyProblem(check(), CheckProblemKind::kBadSplit, unknown);
}

TEST_F(StoreCheckerTest, UndecodableRecordKey) {
  saveHealthyStore();
  const fdb::Bytes bad = fdb::Tuple{1}.pack() + "\x99";
  rawSet(bad, "x");
  expectOnlyProblem(check(), CheckProblemKind::kUndecodableKey, bad);
}

TEST_F(StoreCheckerTest, UndecodableRecords) {
  saveHealthyStore();
  const fdb::Bytes at = key(fdb::Tuple{1, 700, 0});
  // Not a protobuf message at all.
  rawSet(at, "\xff\xff\xff\xff");
  expectOnlyProblem(check(), CheckProblemKind::kUndecodableRecord, at);
  // A union with two known fields set: an Order (field 1) and a Customer (field 2).
  rawSet(at, std::string("\x0a\x02\x08\x05\x12\x02\x08\x05", 8));
  CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kUndecodableRecord, at);
  EXPECT_NE(report.problems[0].message.find("extra known fields"), std::string::npos);
  // A union field the schema does not have.
  rawSet(at, std::string("\x3a\x02\x08\x05", 4));
  report = check();
  expectOnlyProblem(report, CheckProblemKind::kUndecodableRecord, at);
  EXPECT_NE(report.problems[0].message.find("unknown fields"), std::string::npos);
  // No field at all.
  rawSet(at, "");
  expectOnlyProblem(check(), CheckProblemKind::kUndecodableRecord, at);
}

TEST_F(StoreCheckerTest, RecordUnderAnotherPrimaryKey) {
  saveHealthyStore();
  const std::optional<fdb::Bytes> record5 = rawGet(key(fdb::Tuple{1, 5, 0}));
  ASSERT_TRUE(record5);
  const fdb::Bytes at = key(fdb::Tuple{1, 6, 0});
  rawSet(at, *record5);  // record 6's key now holds record 5
  const CheckReport report = check();
  // Wrong primary key at (1, 6, 0); record 6's entries are all missing (the record there
  // produces record 5's values with primary key 6) and record 6's old entries dangle.
  EXPECT_EQ(report.count(CheckProblemKind::kWrongPrimaryKey), 1) << report.summary();
  EXPECT_EQ(report.problems[0].kind, CheckProblemKind::kWrongPrimaryKey);
  EXPECT_EQ(report.problems[0].key, at);
  EXPECT_EQ(report.count(CheckProblemKind::kMissingIndexEntry), 3) << report.summary();
  EXPECT_EQ(report.count(CheckProblemKind::kDanglingIndexEntry), 3) << report.summary();
}

TEST_F(StoreCheckerTest, MissingHeader) {
  saveHealthyStore();
  const fdb::Bytes header = key(fdb::Tuple{0});
  rawClear(header);
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kMissingHeader, header);
  EXPECT_EQ(report.recordsChecked, 0);
}

TEST_F(StoreCheckerTest, EmptyStoreHasNoHeader) {
  expectOnlyProblem(check(), CheckProblemKind::kMissingHeader, key(fdb::Tuple{0}));
}

TEST_F(StoreCheckerTest, BadHeaders) {
  saveHealthyStore();
  const fdb::Bytes headerKey = key(fdb::Tuple{0});
  const DataStoreInfo good = withStore([](RecordStore& store) { return store.header(); });

  rawSet(headerKey, "\xff\xff\xff");  // not a DataStoreInfo
  expectOnlyProblem(check(), CheckProblemKind::kBadHeader, headerKey);

  DataStoreInfo header = good;
  header.set_formatversion(kMaxFormatVersion + 1);
  rawSet(headerKey, header.SerializeAsString());
  expectOnlyProblem(check(), CheckProblemKind::kBadHeader, headerKey);

  header = good;
  header.set_formatversion(0);
  rawSet(headerKey, header.SerializeAsString());
  expectOnlyProblem(check(), CheckProblemKind::kBadHeader, headerKey);

  header = good;
  header.set_metadataversion(metaData.version() + 1);
  rawSet(headerKey, header.SerializeAsString());
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kBadHeader, headerKey);
  EXPECT_NE(report.problems[0].message.find("above the local metadata"), std::string::npos);

  rawSet(headerKey, good.SerializeAsString());
  EXPECT_TRUE(check().ok());
}

TEST_F(StoreCheckerTest, BadIndexState) {
  saveHealthyStore();
  const fdb::Bytes stateKey = key(fdb::Tuple{5, "Order$price"});
  rawSet(stateKey, "\x15\x63");  // state code 99
  expectOnlyProblem(check(), CheckProblemKind::kBadIndexState, stateKey);
}

TEST_F(StoreCheckerTest, DisabledIndexesAreSkippedAndWriteOnlyOnesChecked) {
  saveHealthyStore();
  withStore([](RecordStore& store) {
    store.markIndexDisabled("Order$name");
    store.markIndexWriteOnly("Order$price");
  });
  rawClear(key(fdb::Tuple{2, "Order$price", 30, 3}));
  const CheckReport report = check();
  expectOnlyProblem(report, CheckProblemKind::kMissingIndexEntry,
                    key(fdb::Tuple{2, "Order$price", 30, 3}));
  EXPECT_EQ(report.indexesChecked, (std::vector<std::string>{"Order$price", "Order$email"}));
  EXPECT_EQ(report.indexesSkipped, (std::vector<std::string>{"Order$name: DISABLED"}));
}

TEST_F(StoreCheckerTest, UniquenessViolationsUnlessRecorded) {
  saveHealthyStore();
  // While the unique index is write-only, a duplicate is recorded at (7, sk, ...).
  withStore([](RecordStore& store) {
    store.markIndexWriteOnly("Order$email");
    store.saveRecord(makeOrder(2, "order-2", 20, "1@x"));
  });
  CheckReport report = check();
  EXPECT_TRUE(report.ok()) << report.summary();
  // Without the record of the violation it is a problem, at the second entry; also when
  // every step checks a single entry (a value's entries are never split between steps).
  run([](RecordContext& context) { context.transaction().clearRange(fdb::Tuple{7}.range()); });
  CheckOptions small;
  small.maxItemsPerTransaction = 1;
  for (const CheckOptions& options : {CheckOptions{}, small}) {
    report = check(options);
    expectOnlyProblem(report, CheckProblemKind::kUniquenessViolation,
                      key(fdb::Tuple{2, "Order$email", "1@x", 2}));
    EXPECT_NE(report.problems[0].message.find("1@x"), std::string::npos);
  }
  EXPECT_GT(report.transactions, 20);
}

TEST_F(StoreCheckerTest, NullsDoNotViolateUniqueness) {
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a"));  // no email: a not-unique null
    store.saveRecord(makeOrder(2, "b"));
  });
  const CheckReport report = check();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.indexEntriesExpected, 6);
}

TEST_F(StoreCheckerTest, FanOutAndUniversalIndexes) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("tags", field("tags", FanType::kFanOut)));
  builder.addUniversalIndex(Index("everything_by_id", field("id")));
  metaData = builder.build();
  withStore([&](RecordStore& store) {
    Order order = makeOrder(1, "tagged");
    order.add_tags("b");
    order.add_tags("a");
    order.add_tags("a");
    store.saveRecord(order);
    Customer customer;
    customer.set_id(2);
    store.saveRecord(customer);
  });
  CheckReport report = check();
  EXPECT_TRUE(report.ok()) << report.summary();
  rawClear(key(fdb::Tuple{2, "tags", "b", 1}));
  rawClear(key(fdb::Tuple{2, "everything_by_id", 2, 2}));
  report = check();
  EXPECT_EQ(report.count(CheckProblemKind::kMissingIndexEntry), 2) << report.summary();
  EXPECT_EQ(report.problems.size(), 2u);
}

TEST_F(StoreCheckerTest, OldVersionFormatStore) {
  // Format 5: unsplit records keep suffix 0, versions live at (8, pk).
  RecordStoreOptions format5;
  format5.formatVersion = 5;
  withStore(
      [&](RecordStore& store) {
        EXPECT_TRUE(store.oldVersionFormat());
        for (int i = 1; i <= 5; ++i)
          store.saveRecord(makeOrder(i, "o", i, std::to_string(i) + "@x"));
        Order large = makeOrder(9, "large");
        large.set_payload(std::string(150'000, 'p'));
        store.saveRecord(large);
      },
      format5);
  ASSERT_TRUE(rawGet(key(fdb::Tuple{8, 1})));
  CheckReport report = check();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.recordsChecked, 6);
  EXPECT_EQ(report.recordKeysScanned, 5 + 2);  // no version keys under (1)
  const fdb::Bytes inlineVersion = key(fdb::Tuple{1, 2, -1});
  rawSet(inlineVersion, *rawGet(key(fdb::Tuple{8, 2})));
  report = check();
  expectOnlyProblem(report, CheckProblemKind::kBadSplit, inlineVersion);
  EXPECT_NE(report.problems[0].message.find("(8, pk)"), std::string::npos);
}

TEST_F(StoreCheckerTest, LegacyUnsuffixedStore) {
  // Format 4 with records that are not split: each record is one key (1, pk), no suffix.
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.setSplitLongRecords(false);
  builder.setStoreRecordVersions(false);
  metaData = builder.build();
  RecordStoreOptions format4;
  format4.formatVersion = 4;
  withStore(
      [&](RecordStore& store) {
        EXPECT_TRUE(store.omitUnsplitRecordSuffix());
        for (int i = 1; i <= 5; ++i)
          store.saveRecord(makeOrder(i, "o", i, std::to_string(i) + "@x"));
      },
      format4);
  ASSERT_TRUE(rawGet(key(fdb::Tuple{1, 3})));
  CheckReport report = check();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.recordsChecked, 5);
  EXPECT_EQ(report.indexEntriesExpected, 15);
  const fdb::Bytes entry = key(fdb::Tuple{2, "Order$price", 3, 3});
  rawClear(entry);
  expectOnlyProblem(check(), CheckProblemKind::kMissingIndexEntry, entry);
  rawSet(entry, "");
  const fdb::Bytes garbage = key(fdb::Tuple{1, 7});
  rawSet(garbage, "\xff\xff");
  expectOnlyProblem(check(), CheckProblemKind::kUndecodableRecord, garbage);
}

TEST_F(StoreCheckerTest, StoresAtOtherLocations) {
  // A store under a directory and a tuple prefix, next to other data the checker ignores.
  const StoreLocation location = StoreLocation::directory({"app", "orders"}, fdb::Tuple{7});
  run([&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData);
    store.saveRecord(makeOrder(1, "a", 1, "a@x"));
    store.saveRecord(makeOrder(2, "b", 2, "b@x"));
    context.transaction().set("unrelated", "x");
  });
  CheckReport report = StoreChecker(db, location, metaData).run();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.recordsChecked, 2);
  const fdb::Bytes prefix =
      run([&](RecordContext& context) { return location.resolve(context.transaction()).key(); });
  const fdb::Bytes entry = prefix + key(fdb::Tuple{2, "Order$name", "a", 1});
  ASSERT_TRUE(rawGet(entry));
  rawClear(entry);
  report = StoreChecker(db, location, metaData).run();
  expectOnlyProblem(report, CheckProblemKind::kMissingIndexEntry, entry);
  // A directory that does not exist: no store.
  report = StoreChecker(db, StoreLocation::directory({"nothing"}), metaData).run();
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].kind, CheckProblemKind::kMissingHeader);
}

TEST_F(StoreCheckerTest, ProblemsBeyondTheLimitAreCounted) {
  saveHealthyStore(10);
  for (int i = 1; i <= 10; ++i) rawClear(key(fdb::Tuple{2, "Order$price", 10 * i, i}));
  CheckOptions options;
  options.maxProblems = 4;
  const CheckReport report = check(options);
  EXPECT_EQ(report.problems.size(), 4u);
  EXPECT_EQ(report.problemsDropped, 6);
  EXPECT_FALSE(report.ok());
}

}  // namespace
}  // namespace rl::store_test
