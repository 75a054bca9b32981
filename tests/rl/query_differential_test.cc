// Differential test of the planner and the plans: random records (two record types, nested
// and repeated fields, missing values), random VALUE indexes, random queries (filters, sorts,
// IN, OR, NOT, parameters, skip, limit, required results). Every plan must return what a
// brute-force evaluation of the filter over every record returns (the same rows; the same
// order of sort keys where sorted), and the same rows again when stopped every k rows, or by
// a scan limit, and resumed from its continuation in a new transaction.
//
// Seeded and reproducible: RL_QUERY_TEST_SEED picks the seed (a failure prints it and the
// query), RL_QUERY_TEST_QUERIES the number of queries on each of the 4 stores: by default 150
// on the embedded engine (about a second in a Release build) and 15 on another backend (whose
// round trips cost more). A stress run sets more, e.g.
//   RL_QUERY_TEST_QUERIES=5000 RL_QUERY_TEST_SEED=7 rl_tests --gtest_filter='QueryDifferential*'

#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fdb/tuple_text.h"
#include "query_test_records.pb.h"
#include "rl/context/record_context.h"
#include "rl/metadata/field_values.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "test_database.h"

namespace rl {
namespace {

using rl::query_test::Invoice;
using rl::query_test::Order;
using Q = Query;

size_t envNumber(const char* name, size_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return static_cast<size_t>(std::stoull(value));
}

// --- Random worlds ---

struct IndexChoice {
  const char* name;
  std::vector<std::string> types;  // one: a single-type index
  KeyExpression root;
};

std::vector<IndexChoice> indexPool() {
  return {
      {"Order$price", {"Order"}, field("price")},
      {"Order$customer", {"Order"}, field("customer")},
      {"Order$status", {"Order"}, field("status")},
      {"Order$customer_price", {"Order"}, concat(field("customer"), field("price"))},
      {"Order$status_price", {"Order"}, concat(field("status"), field("price"))},
      {"Order$customer_status_price",
       {"Order"},
       concat(field("customer"), field("status"), field("price"))},
      {"Order$price_customer", {"Order"}, concat(field("price"), field("customer"))},
      {"Order$tags", {"Order"}, field("tags", FanType::kFanOut)},
      {"Order$tags_price", {"Order"}, concat(field("tags", FanType::kFanOut), field("price"))},
      {"Order$city", {"Order"}, field("ship_to").nest("city")},
      {"Order$city_zip", {"Order"}, field("ship_to").nest(concat(field("city"), field("zip")))},
      {"Order$item_sku", {"Order"}, field("items", FanType::kFanOut).nest("sku")},
      {"Order$item_sku_qty",
       {"Order"},
       field("items", FanType::kFanOut).nest(concat(field("sku"), field("qty")))},
      {"Order$weight", {"Order"}, field("weight")},
      {"Order$gift_weight", {"Order"}, concat(field("gift"), field("weight"))},
      {"Order$price_with_customer",
       {"Order"},
       keyWithValue(concat(field("price"), field("customer")), 1)},
      {"Order$id_status", {"Order"}, concat(field("id"), field("status"))},
      {"Invoice$price", {"Invoice"}, field("price")},
      {"Invoice$customer_status", {"Invoice"}, concat(field("customer"), field("status"))},
      {"all$price", {"Order", "Invoice"}, field("price")},
      {"all$customer", {"Order", "Invoice"}, field("customer")},
      {"all$status_customer", {"Order", "Invoice"}, concat(field("status"), field("customer"))},
  };
}

class World {
 public:
  explicit World(std::mt19937_64& rng) : rng_(rng) {}

  RecordMetaData makeMetaData() {
    RecordMetaDataBuilder builder(Order::descriptor()->file());
    for (const IndexChoice& choice : indexPool()) {
      if (!coin(0.45)) continue;
      indexNames.push_back(choice.name);
      if (choice.types.size() == 1) {
        builder.addIndex(choice.types[0], Index(choice.name, choice.root));
      } else {
        builder.addMultiTypeIndex(choice.types, Index(choice.name, choice.root));
      }
    }
    return builder.build();
  }

  Order randomOrder(int64_t id) {
    Order order;
    order.set_id(id);
    if (coin(0.9)) order.set_price(pick(0, 19));
    if (coin(0.85)) order.set_customer(std::string(1, static_cast<char>('a' + pick(0, 3))));
    if (coin(0.85)) order.set_status(static_cast<int32_t>(pick(0, 4)));
    for (int64_t n = pick(0, 3); n > 0; --n) order.add_tags(tagValue());
    if (coin(0.8)) {
      auto* address = order.mutable_ship_to();
      if (coin(0.85)) address->set_city(cityValue());
      if (coin(0.85)) address->set_zip(pick(0, 5));
    }
    for (int64_t n = pick(0, 3); n > 0; --n) {
      auto* item = order.add_items();
      if (coin(0.9)) item->set_sku(skuValue());
      if (coin(0.9)) item->set_qty(pick(0, 5));
    }
    if (coin(0.8)) order.set_weight(weightValue());
    if (coin(0.8)) order.set_gift(coin(0.5));
    if (coin(0.5)) order.set_code(std::string(1, static_cast<char>(pick(0, 3))));
    return order;
  }

  Invoice randomInvoice(int64_t id) {
    Invoice invoice;
    invoice.set_id(id);
    if (coin(0.9)) invoice.set_price(pick(0, 19));
    if (coin(0.85)) invoice.set_customer(std::string(1, static_cast<char>('a' + pick(0, 3))));
    if (coin(0.85)) invoice.set_status(static_cast<int32_t>(pick(0, 4)));
    for (int64_t n = pick(0, 2); n > 0; --n) invoice.add_tags(tagValue());
    return invoice;
  }

  bool coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t pick(int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng_);
  }
  std::string tagValue() { return std::string(1, "wxyz"[pick(0, 3)]); }
  std::string cityValue() { return std::vector<std::string>{"B", "L", "P"}[pick(0, 2)]; }
  std::string skuValue() { return std::string(1, static_cast<char>('A' + pick(0, 2))); }
  double weightValue() { return 0.5 * static_cast<double>(pick(1, 4)); }

  std::vector<std::string> indexNames;

 private:
  std::mt19937_64& rng_;
};

// --- Random queries ---

struct GeneratedQuery {
  RecordQuery query;
  Bindings bindings;
  int skip = 0;
  int limit = 0;
  RecordQueryPlannerConfiguration config;
  std::string describe() const {
    std::string out = "types [";
    for (const std::string& t : query.recordTypes) out += t + " ";
    out += "] filter " + (query.filter ? query.filter->toString() : std::string("none"));
    out += " sort " + (query.sort ? query.sort->toString() : std::string("none"));
    if (query.sortReverse) out += " reverse";
    if (query.requiredResults) out += " covering";
    out += " skip " + std::to_string(skip) + " limit " + std::to_string(limit);
    return out;
  }
};

class QueryGenerator {
 public:
  QueryGenerator(World& world) : w_(world) {}

  GeneratedQuery next() {
    GeneratedQuery g;
    const int64_t types = w_.pick(0, 9);
    orderOnly_ = types < 8;
    g.query.recordTypes = types < 8    ? std::vector<std::string>{"Order"}
                          : types == 8 ? std::vector<std::string>{"Invoice"}
                                       : std::vector<std::string>{"Order", "Invoice"};
    bindings_ = &g.bindings;
    parameterCount_ = 0;
    const int64_t shape = w_.pick(0, 9);
    if (shape < 2) {
      // OR of equalities: unions when every branch has an index.
      std::vector<QueryComponent> branches;
      for (int64_t n = w_.pick(2, 3); n > 0; --n) branches.push_back(equality());
      g.query.filter = Q::anyOf(std::move(branches));
    } else if (shape < 4) {
      // AND of equalities: intersections when each has an index of its own.
      std::vector<QueryComponent> conjuncts;
      for (int64_t n = w_.pick(2, 3); n > 0; --n) conjuncts.push_back(equality());
      if (w_.coin(0.3)) conjuncts.push_back(leaf());
      g.query.filter = Q::allOf(std::move(conjuncts));
    } else if (shape < 9) {
      g.query.filter = component(0);
    }
    if (w_.coin(0.5)) {
      std::vector<KeyExpression> sorts = {field("price"),
                                          field("customer"),
                                          field("status"),
                                          concat(field("customer"), field("price")),
                                          concat(field("status"), field("price")),
                                          field("id")};
      if (orderOnly_) {
        sorts.push_back(field("weight"));
        sorts.push_back(field("ship_to").nest("city"));
        sorts.push_back(concat(field("gift"), field("weight")));
      }
      g.query.sort = sorts[static_cast<size_t>(w_.pick(0, static_cast<int64_t>(sorts.size()) - 1))];
      g.query.sortReverse = w_.coin(0.4);
    }
    if (w_.coin(0.35)) {
      g.query.requiredResults =
          std::vector<KeyExpression>{w_.coin(0.5) ? field("price") : field("customer")};
    }
    if (w_.coin(0.3)) g.skip = static_cast<int>(w_.pick(1, 4));
    if (w_.coin(0.3)) g.limit = static_cast<int>(w_.pick(1, 12));
    g.config.allowInMemorySort = w_.coin(0.7);
    g.config.deferFetchAfterUnionAndIntersection = w_.coin(0.7);
    g.config.inUnionMaxBranches = w_.coin(0.8) ? 100 : 0;
    const int64_t fetch = w_.pick(0, 2);
    g.config.indexFetchMethod = fetch == 0   ? IndexFetchMethod::kScanAndFetch
                                : fetch == 1 ? IndexFetchMethod::kUseRemoteFetch
                                             : IndexFetchMethod::kUseRemoteFetchWithFallback;
    return g;
  }

 private:
  QueryComponent component(int depth) {
    const int64_t kind = w_.pick(0, depth >= 2 ? 5 : 9);
    if (kind <= 5) return leaf();
    if (kind <= 7) {
      std::vector<QueryComponent> children;
      for (int64_t n = w_.pick(2, 3); n > 0; --n) children.push_back(component(depth + 1));
      return Q::allOf(std::move(children));
    }
    if (kind == 8) return Q::anyOf(component(depth + 1), component(depth + 1));
    return Q::negate(component(depth + 1));
  }

  // A comparand, sometimes given as a parameter bound at execution.
  Comparand comparand(fdb::TupleElement value) {
    if (!w_.coin(0.15)) return Comparand(std::move(value));
    const std::string name = "p" + std::to_string(parameterCount_++);
    bindings_->set(name, std::move(value));
    return Comparand(parameter(name));
  }

  QueryComponent compare(Q::Field f, const std::function<fdb::TupleElement()>& value,
                         bool strings) {
    const int64_t op = w_.pick(0, strings ? 11 : 10);
    switch (op) {
      case 0:
      case 1: return f.equalsValue(comparand(value()));
      case 2: return f.notEquals(comparand(value()));
      case 3: return f.lessThan(comparand(value()));
      case 4: return f.lessThanOrEquals(comparand(value()));
      case 5: return f.greaterThan(comparand(value()));
      case 6: return f.greaterThanOrEquals(comparand(value()));
      case 7: return f.isNull();
      case 8: return f.notNull();
      case 9:
      case 10: {
        std::vector<fdb::TupleElement> values;
        for (int64_t n = w_.pick(0, 3); n > 0; --n) values.push_back(value());
        if (w_.coin(0.2)) {
          const std::string name = "l" + std::to_string(parameterCount_++);
          bindings_->setList(name, values);
          return f.in(parameter(name));
        }
        return f.in(std::move(values));
      }
      default: {
        const std::string prefix = w_.coin(0.3) ? "" : value().asString().substr(0, 1);
        return f.startsWith(comparand(prefix));
      }
    }
  }

  // An equality (or IN, or a one-sided range) on a field some index may have.
  QueryComponent equality() {
    const int64_t which = w_.pick(0, orderOnly_ ? 5 : 2);
    switch (which) {
      case 0: return Q::field("status").equalsValue(w_.pick(0, 4));
      case 1:
        return w_.coin(0.7)
                   ? Q::field("customer")
                         .equalsValue(std::string(1, static_cast<char>('a' + w_.pick(0, 3))))
                   : Q::field("customer").in({"a", "c"});
      case 2:
        return w_.coin(0.5) ? Q::field("price").equalsValue(w_.pick(0, 19))
                            : Q::field("price").greaterThan(w_.pick(10, 19));
      case 3: return Q::field("tags").oneOfThem().equalsValue(w_.tagValue());
      case 4: return Q::field("ship_to").matches(Q::field("city").equalsValue(w_.cityValue()));
      default:
        return Q::field("items").oneOfThem().matches(Q::field("sku").equalsValue(w_.skuValue()));
    }
  }

  QueryComponent leaf() {
    const int64_t which = w_.pick(0, orderOnly_ ? 10 : 4);
    auto price = [&] { return fdb::TupleElement(w_.pick(-1, 20)); };
    auto customer = [&] {
      return fdb::TupleElement(std::string(1, static_cast<char>('a' + w_.pick(0, 4))));
    };
    auto status = [&] { return fdb::TupleElement(w_.pick(0, 5)); };
    auto tag = [&] { return fdb::TupleElement(w_.tagValue()); };
    switch (which) {
      case 0: return compare(Q::field("price"), price, false);
      case 1: return compare(Q::field("customer"), customer, true);
      case 2: return compare(Q::field("status"), status, false);
      case 3: return compare(Q::field("tags").oneOfThem(), tag, true);
      case 4:
        return compare(
            Q::field("id"), [&] { return fdb::TupleElement(w_.pick(0, 250)); }, false);
      case 5:
        return Q::field("ship_to").matches(
            w_.coin(0.6)
                ? compare(
                      Q::field("city"), [&] { return fdb::TupleElement(w_.cityValue()); }, true)
                : compare(
                      Q::field("zip"), [&] { return fdb::TupleElement(w_.pick(0, 6)); }, false));
      case 6:
        return Q::field("items").oneOfThem().matches(
            w_.coin(0.6)
                ? compare(
                      Q::field("sku"), [&] { return fdb::TupleElement(w_.skuValue()); }, true)
                : compare(
                      Q::field("qty"), [&] { return fdb::TupleElement(w_.pick(0, 6)); }, false));
      case 7:
        return compare(
            Q::field("weight"), [&] { return fdb::TupleElement(w_.weightValue()); }, false);
      case 8:
        return compare(
            Q::field("gift"), [&] { return fdb::TupleElement(w_.coin(0.5)); }, false);
      case 9:
        return Q::field("ship_to").matches(Q::allOf(
            compare(
                Q::field("city"), [&] { return fdb::TupleElement(w_.cityValue()); }, true),
            compare(
                Q::field("zip"), [&] { return fdb::TupleElement(w_.pick(0, 6)); }, false)));
      default:
        return compare(
            Q::field("code"),
            [&] {
              return fdb::TupleElement(
                  fdb::ByteString{std::string(1, static_cast<char>(w_.pick(0, 3)))});
            },
            false);
    }
  }

  World& w_;
  bool orderOnly_ = true;
  Bindings* bindings_ = nullptr;
  int parameterCount_ = 0;
};

// --- The check ---

struct Row {
  fdb::Tuple primaryKey;
  fdb::Tuple sortKey;
  std::string typeName;
  friend bool operator==(const Row&, const Row&) = default;
};

std::string describeRows(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& row : rows)
    out += fdb::formatTuple(row.primaryKey) + fdb::formatTuple(row.sortKey) + " ";
  return out;
}

class QueryDifferential : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();
  StoreLocation location = StoreLocation::tuple(fdb::Tuple{"query-test"});

  template <typename F>
  auto withStore(const RecordMetaData& metaData, F&& fn) {
    return runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      return fn(store);
    });
  }

  Row rowOf(const LoadedRecord& record, const RecordQuery& query) {
    Row row{record.primaryKey, {}, record.recordType->name()};
    if (query.sort) {
      row.sortKey =
          query.sort->evaluateSingleton(*record.record, record.recordType->evaluationContext());
    }
    return row;
  }

  // Runs the plan in chunks: `rowLimit` rows or `scanLimit` records scanned an execution, each
  // in its own transaction, resuming from the last continuation.
  std::vector<Row> runChunked(const RecordMetaData& metaData, const RecordQueryPlan& plan,
                              const GeneratedQuery& g, int skip, int rowLimit, int scanLimit,
                              std::string& failure) {
    std::vector<Row> rows;
    std::optional<fdb::Bytes> continuation;
    bool first = true;
    for (int executions = 0; executions < 5000; ++executions) {
      bool done = false;
      withStore(metaData, [&](RecordStore& store) {
        ExecuteProperties properties;
        properties.skip = first ? skip : 0;
        properties.returnedRowLimit = rowLimit;
        if (scanLimit > 0) properties.scannedRecordsLimit = scanLimit;
        auto cursor = store.executeQuery(plan, g.bindings, continuation, properties);
        while (true) {
          CursorResult<QueriedRecord> r = cursor->next();
          if (!r.hasValue()) {
            done = r.noNextReason() == NoNextReason::kSourceExhausted;
            if (!done && r.continuation().isEnd())
              failure = "a stop that is not the end has no continuation";
            continuation = r.continuation().toBytes();
            break;
          }
          rows.push_back(rowOf(r.value(), g.query));
        }
        return 0;
      });
      first = false;
      if (done || !failure.empty()) return rows;
    }
    failure = "no end after 5000 executions";
    return rows;
  }

  void runWorld(uint64_t seed, size_t queries) {
    std::mt19937_64 rng(seed);
    World world(rng);
    const RecordMetaData metaData = world.makeMetaData();
    std::vector<LoadedRecord> all;
    withStore(metaData, [&](RecordStore& store) {
      for (int64_t id = 1; id <= 160; ++id) store.saveRecord(world.randomOrder(id));
      for (int64_t id = 100; id <= 160; id += 1 + world.pick(0, 1)) {
        store.saveRecord(world.randomInvoice(id + 1000 * world.pick(0, 1)));
      }
      return 0;
    });
    withStore(metaData, [&](RecordStore& store) {
      all = asList(*store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties())).values;
      return 0;
    });

    QueryGenerator generator(world);
    for (size_t q = 0; q < queries; ++q) {
      GeneratedQuery g = generator.next();
      SCOPED_TRACE("seed " + std::to_string(seed) + " query " + std::to_string(q) + ": " +
                   g.describe());
      RecordQueryPlanPtr plan;
      try {
        plan = RecordQueryPlanner(metaData, {}, g.config).plan(g.query);
      } catch (const UnplannableQueryException&) {
        EXPECT_FALSE(g.config.allowInMemorySort);
        ++unplannable_;
        continue;
      }
      SCOPED_TRACE("plan " + plan->explain());
      ++planned_;
      countKinds(*plan);

      // Brute force.
      std::vector<Row> expected;
      for (const LoadedRecord& record : all) {
        if (std::find(g.query.recordTypes.begin(), g.query.recordTypes.end(),
                      record.recordType->name()) == g.query.recordTypes.end()) {
          continue;
        }
        if (g.query.filter && !g.query.filter->passes(*record.record, g.bindings)) continue;
        expected.push_back(rowOf(record, g.query));
      }
      if (g.query.sort) {
        // Rows with equal sort keys may come in any order: the check compares sort keys.
        std::sort(expected.begin(), expected.end(), [&](const Row& a, const Row& b) {
          if (a.sortKey != b.sortKey) {
            return g.query.sortReverse ? b.sortKey < a.sortKey : a.sortKey < b.sortKey;
          }
          return a.primaryKey < b.primaryKey;
        });
      }

      // One execution with the query's skip and limit.
      std::vector<Row> got;
      std::vector<QueriedRecord> partial;
      withStore(metaData, [&](RecordStore& store) {
        ExecuteProperties properties;
        properties.skip = g.skip;
        properties.returnedRowLimit = g.limit;
        auto cursor = store.executeQuery(*plan, g.bindings, std::nullopt, properties);
        for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
          got.push_back(rowOf(r.value(), g.query));
          if (r.value().partial) partial.push_back(r.value());
        }
        return 0;
      });
      checkRows(g, expected, got);
      checkPartial(g, all, partial);

      // The same plan without a limit, then stopped every k rows (the skip done by the
      // first execution), then, without the skip, by a scan limit (a skip counts the rows of
      // one execution, which a scan limit may end first).
      std::string failure;
      const std::vector<Row> whole = runChunked(metaData, *plan, g, g.skip, 0, 0, failure);
      ASSERT_EQ(failure, "");
      const int k = static_cast<int>(world.pick(1, 5));
      const std::vector<Row> chunked = runChunked(metaData, *plan, g, g.skip, k, 0, failure);
      ASSERT_EQ(failure, "");
      EXPECT_EQ(describeRows(chunked), describeRows(whole)) << "stopped every " << k << " rows";
      if (plan->kind() != RecordQueryPlan::Kind::kSort) {
        const std::vector<Row> unskipped = runChunked(metaData, *plan, g, 0, 0, 0, failure);
        const int scanLimit = static_cast<int>(world.pick(1, 40));
        const std::vector<Row> scanLimited =
            runChunked(metaData, *plan, g, 0, 0, scanLimit, failure);
        ASSERT_EQ(failure, "");
        EXPECT_EQ(describeRows(scanLimited), describeRows(unskipped))
            << "stopped every " << scanLimit << " records scanned";
      }
      if (::testing::Test::HasFailure()) return;
    }
  }

  void checkRows(const GeneratedQuery& g, const std::vector<Row>& expected,
                 const std::vector<Row>& got) {
    std::set<fdb::Tuple> expectedKeys;
    for (const Row& row : expected) expectedKeys.insert(row.primaryKey);
    std::set<std::pair<std::string, fdb::Tuple>> seen;
    for (const Row& row : got) {
      EXPECT_TRUE(seen.insert({row.typeName, row.primaryKey}).second)
          << "row twice: " << fdb::formatTuple(row.primaryKey);
      EXPECT_TRUE(expectedKeys.count(row.primaryKey))
          << "row not expected: " << fdb::formatTuple(row.primaryKey);
    }
    const size_t skipped = std::min(expected.size(), static_cast<size_t>(g.skip));
    size_t count = expected.size() - skipped;
    if (g.limit > 0) count = std::min(count, static_cast<size_t>(g.limit));
    ASSERT_EQ(got.size(), count) << "expected " << describeRows(expected) << "\ngot "
                                 << describeRows(got);
    if (g.query.sort) {
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].sortKey, expected[skipped + i].sortKey) << "at row " << i;
      }
    }
  }

  // A covering plan's partial records hold the required field as the record does.
  void checkPartial(const GeneratedQuery& g, const std::vector<LoadedRecord>& all,
                    const std::vector<QueriedRecord>& partial) {
    if (partial.empty()) return;
    ++covering_;
    const KeyExpression& required = (*g.query.requiredResults)[0];
    for (const QueriedRecord& row : partial) {
      auto record = std::find_if(all.begin(), all.end(), [&](const LoadedRecord& r) {
        return r.primaryKey == row.primaryKey && r.recordType == row.recordType;
      });
      ASSERT_NE(record, all.end());
      EXPECT_EQ(required.evaluate(*row.record), required.evaluate(*record->record));
    }
  }

  void countKinds(const RecordQueryPlan& plan) {
    ++kinds_[static_cast<int>(plan.kind())];
    for (const RecordQueryPlanPtr& child : plan.children()) countKinds(*child);
    if (plan.kind() == RecordQueryPlan::Kind::kCoveringIndex) {
      countKinds(static_cast<const RecordQueryCoveringIndexPlan&>(plan).indexPlan());
    }
  }

  size_t planned_ = 0;
  size_t unplannable_ = 0;
  size_t covering_ = 0;
  std::map<int, size_t> kinds_;
};

TEST_F(QueryDifferential, PlansReturnWhatBruteForceFinds) {
  const uint64_t seed = envNumber("RL_QUERY_TEST_SEED", 20210521);
  const size_t queries =
      envNumber("RL_QUERY_TEST_QUERIES", rl::tests::onEmbeddedEngine() ? 150 : 15);
  for (uint64_t world = 0; world < 4 && !HasFailure(); ++world) {
    db = rl::tests::openTestDatabase();
    runWorld(seed + world, queries);
  }
  // How often each kind of plan node came up (RecordQueryPlan::Kind order).
  std::string shapes;
  for (const auto& [kind, count] : kinds_) {
    shapes += std::to_string(kind) + ":" + std::to_string(count) + " ";
  }
  std::cout << "planned " << planned_ << " queries (" << unplannable_ << " refused sorts, "
            << covering_ << " covering); plan nodes by kind: " << shapes << "\n";
}

}  // namespace
}  // namespace rl
