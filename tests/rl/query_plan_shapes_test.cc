// The plan each query gets, as its explain line: one test a planner rule (docs/query.md,
// "The planner").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "query_test_records.pb.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/query/record_query_planner.h"

namespace rl {
namespace {

using rl::query_test::Order;

RecordMetaData shapesMetaData(bool recordTypePrefix = false) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  if (recordTypePrefix) {
    builder.recordType("Order").setPrimaryKey(concat(recordType(), field("id")));
    builder.recordType("Invoice").setPrimaryKey(concat(recordType(), field("id")));
  }
  builder.addIndex("Order", Index("Order$price", field("price")));
  builder.addIndex("Order",
                   Index("Order$customer_price", concat(field("customer"), field("price"))));
  builder.addIndex("Order", Index("Order$status", field("status")));
  builder.addIndex("Order", Index("Order$tags", field("tags", FanType::kFanOut)));
  builder.addIndex("Order", Index("Order$city", field("ship_to").nest("city")));
  builder.addIndex("Order", Index("Order$item_sku", field("items", FanType::kFanOut).nest("sku")));
  builder.addMultiTypeIndex({"Order", "Invoice"}, Index("all$customer", field("customer")));
  builder.addIndex("Invoice", Index("Invoice$price", field("price")));
  return builder.build();
}

class QueryPlanShapes : public ::testing::Test {
 protected:
  std::string explain(RecordQuery query, RecordQueryPlannerConfiguration config = {},
                      RecordQueryPlanner::IndexStates states = {}) {
    if (query.recordTypes.empty()) query.recordTypes = {"Order"};
    return RecordQueryPlanner(metaData, std::move(states), config).plan(query)->explain();
  }
  RecordMetaData metaData = shapesMetaData();
};

using Q = Query;

TEST_F(QueryPlanShapes, InequalityOnIndexColumn) {
  EXPECT_EQ(explain({.filter = Q::field("price").greaterThanOrEquals(10)}),
            "Index(Order$price [[10],>)");
}

TEST_F(QueryPlanShapes, UpperBoundLeavesOutNulls) {
  EXPECT_EQ(explain({.filter = Q::field("price").lessThan(100)}),
            "Index(Order$price ([null],[100]))");
}

TEST_F(QueryPlanShapes, TwoInequalitiesOnOneColumnMakeOneRange) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("price").greaterThanOrEquals(10),
                                        Q::field("price").lessThan(100))}),
            "Index(Order$price [[10],[100]))");
}

TEST_F(QueryPlanShapes, EqualityPrefixThenInequality) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("customer").equalsValue("c-3"),
                                        Q::field("price").greaterThanOrEquals(10))}),
            "Index(Order$customer_price [[c-3, 10],[c-3]])");
}

TEST_F(QueryPlanShapes, SmallerEntriesWinATieEvenWithATypeFilter) {
  EXPECT_EQ(explain({.filter = Q::field("customer").equalsValue("c-3")}),
            "Index(all$customer [[c-3],[c-3]]) | [Order]");
}

TEST_F(QueryPlanShapes, SortAfterEqualityPrefix) {
  EXPECT_EQ(explain({.filter = Q::field("customer").equalsValue("c-3"), .sort = field("price")}),
            "Index(Order$customer_price [[c-3],[c-3]])");
}

TEST_F(QueryPlanShapes, SortAfterEqualityPrefixReverse) {
  EXPECT_EQ(explain({.filter = Q::field("customer").equalsValue("c-3"),
                     .sort = field("price"),
                     .sortReverse = true}),
            "Index(Order$customer_price [[c-3],[c-3]] REVERSE)");
}

TEST_F(QueryPlanShapes, SortOnlyFromIndexOrder) {
  EXPECT_EQ(explain({.sort = field("price")}), "Index(Order$price <,>)");
  EXPECT_EQ(explain({.sort = field("price"), .sortReverse = true}),
            "Index(Order$price <,> REVERSE)");
}

TEST_F(QueryPlanShapes, SortFromIndexWithEveryFilterResidual) {
  EXPECT_EQ(explain({.filter = Q::field("gift").equalsValue(true), .sort = field("price")}),
            "Index(Order$price <,>) | gift EQUALS true");
}

TEST_F(QueryPlanShapes, ResidualFilter) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("status").equalsValue(1),
                                        Q::field("gift").equalsValue(true))}),
            "Index(Order$status [[1],[1]]) | gift EQUALS true");
}

TEST_F(QueryPlanShapes, NoFilterScansTheType) { EXPECT_EQ(explain({}), "Scan(<,>) | [Order]"); }

TEST_F(QueryPlanShapes, NoIndexScansAndFilters) {
  EXPECT_EQ(explain({.filter = Q::field("gift").equalsValue(true)}),
            "Scan(<,>) | [Order] | gift EQUALS true");
}

TEST_F(QueryPlanShapes, SortNoIndexGivesIsRefused) {
  try {
    explain({.sort = field("gift")});
    FAIL() << "planned";
  } catch (const UnplannableQueryException& e) {
    EXPECT_NE(std::string(e.what()).find("Cannot sort without appropriate index"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(QueryPlanShapes, SortNoIndexGivesSortedInMemoryWhenAllowed) {
  RecordQueryPlannerConfiguration config;
  config.allowInMemorySort = true;
  EXPECT_EQ(explain({.filter = Q::field("status").equalsValue(2), .sort = field("gift")}, config),
            "Index(Order$status [[2],[2]]) ORDER BY Field { 'gift' None}");
  EXPECT_EQ(explain({.sort = field("gift"), .sortReverse = true}, config),
            "Scan(<,>) | [Order] ORDER BY Field { 'gift' None} DESC");
}

TEST_F(QueryPlanShapes, StartsWith) {
  EXPECT_EQ(explain({.filter = Q::field("customer").startsWith("c-")}),
            "Index(all$customer {[c-],[c-]}) | [Order]");
}

TEST_F(QueryPlanShapes, OneOfThemEqualityOnRepeatedField) {
  EXPECT_EQ(explain({.filter = Q::field("tags").oneOfThem().equalsValue("x")}),
            "Index(Order$tags [[x],[x]])");
}

TEST_F(QueryPlanShapes, OneOfThemRangeRemovesDuplicates) {
  EXPECT_EQ(explain({.filter = Q::field("tags").oneOfThem().greaterThan("m")}),
            "Index(Order$tags ([m],>) | UnorderedPrimaryKeyDistinct()");
  EXPECT_EQ(explain({.filter = Q::field("tags").oneOfThem().greaterThan("m"),
                     .removesDuplicates = false}),
            "Index(Order$tags ([m],>)");
}

TEST_F(QueryPlanShapes, TwoOneOfThemRangesMayHoldOnDifferentElements) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("tags").oneOfThem().greaterThan("a"),
                                        Q::field("tags").oneOfThem().lessThan("c"))}),
            "Index(Order$tags ([a],>) | UnorderedPrimaryKeyDistinct() | one of tags LESS_THAN c");
}

TEST_F(QueryPlanShapes, NestedField) {
  EXPECT_EQ(explain({.filter = Q::field("ship_to").matches(Q::field("city").equalsValue("Paris"))}),
            "Index(Order$city [[Paris],[Paris]])");
}

TEST_F(QueryPlanShapes, NestedAndSpreadsIntoConjuncts) {
  EXPECT_EQ(explain({.filter = Q::field("ship_to").matches(Q::allOf(
                         Q::field("city").equalsValue("Paris"), Q::field("zip").greaterThan(5)))}),
            "Index(Order$city [[Paris],[Paris]]) | ship_to/{zip GREATER_THAN 5}");
}

TEST_F(QueryPlanShapes, OneOfThemInsideRepeatedMessages) {
  EXPECT_EQ(
      explain({.filter = Q::field("items").oneOfThem().matches(Q::field("sku").equalsValue("A"))}),
      "Index(Order$item_sku [[A],[A]])");
}

TEST_F(QueryPlanShapes, IsNullAndNotNull) {
  EXPECT_EQ(explain({.filter = Q::field("ship_to").matches(Q::field("city").isNull())}),
            "Index(Order$city [[null],[null]])");
  EXPECT_EQ(explain({.filter = Q::field("price").notNull()}), "Index(Order$price ([null],>)");
}

TEST_F(QueryPlanShapes, EqualScoresGoToTheFirstIndex) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("status").equalsValue(1),
                                        Q::field("price").greaterThan(10))}),
            "Index(Order$price ([10],>) | status EQUALS 1");
}

TEST_F(QueryPlanShapes, AndOfTwoIndexedEqualitiesIsAnIntersection) {
  EXPECT_EQ(explain({.filter = Q::allOf(
                         Q::field("status").equalsValue(1),
                         Q::field("ship_to").matches(Q::field("city").equalsValue("Paris")))}),
            "Fetch(Covering(Index(Order$status [[1],[1]]) -> [id: KEY[1]]) \u2229 "
            "Covering(Index(Order$city [[Paris],[Paris]]) -> [id: KEY[1]]))");
}

TEST_F(QueryPlanShapes, IntersectionWithResidual) {
  EXPECT_EQ(explain({.filter = Q::allOf(
                         Q::field("status").equalsValue(1),
                         Q::field("ship_to").matches(Q::field("city").equalsValue("Paris")),
                         Q::field("gift").equalsValue(true))}),
            "Fetch(Covering(Index(Order$status [[1],[1]]) -> [id: KEY[1]]) \u2229 "
            "Covering(Index(Order$city [[Paris],[Paris]]) -> [id: KEY[1]])) | gift EQUALS true");
}

TEST_F(QueryPlanShapes, IntersectionWithoutDeferredFetch) {
  RecordQueryPlannerConfiguration config;
  config.deferFetchAfterUnionAndIntersection = false;
  EXPECT_EQ(explain({.filter = Q::allOf(
                         Q::field("status").equalsValue(1),
                         Q::field("ship_to").matches(Q::field("city").equalsValue("Paris")))},
                    config),
            "Index(Order$status [[1],[1]]) \u2229 Index(Order$city [[Paris],[Paris]])");
}

TEST_F(QueryPlanShapes, OrOfIndexedBranchesIsAUnion) {
  EXPECT_EQ(explain({.filter = Q::anyOf(
                         Q::field("status").equalsValue(1),
                         Q::field("ship_to").matches(Q::field("city").equalsValue("Paris")))}),
            "Fetch(Covering(Index(Order$status [[1],[1]]) -> [id: KEY[1]]) \u222a "
            "Covering(Index(Order$city [[Paris],[Paris]]) -> [id: KEY[1]]))");
}

TEST_F(QueryPlanShapes, OrWithAnUnindexedBranchScans) {
  EXPECT_EQ(explain({.filter = Q::anyOf(Q::field("status").equalsValue(1),
                                        Q::field("gift").equalsValue(true))}),
            "Scan(<,>) | [Order] | Or([status EQUALS 1, gift EQUALS true])");
}

TEST_F(QueryPlanShapes, OrOfRangesUnionsInSortOrder) {
  EXPECT_EQ(explain({.filter = Q::anyOf(Q::field("price").lessThan(10),
                                        Q::field("price").greaterThan(100)),
                     .sort = field("price")}),
            "Index(Order$price ([null],[10])) \u222a[Field { 'price' None}, Field { 'id' None}] "
            "Index(Order$price ([100],>)");
}

TEST_F(QueryPlanShapes, OrOfRangesWithoutSortScans) {
  EXPECT_EQ(explain({.filter = Q::anyOf(Q::field("price").lessThan(10),
                                        Q::field("price").greaterThan(100))}),
            "Scan(<,>) | [Order] | Or([price LESS_THAN 10, price GREATER_THAN 100])");
}

TEST_F(QueryPlanShapes, OrBranchesOnOneScanShareIt) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("status").equalsValue(3),
                                        Q::anyOf(Q::field("gift").equalsValue(true),
                                                 Q::field("weight").greaterThan(1.5)))}),
            "Index(Order$status [[3],[3]]) | Or([gift EQUALS true, weight GREATER_THAN 1.5])");
}

TEST_F(QueryPlanShapes, InJoin) {
  EXPECT_EQ(explain({.filter = Q::field("status").in({1, 2})}),
            "Index(Order$status [EQUALS $__in_status__0]) WHERE __in_status__0 IN [1, 2]");
}

TEST_F(QueryPlanShapes, InJoinSortedForTheSort) {
  EXPECT_EQ(explain({.filter = Q::field("status").in({2, 1}), .sort = field("status")}),
            "Index(Order$status [EQUALS $__in_status__0]) WHERE __in_status__0 IN [2, 1] SORTED");
  EXPECT_EQ(
      explain(
          {.filter = Q::field("status").in({2, 1}), .sort = field("status"), .sortReverse = true}),
      "Index(Order$status [EQUALS $__in_status__0] REVERSE) WHERE __in_status__0 IN [2, 1] "
      "SORTED DESC");
}

TEST_F(QueryPlanShapes, InJoinOverAParameter) {
  EXPECT_EQ(explain({.filter = Q::field("status").in(parameter("s"))}),
            "Index(Order$status [EQUALS $__in_status__0]) WHERE __in_status__0 IN $s");
}

TEST_F(QueryPlanShapes, InOfOneValueIsAnEquality) {
  EXPECT_EQ(explain({.filter = Q::field("status").in({5})}), "Index(Order$status [[5],[5]])");
}

TEST_F(QueryPlanShapes, InUnionWhenTheSortIsAnotherColumn) {
  EXPECT_EQ(explain({.filter = Q::field("customer").in({"a", "b"}), .sort = field("price")}),
            "\u222a(__in_customer__0 IN [a, b]) Index(Order$customer_price [EQUALS "
            "$__in_customer__0])");
}

TEST_F(QueryPlanShapes, InUnionTurnedOffFallsBackToTheSortIndex) {
  RecordQueryPlannerConfiguration config;
  config.inUnionMaxBranches = 0;
  EXPECT_EQ(
      explain({.filter = Q::field("customer").in({"a", "b"}), .sort = field("price")}, config),
      "Index(Order$price <,>) | customer IN [a, b]");
}

TEST_F(QueryPlanShapes, Parameters) {
  EXPECT_EQ(explain({.filter = Q::field("price").lessThan(parameter("max"))}),
            "Index(Order$price [[LESS_THAN $max]])");
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("customer").equalsValue(parameter("c")),
                                        Q::field("price").greaterThan(parameter("p")))}),
            "Index(Order$customer_price [EQUALS $c, [GREATER_THAN $p]])");
}

TEST_F(QueryPlanShapes, CoveringIndexScan) {
  EXPECT_EQ(explain({.filter = Q::field("price").greaterThan(10),
                     .requiredResults = std::vector<KeyExpression>{field("price")}}),
            "Covering(Index(Order$price ([10],>) -> [price: KEY[0], id: KEY[1]])");
}

TEST_F(QueryPlanShapes, CoveringWithAFilterOnIndexedFields) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("customer").equalsValue("c-3"),
                                        Q::field("price").notEquals(7)),
                     .sort = field("price"),
                     .requiredResults = std::vector<KeyExpression>{field("customer")}}),
            "Covering(Index(Order$customer_price [[c-3],[c-3]]) -> [customer: KEY[0], price: "
            "KEY[1], id: KEY[2]]) | price NOT_EQUALS 7");
}

TEST_F(QueryPlanShapes, NotCoveringWhenAFieldIsMissing) {
  EXPECT_EQ(explain({.filter = Q::field("price").greaterThan(10),
                     .requiredResults = std::vector<KeyExpression>{field("customer")}}),
            "Index(Order$price ([10],>)");
}

TEST_F(QueryPlanShapes, RecordTypeKeyPrefix) {
  metaData = shapesMetaData(/*recordTypePrefix=*/true);
  EXPECT_EQ(explain({}), "Scan([IS Order])");
  EXPECT_EQ(explain({.filter = Q::field("gift").equalsValue(true)}),
            "Scan([IS Order]) | gift EQUALS true");
  EXPECT_EQ(explain({.filter = Q::field("id").equalsValue(5)}), "Scan([IS Order, EQUALS 5])");
}

TEST_F(QueryPlanShapes, PrimaryKeyEquality) {
  EXPECT_EQ(explain({.filter = Q::field("id").equalsValue(7)}), "Scan([[7],[7]]) | [Order]");
}

TEST_F(QueryPlanShapes, SortByPrimaryKey) {
  EXPECT_EQ(explain({.sort = field("id"), .sortReverse = true}), "Scan(<,> REVERSE) | [Order]");
}

TEST_F(QueryPlanShapes, EveryRecordType) {
  EXPECT_EQ(
      explain({.recordTypes = {"Order", "Invoice"}, .filter = Q::field("price").greaterThan(5)}),
      "Scan(<,>) | price GREATER_THAN 5");
  EXPECT_EQ(explain({.recordTypes = {"Order", "Invoice"},
                     .filter = Q::field("customer").equalsValue("x")}),
            "Index(all$customer [[x],[x]])");
}

TEST_F(QueryPlanShapes, NotAndNotEqualsAreResidual) {
  EXPECT_EQ(explain({.filter = Q::negate(Q::field("status").equalsValue(1))}),
            "Scan(<,>) | [Order] | Not(status EQUALS 1)");
  EXPECT_EQ(explain({.filter = Q::field("status").notEquals(1)}),
            "Scan(<,>) | [Order] | status NOT_EQUALS 1");
}

TEST_F(QueryPlanShapes, AllowedIndexes) {
  EXPECT_EQ(explain({.filter = Q::field("customer").equalsValue("c-3"),
                     .allowedIndexes = std::vector<std::string>{"Order$customer_price"}}),
            "Index(Order$customer_price [[c-3],[c-3]])");
}

TEST_F(QueryPlanShapes, UnreadableIndexesAreNotUsed) {
  EXPECT_EQ(explain({.filter = Q::field("price").greaterThan(10)}, {},
                    {{"Order$price", IndexState::kWriteOnly}}),
            "Scan(<,>) | [Order] | price GREATER_THAN 10");
}

TEST_F(QueryPlanShapes, ComparandsTakeTheFieldsType) {
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("status").equalsValue(3),
                                        Q::field("weight").lessThan(2))}),
            "Index(Order$status [[3],[3]]) | weight LESS_THAN 2.0");
}

TEST_F(QueryPlanShapes, TraceSaysWhyEachCandidateLost) {
  std::string lines;
  RecordQueryPlannerConfiguration config;
  config.trace = [&](const std::string& line) { lines += line + "\n"; };
  explain({.filter =
               Q::allOf(Q::field("customer").equalsValue("c-3"), Q::field("price").greaterThan(5))},
          config);
  EXPECT_EQ(lines,
            "candidates for [customer EQUALS c-3, price GREATER_THAN 5]:\n"
            "  the primary-key scan: answers no comparison\n"
            "  index Order$status: answers no comparison\n"
            "  index Order$tags: answers no comparison\n"
            "  index Order$city: answers no comparison\n"
            "  index Order$item_sku: answers no comparison\n"
            "  index Order$price: lost, answers 1 comparison(s), the chosen scan 2: "
            "Index(Order$price ([5],>)\n"
            "  index Order$customer_price: chosen (2 comparison(s), 0 left to a filter): "
            "Index(Order$customer_price ([c-3, 5],[c-3]])\n"
            "  index all$customer: lost, answers 1 comparison(s), the chosen scan 2: "
            "Index(all$customer [[c-3],[c-3]]) | [Order]\n");
}

TEST_F(QueryPlanShapes, InvalidQueriesNameWhatAndWhere) {
  auto message = [&](RecordQuery query) -> std::string {
    try {
      explain(std::move(query));
    } catch (const InvalidQueryException& e) {
      return e.what();
    }
    return "planned";
  };
  EXPECT_EQ(message({.recordTypes = {"Ordr"}}),
            "unknown record type Ordr (the metadata has: Invoice, Order)");
  EXPECT_NE(message({.filter = Q::field("pricee").lessThan(3)}).find("Order has no field pricee"),
            std::string::npos);
  EXPECT_NE(message({.filter = Q::field("price").lessThan("3")})
                .find("does not fit a field of type integer"),
            std::string::npos);
  EXPECT_NE(message({.filter = Q::field("tags").equalsValue("x")}).find("field tags is repeated"),
            std::string::npos);
  EXPECT_NE(message({.sort = field("tags", FanType::kFanOut)}).find("repeated field"),
            std::string::npos);
}

}  // namespace
}  // namespace rl
