// Queries on the record's version: Query::version() comparisons and sorts by version(),
// planned to VERSION indexes (with an equality prefix on their leading fields) or, without
// one, filtered on each record's stored version (docs/query.md, "Versions").
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "query_test_records.pb.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/query/query_text.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "test_database.h"

namespace rl {
namespace {

using rl::query_test::Order;
using Q = Query;

RecordMetaData versionQueryMetaData() {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.setStoreRecordVersions(true);
  builder.addIndex("Order", Index("Order$customer", field("customer")));
  builder.addIndex("Order", Index("Order$version", version(), Index::kVersion));
  builder.addIndex("Order", Index("Order$customer_version", concat(field("customer"), version()),
                                  Index::kVersion));
  return builder.build();
}

Order order(int64_t id) {
  Order o;
  o.set_id(id);
  o.set_customer(std::string(1, static_cast<char>('a' + id % 3)));
  o.set_price(id);
  return o;
}

fdb::Versionstamp stamp(int64_t dbVersion) {
  return RecordVersion::firstInDBVersion(dbVersion).toVersionstamp();
}

// How plans print a versionstamp comparand.
std::string shown(const fdb::Versionstamp& v) {
  const std::string comparison = Q::version().equalsValue(v).toString();
  return comparison.substr(std::string("version EQUALS ").size());
}

class VersionQueryTest : public ::testing::Test {
 protected:
  std::string explain(RecordQuery query) {
    query.recordTypes = {"Order"};
    return RecordQueryPlanner(metaData).plan(query)->explain();
  }

  template <typename F>
  auto withStore(F&& fn) {
    return runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      return fn(store);
    });
  }

  // Orders 1..20 saved five to a transaction, in id order; then orders 3 and 7 saved again.
  // Returns each order's stored version.
  std::map<int64_t, RecordVersion> saveOrders() {
    for (int64_t first = 1; first <= 20; first += 5) {
      withStore([&](RecordStore& store) {
        for (int64_t id = first; id < first + 5; ++id) store.saveRecord(order(id));
        return 0;
      });
    }
    withStore([&](RecordStore& store) {
      store.saveRecord(order(7));
      store.saveRecord(order(3));
      return 0;
    });
    return withStore([&](RecordStore& store) {
      std::map<int64_t, RecordVersion> versions;
      for (int64_t id = 1; id <= 20; ++id)
        versions.emplace(id, *store.loadRecordVersion(fdb::Tuple{id}));
      return versions;
    });
  }

  struct Run {
    std::vector<int64_t> ids;
    std::optional<fdb::Bytes> continuation;
  };
  Run run(const RecordQuery& query, const std::optional<fdb::Bytes>& continuation = std::nullopt,
          int limit = 0) {
    RecordQuery q = query;
    q.recordTypes = {"Order"};
    const RecordQueryPlanPtr plan = RecordQueryPlanner(metaData).plan(q);
    return withStore([&](RecordStore& store) {
      ExecuteProperties properties;
      properties.returnedRowLimit = limit;
      auto cursor = store.executeQuery(*plan, {}, continuation, properties);
      Run out;
      while (true) {
        CursorResult<QueriedRecord> r = cursor->next();
        if (!r.hasValue()) {
          out.continuation = r.continuation().toBytes();
          return out;
        }
        out.ids.push_back(r.value().as<Order>().id());
      }
    });
  }

  fdb::Database db = rl::tests::openTestDatabase();
  StoreLocation location = StoreLocation::tuple(fdb::Tuple{"versions"});
  RecordMetaData metaData = versionQueryMetaData();
};

TEST_F(VersionQueryTest, SortByVersionScansTheVersionIndex) {
  EXPECT_EQ(explain({.sort = version()}), "Index(Order$version <,>)");
  EXPECT_EQ(explain({.sort = version(), .sortReverse = true}), "Index(Order$version <,> REVERSE)");
}

TEST_F(VersionQueryTest, VersionComparisonsBecomeRanges) {
  const fdb::Versionstamp v = stamp(100);
  EXPECT_EQ(explain({.filter = Q::version().greaterThan(v)}),
            "Index(Order$version ([" + shown(v) + "],>)");
  EXPECT_EQ(explain({.filter = Q::version().greaterThan(v), .sort = version()}),
            "Index(Order$version ([" + shown(v) + "],>)");
}

TEST_F(VersionQueryTest, EqualityPrefixThenVersion) {
  const fdb::Versionstamp v = stamp(100);
  const std::string vs = shown(v);
  EXPECT_EQ(explain({.filter = Q::allOf(Q::field("customer").equalsValue("a"),
                                        Q::version().greaterThanOrEquals(v)),
                     .sort = version()}),
            "Index(Order$customer_version [[a, " + vs + "],[a]])");
  EXPECT_EQ(explain({.filter = Q::field("customer").equalsValue("a"), .sort = version()}),
            "Index(Order$customer_version [[a],[a]])");
}

TEST_F(VersionQueryTest, InvalidVersionComparisonsAreRefused) {
  EXPECT_THROW(explain({.filter = Q::version().greaterThan(5)}), InvalidQueryException);
  EXPECT_THROW(Q::version().in({1}), RecordCoreArgumentException);
  EXPECT_THROW(Q::version().startsWith("x"), RecordCoreArgumentException);
  EXPECT_THROW(Q::version().oneOfThem(), RecordCoreArgumentException);
  EXPECT_THROW(explain({.filter = Q::field("ship_to").matches(Q::version().greaterThan(stamp(1)))}),
               InvalidQueryException);
  // Java's Versionstamp.toString(): the printable transaction version, then the user version.
  EXPECT_EQ(shown(stamp(100)), "Versionstamp(\\x00\\x00\\x00\\x00\\x00\\x00\\x00d\\x00\\x00 0)");
  EXPECT_EQ(Q::version().lessThan(stamp(1)).toString(), "version LESS_THAN " + shown(stamp(1)));
}

TEST_F(VersionQueryTest, QueryTextReadsVersionCalls) {
  const QueryComponent filter = parseQueryFilter(
      R"(customer = "a" AND VERSION ( ) > vs(00000000000000640000, 0))", metaData, {"Order"});
  EXPECT_EQ(filter,
            Q::allOf(Q::field("customer").equalsValue("a"), Q::version().greaterThan(stamp(100))));
  EXPECT_EQ(explain({.filter = filter, .sort = parseQuerySort("version()")}),
            "Index(Order$customer_version ([a, " + shown(stamp(100)) + "],[a]])");
  EXPECT_EQ(parseQuerySort("customer, version()"), concat(field("customer"), version()));
  // A field named version is a field.
  EXPECT_EQ(parseQueryFilter("version = 1"), Q::field("version").equalsValue(1));
  EXPECT_EQ(parseQueryFilter("version = 1").kind(), QueryComponent::Kind::kField);
  auto failsAt = [&](const std::string& text, size_t position, const std::string& words) {
    SCOPED_TRACE(text);
    try {
      parseQueryFilter(text, metaData, {"Order"});
      ADD_FAILURE() << "parsed";
    } catch (const QueryTextException& e) {
      EXPECT_EQ(e.position(), position) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  failsAt("price > 1 AND version() IN (1, 2)", 14, "version() takes =");
  failsAt("version() > 5", 0, "not a versionstamp");
  failsAt("ship_to.(version() > vs(00000000000000640000, 0))", 9, "nested message");
}

TEST_F(VersionQueryTest, ChangedSinceAVersionComeInCommitOrder) {
  const std::map<int64_t, RecordVersion> versions = saveOrders();
  std::vector<std::pair<RecordVersion, int64_t>> byVersion;
  for (const auto& [id, v] : versions) byVersion.emplace_back(v, id);
  std::sort(byVersion.begin(), byVersion.end());
  // Everything after the 8th change, and customer "a"'s among them.
  const RecordVersion since = byVersion[7].first;
  std::vector<int64_t> all;
  std::vector<int64_t> ofA;
  for (size_t i = 8; i < byVersion.size(); ++i) {
    all.push_back(byVersion[i].second);
    if (order(byVersion[i].second).customer() == "a") ofA.push_back(byVersion[i].second);
  }
  ASSERT_FALSE(ofA.empty());
  // 3 and 7 were saved again last: they come at the end.
  EXPECT_EQ(std::vector<int64_t>(all.end() - 2, all.end()), (std::vector<int64_t>{7, 3}));

  const RecordQuery sinceQuery{.filter = Q::version().greaterThan(since.toVersionstamp()),
                               .sort = version()};
  EXPECT_EQ(run(sinceQuery).ids, all);
  const RecordQuery ofAQuery{.filter = Q::allOf(Q::field("customer").equalsValue("a"),
                                                Q::version().greaterThan(since.toVersionstamp())),
                             .sort = version()};
  EXPECT_EQ(explain(ofAQuery).rfind("Index(Order$customer_version", 0), 0u);
  EXPECT_EQ(run(ofAQuery).ids, ofA);
  RecordQuery reverse = sinceQuery;
  reverse.sortReverse = true;
  EXPECT_EQ(run(reverse).ids, std::vector<int64_t>(all.rbegin(), all.rend()));

  // Resumed three at a time from continuations.
  std::vector<int64_t> resumed;
  std::optional<fdb::Bytes> continuation;
  do {
    Run page = run(sinceQuery, continuation, 3);
    resumed.insert(resumed.end(), page.ids.begin(), page.ids.end());
    continuation = page.continuation;
  } while (continuation);
  EXPECT_EQ(resumed, all);

  // Without a version index: each record's stored version is filtered.
  RecordQuery noIndex{.filter = Q::allOf(Q::field("customer").equalsValue("a"),
                                         Q::version().greaterThan(since.toVersionstamp())),
                      .allowedIndexes = std::vector<std::string>{"Order$customer"}};
  EXPECT_EQ(explain(noIndex), "Index(Order$customer [[a],[a]]) | version GREATER_THAN " +
                                  shown(since.toVersionstamp()));
  std::vector<int64_t> ofASorted = ofA;
  std::sort(ofASorted.begin(), ofASorted.end());
  EXPECT_EQ(run(noIndex).ids, ofASorted);
}

}  // namespace
}  // namespace rl
