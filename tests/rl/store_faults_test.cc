// Saves, updates and deletes under injected faults keep a store consistent.
//
// The engine runs a seeded fault plan: commits fail with not_committed (1020) or
// commit_unknown_result (1021, half of them after the commit applied), reads find their
// read version too old (1007), and some round trips are slowed down. Thousands of
// transactions of random record operations on a store with VALUE indexes (one of them
// unique) go through runInContext, which retries all of these. Then the store checker must
// find no problem, and the records must equal a model that applied exactly the transactions
// that were acknowledged.
//
// commit_unknown_result is handled the way FoundationDB's automatic idempotency handles it:
// every transaction writes a marker key of its own, and an attempt that finds its marker
// already there knows an earlier attempt committed, and does nothing more. Without that, a
// retried transaction whose first attempt applied would apply twice (an insert would fail,
// a uniqueness check would see the record's own earlier save as another record's).
//
// The number of transactions is RL_FAULT_TEST_TRANSACTIONS if set, else 3000 (500 under
// sanitizers).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fdb/database.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/store/record_store.h"
#include "rl/store/store_checker.h"
#include "store_test_records.pb.h"
#include "test_database.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RL_FAULT_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RL_FAULT_TEST_SANITIZED 1
#endif
#endif

namespace rl {
namespace {

using store_test::Order;

int transactionCount() {
  if (const char* count = std::getenv("RL_FAULT_TEST_TRANSACTIONS")) return std::atoi(count);
#ifdef RL_FAULT_TEST_SANITIZED
  return 500;
#else
  return 3000;
#endif
}

// One record operation. kInsert and kIncrement are not idempotent: applied twice, an
// insert fails and an increment counts twice.
struct Operation {
  enum Kind { kSave, kInsert, kIncrement, kDelete } kind = kSave;
  int64_t id = 0;
  Order order;  // for saves and inserts
};

// What the store should hold: the orders by id.
using Model = std::map<int64_t, Order>;

// Applies `operation` to `model`; false when it is a save giving a record an email another
// record has (the unique index Order$email rejects the transaction).
bool applyToModel(Model& model, const Operation& operation) {
  switch (operation.kind) {
    case Operation::kDelete: model.erase(operation.id); return true;
    case Operation::kIncrement: {
      Order& order = model.at(operation.id);
      order.set_price(order.price() + 1);
      return true;
    }
    case Operation::kSave:
    case Operation::kInsert: break;
  }
  if (operation.order.has_email()) {
    for (const auto& [id, other] : model) {
      if (id != operation.id && other.has_email() && other.email() == operation.order.email()) {
        return false;
      }
    }
  }
  model[operation.id] = operation.order;
  return true;
}

class StoreFaultsTest : public ::testing::Test {
 protected:
  static fdb::EngineOptions faultPlan(uint64_t seed) {
    fdb::EngineOptions options;
    options.faults.enabled = true;
    options.faults.seed = seed;
    options.faults.notCommitted = 0.04;
    options.faults.unknownResult = 0.04;
    options.faults.readVersionTooOld = 0.01;
    options.faults.slowdown = 0.01;
    options.faults.slowdownMicros = 200;
    return options;
  }

  const StoreLocation location = StoreLocation::tuple(fdb::Tuple{"faults", "store"});
  const fdb::Subspace markers{fdb::Tuple{"faults", "markers"}};
  RecordMetaData metaData = RecordMetaData::build(Order::descriptor()->file());
};

TEST_F(StoreFaultsTest, StoreStaysConsistentUnderInjectedFaults) {
  RL_SKIP_UNLESS_EMBEDDED_ENGINE("fault injection through fdb::EngineOptions");
  const int transactions = transactionCount();
  fdb::Database db = rl::tests::openTestDatabase(faultPlan(20240611));
  std::mt19937_64 random(42);
  auto uniform = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };

  Model model;
  int64_t attempts = 0;
  int64_t foundOwnMarker = 0;  // attempts after an attempt that committed (1021)
  int64_t acknowledged = 0;
  int64_t rejected = 0;  // uniqueness violations, as the model predicted
  for (int64_t txn = 0; txn < transactions; ++txn) {
    // Operations chosen against what the store holds if this transaction applies.
    std::vector<Operation> operations;
    Model next = model;
    bool expectApplied = true;
    const int64_t count = uniform(1, 4);
    for (int64_t i = 0; i < count; ++i) {
      Operation operation;
      operation.id = uniform(1, 150);
      const int64_t choice = uniform(0, 9);
      if (choice < 2) {
        operation.kind = Operation::kDelete;
      } else if (choice < 4 && !next.empty()) {
        operation.kind = Operation::kIncrement;
        auto it = next.begin();
        std::advance(it, uniform(0, static_cast<int64_t>(next.size()) - 1));
        operation.id = it->first;
      } else {
        operation.kind = next.contains(operation.id) ? Operation::kSave : Operation::kInsert;
        operation.order.set_id(operation.id);
        operation.order.set_name("name-" + std::to_string(uniform(0, 20)));
        operation.order.set_price(uniform(0, 1000));
        // Emails from a small pool, so that the unique index is sometimes violated.
        if (uniform(0, 3) != 0) operation.order.set_email(std::to_string(uniform(0, 400)) + "@x");
        if (uniform(0, 9) == 0) operation.order.add_tags("t" + std::to_string(uniform(0, 3)));
        // Now and then a record long enough to split.
        if (uniform(0, 60) == 0) operation.order.set_payload(std::string(150'000, 'p'));
      }
      operations.push_back(operation);
      if (!applyToModel(next, operation)) {
        expectApplied = false;
        break;  // the store throws here: nothing after it runs
      }
    }

    const fdb::Bytes marker = markers.pack(fdb::Tuple{txn});
    try {
      runInContext(db, [&](RecordContext& context) {
        ++attempts;
        if (context.transaction().get(marker).get()) {
          ++foundOwnMarker;
          return;  // an earlier attempt committed
        }
        RecordStore store = RecordStore::open(context, location, metaData);
        for (const Operation& operation : operations) {
          switch (operation.kind) {
            case Operation::kSave: store.saveRecord(operation.order); break;
            case Operation::kInsert: store.saveRecord(operation.order, SaveMode::kInsert); break;
            case Operation::kIncrement: {
              std::optional<TypedRecord<Order>> loaded =
                  store.loadRecord<Order>(fdb::Tuple{operation.id});
              ASSERT_TRUE(loaded) << "record " << operation.id << " to increment is missing";
              loaded->record.set_price(loaded->record.price() + 1);
              store.saveRecord(loaded->record, SaveMode::kUpdate);
              break;
            }
            case Operation::kDelete: store.deleteRecord(fdb::Tuple{operation.id}); break;
          }
        }
        context.transaction().set(marker, "");
      });
      ASSERT_TRUE(expectApplied) << "transaction " << txn << " committed a duplicate email";
      model = std::move(next);
      ++acknowledged;
    } catch (const RecordIndexUniquenessViolation& e) {
      ASSERT_FALSE(expectApplied) << "transaction " << txn << ": " << e.what();
      ++rejected;
    }
  }
  // The plan did inject faults, and some commits applied before reporting 1021.
  EXPECT_GT(attempts, transactions + transactions / 50);
  if (transactions >= 200) {
    EXPECT_GT(foundOwnMarker, 0);
  }
  EXPECT_GT(rejected, 0);
  EXPECT_EQ(acknowledged + rejected, transactions);

  // The checker, itself under faults (its steps are retried), finds nothing wrong.
  CheckOptions options;
  options.maxItemsPerTransaction = 200;
  const CheckReport report = StoreChecker(db, location, metaData, options).run();
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_EQ(report.recordsChecked, static_cast<int64_t>(model.size()));
  EXPECT_GT(report.transactions, 1);

  // The records are exactly the model's, and so are the markers.
  const std::vector<LoadedRecord> records = runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData);
    CursorPtr<LoadedRecord> cursor =
        store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties());
    return asList(*cursor, [](LoadedRecord& record) { return std::move(record); }).values;
  });
  ASSERT_EQ(records.size(), model.size());
  auto expected = model.begin();
  for (const LoadedRecord& record : records) {
    EXPECT_EQ(record.primaryKey, fdb::Tuple{expected->first});
    EXPECT_EQ(record.record->SerializeAsString(), expected->second.SerializeAsString())
        << "record " << expected->first;
    ++expected;
  }
  const size_t markerCount = runInContext(db, [&](RecordContext& context) {
    return context.transaction().getRangeAll(markers.range()).size();
  });
  EXPECT_EQ(static_cast<int64_t>(markerCount), acknowledged);
}

}  // namespace
}  // namespace rl
