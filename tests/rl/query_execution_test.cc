// Running query plans: parameters, limits and their stops, continuations (their formats and
// foreign ones), fetch methods, covering rows, in-memory sorts, and filter evaluation
// (docs/query.md).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "query_continuation.pb.h"
#include "query_test_records.pb.h"
#include "record_cursor.pb.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "test_database.h"

namespace rl {
namespace {

using rl::query_test::Order;
using Q = Query;

RecordMetaData executionMetaData() {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("Order$price", field("price")));
  builder.addIndex("Order",
                   Index("Order$customer_price", concat(field("customer"), field("price"))));
  builder.addIndex("Order", Index("Order$status", field("status")));
  builder.addIndex("Order", Index("Order$city", field("ship_to").nest("city")));
  builder.addIndex("Order", Index("Order$tags", field("tags", FanType::kFanOut)));
  return builder.build();
}

// Orders 1..20: price id % 7, customer "a"/"b"/"c" by id % 3, status id % 4, weight
// (id % 5) / 2 (no index), city "P" for even ids, tags {"x", "y"} for ids divisible by 5.
Order order(int64_t id) {
  Order o;
  o.set_id(id);
  o.set_price(id % 7);
  o.set_customer(std::string(1, static_cast<char>('a' + id % 3)));
  o.set_status(static_cast<int32_t>(id % 4));
  o.set_weight(0.5 * static_cast<double>(id % 5));
  if (id % 2 == 0) o.mutable_ship_to()->set_city("P");
  if (id % 5 == 0) {
    o.add_tags("x");
    o.add_tags("y");
  }
  return o;
}

class QueryRuns : public ::testing::Test {
 protected:
  template <typename F>
  auto withStore(F&& fn) {
    return runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      return fn(store);
    });
  }

  void SetUp() override {
    withStore([](RecordStore& store) {
      for (int64_t id = 1; id <= 20; ++id) store.saveRecord(order(id));
      return 0;
    });
  }

  RecordQueryPlanPtr plan(RecordQuery query, RecordQueryPlannerConfiguration config = {}) {
    query.recordTypes = {"Order"};
    return RecordQueryPlanner(metaData, {}, config).plan(query);
  }

  struct Run {
    std::vector<int64_t> ids;
    NoNextReason reason = NoNextReason::kSourceExhausted;
    std::optional<fdb::Bytes> continuation;
  };

  Run run(const RecordQueryPlan& p, const Bindings& bindings = {},
          const std::optional<fdb::Bytes>& continuation = std::nullopt,
          ExecuteProperties properties = {}) {
    return withStore([&](RecordStore& store) {
      Run out;
      auto cursor = store.executeQuery(p, bindings, continuation, properties);
      while (true) {
        CursorResult<QueriedRecord> r = cursor->next();
        if (!r.hasValue()) {
          out.reason = r.noNextReason();
          out.continuation = r.continuation().toBytes();
          return out;
        }
        out.ids.push_back(r.value().as<Order>().id());
      }
    });
  }

  // The ids `query` returns under a brute-force filter (ascending).
  std::vector<int64_t> expectedIds(const QueryComponent& filter, const Bindings& bindings = {}) {
    std::vector<int64_t> ids;
    for (int64_t id = 1; id <= 20; ++id) {
      if (filter.passes(order(id), bindings)) ids.push_back(id);
    }
    return ids;
  }

  fdb::Database db = rl::tests::openTestDatabase();
  StoreLocation location = StoreLocation::tuple(fdb::Tuple{"exec"});
  RecordMetaData metaData = executionMetaData();
};

std::vector<int64_t> sorted(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST_F(QueryRuns, OnePlanRunsWithManyBindings) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("price").lessThan(parameter("max"))});
  EXPECT_EQ(p->explain(), "Index(Order$price [[LESS_THAN $max]])");
  for (int64_t max : {0, 2, 5, 9}) {
    Bindings bindings;
    bindings.set("max", max);
    EXPECT_EQ(sorted(run(*p, bindings).ids), expectedIds(Q::field("price").lessThan(max)))
        << "max " << max;
  }
}

TEST_F(QueryRuns, AnUnboundParameterIsAnError) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("price").lessThan(parameter("max"))});
  EXPECT_THROW(run(*p), RecordCoreArgumentException);
  Bindings wrongType;
  wrongType.set("max", "three");
  EXPECT_THROW(run(*p, wrongType), RecordCoreArgumentException);
}

TEST_F(QueryRuns, ParametersConvertToTheFieldsType) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("status").in(parameter("statuses"))});
  Bindings bindings;
  bindings.setList("statuses", {1, 3, 1});
  EXPECT_EQ(sorted(run(*p, bindings).ids), expectedIds(Q::field("status").in({1, 3})));
}

TEST_F(QueryRuns, SkipAndLimitThenResume) {
  RecordQueryPlanPtr p = plan({.sort = field("price")});
  ExecuteProperties properties;
  properties.skip = 2;
  properties.returnedRowLimit = 5;
  Run first = run(*p, {}, std::nullopt, properties);
  EXPECT_EQ(first.ids.size(), 5u);
  EXPECT_EQ(first.reason, NoNextReason::kReturnLimitReached);
  Run rest = run(*p, {}, first.continuation, ExecuteProperties{});
  EXPECT_EQ(first.ids.size() + rest.ids.size(), 18u);
  EXPECT_EQ(rest.reason, NoNextReason::kSourceExhausted);
  EXPECT_FALSE(rest.continuation.has_value());
}

TEST_F(QueryRuns, ScanLimitStopsOutOfBandAndResumes) {
  RecordQueryPlanPtr p =
      plan({.filter = Q::anyOf(Q::field("status").equalsValue(1),
                               Q::field("ship_to").matches(Q::field("city").equalsValue("P")))});
  ASSERT_EQ(p->kind(), RecordQueryPlan::Kind::kFetchFromPartialRecord);
  ExecuteProperties properties;
  properties.scannedRecordsLimit = 3;
  std::vector<int64_t> ids;
  std::optional<fdb::Bytes> continuation;
  int stops = 0;
  while (true) {
    Run r = run(*p, {}, continuation, properties);
    ids.insert(ids.end(), r.ids.begin(), r.ids.end());
    if (r.reason == NoNextReason::kSourceExhausted) break;
    EXPECT_EQ(r.reason, NoNextReason::kScanLimitReached);
    continuation = r.continuation;
    ++stops;
  }
  EXPECT_GT(stops, 2);
  EXPECT_EQ(ids,
            expectedIds(Q::anyOf(Q::field("status").equalsValue(1),
                                 Q::field("ship_to").matches(Q::field("city").equalsValue("P")))));
}

TEST_F(QueryRuns, ByteLimitStopsOutOfBand) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("price").greaterThan(0)});
  ExecuteProperties properties;
  properties.scannedBytesLimit = 1;
  Run r = run(*p, {}, std::nullopt, properties);
  EXPECT_EQ(r.reason, NoNextReason::kByteLimitReached);
  EXPECT_EQ(r.ids.size(), 1u);  // the free initial pass
  EXPECT_TRUE(r.continuation.has_value());
}

TEST_F(QueryRuns, TimeLimitStopsOutOfBand) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("price").greaterThan(0)});
  const Run r = withStore([&](RecordStore& store) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the limit already
    ExecuteProperties properties;
    properties.timeLimitMillis = 1;  // counted from the context's start
    Run out;
    auto cursor = store.executeQuery(*p, std::nullopt, properties);
    for (auto next = cursor->next();; next = cursor->next()) {
      if (!next.hasValue()) {
        out.reason = next.noNextReason();
        out.continuation = next.continuation().toBytes();
        return out;
      }
      out.ids.push_back(next.value().as<Order>().id());
    }
  });
  EXPECT_EQ(r.reason, NoNextReason::kTimeLimitReached);
  EXPECT_EQ(r.ids.size(), 1u);  // the free initial pass
  const Run rest = run(*p, {}, r.continuation);
  EXPECT_EQ(rest.ids.size() + 1, expectedIds(Q::field("price").greaterThan(0)).size());
}

// A query at snapshot isolation adds no read conflicts: a concurrent change to a record it
// read does not stop its transaction from committing; a serializable one does.
TEST_F(QueryRuns, SnapshotIsolationReadsWithoutConflicts) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("price").greaterThan(3)});
  for (IsolationLevel isolation : {IsolationLevel::kSnapshot, IsolationLevel::kSerializable}) {
    RecordContext reader(db);
    RecordStore store = RecordStore::open(reader, location, metaData);
    ExecuteProperties properties;
    properties.isolation = isolation;
    EXPECT_FALSE(asList(*store.executeQuery(*p, std::nullopt, properties)).values.empty());
    reader.transaction().set("unrelated", "x");  // so that the reader's commit is checked
    withStore([](RecordStore& other) {
      Order changed = order(4);
      changed.set_customer("z");
      other.saveRecord(changed);
      return 0;
    });
    if (isolation == IsolationLevel::kSnapshot) {
      EXPECT_NO_THROW(reader.commit());
    } else {
      EXPECT_THROW(reader.commit(), fdb::Error);
    }
  }
}

TEST_F(QueryRuns, UnionContinuationIsJavasUnionContinuation) {
  RecordQueryPlanPtr p = plan(
      {.filter = Q::anyOf(Q::field("status").equalsValue(1), Q::field("status").equalsValue(2))});
  ASSERT_EQ(p->explain(),
            "Fetch(Covering(Index(Order$status [[1],[1]]) -> [id: KEY[1]]) \u222a "
            "Covering(Index(Order$status [[2],[2]]) -> [id: KEY[1]]))");
  ExecuteProperties properties;
  properties.returnedRowLimit = 1;
  Run r = run(*p, {}, std::nullopt, properties);
  ASSERT_EQ(r.ids, std::vector<int64_t>{1});
  com::apple::foundationdb::record::UnionContinuation proto;
  ASSERT_TRUE(proto.ParseFromString(*r.continuation));
  EXPECT_TRUE(proto.has_first_continuation());    // after status 1's entry for id 1
  EXPECT_FALSE(proto.has_second_continuation());  // read ahead (id 2), not taken
  EXPECT_FALSE(proto.first_exhausted());
  EXPECT_FALSE(proto.second_exhausted());
}

TEST_F(QueryRuns, InJoinContinuationNamesTheValue) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("status").in({3, 1})});
  ExecuteProperties properties;
  properties.returnedRowLimit = 1;
  Run r = run(*p, {}, std::nullopt, properties);
  ASSERT_EQ(r.ids, std::vector<int64_t>{3});
  com::apple::foundationdb::record::FlatMapContinuation proto;
  ASSERT_TRUE(proto.ParseFromString(*r.continuation));
  EXPECT_EQ(proto.outer_continuation(), std::string("\x00\x00\x00\x01", 4));
  EXPECT_EQ(proto.check_value(), fdb::Tuple{3}.pack());
  EXPECT_TRUE(proto.has_inner_continuation());
  Run rest = run(*p, {}, r.continuation);
  EXPECT_EQ(rest.ids, (std::vector<int64_t>{7, 11, 15, 19, 1, 5, 9, 13, 17}));
}

TEST_F(QueryRuns, InJoinRefusesAContinuationForOtherValues) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("status").in(parameter("s"))});
  Bindings before;
  before.setList("s", {3, 1});
  ExecuteProperties properties;
  properties.returnedRowLimit = 1;
  Run r = run(*p, before, std::nullopt, properties);
  Bindings after;
  after.setList("s", {2, 1});
  EXPECT_THROW(run(*p, after, r.continuation), RecordCoreArgumentException);
}

TEST_F(QueryRuns, AContinuationOfAnotherPlanIsRefused) {
  RecordQueryPlanPtr in = plan({.filter = Q::field("status").in({3, 1})});
  RecordQueryPlanPtr unionPlan = plan(
      {.filter = Q::anyOf(Q::field("status").equalsValue(1), Q::field("status").equalsValue(2))});
  ExecuteProperties properties;
  properties.returnedRowLimit = 1;
  Run r = run(*unionPlan, {}, std::nullopt, properties);
  EXPECT_THROW(run(*in, {}, r.continuation), RecordCoreArgumentException);
}

TEST_F(QueryRuns, IntersectionReturnsWhatEveryChildHas) {
  const QueryComponent filter =
      Q::allOf(Q::field("status").equalsValue(2),
               Q::field("ship_to").matches(Q::field("city").equalsValue("P")));
  RecordQueryPlanPtr p = plan({.filter = filter});
  ASSERT_EQ(p->kind(), RecordQueryPlan::Kind::kFetchFromPartialRecord);
  EXPECT_EQ(run(*p).ids, expectedIds(filter));
  ExecuteProperties properties;
  properties.returnedRowLimit = 1;
  Run first = run(*p, {}, std::nullopt, properties);
  com::apple::foundationdb::record::IntersectionContinuation proto;
  ASSERT_TRUE(proto.ParseFromString(*first.continuation));
  EXPECT_TRUE(proto.first_started());
  EXPECT_TRUE(proto.second_started());
}

TEST_F(QueryRuns, EveryFetchMethodReturnsTheSameRows) {
  for (IndexFetchMethod method :
       {IndexFetchMethod::kScanAndFetch, IndexFetchMethod::kUseRemoteFetch,
        IndexFetchMethod::kUseRemoteFetchWithFallback}) {
    RecordQueryPlannerConfiguration config;
    config.indexFetchMethod = method;
    RecordQueryPlanPtr p = plan({.filter = Q::field("price").greaterThan(3)}, config);
    ASSERT_EQ(p->kind(), RecordQueryPlan::Kind::kIndex);
    EXPECT_EQ(static_cast<const RecordQueryIndexPlan&>(*p).fetchMethod(), method);
    EXPECT_EQ(sorted(run(*p).ids), expectedIds(Q::field("price").greaterThan(3)))
        << indexFetchMethodName(method);
  }
}

TEST_F(QueryRuns, RemoteFetchDoesNotSeeTheTransactionsOwnWritesFallbackDoes) {
  RecordQueryPlannerConfiguration remote;
  remote.indexFetchMethod = IndexFetchMethod::kUseRemoteFetch;
  RecordQueryPlannerConfiguration fallback;
  fallback.indexFetchMethod = IndexFetchMethod::kUseRemoteFetchWithFallback;
  RecordQueryPlanPtr remotePlan = plan({.filter = Q::field("price").greaterThan(3)}, remote);
  RecordQueryPlanPtr fallbackPlan = plan({.filter = Q::field("price").greaterThan(3)}, fallback);
  EXPECT_THROW(withStore([&](RecordStore& store) {
                 store.saveRecord(order(25));  // price 4: in the range
                 return asList(*store.executeQuery(*remotePlan, std::nullopt, {})).values.size();
               }),
               fdb::Error);
  const size_t rows = withStore([&](RecordStore& store) {
    store.saveRecord(order(25));
    return asList(*store.executeQuery(*fallbackPlan, std::nullopt, {})).values.size();
  });
  EXPECT_EQ(rows, expectedIds(Q::field("price").greaterThan(3)).size() + 1);
}

TEST_F(QueryRuns, CoveringRowsHoldTheIndexedFieldsOnly) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("customer").equalsValue("b"),
                               .sort = field("price"),
                               .requiredResults = std::vector<KeyExpression>{field("price")}});
  ASSERT_EQ(p->kind(), RecordQueryPlan::Kind::kCoveringIndex);
  withStore([&](RecordStore& store) {
    auto rows = asList(*store.executeQuery(*p, std::nullopt, {})).values;
    EXPECT_EQ(rows.size(), expectedIds(Q::field("customer").equalsValue("b")).size());
    for (const QueriedRecord& row : rows) {
      EXPECT_TRUE(row.partial);
      const Order& o = row.as<Order>();
      EXPECT_EQ(o.customer(), "b");
      EXPECT_EQ(o.price(), o.id() % 7);
      EXPECT_FALSE(o.has_status());  // not in the index
      EXPECT_EQ(row.primaryKey, fdb::Tuple{o.id()});
    }
    return 0;
  });
}

TEST_F(QueryRuns, InMemorySortSortsAndResumes) {
  RecordQueryPlannerConfiguration config;
  config.allowInMemorySort = true;
  RecordQueryPlanPtr p = plan({.sort = field("weight"), .sortReverse = true}, config);
  ASSERT_EQ(p->kind(), RecordQueryPlan::Kind::kSort);
  Run all = run(*p);
  ASSERT_EQ(all.ids.size(), 20u);
  for (size_t i = 1; i < all.ids.size(); ++i) {
    EXPECT_GE(all.ids[i - 1] % 5, all.ids[i] % 5);
  }
  ExecuteProperties properties;
  properties.returnedRowLimit = 7;
  Run first = run(*p, {}, std::nullopt, properties);
  rl::query::InMemorySortContinuation proto;
  ASSERT_TRUE(proto.ParseFromString(*first.continuation));
  Run rest = run(*p, {}, first.continuation);
  std::vector<int64_t> joined = first.ids;
  joined.insert(joined.end(), rest.ids.begin(), rest.ids.end());
  EXPECT_EQ(joined, all.ids);
}

TEST_F(QueryRuns, InMemorySortRefusesMoreThanItsLimit) {
  RecordQueryPlannerConfiguration config;
  config.allowInMemorySort = true;
  config.inMemorySortLimit = 5;
  RecordQueryPlanPtr p = plan({.sort = field("weight")}, config);
  EXPECT_THROW(run(*p), RecordCoreException);
}

TEST_F(QueryRuns, DistinctReturnsEachRecordOnceAcrossContinuations) {
  RecordQueryPlanPtr p = plan({.filter = Q::field("tags").oneOfThem().greaterThan("a")});
  ASSERT_EQ(p->kind(), RecordQueryPlan::Kind::kUnorderedPrimaryKeyDistinct);
  std::vector<int64_t> ids;
  std::optional<fdb::Bytes> continuation;
  ExecuteProperties properties;
  properties.returnedRowLimit = 1;
  while (true) {
    Run r = run(*p, {}, continuation, properties);
    ids.insert(ids.end(), r.ids.begin(), r.ids.end());
    if (r.reason == NoNextReason::kSourceExhausted) break;
    continuation = r.continuation;
  }
  EXPECT_EQ(sorted(ids), (std::vector<int64_t>{5, 10, 15, 20}));
}

TEST_F(QueryRuns, StorePlansWithItsIndexStates) {
  withStore([&](RecordStore& store) {
    RecordQuery query{.recordTypes = {"Order"}, .filter = Q::field("price").greaterThan(3)};
    EXPECT_EQ(store.planQuery(query)->explain(), "Index(Order$price ([3],>)");
    store.markIndexWriteOnly("Order$price");
    EXPECT_EQ(store.planQuery(query)->explain(), "Scan(<,>) | [Order] | price GREATER_THAN 3");
    store.markIndexReadable("Order$price");
    return 0;
  });
}

TEST_F(QueryRuns, PlansSayWhatTheyScan) {
  RecordQueryPlanPtr p =
      plan({.filter = Q::anyOf(Q::field("status").equalsValue(1),
                               Q::field("ship_to").matches(Q::field("city").equalsValue("P")))});
  EXPECT_EQ(p->usedIndexes(), (std::set<std::string>{"Order$city", "Order$status"}));
  EXPECT_FALSE(p->hasFullRecordScan());
  EXPECT_TRUE(plan({.filter = Q::field("gift").equalsValue(true)})->hasFullRecordScan());
}

// --- Filters ---

TEST(QueryFilterEvaluation, MissingValuesAreUnknown) {
  Order o;
  o.set_id(1);
  const Bindings none;
  EXPECT_EQ(Q::field("price").lessThan(3).eval(&o, none), std::nullopt);
  EXPECT_EQ(Q::field("price").isNull().eval(&o, none), true);
  EXPECT_EQ(Q::field("price").notNull().eval(&o, none), false);
  EXPECT_EQ(Q::negate(Q::field("price").lessThan(3)).eval(&o, none), std::nullopt);
  // AND: false wins over unknown; OR: true wins over unknown.
  EXPECT_EQ(Q::allOf(Q::field("price").lessThan(3), Q::field("id").equalsValue(2)).eval(&o, none),
            false);
  EXPECT_EQ(Q::allOf(Q::field("price").lessThan(3), Q::field("id").equalsValue(1)).eval(&o, none),
            std::nullopt);
  EXPECT_EQ(Q::anyOf(Q::field("price").lessThan(3), Q::field("id").equalsValue(1)).eval(&o, none),
            true);
  // A field of an unset nested message is null.
  EXPECT_EQ(Q::field("ship_to").matches(Q::field("city").isNull()).eval(&o, none), true);
  // "One of" an empty repeated field is false, not unknown.
  EXPECT_EQ(Q::field("tags").oneOfThem().equalsValue("x").eval(&o, none), false);
  EXPECT_EQ(Q::field("items").oneOfThem().matches(Q::field("qty").isNull()).eval(&o, none), false);
}

TEST(QueryFilterEvaluation, ComparisonsAndTheirJavaForms) {
  Order o;
  o.set_customer("carol");
  o.add_tags("b");
  o.add_tags("z");
  const Bindings none;
  EXPECT_EQ(Q::field("customer").startsWith("car").eval(&o, none), true);
  EXPECT_EQ(Q::field("customer").startsWith("cat").eval(&o, none), false);
  EXPECT_EQ(Q::field("tags").oneOfThem().greaterThan("y").eval(&o, none), true);
  EXPECT_EQ(Q::field("customer").in({"bob", "carol"}).eval(&o, none), true);
  EXPECT_EQ(Q::field("customer").in(std::vector<fdb::TupleElement>{}).eval(&o, none), false);
  EXPECT_EQ(Q::field("customer").in({"bob", "carol"}).toString(), "customer IN [bob, carol]");
  EXPECT_EQ(Q::field("tags").oneOfThem().greaterThan("y").toString(), "one of tags GREATER_THAN y");
  EXPECT_EQ(
      Q::field("items").oneOfThem().matches(Q::field("qty").lessThan(parameter("q"))).toString(),
      "one of items/{qty LESS_THAN $q}");
  EXPECT_EQ(Q::negate(Q::anyOf(Q::field("a").isNull(), Q::field("b").notNull())).toString(),
            "Not(Or([a IS_NULL, b NOT_NULL]))");
  EXPECT_EQ(Comparison::of(ComparisonType::kEquals, 1.5).toString(), "EQUALS 1.5");
  EXPECT_EQ(Comparison::of(ComparisonType::kEquals, 1e10).toString(), "EQUALS 1.0E10");
  EXPECT_EQ(Comparison::of(ComparisonType::kEquals, fdb::ByteString{"\x01\x02"}).toString(),
            "EQUALS \\x01\\x02");
}

TEST(QueryFilterEvaluation, NullComparandsAreRefused) {
  EXPECT_THROW(Q::field("price").equalsValue(nullptr), RecordCoreArgumentException);
  EXPECT_THROW(Q::field("price").in({1, nullptr}), RecordCoreArgumentException);
  EXPECT_THROW(Q::allOf(std::vector<QueryComponent>{Q::field("a").isNull()}),
               RecordCoreArgumentException);
}

TEST(QueryFilterEvaluation, ComparandsConvertToTheFieldsType) {
  EXPECT_EQ(convertComparand(3, ComparandType::kDouble), fdb::TupleElement(3.0));
  EXPECT_EQ(convertComparand(1.5, ComparandType::kFloat), fdb::TupleElement(1.5f));
  EXPECT_THROW(convertComparand(1.5, ComparandType::kInteger), RecordCoreArgumentException);
  EXPECT_THROW(convertComparand("x", ComparandType::kBytes), RecordCoreArgumentException);
}

}  // namespace
}  // namespace rl
