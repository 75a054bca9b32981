// Aggregate indexes (src/rl/index/aggregate_index.h) and the record count: golden bytes of
// each type's keys and values (written from docs/format.md, not from our encoder), a
// randomized run against a model of every aggregate, evaluateAggregateFunction, validation
// errors, the online build of an index that counts, the checker, concurrent saves to one
// group, and counts under injected commit faults.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fdb/error.h"
#include "fdb/tuple.h"
#include "record_store_test_util.h"
#include "rl/context/record_context.h"
#include "rl/index/aggregate_index.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/query/record_query_planner.h"
#include "rl/record_core_exception.h"
#include "rl/store/online_indexer.h"
#include "rl/store/record_store.h"
#include "rl/store/store_checker.h"

namespace rl {
namespace {

using store_test::makeOrder;
using store_test::Order;
using store_test::testLocation;

// Little-endian int64, written out byte by byte.
std::string le(uint8_t low, uint8_t second = 0) {
  return std::string{static_cast<char>(low), static_cast<char>(second), 0, 0, 0, 0, 0, 0};
}

// The aggregate indexes of the tests, on Order(id, name, price, email).
void addAggregateIndexes(RecordMetaDataBuilder& builder) {
  builder.addIndex("Order", Index("cnt", grouping(field("name"), 0), Index::kCount));
  builder.addIndex("Order", Index("cntz", grouping(field("name"), 0), Index::kCount,
                                  {{std::string(kClearWhenZeroOption), "true"}}));
  builder.addIndex("Order", Index("all", grouping(empty(), 0), Index::kCount));
  builder.addIndex("Order", Index("upd", grouping(empty(), 0), kCountUpdatesIndexType));
  builder.addIndex("Order", Index("nn", field("email").ungrouped(), kCountNotNullIndexType));
  builder.addIndex("Order", Index("sum", field("price").groupBy(field("name")), Index::kSum));
  builder.addIndex("Order", Index("min", field("price").ungrouped(), kMinEverLongIndexType));
  builder.addIndex("Order", Index("max", field("price").groupBy(field("name")), Index::kMaxEver));
  builder.addIndex("Order", Index("mint", field("name").ungrouped(), kMinEverTupleIndexType));
  builder.addIndex("Order", Index("maxt", field("name").ungrouped(), kMaxEverTupleIndexType));
  builder.addIndex("Order", Index("maxv", version().ungrouped(), kMaxEverVersionIndexType));
}

RecordMetaData aggregateMetaData() {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  addAggregateIndexes(builder);
  return builder.build();
}

class AggregateIndexTest : public store_test::RecordStoreTest {
 protected:
  AggregateIndexTest() { metaData = aggregateMetaData(); }

  fdb::Tuple aggregate(std::string_view name, const KeyExpression& operand,
                       const fdb::Tuple& group = {}) {
    return withStore([&](RecordStore& store) {
      return store.evaluateAggregateFunction(
          {"Order"}, IndexAggregateFunction{std::string(name), operand}, group);
    });
  }
};

// P is empty, so (2, "cnt", "a") is 15 02 | 02 63 6E 74 00 | 02 61 00.
TEST_F(AggregateIndexTest, GoldenKeysAndValues) {
  std::string versionstamp;
  {
    RecordContext context(db);
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    store.saveRecord(makeOrder(1, "a", 5, "x@"));
    store.saveRecord(makeOrder(2, "a", 7));
    store.saveRecord(makeOrder(3, "b", 2));
    context.commit();
    versionstamp = *context.committedVersionstamp();
  }
  const std::string cnt(
      "\x15\x02\x02"
      "cnt\x00",
      7);
  EXPECT_EQ(rawGet(cnt + std::string("\x02"
                                     "a\x00",
                                     3)),
            le(2));
  EXPECT_EQ(rawGet(cnt + std::string("\x02"
                                     "b\x00",
                                     3)),
            le(1));
  // Ungrouped: exactly P+(2, "all").
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "all\x00",
                               7)),
            le(3));
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "upd\x00",
                               7)),
            le(3));
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "nn\x00",
                               6)),
            le(1));  // one email
  const std::string sum(
      "\x15\x02\x02"
      "sum\x00",
      7);
  EXPECT_EQ(rawGet(sum + std::string("\x02"
                                     "a\x00",
                                     3)),
            le(12));
  EXPECT_EQ(rawGet(sum + std::string("\x02"
                                     "b\x00",
                                     3)),
            le(2));
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "min\x00",
                               7)),
            le(2));
  const std::string max(
      "\x15\x02\x02"
      "max\x00",
      7);
  EXPECT_EQ(rawGet(max + std::string("\x02"
                                     "a\x00",
                                     3)),
            le(7));
  // Tuple kinds: the packed tuple ("a") / ("b").
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "mint\x00",
                               8)),
            std::string("\x02"
                        "a\x00",
                        3));
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "maxt\x00",
                               8)),
            std::string("\x02"
                        "b\x00",
                        3));
  // The versionstamp type code 0x33, the commit's 10 bytes, the largest local version (2).
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "maxv\x00",
                               8)),
            "\x33" + versionstamp + std::string("\x00\x02", 2));

  // A delete undoes count and sum, not the _ever kinds; clearWhenZero drops the group.
  withStore([](RecordStore& store) { store.deleteRecord(fdb::Tuple{3}); });
  EXPECT_EQ(rawGet(cnt + std::string("\x02"
                                     "b\x00",
                                     3)),
            le(0));
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "cntz\x00",
                               8) +
                   std::string("\x02"
                               "b\x00",
                               3)),
            std::nullopt);
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "cntz\x00",
                               8) +
                   std::string("\x02"
                               "a\x00",
                               3)),
            le(2));
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "min\x00",
                               7)),
            le(2));
  EXPECT_EQ(rawGet(sum + std::string("\x02"
                                     "b\x00",
                                     3)),
            le(0));
  // count_updates counts a save that changes nothing too.
  withStore([](RecordStore& store) { store.saveRecord(makeOrder(1, "a", 5, "x@")); });
  EXPECT_EQ(rawGet(std::string("\x15\x02\x02"
                               "upd\x00",
                               7)),
            le(4));
  EXPECT_EQ(rawGet(cnt + std::string("\x02"
                                     "a\x00",
                                     3)),
            le(2));
}

TEST_F(AggregateIndexTest, EvaluatesAggregateFunctions) {
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 5, "x@"));
    store.saveRecord(makeOrder(2, "a", 7));
    store.saveRecord(makeOrder(3, "b", 2));
  });
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{"a"}), fdb::Tuple{2});
  // Grouped by nothing: the groups of the index rolled up (or its ungrouped twin "all").
  EXPECT_EQ(aggregate("count", grouping(empty(), 0)), fdb::Tuple{3});
  EXPECT_EQ(aggregate("count_updates", grouping(empty(), 0)), fdb::Tuple{3});
  EXPECT_EQ(aggregate("count_not_null", field("email").ungrouped()), fdb::Tuple{1});
  EXPECT_EQ(aggregate("sum", field("price").groupBy(field("name")), fdb::Tuple{"a"}),
            fdb::Tuple{12});
  EXPECT_EQ(aggregate("sum", field("price").ungrouped()), fdb::Tuple{14});
  EXPECT_EQ(aggregate("min_ever", field("price").ungrouped()), fdb::Tuple{2});
  EXPECT_EQ(aggregate("max_ever", field("price").groupBy(field("name")), fdb::Tuple{"b"}),
            fdb::Tuple{2});
  EXPECT_EQ(aggregate("max_ever", field("price").ungrouped()), fdb::Tuple{7});
  EXPECT_EQ(aggregate("min_ever", field("name").ungrouped()), fdb::Tuple{"a"});
  EXPECT_EQ(aggregate("max_ever_tuple", field("name").ungrouped()), fdb::Tuple{"b"});
  EXPECT_EQ(aggregate("sum", field("price").groupBy(field("name")), fdb::Tuple{"none"}),
            fdb::Tuple{0});
  const fdb::Tuple maxVersion = aggregate("max_ever_version", version().ungrouped());
  ASSERT_EQ(maxVersion.size(), 1u);
  EXPECT_TRUE(maxVersion.getVersionstamp(0).isComplete());
}

TEST_F(AggregateIndexTest, RefusesFunctionsNoIndexAnswers) {
  withStore([](RecordStore& store) { store.saveRecord(makeOrder(1, "a", 5)); });
  auto expectRefused = [&](std::string_view name, const KeyExpression& operand,
                           std::vector<std::string> types = {"Order"}) {
    try {
      withStore([&](RecordStore& store) {
        store.evaluateAggregateFunction(types, IndexAggregateFunction{std::string(name), operand},
                                        fdb::Tuple{});
      });
      ADD_FAILURE() << name << " was answered";
    } catch (const RecordCoreArgumentException& e) {
      EXPECT_NE(std::string(e.what()).find("no readable index can evaluate aggregate function " +
                                           std::string(name)),
                std::string::npos)
          << e.what();
    }
  };
  expectRefused("avg", field("price").ungrouped());                     // no such function
  expectRefused("sum", field("id").ungrouped());                        // no sum of id
  expectRefused("count", grouping(field("email"), 0));                  // not grouped by email
  expectRefused("count", grouping(empty(), 0), {"Customer"});           // not on Customer
  expectRefused("count", grouping(empty(), 0), {"Order", "Customer"});  // not on both
  // An index that is not readable answers nothing.
  withStore([](RecordStore& store) {
    store.markIndexWriteOnly("cnt");
    store.markIndexWriteOnly("cntz");
    store.markIndexWriteOnly("all");
  });
  expectRefused("count", grouping(field("name"), 0));
  EXPECT_THROW(withStore([](RecordStore& store) {
                 store.scanIndex("sum", TupleRange::all(), std::nullopt, ScanProperties());
               }),
               RecordCoreArgumentException);  // BY_VALUE on an aggregate index
}

TEST_F(AggregateIndexTest, ValidatesDefinitions) {
  auto open = [&](Index index) {
    RecordMetaDataBuilder builder(Order::descriptor()->file());
    builder.addIndex("Order", std::move(index));
    metaData = builder.build();
    withStore([](RecordStore&) {});
  };
  EXPECT_THROW(open(Index("c", field("name"), Index::kCount)), MetaDataException);  // no grouping
  EXPECT_THROW(open(Index("c", field("name").ungrouped(), Index::kCount)), MetaDataException);
  EXPECT_THROW(open(Index("s", concatenateFields("name", "price").ungrouped(), Index::kSum)),
               MetaDataException);
  EXPECT_THROW(open(Index("m", field("price").ungrouped(), kMaxEverTupleIndexType,
                          {{std::string(kClearWhenZeroOption), "true"}})),
               MetaDataException);
  EXPECT_THROW(open(Index("v", version().ungrouped(), Index::kMaxEver)), MetaDataException);
  EXPECT_THROW(open(Index("v", field("price").ungrouped(), kMaxEverVersionIndexType)),
               MetaDataException);
  // A proto without a grouping is wrapped on load as the Java Record Layer wraps it: a sum
  // aggregates its last column.
  IndexProto proto = Index("s", concatenateFields("name", "price"), Index::kSum).toProto();
  const Index loaded = Index::fromProto(proto);
  ASSERT_EQ(loaded.rootExpression().kind(), KeyExpression::Kind::kGrouping);
  EXPECT_EQ(loaded.rootExpression().groupedCount(), 1);
  EXPECT_EQ(loaded.rootExpression().groupingCount(), 1);

  // A count is wrapped with every column aggregated (Java's grouping(root, columns)), which
  // a count does not allow: such an old definition is refused, as Java's validator refuses it.
  const Index count = Index::fromProto(Index("c", field("name"), Index::kCount).toProto());
  ASSERT_EQ(count.rootExpression().kind(), KeyExpression::Kind::kGrouping);
  EXPECT_EQ(count.rootExpression().groupedCount(), 1);
  EXPECT_THROW(open(count), MetaDataException);
  // An empty root wraps to an ungrouped count, which is fine.
  const Index all = Index::fromProto(Index("all", empty(), Index::kCount).toProto());
  EXPECT_EQ(all.rootExpression(), grouping(empty(), 0));

  // Values the mutations cannot take.
  open(Index("m", field("price").ungrouped(), kMaxEverLongIndexType));
  EXPECT_THROW(withStore([](RecordStore& store) { store.saveRecord(makeOrder(1, "a", -5)); }),
               RecordCoreException);
  // A sum of a string field is refused when the store opens.
  try {
    open(Index("s", field("name").ungrouped(), Index::kSum));
    ADD_FAILURE() << "a sum of a string opened";
  } catch (const MetaDataException& e) {
    EXPECT_NE(std::string(e.what()).find("it aggregates integer fields, and name of Order is a "
                                         "string"),
              std::string::npos)
        << e.what();
  }
}

// What each aggregate should hold after a history of saves and deletes.
struct AggregateModel {
  std::map<int64_t, Order> records;
  std::map<std::string, int64_t> maxEverByName;
  std::optional<int64_t> minEverPrice;
  std::optional<std::string> minEverName, maxEverName;
  int64_t updates = 0;

  void save(const Order& order) {
    records[order.id()] = order;
    updates += 1;
    auto& max = maxEverByName[order.name()];
    max = std::max(max, order.price());
    minEverPrice = std::min(minEverPrice.value_or(order.price()), order.price());
    minEverName = std::min(minEverName.value_or(order.name()), order.name());
    maxEverName = std::max(maxEverName.value_or(order.name()), order.name());
  }
  int64_t count(const std::optional<std::string>& name) const {
    int64_t n = 0;
    for (const auto& [id, order] : records) n += !name || order.name() == *name;
    return n;
  }
  int64_t sum(const std::string& name) const {
    int64_t total = 0;
    for (const auto& [id, order] : records) total += order.name() == name ? order.price() : 0;
    return total;
  }
  int64_t emails() const {
    int64_t n = 0;
    for (const auto& [id, order] : records) n += order.has_email();
    return n;
  }
};

TEST_F(AggregateIndexTest, RandomHistoryMatchesModel) {
  std::mt19937_64 random(2212);
  auto uniform = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  AggregateModel model;
  for (int txn = 0; txn < 150; ++txn) {
    withStore([&](RecordStore& store) {
      for (int i = 0, n = static_cast<int>(uniform(1, 5)); i < n; ++i) {
        const int64_t id = uniform(1, 40);
        if (uniform(0, 3) == 0) {
          store.deleteRecord(fdb::Tuple{id});
          model.records.erase(id);
        } else {
          Order order = makeOrder(id, names[static_cast<size_t>(uniform(0, 3))], uniform(0, 500));
          if (uniform(0, 2) == 0) order.set_email(std::to_string(id) + "@x");
          store.saveRecord(order);
          model.save(order);
        }
      }
    });
  }
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{name}),
              fdb::Tuple{model.count(name)});
    EXPECT_EQ(aggregate("sum", field("price").groupBy(field("name")), fdb::Tuple{name}),
              fdb::Tuple{model.sum(name)});
    if (model.maxEverByName.contains(name)) {
      EXPECT_EQ(aggregate("max_ever", field("price").groupBy(field("name")), fdb::Tuple{name}),
                fdb::Tuple{model.maxEverByName[name]});
    }
    // clearWhenZero: a key exactly while the group has records.
    const std::string key = std::string(
                                "\x15\x02\x02"
                                "cntz\x00",
                                8) +
                            fdb::Tuple{name}.pack();
    EXPECT_EQ(rawGet(key).has_value(), model.count(name) > 0);
  }
  EXPECT_EQ(aggregate("count", grouping(empty(), 0)), fdb::Tuple{model.count(std::nullopt)});
  EXPECT_EQ(aggregate("count_updates", grouping(empty(), 0)), fdb::Tuple{model.updates});
  EXPECT_EQ(aggregate("count_not_null", field("email").ungrouped()), fdb::Tuple{model.emails()});
  EXPECT_EQ(aggregate("min_ever", field("price").ungrouped()), fdb::Tuple{*model.minEverPrice});
  EXPECT_EQ(aggregate("min_ever", field("name").ungrouped()), fdb::Tuple{*model.minEverName});
  EXPECT_EQ(aggregate("max_ever", field("name").ungrouped()), fdb::Tuple{*model.maxEverName});

  CheckOptions options;
  options.maxItemsPerTransaction = 7;  // many steps
  CheckReport report = StoreChecker(db, testLocation(), metaData, options).run();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.recordsChecked, model.count(std::nullopt));
  for (std::string_view index : {"cnt", "sum", "maxv", "upd", "mint"}) {
    EXPECT_NE(std::find(report.indexesChecked.begin(), report.indexesChecked.end(), index),
              report.indexesChecked.end())
        << index;
  }

  // Planted corruptions: a wrong count, a sum of a group with no records, a max_ever below
  // a value a record holds.
  const std::string cnt = std::string(
                              "\x15\x02\x02"
                              "cnt\x00",
                              7) +
                          fdb::Tuple{"a"}.pack();
  const std::string sum = std::string(
                              "\x15\x02\x02"
                              "sum\x00",
                              7) +
                          fdb::Tuple{"zz"}.pack();
  const std::string max = std::string(
                              "\x15\x02\x02"
                              "max\x00",
                              7) +
                          fdb::Tuple{"b"}.pack();
  run([&](RecordContext& context) {
    context.transaction().set(cnt, le(static_cast<uint8_t>(model.count("a") + 1)));
    context.transaction().set(sum, le(9));
    context.transaction().set(max, le(0));
  });
  report = StoreChecker(db, testLocation(), metaData, options).run();
  std::set<std::pair<CheckProblemKind, std::string>> found;
  for (const CheckProblem& problem : report.problems) found.emplace(problem.kind, problem.key);
  EXPECT_TRUE(found.contains({CheckProblemKind::kWrongIndexValue, cnt})) << report.summary();
  EXPECT_TRUE(found.contains({CheckProblemKind::kDanglingIndexEntry, sum})) << report.summary();
  if (model.count("b") > 0) {
    EXPECT_TRUE(found.contains({CheckProblemKind::kWrongIndexValue, max})) << report.summary();
  }
}

// A count index added to a store with more records than open builds at once is built by
// the online indexer while saves and deletes go on between its steps; no record counts twice.
TEST_F(AggregateIndexTest, OnlineBuildOfACountIsExact) {
  metaData = store_test::testMetaData();
  for (int64_t batch = 0; batch < 3; ++batch) {
    withStore([&](RecordStore& store) {
      for (int64_t id = batch * 100; id < batch * 100 + 100; ++id) {
        store.saveRecord(makeOrder(id, id % 2 == 0 ? "even" : "odd", id));
      }
    });
  }
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("cnt", grouping(field("name"), 0), Index::kCount));
  builder.addIndex("Order", Index("sum", field("price").groupBy(field("name")), Index::kSum));
  metaData = builder.build();
  EXPECT_EQ(withStore([](RecordStore& store) { return store.indexState("cnt"); }),
            IndexState::kDisabled);
  std::map<int64_t, std::string> model;
  for (int64_t id = 0; id < 300; ++id) model[id] = id % 2 == 0 ? "even" : "odd";
  int64_t next = 1000;
  auto churn = [&](const IndexBuildReport&) {
    withStore([&](RecordStore& store) {
      // A new record (after every built range), an update and a delete on either side.
      store.saveRecord(makeOrder(next, "odd", 1));
      model[next++] = "odd";
      const int64_t low = static_cast<int64_t>(model.size()) % 50;
      store.saveRecord(makeOrder(low, "even", 3));
      model[low] = "even";
      const int64_t high = 250 - static_cast<int64_t>(model.size()) % 40;
      store.deleteRecord(fdb::Tuple{high});
      model.erase(high);
    });
  };
  for (std::string_view index : {"cnt", "sum"}) {
    OnlineIndexerOptions options;
    options.recordsPerTransaction = 40;
    const IndexBuildReport report =
        OnlineIndexer(db, testLocation(), metaData, std::string(index), options).run(churn);
    EXPECT_EQ(report.state, IndexState::kReadable);
    EXPECT_GT(report.transactions, 5);
  }
  int64_t even = 0;
  for (const auto& [id, name] : model) even += name == "even";
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{"even"}), fdb::Tuple{even});
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0)),
            fdb::Tuple{static_cast<int64_t>(model.size())});
  CheckReport check = StoreChecker(db, testLocation(), metaData).run();
  EXPECT_TRUE(check.ok()) << check.summary();

  // A WRITE_ONLY count left by someone else (no range set of this indexer's) is built again
  // from nothing, not on top of what it holds.
  run([&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    store.markIndexDisabled("cnt");
    store.markIndexWriteOnly("cnt");
    context.transaction().atomicOp(std::string("\x15\x02\x02"
                                               "cnt\x00",
                                               7) +
                                       fdb::Tuple{"even"}.pack(),
                                   le(100), fdb::MutationType::kAdd);
  });
  OnlineIndexer(db, testLocation(), metaData, "cnt").run();
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{"even"}), fdb::Tuple{even});
  // Marking a built count WRITE_ONLY keeps it maintained by saves.
  withStore([](RecordStore& store) { store.markIndexWriteOnly("cnt"); });
  withStore([](RecordStore& store) { store.saveRecord(makeOrder(5000, "even", 1)); });
  OnlineIndexer(db, testLocation(), metaData, "cnt").run();
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{"even"}),
            fdb::Tuple{even + 1});
}

TEST_F(AggregateIndexTest, ConcurrentSavesToOneGroupDoNotConflict) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("cnt", grouping(field("name"), 0), Index::kCount));
  builder.addIndex("Order", Index("sum", field("price").groupBy(field("name")), Index::kSum));
  builder.addIndex("Order", Index("max", field("price").groupBy(field("name")), Index::kMaxEver));
  builder.setRecordCountKey(empty());
  metaData = builder.build();
  withStore([](RecordStore&) {});  // the header exists before the threads start
  constexpr int kThreads = 4;
  constexpr int kRounds = 25;
  std::barrier allRead(kThreads);
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        RecordContext context(db);
        RecordStore store = RecordStore::open(context, testLocation(), metaData);
        store.saveRecord(makeOrder(t * 1000 + round, "same", round));
        allRead.arrive_and_wait();  // every transaction has read before any commits
        try {
          context.commit();
        } catch (const fdb::Error& e) {
          if (e.code() == 1020) conflicts += 1;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(conflicts.load(), 0);
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{"same"}),
            fdb::Tuple{kThreads * kRounds});
  EXPECT_EQ(aggregate("sum", field("price").groupBy(field("name")), fdb::Tuple{"same"}),
            fdb::Tuple{kThreads * (kRounds * (kRounds - 1) / 2)});
  EXPECT_EQ(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }),
            kThreads * kRounds);
}

// --- The record count ---

TEST_F(AggregateIndexTest, RecordCountKeyIsMaintainedAndRebuilt) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.setRecordCountKey(empty());
  metaData = builder.build();
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a"));
    store.saveRecord(makeOrder(2, "a"));
    store.saveRecord(makeOrder(3, "b"));
    store.saveRecord(makeOrder(3, "b", 9));  // an update counts nothing
    store.deleteRecord(fdb::Tuple{2});
    store.deleteRecord(fdb::Tuple{7});  // nothing to delete
  });
  EXPECT_EQ(rawGet(std::string("\x15\x04", 2)), le(2));  // exactly P+(4)
  EXPECT_EQ(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }), 2);
  // The header remembers the key (format 3 and later).
  EXPECT_EQ(withStore([](RecordStore& store) {
              return KeyExpression::fromProto(store.header().record_count_key());
            }),
            empty());

  // Counted by name now: the counts are rebuilt at open.
  builder.setRecordCountKey(field("name"));
  builder.setVersion(metaData.version() + 1);
  metaData = builder.build();
  EXPECT_EQ(withStore([](RecordStore& store) {
              return KeyExpression::fromProto(store.header().record_count_key());
            }),
            field("name"));
  EXPECT_EQ(rawGet(std::string("\x15\x04", 2)), std::nullopt);
  EXPECT_EQ(rawGet(std::string("\x15\x04\x02"
                               "a\x00",
                               5)),
            le(1));
  EXPECT_EQ(rawGet(std::string("\x15\x04\x02"
                               "b\x00",
                               5)),
            le(1));
  EXPECT_EQ(withStore([](RecordStore& store) {
              return store.snapshotRecordCount(field("name"), fdb::Tuple{"b"});
            }),
            1);
  EXPECT_EQ(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }), 2);
  // Without a count key (nor a count index) the counts go, and nothing answers.
  builder.setRecordCountKey(std::nullopt);
  builder.setVersion(metaData.version() + 1);
  metaData = builder.build();
  EXPECT_FALSE(withStore([](RecordStore& store) { return store.header().has_record_count_key(); }));
  EXPECT_EQ(rawGet(std::string("\x15\x04\x02"
                               "a\x00",
                               5)),
            std::nullopt);
  EXPECT_THROW(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }),
               RecordCoreArgumentException);
}

TEST_F(AggregateIndexTest, SnapshotRecordCountFromACountIndex) {
  // Every record type has a name: a universal count grouped by it answers for all records.
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addUniversalIndex(Index("byName", grouping(field("name"), 0), Index::kCount));
  metaData = builder.build();
  withStore([](RecordStore& store) {
    for (int64_t id = 0; id < 5; ++id) store.saveRecord(makeOrder(id, id < 2 ? "a" : "b"));
  });
  EXPECT_EQ(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }), 5);
  EXPECT_EQ(withStore([](RecordStore& store) {
              return store.snapshotRecordCount(field("name"), fdb::Tuple{"a"});
            }),
            2);
}

TEST_F(AggregateIndexTest, DeleteRecordsWhereClearsGroupsAndCounts) {
  // Orders keyed by (region, id): a count grouped by region can be cleared by region.
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.recordType("Order").setPrimaryKey(concat(field("name"), field("id")));
  builder.recordType("Customer").setPrimaryKey(concat(field("name"), field("id")));
  for (const std::string name : {"Order$name", "Order$price", "Order$email"}) {
    builder.removeIndex(name);
  }
  builder.addIndex("Order", Index("cnt", grouping(field("name"), 0), Index::kCount));
  builder.setRecordCountKey(field("name"));
  metaData = builder.build();
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "east"));
    store.saveRecord(makeOrder(2, "east"));
    store.saveRecord(makeOrder(3, "west"));
    store.deleteRecordsWhere(fdb::Tuple{"east"});
  });
  EXPECT_EQ(aggregate("count", grouping(field("name"), 0)), fdb::Tuple{1});
  EXPECT_EQ(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }), 1);
  EXPECT_EQ(rawGet(std::string("\x15\x04\x02"
                               "east\x00",
                               8)),
            std::nullopt);
}

// --- Under injected faults ---

TEST_F(AggregateIndexTest, CountsStayExactUnderInjectedFaults) {
  RL_SKIP_UNLESS_EMBEDDED_ENGINE("fault injection through fdb::EngineOptions");
  fdb::EngineOptions faults;
  faults.faults.enabled = true;
  faults.faults.seed = 2212;
  faults.faults.notCommitted = 0.05;
  faults.faults.unknownResult = 0.08;
  faults.faults.readVersionTooOld = 0.01;
  db = rl::tests::openTestDatabase(faults);
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("cnt", grouping(field("name"), 0), Index::kCount));
  builder.addIndex("Order", Index("sum", field("price").groupBy(field("name")), Index::kSum));
  builder.addIndex("Order", Index("upd", grouping(empty(), 0), kCountUpdatesIndexType));
  builder.setRecordCountKey(empty());
  metaData = builder.build();
  // After every key of the store (its keyspace elements are 0..10), so not its first key.
  const fdb::Subspace markers{fdb::Tuple{int64_t{99}}};
  std::mt19937_64 random(7);
  auto uniform = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };
  AggregateModel model;
  int64_t attempts = 0;
  int64_t foundOwnMarker = 0;
  const int transactions = 600;
  for (int txn = 0; txn < transactions; ++txn) {
    std::vector<std::pair<bool, Order>> operations;  // (delete?, order)
    for (int i = 0, n = static_cast<int>(uniform(1, 4)); i < n; ++i) {
      const int64_t id = uniform(1, 60);
      operations.emplace_back(uniform(0, 3) == 0,
                              makeOrder(id, uniform(0, 1) == 0 ? "a" : "b", uniform(1, 100)));
    }
    // Automatic idempotency: an attempt finding its marker knows an earlier one committed.
    const fdb::Bytes marker = markers.pack(fdb::Tuple{txn});
    runInContext(db, [&](RecordContext& context) {
      ++attempts;
      if (context.transaction().get(marker).get()) {
        ++foundOwnMarker;
        return;
      }
      RecordStore store = RecordStore::open(context, testLocation(), metaData);
      for (const auto& [remove, order] : operations) {
        if (remove) {
          store.deleteRecord(fdb::Tuple{order.id()});
        } else {
          store.saveRecord(order);
        }
      }
      context.transaction().set(marker, "");
    });
    for (const auto& [remove, order] : operations) {
      if (remove) {
        model.records.erase(order.id());
      } else {
        model.save(order);
      }
    }
  }
  EXPECT_GT(attempts, transactions);
  EXPECT_GT(foundOwnMarker, 0);
  for (const std::string name : {"a", "b"}) {
    EXPECT_EQ(aggregate("count", grouping(field("name"), 0), fdb::Tuple{name}),
              fdb::Tuple{model.count(name)});
    EXPECT_EQ(aggregate("sum", field("price").groupBy(field("name")), fdb::Tuple{name}),
              fdb::Tuple{model.sum(name)});
  }
  EXPECT_EQ(aggregate("count_updates", grouping(empty(), 0)), fdb::Tuple{model.updates});
  EXPECT_EQ(withStore([](RecordStore& store) { return store.snapshotRecordCount(); }),
            model.count(std::nullopt));
  CheckReport report = StoreChecker(db, testLocation(), metaData).run();
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rl

namespace rl {
namespace {

// Aggregate queries answered from the groups of an aggregate index, no record read.
TEST_F(AggregateIndexTest, PlansCoveringAggregateQueries) {
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 5));
    store.saveRecord(makeOrder(2, "a", 7));
    store.saveRecord(makeOrder(3, "b", 2));
    store.saveRecord(makeOrder(4, "c", 1));
  });
  auto rows = [&](const RecordQueryPlan& plan) {
    return withStore([&](RecordStore& store) {
      std::vector<std::pair<std::string, fdb::Tuple>> out;
      CursorPtr<QueriedRecord> cursor = store.executeQuery(plan, std::nullopt, {});
      for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
        const auto& order = dynamic_cast<const Order&>(*r.value().record);
        EXPECT_TRUE(r.value().partial);
        out.emplace_back(order.name(), r.value().indexEntry->value());
      }
      return out;
    });
  };
  RecordQueryPlanner planner(metaData);
  RecordQuery query{.recordTypes = {"Order"}, .filter = Query::field("name").equalsValue("a")};
  std::shared_ptr<const RecordQueryCoveringIndexPlan> plan =
      planner.planCoveringAggregateIndex(query, "sum");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->explain(), "Covering(Index(sum [[a],[a]] BY_GROUP) -> [name: KEY[0]])");
  EXPECT_EQ(rows(*plan), (std::vector<std::pair<std::string, fdb::Tuple>>{{"a", fdb::Tuple{12}}}));
  // A range over the group, every group, and reversed.
  query.filter = Query::field("name").greaterThan("a");
  plan = planner.planCoveringAggregateIndex(query, "cnt");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(rows(*plan), (std::vector<std::pair<std::string, fdb::Tuple>>{{"b", fdb::Tuple{1}},
                                                                          {"c", fdb::Tuple{1}}}));
  query.filter.reset();
  query.sort = field("name");
  query.sortReverse = true;
  plan = planner.planCoveringAggregateIndex(query, "max");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->explain(), "Covering(Index(max <,> BY_GROUP REVERSE) -> [name: KEY[0]])");
  EXPECT_EQ(rows(*plan), (std::vector<std::pair<std::string, fdb::Tuple>>{
                             {"c", fdb::Tuple{1}}, {"b", fdb::Tuple{2}}, {"a", fdb::Tuple{7}}}));
  // Not answerable from the groups: a filter on a non-group field, a required field the
  // index lacks, a value index, another record type.
  query = RecordQuery{.recordTypes = {"Order"}, .filter = Query::field("price").equalsValue(5)};
  EXPECT_EQ(planner.planCoveringAggregateIndex(query, "sum"), nullptr);
  query = RecordQuery{.recordTypes = {"Order"}, .requiredResults = std::vector{field("price")}};
  EXPECT_EQ(planner.planCoveringAggregateIndex(query, "cnt"), nullptr);
  EXPECT_EQ(
      planner.planCoveringAggregateIndex(RecordQuery{.recordTypes = {"Order"}}, "Order$price"),
      nullptr);
  EXPECT_EQ(planner.planCoveringAggregateIndex(RecordQuery{.recordTypes = {"Customer"}}, "cnt"),
            nullptr);
}

}  // namespace
}  // namespace rl
