// Concurrent transactions on one in-memory database: serializability under contention and
// reads concurrent with commits. CI also runs these under ThreadSanitizer.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "fdb/database.h"

namespace fdb {
namespace {

using namespace engine::test_support;

TEST(Concurrency, ReadModifyWriteIncrementsAreSerializable) {
  Database db = Database::open("memory:");
  constexpr int kThreads = 4;
  constexpr int kIncrements = 300;
  std::atomic<int> attempts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        db.run([&](Transaction& tr) {
          ++attempts;
          uint64_t n = decodeInt64(tr.get("counter").get());
          tr.set("counter", encodeInt64(n + 1));
        });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  uint64_t total = db.run([](Transaction& tr) { return decodeInt64(tr.get("counter").get()); });
  // Every increment counted exactly once, however many attempts conflicted.
  EXPECT_EQ(total, uint64_t{kThreads * kIncrements});
  EXPECT_GE(attempts.load(), kThreads * kIncrements);
}

TEST(Concurrency, ReadersSeeConsistentSnapshotsWhileWritersCommit) {
  // Writers move one unit between two keys; every reader must see them sum to 1000.
  Database db = Database::open("memory:");
  db.run([](Transaction& tr) {
    tr.set("a", encodeInt64(1000));
    tr.set("b", encodeInt64(0));
  });
  std::atomic<bool> stop{false};
  std::atomic<int> inconsistent{0};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!stop || reads < 50) {  // at least 50 reads, however fast the writers are
      db.run([&](Transaction& tr) {
        uint64_t a = decodeInt64(tr.snapshot().get("a").get());
        uint64_t b = decodeInt64(tr.snapshot().get("b").get());
        if (a + b != 1000) ++inconsistent;
        ++reads;
      });
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        db.run([](Transaction& tr) {
          uint64_t a = decodeInt64(tr.get("a").get());
          uint64_t b = decodeInt64(tr.get("b").get());
          if (a == 0) return;
          tr.set("a", encodeInt64(a - 1));
          tr.set("b", encodeInt64(b + 1));
        });
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  stop = true;
  reader.join();
  EXPECT_EQ(inconsistent.load(), 0);
  EXPECT_GT(reads.load(), 0);
  uint64_t b = db.run([](Transaction& tr) { return decodeInt64(tr.get("b").get()); });
  EXPECT_EQ(b, 400u);
}

TEST(Concurrency, NamedDatabasesAreSharedAcrossHandles) {
  Database first = Database::open("memory:concurrency-shared");
  Database second = Database::open("memory:concurrency-shared");
  Database other = Database::open("memory:concurrency-other");
  first.run([](Transaction& tr) { tr.set("k", "v"); });
  EXPECT_EQ(second.run([](Transaction& tr) { return tr.get("k").get(); }), "v");
  EXPECT_EQ(other.run([](Transaction& tr) { return tr.get("k").get(); }), std::nullopt);
  EXPECT_EQ(Database::open("memory:").run([](Transaction& tr) { return tr.get("k").get(); }),
            std::nullopt);
}

}  // namespace
}  // namespace fdb
