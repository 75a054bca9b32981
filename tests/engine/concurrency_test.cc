// Concurrent transactions on one in-memory database: serializability under contention and
// reads concurrent with commits. CI also runs these under ThreadSanitizer.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "engine/engine.h"
#include "engine/held_commit.h"
#include "fdb/database.h"
#include "fdb/error.h"

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

// One commit of `mutations` at `readVersion` (no read conflicts).
int64_t commitAll(engine::Engine& engine, const std::vector<engine::Mutation>& mutations) {
  engine::CommitRequest request;
  request.readVersion = engine.getReadVersion();
  request.selfConflict = false;
  request.mutations = mutations;
  return engine.commit(request);
}

TEST(Concurrency, ReadsDoNotWaitForACommitBeingApplied) {
  auto clock = std::make_shared<engine::ManualVersionClock>();
  engine::Engine engine(clock);
  commitAll(engine, {{engine::Mutation::Kind::kSet, "a", "old"},
                     {engine::Mutation::Kind::kSet, "b", "old"}});
  clock->advanceMicros(10);

  // Hold a commit between its two mutations, with the commit lock held.
  HeldCommit held(engine, {{engine::Mutation::Kind::kSet, "a", "new"},
                           {engine::Mutation::Kind::kSet, "b", "new"}});
  ASSERT_TRUE(held.isHeld());
  // The commit is half applied and holds the lock; reads proceed and see none of it.
  clock->advanceMicros(10);
  int64_t version = engine.getReadVersion();
  std::optional<Bytes> a = engine.read(version).get("a");
  std::optional<Bytes> b = engine.read(version).get("b");
  std::vector<std::string> rows;
  engine.read(version).scan("", "z", false, [&](std::string_view key, std::string_view value) {
    rows.push_back(std::string(key) + "=" + std::string(value));
    return true;
  });
  held.release();
  EXPECT_EQ(a, "old");
  EXPECT_EQ(b, "old");
  EXPECT_EQ(rows, (std::vector<std::string>{"a=old", "b=old"}));
  // Once published, the commit is seen whole.
  int64_t after = engine.getReadVersion();
  EXPECT_EQ(engine.read(after).get("a"), "new");
  EXPECT_EQ(engine.read(after).get("b"), "new");
}

TEST(Concurrency, ReadersStaySafeWhileGarbageCollectionReclaims) {
  // Each commit sets every key of a group to one value (or clears them all) and moves the
  // clock a second on, so versions leave the 5-second window every few commits and the
  // store keeps cutting off and unlinking what readers may be walking. Readers must see
  // whole commits only; the sanitizer builds catch any use after free.
  auto clock = std::make_shared<engine::ManualVersionClock>();
  engine::Engine engine(clock);
  constexpr int kKeys = 16;
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back("key" + std::to_string(i));
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::atomic<int> reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      while (!stop || reads < 100) {
        try {
          engine::Engine::Reader reader = engine.read(engine.getReadVersion());
          std::vector<std::string> values;
          reader.scan("key", "kez", r % 2 == 1, [&](std::string_view, std::string_view value) {
            values.emplace_back(value);
            return true;
          });
          bool whole = values.empty() || static_cast<int>(values.size()) == kKeys;
          for (const std::string& value : values) whole = whole && value == values.front();
          if (!whole) ++torn;
          ++reads;
        } catch (const Error& e) {
          if (e.code() != errors::kTransactionTooOld) throw;
        }
      }
    });
  }
  for (int i = 0; i < 2000; ++i) {
    std::string value = std::to_string(i);
    std::vector<engine::Mutation> mutations;
    if (i % 5 == 4) {
      mutations.push_back({engine::Mutation::Kind::kClearRange, "key", "kez"});
    } else {
      for (const std::string& key : keys) {
        mutations.push_back({engine::Mutation::Kind::kSet, key, value});
      }
    }
    commitAll(engine, mutations);
    clock->advanceMicros(1000000);
  }
  stop = true;
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_GE(reads.load(), 100);
  // Readers hold back compaction only while they read: with them gone, the next commits
  // catch up, and at most the window's versions remain per key.
  for (int i = 0; i < 3; ++i) {
    commitAll(engine, {{engine::Mutation::Kind::kSet, "other", "x"}});
    clock->advanceMicros(1000000);
  }
  EXPECT_LE(engine.stats().versionEntries, size_t{kKeys} * 8);
}

// A blind commit asked for on one thread while its transaction is destroyed on another
// (docs/semantics.md, "When a commit is sent"): exactly one of them decides. Sent, it lands
// and its future either succeeds or, if the transaction went before the outcome was given,
// fails with 1025; dropped, nothing lands and the future fails with 1025.
TEST(Concurrency, AnUnsentCommitIsEitherSentOrDroppedWhenAskedAndDestroyedAtOnce) {
  Database db = Database::open("memory:");
  constexpr int kRounds = 300;
  int landed = 0, dropped = 0;
  for (int i = 0; i < kRounds; ++i) {
    const std::string key = "k" + std::to_string(i);
    std::optional<Transaction> tr = db.createTransaction();
    tr->set(key, "v");
    Future<void> commit = tr->commit();
    std::atomic<bool> go{false};
    int code = -1;
    std::thread asker([&] {
      while (!go.load()) {
      }
      code = errorCode([&] { commit.get(); });
    });
    go.store(true);
    tr.reset();  // destroys the transaction
    asker.join();
    bool isThere = db.createTransaction().get(key).get().has_value();
    if (code == 0) {
      EXPECT_TRUE(isThere) << i;
    }
    if (!isThere) {
      EXPECT_EQ(code, errors::kTransactionCancelled) << i;
    }
    (isThere ? landed : dropped) += 1;
  }
  EXPECT_EQ(landed + dropped, kRounds);
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
