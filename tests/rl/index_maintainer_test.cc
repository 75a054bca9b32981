// The index-maintainer seam: a test-only index type registered by name sees every save,
// delete, scan, rebuild and online build of its index, and the store checker runs a type's
// own check (or says why it skips an index); VALUE indexes are reached only through
// the registry; an index of a type no factory is registered for is refused when a store opens,
// naming the index and its type; VALUE refuses what it cannot maintain, index scans it does
// not support and aggregates.
#include "rl/index/index_maintainer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "record_store_test_util.h"
#include "rl/index/index_check.h"
#include "rl/index/index_maintainer_registry.h"
#include "rl/index/value_index.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/online_indexer.h"
#include "rl/store/record_store_state.h"
#include "rl/store/store_checker.h"

namespace rl::store_test {
namespace {

constexpr char kRecordingType[] = "test_recording";
constexpr char kRecordingIndex[] = "Order$recorded";

// What the recording maintainers were asked to do, in order: "update (pk) <before> -> <after>"
// with each side the record's name or "none", and "scan".
std::vector<std::string>& calls() {
  static std::vector<std::string> log;
  return log;
}

std::string nameOf(const IndexedRecord& record) {
  if (record.record == nullptr) return "none";
  return static_cast<const Order&>(*record.record).name();
}

// The record's name as its one entry.
std::vector<EvaluatedIndexEntry> nameEntries(const IndexedRecord& record) {
  if (record.record == nullptr) return {};
  return {EvaluatedIndexEntry{fdb::Tuple{nameOf(record)}, fdb::Tuple{}, false}};
}

// Keeps no entries of its own: records its calls, and scans as one entry a call.
class RecordingMaintainer : public IndexMaintainer {
 public:
  using IndexMaintainer::IndexMaintainer;

  std::vector<EvaluatedIndexEntry> evaluateIndex(const IndexedRecord& record) const override {
    return nameEntries(record);
  }
  void update(const fdb::Tuple& primaryKey, const IndexedRecord& before,
              const IndexedRecord& after) override {
    calls().push_back("update " + fdb::printable(primaryKey.pack()) + " " + nameOf(before) +
                      " -> " + nameOf(after));
  }
  CursorPtr<IndexEntry> scan(IndexScanType, const TupleRange&, const std::optional<fdb::Bytes>&,
                             const ScanProperties&) override {
    calls().push_back("scan");
    std::vector<IndexEntry> entries;
    for (size_t i = 0; i < calls().size(); ++i) {
      entries.push_back(IndexEntry{fdb::Tuple{calls()[i]}, fdb::Tuple{}, fdb::Tuple{int64_t(i)}});
    }
    return std::make_unique<ListCursor<IndexEntry>>(std::move(entries));
  }
};

class RecordingFactory : public IndexMaintainerFactory {
 public:
  std::string_view type() const override { return kRecordingType; }
  void validate(const Index&, const RecordMetaData&) const override {}
  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    return std::make_unique<RecordingMaintainer>(store, index);
  }
};

// The VALUE factory wrapped so that it counts the maintainers it makes.
class CountingValueFactory : public IndexMaintainerFactory {
 public:
  explicit CountingValueFactory(std::shared_ptr<const IndexMaintainerFactory> inner, int& made)
      : inner_(std::move(inner)), made_(made) {}
  std::string_view type() const override { return inner_->type(); }
  void validate(const Index& index, const RecordMetaData& metaData) const override {
    inner_->validate(index, metaData);
  }
  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    made_ += 1;
    return inner_->create(store, index);
  }

 private:
  std::shared_ptr<const IndexMaintainerFactory> inner_;
  int& made_;
};

// An index type of its own with a check of its own: one entry (name, pk) a record, like a
// plain value index on the name, maintained without reading anything.
constexpr char kNamesType[] = "test_names";

class NamesMaintainer : public IndexMaintainer {
 public:
  using IndexMaintainer::IndexMaintainer;

  std::vector<EvaluatedIndexEntry> evaluateIndex(const IndexedRecord& record) const override {
    return nameEntries(record);
  }
  void update(const fdb::Tuple& primaryKey, const IndexedRecord& before,
              const IndexedRecord& after) override {
    fdb::Transaction& tr = store_.context->transaction();
    for (const EvaluatedIndexEntry& entry : evaluateIndex(before)) tr.clear(key(entry, primaryKey));
    for (const EvaluatedIndexEntry& entry : evaluateIndex(after))
      tr.set(key(entry, primaryKey), "");
  }
  CursorPtr<IndexEntry> scan(IndexScanType, const TupleRange&, const std::optional<fdb::Bytes>&,
                             const ScanProperties&) override {
    return std::make_unique<ListCursor<IndexEntry>>(std::vector<IndexEntry>{});
  }

 private:
  fdb::Bytes key(const EvaluatedIndexEntry& entry, const fdb::Tuple& primaryKey) const {
    return storeIndex_.subspacePrefix + fdb::Tuple(entry.key).appendAll(primaryKey).pack();
  }
};

// Expects each record's entry; reports an entry whose primary key has no record.
class NamesCheck : public IndexCheck {
 public:
  using IndexCheck::IndexCheck;

  std::vector<ExpectedIndexEntry> expectedEntries(const CheckedRecord& record) const override {
    const std::string& name = static_cast<const Order&>(*record.message).name();
    return {ExpectedIndexEntry{prefix_ + fdb::Tuple{name}.appendAll(record.primaryKey).pack(), "",
                               false}};
  }
  bool checkEntries(IndexCheckContext& step, const std::optional<fdb::Bytes>&) override {
    const fdb::RangeResult rows =
        step.reads().getRange(fdb::KeyRange{prefix_ + '\x00', prefix_ + '\xff'}, {}).get();
    for (const fdb::KeyValueRef& row : rows.rows) {
      step.countEntry(/*checked=*/true);
      const fdb::Tuple entry = fdb::Tuple::unpack(row.key.substr(prefix_.size()));
      fdb::Tuple primaryKey;
      for (size_t i = 1; i < entry.size(); ++i) primaryKey.append(entry[i]);
      if (!step.readRecords({primaryKey}).at(primaryKey).exists) {
        step.problem(CheckProblemKind::kDanglingIndexEntry, row.key, "no record");
      }
    }
    return true;
  }
};

class NamesFactory : public IndexMaintainerFactory {
 public:
  std::string_view type() const override { return kNamesType; }
  void validate(const Index&, const RecordMetaData&) const override {}
  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    return std::make_unique<NamesMaintainer>(store, index);
  }
  std::unique_ptr<IndexCheck> createCheck(const IndexCheckTarget& target) const override {
    return std::make_unique<NamesCheck>(target);
  }
};

class IndexMaintainerTest : public RecordStoreTest {
 protected:
  void SetUp() override {
    IndexMaintainerRegistry::instance().add(std::make_shared<RecordingFactory>());
    IndexMaintainerRegistry::instance().add(std::make_shared<NamesFactory>());
    calls().clear();
  }

  // The test metadata with one more index on Order's name, of `type`.
  static RecordMetaData withIndex(std::string_view name, std::string_view type,
                                  KeyExpression root = field("name")) {
    RecordMetaDataBuilder builder(Order::descriptor()->file());
    builder.addIndex("Order", Index(std::string(name), std::move(root), type));
    return builder.build();
  }
};

TEST_F(IndexMaintainerTest, ARegisteredTypeSeesSavesDeletesAndScansOfItsIndex) {
  metaData = withIndex(kRecordingIndex, kRecordingType);
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "first"));
    store.saveRecord(makeOrder(1, "second"));
    Customer customer;  // a type the index does not cover: not its business
    customer.set_id(2);
    store.saveRecord(customer);
    EXPECT_TRUE(store.deleteRecord(fdb::Tuple{1}));
    EXPECT_FALSE(store.deleteRecord(fdb::Tuple{1}));
  });
  EXPECT_EQ(calls(), (std::vector<std::string>{"update \\x15\\x01 none -> first",
                                               "update \\x15\\x01 first -> second",
                                               "update \\x15\\x01 second -> none"}));
  const std::vector<IndexEntry> scanned = withStore([&](RecordStore& store) {
    CursorPtr<IndexEntry> cursor =
        store.scanIndex(kRecordingIndex, TupleRange::all(), std::nullopt, ScanProperties());
    return asList(*cursor).values;
  });
  ASSERT_EQ(scanned.size(), 4u);
  EXPECT_EQ(scanned[3].key, fdb::Tuple{"scan"});
}

TEST_F(IndexMaintainerTest, RebuildsAndTheOnlineIndexerIndexThroughTheMaintainer) {
  metaData = withIndex(kRecordingIndex, kRecordingType);
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "one"));
    store.saveRecord(makeOrder(2, "two"));
    store.markIndexDisabled(kRecordingIndex);
  });
  calls().clear();
  const IndexBuildReport report =
      OnlineIndexer(db, testLocation(), metaData, kRecordingIndex).run();
  EXPECT_EQ(report.recordsIndexed, 2);
  EXPECT_EQ(report.state, IndexState::kReadable);
  withStore([&](RecordStore& store) { store.rebuildIndex(kRecordingIndex); });
  EXPECT_EQ(calls(), (std::vector<std::string>{
                         "update \\x15\\x01 none -> one", "update \\x15\\x02 none -> two",
                         "update \\x15\\x01 none -> one", "update \\x15\\x02 none -> two"}));
}

TEST_F(IndexMaintainerTest, WhatATypeDoesNotImplementIsRefusedNamingTheType) {
  metaData = withIndex(kRecordingIndex, kRecordingType);
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "one"));
    // The value indexes do not start with the primary key: out of the way of deletes.
    for (const char* name : {"Order$name", "Order$price", "Order$email"}) {
      store.markIndexDisabled(name);
    }
    try {
      store.scanIndexRecords(kRecordingIndex, TupleRange::all(), std::nullopt, ScanProperties());
      ADD_FAILURE() << "fetched records through an index that points at none";
    } catch (const RecordCoreArgumentException& e) {
      EXPECT_NE(std::string(e.what()).find("has type test_recording"), std::string::npos)
          << e.what();
    }
    try {
      store.deleteRecordsWhere(fdb::Tuple{1});
      ADD_FAILURE() << "deleted by range from an index that cannot";
    } catch (const DeleteRecordsWhereException& e) {
      EXPECT_EQ(std::string(e.what()),
                "deleteRecordsWhere(\\x15\\x01): index Order$recorded has type test_recording, "
                "whose entries cannot be deleted by primary-key range");
    }
    // A DISABLED index holds nothing to delete.
    store.markIndexDisabled(kRecordingIndex);
    store.deleteRecordsWhere(fdb::Tuple{1});
    EXPECT_FALSE(store.recordExists(fdb::Tuple{1}));
  });
}

TEST_F(IndexMaintainerTest, AnUnregisteredTypeIsRefusedAtOpenNamingTheIndexAndType) {
  metaData = withIndex("Order$mystery", "no_such_index_type");
  try {
    withStore([](RecordStore&) {});
    ADD_FAILURE() << "opened a store with an index of an unregistered type";
  } catch (const MetaDataException& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("index Order$mystery has type no_such_index_type, for which no index "
                           "maintainer is registered"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("value"), std::string::npos) << message;  // the registered types
  }
  EXPECT_THROW(OnlineIndexer(db, testLocation(), metaData, "Order$mystery").run(),
               MetaDataException);
  EXPECT_TRUE(allKeyValues().empty());  // nothing was written
}

TEST_F(IndexMaintainerTest, TheStoreCheckerRunsEachTypesOwnCheck) {
  metaData = withIndex("Order$names", kNamesType);
  withStore([&](RecordStore& store) {
    for (int i = 1; i <= 3; ++i) store.saveRecord(makeOrder(i, "n" + std::to_string(i), i));
  });
  CheckReport report = StoreChecker(db, testLocation(), metaData).run();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.indexesChecked,
            (std::vector<std::string>{"Order$name", "Order$price", "Order$email", "Order$names"}));
  EXPECT_EQ(report.indexEntriesExpected, 3 * 4);  // name, price, email (null) and names
  EXPECT_EQ(report.indexEntriesScanned, 3 * 4);

  // The record phase looks up the entries the type's check expects; the type's own check
  // judges the entries it finds.
  const fdb::Bytes second = fdb::Tuple{2, "Order$names", "n2", 2}.pack();
  const fdb::Bytes stray = fdb::Tuple{2, "Order$names", "n9", 9}.pack();
  run([&](RecordContext& context) {
    context.transaction().clear(second);
    context.transaction().set(stray, "");
  });
  report = StoreChecker(db, testLocation(), metaData).run();
  ASSERT_EQ(report.problems.size(), 2u) << report.summary();
  EXPECT_EQ(report.problems[0].kind, CheckProblemKind::kMissingIndexEntry);
  EXPECT_EQ(report.problems[0].key, second);
  EXPECT_EQ(report.problems[1].kind, CheckProblemKind::kDanglingIndexEntry);
  EXPECT_EQ(report.problems[1].key, stray);
}

TEST_F(IndexMaintainerTest, TheStoreCheckerSkipsTypesWithoutACheckSayingWhy) {
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(1, "one")); });
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index(kRecordingIndex, field("name"), kRecordingType));
  builder.addIndex("Order", Index("Order$mystery", field("name"), "no_such_index_type"));
  const CheckReport report = StoreChecker(db, testLocation(), builder.build()).run();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.indexesSkipped,
            (std::vector<std::string>{
                "Order$recorded: type test_recording is not checked",
                "Order$mystery: type no_such_index_type is not checked (no index maintainer is "
                "registered for it)"}));
}

TEST_F(IndexMaintainerTest, ValueIndexesAreReachedOnlyThroughTheRegistry) {
  IndexMaintainerRegistry& registry = IndexMaintainerRegistry::instance();
  const std::shared_ptr<const IndexMaintainerFactory> value = registry.find(Index::kValue);
  ASSERT_NE(value, nullptr);
  int made = 0;
  registry.add(std::make_shared<CountingValueFactory>(value, made));
  struct Restore {
    ~Restore() { IndexMaintainerRegistry::instance().add(value); }
    std::shared_ptr<const IndexMaintainerFactory> value;
  } restore{value};
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "one", 10, "one@x"));
    EXPECT_EQ(made, 3);  // Order$name, Order$price, Order$email: one maintainer each
    store.saveRecord(makeOrder(2, "two", 20));
    const std::vector<IndexEntry> entries = [&] {
      CursorPtr<IndexEntry> cursor =
          store.scanIndex("Order$price", TupleRange::all(), std::nullopt, ScanProperties());
      return asList(*cursor).values;
    }();
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1].primaryKey, fdb::Tuple{2});
    EXPECT_EQ(made, 3);  // kept by the store for the rest of the transaction
  });
}

TEST_F(IndexMaintainerTest, ValueRefusesVersionsScanTypesAndAggregates) {
  metaData = withIndex("Order$name_version", Index::kValue, concat(field("name"), version()));
  try {
    withStore([](RecordStore&) {});
    ADD_FAILURE() << "opened a store with a value index on versions";
  } catch (const MetaDataException& e) {
    EXPECT_NE(std::string(e.what()).find("index Order$name_version of type value holds a "
                                         "record version"),
              std::string::npos)
        << e.what();
  }

  metaData = testMetaData();
  withStore([&](RecordStore& store) {
    RecordStore::State& state = RecordStoreAccess::state(store);
    IndexMaintainer& maintainer = state.maintainer(state.storeIndex("Order$price"));
    EXPECT_THROW(
        maintainer.scan(IndexScanType::kByRank, TupleRange::all(), std::nullopt, ScanProperties()),
        RecordCoreArgumentException);
    const IndexAggregateFunction count{"count", KeyExpression()};
    EXPECT_FALSE(maintainer.canEvaluateAggregate(count));
    try {
      maintainer.evaluateAggregate(count, TupleRange::all(), IsolationLevel::kSerializable);
      ADD_FAILURE() << "a value index evaluated an aggregate";
    } catch (const RecordCoreArgumentException& e) {
      EXPECT_EQ(std::string(e.what()),
                "aggregate function count is unsupported by index type value (index "
                "Order$price)");
    }
  });
}

TEST(IndexMaintainerRegistryTest, HoldsTheBuiltInTypesFromItsFirstUse) {
  const IndexMaintainerRegistry& registry = IndexMaintainerRegistry::instance();
  ASSERT_NE(registry.find("value"), nullptr);
  EXPECT_EQ(registry.find("value")->type(), "value");
  EXPECT_EQ(registry.find("no_such_index_type"), nullptr);
  const std::vector<std::string> types = registry.types();
  EXPECT_NE(std::find(types.begin(), types.end(), "value"), types.end());
  EXPECT_THROW(registry.factoryFor(Index("i", field("f"), "no_such_index_type")),
               MetaDataException);
}

}  // namespace
}  // namespace rl::store_test
