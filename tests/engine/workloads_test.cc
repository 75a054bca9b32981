// FoundationDB's Cycle workload and a bank-transfer invariant: many threads, many open
// transactions, injected faults (not_committed, commit_unknown_result committed or not,
// too-old read versions). CI runs these also under ThreadSanitizer.
#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "engine/memory_database.h"
#include "fdb/database.h"

namespace fdb::engine {
namespace {

using namespace test_support;

constexpr int kThreads = 4;

EngineOptions withFaults() {
  EngineOptions options;
  options.faults.enabled = true;
  options.faults.seed = 2026;
  options.faults.notCommitted = 0.05;
  options.faults.unknownResult = 0.05;
  options.faults.readVersionTooOld = 0.02;
  return options;
}

std::string nodeKey(int64_t i) { return "cycle/" + std::to_string(1000 + i); }

TEST(Cycle, TheRingStaysOneCycle) {
  constexpr int64_t kNodes = 24;
  constexpr int kTransactionsPerThread = 150;
  Database db = Database::open("memory:", withFaults());
  db.run([&](Transaction& tr) {
    for (int64_t i = 0; i < kNodes; ++i) tr.set(nodeKey(i), encodeInt64((i + 1) % kNodes));
  });
  std::atomic<int> attempts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(t));
      for (int i = 0; i < kTransactionsPerThread; ++i) {
        int64_t r = std::uniform_int_distribution<int64_t>(0, kNodes - 1)(random);
        // Cycle's transaction: r -> r2 -> r3 -> r4 becomes r -> r3 -> r2 -> r4.
        db.run([&](Transaction& tr) {
          ++attempts;
          int64_t r2 = decodeInt64(tr.get(nodeKey(r)).get());
          int64_t r3 = decodeInt64(tr.get(nodeKey(r2)).get());
          int64_t r4 = decodeInt64(tr.get(nodeKey(r3)).get());
          tr.set(nodeKey(r), encodeInt64(r3));
          tr.set(nodeKey(r3), encodeInt64(r2));
          tr.set(nodeKey(r2), encodeInt64(r4));
        });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::vector<int64_t> next(kNodes);
  db.run([&](Transaction& tr) {
    for (int64_t i = 0; i < kNodes; ++i)
      next[static_cast<size_t>(i)] = decodeInt64(tr.get(nodeKey(i)).get());
  });
  int64_t node = 0;
  for (int64_t step = 1; step <= kNodes; ++step) {
    node = next[static_cast<size_t>(node)];
    ASSERT_GE(node, 0);
    ASSERT_LT(node, kNodes);
    if (step < kNodes) {
      ASSERT_NE(node, 0) << "a cycle shorter than the ring after " << step;
    }
  }
  EXPECT_EQ(node, 0) << "the ring does not close after " << kNodes << " steps";
  EXPECT_GT(attempts.load(), kThreads * kTransactionsPerThread);  // faults forced retries
}

TEST(Bank, TransfersKeepTheTotal) {
  constexpr int kAccounts = 10;
  constexpr int64_t kInitial = 1000;
  Database db = Database::open("memory:", withFaults());
  auto account = [](int i) { return "bank/" + std::to_string(i); };
  db.run([&](Transaction& tr) {
    for (int i = 0; i < kAccounts; ++i) tr.set(account(i), encodeInt64(kInitial));
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(100 + t));
      for (int i = 0; i < 150; ++i) {
        int from = std::uniform_int_distribution<int>(0, kAccounts - 1)(random);
        int to = std::uniform_int_distribution<int>(0, kAccounts - 1)(random);
        int64_t amount = std::uniform_int_distribution<int64_t>(1, 100)(random);
        db.run([&](Transaction& tr) {
          int64_t balance = decodeInt64(tr.get(account(from)).get());
          if (from == to || balance < amount) return;  // no overdrafts
          int64_t other = decodeInt64(tr.get(account(to)).get());
          tr.set(account(from), encodeInt64(balance - amount));
          tr.set(account(to), encodeInt64(other + amount));
        });
      }
    });
  }
  // A reader checks the invariant on consistent snapshots while transfers run.
  std::atomic<bool> done{false};
  std::atomic<int> violations{0};
  std::atomic<int> audits{0};
  std::thread auditor([&] {
    while (!done || audits < 20) {  // at least 20 audits, however fast the transfers are
      try {
        db.run([&](Transaction& tr) {
          int64_t total = 0;
          for (const KeyValue& row : tr.snapshot().getRangeAll(KeyRange{"bank/", "bank0"})) {
            total += decodeInt64(row.value);
            if (decodeInt64(row.value) < 0) ++violations;
          }
          if (total != kAccounts * kInitial) ++violations;
        });
        ++audits;
      } catch (const Error&) {
      }
    }
  });
  for (std::thread& thread : threads) thread.join();
  done = true;
  auditor.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GE(audits.load(), 20);
  int64_t total = db.run([&](Transaction& tr) {
    int64_t sum = 0;
    for (const KeyValue& row : tr.getRangeAll(KeyRange{"bank/", "bank0"}))
      sum += decodeInt64(row.value);
    return sum;
  });
  EXPECT_EQ(total, kAccounts * kInitial);
}

}  // namespace
}  // namespace fdb::engine
