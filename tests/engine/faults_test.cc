// Fault injection: the same seed gives the same faults; automatic idempotency makes a
// non-idempotent increment safe under commit_unknown_result. (A manual clock: retry backoffs
// advance it instead of sleeping.)
#include <cstring>

#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "engine/memory_database.h"
#include "fdb/database.h"

namespace fdb::engine {
namespace {

using namespace test_support;

EngineOptions faulty(uint64_t seed) {
  EngineOptions options;
  options.faults.enabled = true;
  options.faults.seed = seed;
  options.faults.notCommitted = 0.1;
  options.faults.unknownResult = 0.2;
  options.faults.readVersionTooOld = 0.05;
  return options;
}

// 200 read-modify-write transactions, one thread; returns the engine's fault trace.
std::vector<std::string> runWorkload(uint64_t seed) {
  auto engine = std::make_shared<Engine>(std::make_shared<ManualVersionClock>(), faulty(seed));
  Database db(std::make_shared<MemoryDatabase>(engine));
  for (int i = 0; i < 200; ++i) {
    db.run([&](Transaction& tr) {
      std::string key = "k" + std::to_string(i % 7);
      int64_t n = decodeInt64(tr.get(key).get());
      tr.set(key, encodeInt64(n + 1));
    });
  }
  return engine->faults().trace();
}

TEST(Faults, SameSeedSameTrace) {
  std::vector<std::string> first = runWorkload(42);
  std::vector<std::string> second = runWorkload(42);
  EXPECT_GT(first.size(), 20u);  // the plan did inject faults
  EXPECT_EQ(first, second);
  EXPECT_NE(first, runWorkload(43));
}

int64_t countWithUnknownResults(bool automaticIdempotency, int64_t* successes) {
  EngineOptions options;
  options.faults.enabled = true;
  options.faults.seed = 7;
  options.faults.unknownResult = 0.3;
  auto engine = std::make_shared<Engine>(std::make_shared<ManualVersionClock>(), options);
  Database db(std::make_shared<MemoryDatabase>(engine));
  *successes = 0;
  for (int i = 0; i < 300; ++i) {
    db.run([&](Transaction& tr) {
      if (automaticIdempotency) tr.setOption(TransactionOption::kAutomaticIdempotency);
      tr.atomicOp("counter", encodeInt64(1), MutationType::kAdd);  // not idempotent
    });
    ++*successes;
  }
  return db.run([](Transaction& tr) { return decodeInt64(tr.get("counter").get()); });
}

TEST(Faults, UnknownResultsOverCountANonIdempotentIncrement) {
  int64_t successes = 0;
  int64_t counted = countWithUnknownResults(false, &successes);
  EXPECT_EQ(successes, 300);
  EXPECT_GT(counted, successes);  // retried after commits that had in fact happened
}

TEST(Faults, AutomaticIdempotencyMakesItExact) {
  int64_t successes = 0;
  EXPECT_EQ(countWithUnknownResults(true, &successes), 300);
  EXPECT_EQ(successes, 300);
}

TEST(Faults, InjectedFaultsCarryFoundationDbCodes) {
  EngineOptions options;
  options.faults.enabled = true;
  options.faults.notCommitted = 1.0;
  auto engine = std::make_shared<Engine>(std::make_shared<ManualVersionClock>(), options);
  Database db(std::make_shared<MemoryDatabase>(engine));
  Transaction tr = db.createTransaction();
  tr.set("k", "v");
  try {
    tr.commit().get();
    FAIL() << "committed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kNotCommitted);
  }
  // Nothing was applied.
  EXPECT_EQ(engine->read(engine->getReadVersion()).get("k"), std::nullopt);
}

}  // namespace
}  // namespace fdb::engine
