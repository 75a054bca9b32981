// The engine's internals: the versioned store, the resolver's history, versions and the
// MVCC window under a manual clock, and garbage collection.
#include "engine/engine.h"

#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "engine/conflict_history.h"
#include "engine/versioned_store.h"

#include <algorithm>

#include <fmt/format.h>
#include "fdb/error.h"

namespace fdb::engine {
namespace {

using namespace test_support;

TEST(VersionedStore, ReadsSeeTheNewestEntryAtOrBelowTheirVersion) {
  VersionedStore store;
  store.set("a", "1", 10);
  store.set("a", "2", 20);
  store.clear("a", 30);
  store.set("b", "x", 15);
  EXPECT_EQ(store.get("a", 9), std::nullopt);
  EXPECT_EQ(store.get("a", 10), "1");
  EXPECT_EQ(store.get("a", 25), "2");
  EXPECT_EQ(store.get("a", 30), std::nullopt);
  EXPECT_EQ(store.firstAtOrAfter("", "\xff", 12)->key, "a");
  EXPECT_EQ(store.firstAtOrAfter("", "\xff", 30)->key, "b");
  EXPECT_EQ(store.firstAtOrAfter("", "b", 30), std::nullopt);
  EXPECT_EQ(store.lastBefore("\xff", "", 30)->key, "b");
  EXPECT_EQ(store.lastBefore("b", "", 30), std::nullopt);
  EXPECT_EQ(store.lastBefore("b", "", 20)->value, "2");
}

TEST(VersionedStore, ClearRangeHidesOnlyKeysInside) {
  VersionedStore store;
  for (const char* k : {"a", "b", "c", "d"}) store.set(k, k, 1);
  store.clearRange("b", "d", 2);
  EXPECT_EQ(store.get("a", 2), "a");
  EXPECT_EQ(store.get("b", 2), std::nullopt);
  EXPECT_EQ(store.get("c", 2), std::nullopt);
  EXPECT_EQ(store.get("d", 2), "d");
  EXPECT_EQ(store.get("c", 1), "c");
}

TEST(VersionedStore, GarbageCollectionKeepsWhatTheWindowCanSee) {
  VersionedStore store;
  for (int v = 1; v <= 100; ++v) {
    store.set("k", std::to_string(v), v);
    if (v == 50) store.set("gone", "x", v);
    if (v == 51) store.clear("gone", v);
  }
  EXPECT_EQ(store.entryCount(), 102u);
  // A horizon applies once every reader from before it was announced has left: with no
  // readers, two epoch steps later.
  for (int i = 0; i < 3; ++i) store.collectGarbage(90);
  EXPECT_EQ(store.get("k", 90), "90");
  EXPECT_EQ(store.get("k", 100), "100");
  EXPECT_EQ(store.entryCount(), 11u);  // versions 90..100 of k; "gone" is gone
  EXPECT_EQ(store.keyCount(), 1u);
}

TEST(VersionedStore, AReaderHoldsBackCompactionAndReclamation) {
  VersionedStore store;
  for (int v = 1; v <= 10; ++v) {
    store.set("k", std::to_string(v), v);
    if (v == 3) store.set("gone", "x", v);
    if (v == 4) store.clear("gone", v);
  }
  {
    VersionedStore::ReadGuard reader = store.enterRead();
    for (int i = 0; i < 10; ++i) store.collectGarbage(8);
    // The reader entered before the horizon was announced: it may still read below it.
    EXPECT_EQ(store.get("k", 2), "2");
    EXPECT_EQ(store.get("gone", 3), "x");
    EXPECT_EQ(store.entryCount(), 12u);
  }
  for (int i = 0; i < 3; ++i) store.collectGarbage(8);
  EXPECT_EQ(store.entryCount(), 3u);  // versions 8..10 of k
  EXPECT_EQ(store.keyCount(), 1u);
  // A reader that entered after the horizon was announced does not hold back compaction,
  // but what was cut off is freed only after it leaves.
  store.set("k", "11", 11);
  store.collectGarbage(11);  // announces 11 and moves one epoch on
  {
    VersionedStore::ReadGuard reader = store.enterRead();
    for (int i = 0; i < 5; ++i) store.collectGarbage(11);
    EXPECT_EQ(store.entryCount(), 1u);
    EXPECT_GT(store.retiredCount(), 0u);
    EXPECT_EQ(store.get("k", 11), "11");
  }
  for (int i = 0; i < 3; ++i) store.collectGarbage(11);
  EXPECT_EQ(store.retiredCount(), 0u);
  EXPECT_EQ(store.entryCount(), 1u);
}

TEST(VersionedStore, ScansBothWaysOverManyKeys) {
  VersionedStore store;
  // Enough keys for a tall skip list; odd ones cleared at version 2.
  for (int i = 0; i < 2000; ++i) store.set(fmt::format("key{:05}", i), std::to_string(i), 1);
  for (int i = 1; i < 2000; i += 2) store.clear(fmt::format("key{:05}", i), 2);
  std::vector<std::string> forward, backward;
  store.scan("key00100", "key00200", 2, false, [&](std::string_view key, std::string_view) {
    forward.emplace_back(key);
    return true;
  });
  store.scan("key00100", "key00200", 2, true, [&](std::string_view key, std::string_view) {
    backward.emplace_back(key);
    return true;
  });
  ASSERT_EQ(forward.size(), 50u);
  EXPECT_EQ(forward.front(), "key00100");
  EXPECT_EQ(forward.back(), "key00198");
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(forward, backward);
  size_t atVersion1 = 0;
  store.scan("", "\xff", 1, true, [&](std::string_view, std::string_view) {
    ++atVersion1;
    return true;
  });
  EXPECT_EQ(atVersion1, 2000u);
  EXPECT_EQ(store.lastBefore("key00100", "", 2)->key, "key00098");
  EXPECT_EQ(store.firstAtOrAfter("key00101", "\xff", 2)->key, "key00102");
  EXPECT_FALSE(store.firstAtOrAfter("key00101", "key00102", 2));
}

TEST(ConflictHistory, ConflictsOnlyWithNewerOverlappingWrites) {
  ConflictHistory history;
  history.add("b", "d", 10);
  history.add("c", "e", 20);
  EXPECT_TRUE(history.conflicts("a", "c", 9));
  EXPECT_FALSE(history.conflicts("a", "c", 10));  // strictly newer only
  EXPECT_FALSE(history.conflicts("a", "b", 0));   // half-open: [a, b) misses b
  EXPECT_TRUE(history.conflicts("d", std::string("d\0", 2), 19));
  EXPECT_FALSE(history.conflicts("e", "z", 0));
  EXPECT_TRUE(history.conflicts("b", "c", 9));
  EXPECT_FALSE(history.conflicts("b", "c", 10));
  history.forgetUpTo(15);
  EXPECT_FALSE(history.conflicts("b", "c", 0));  // version 10 forgotten
  EXPECT_TRUE(history.conflicts("c", "d", 15));
  EXPECT_EQ(history.boundaryCount(), 2u);
}

class EngineWithManualClock : public ::testing::Test {
 protected:
  std::shared_ptr<ManualVersionClock> clock = std::make_shared<ManualVersionClock>();
  Engine engine{clock};

  int64_t commitSet(std::string_view key, std::string_view value, int64_t readVersion) {
    KeyRange written{Bytes(key), Bytes(key) + '\0'};
    Mutation set{Mutation::Kind::kSet, key, value};  // views of the caller's strings
    CommitRequest request;
    request.readVersion = readVersion;
    request.writeConflicts = std::span<const KeyRange>(&written, 1);
    request.mutations = {&set, 1};
    return engine.commit(request);
  }
};

TEST_F(EngineWithManualClock, ReadVersionsMovePerCommitAndPerEmptyBatch) {
  int64_t v1 = engine.getReadVersion();
  int64_t c1 = commitSet("a", "1", v1);
  EXPECT_EQ(engine.getReadVersion(), c1);  // the newest commit
  int64_t c2 = commitSet("a", "2", engine.getReadVersion());
  EXPECT_GT(c1, v1);
  EXPECT_GT(c2, c1);
  // Time alone does not move the read version until an idle cluster's empty batch, at most
  // 2 s (MAX_COMMIT_BATCH_INTERVAL) after the last commit; commit versions follow the clock.
  clock->advanceMicros(1'999'000);
  EXPECT_EQ(engine.getReadVersion(), c2);
  EXPECT_EQ(engine.getReadVersion(), c2);
  clock->advanceMicros(2'000);
  EXPECT_EQ(engine.getReadVersion(), c2 + 2'000'000);
  clock->advanceMicros(4'000'000);
  EXPECT_EQ(engine.getReadVersion(), c2 + 6'000'000);
  int64_t c3 = commitSet("a", "3", engine.getReadVersion());
  EXPECT_GT(c3, c2 + 6'000'000);
  EXPECT_EQ(engine.getReadVersion(), c3);
  EXPECT_EQ(engine.read(c3).get("a"), "3");
}

TEST_F(EngineWithManualClock, ReadsOlderThanTheWindowAreTooOld) {
  // The window trails the newest commit batch: an idle cluster's empty batches, every 2 s, move
  // it on, so a version ages out once a batch 5,000,000 versions newer has committed.
  int64_t c = commitSet("a", "1", engine.getReadVersion());
  clock->advanceMicros(kMvccWindowVersions + 999'000);  // newest batch: c + 4,000,000
  EXPECT_EQ(engine.read(c).get("a"), "1");
  clock->advanceMicros(2'000);  // an empty batch at c + 6,000,000
  EXPECT_EQ(errorCode([&] { engine.read(c); }), errors::kTransactionTooOld);
  EXPECT_EQ(errorCode([&] { engine.read(0); }), errors::kTransactionTooOld);
  // A commit moves it on at once.
  int64_t c2 = commitSet("b", "1", engine.getReadVersion());
  EXPECT_EQ(engine.read(c2 - kMvccWindowVersions).get("b"), std::nullopt);
  EXPECT_EQ(errorCode([&] { engine.read(c2 - kMvccWindowVersions - 1); }),
            errors::kTransactionTooOld);
}

TEST_F(EngineWithManualClock, CommitsWithAnOldReadVersionAreTooOld) {
  int64_t v = engine.getReadVersion();
  clock->advanceMicros(kMvccWindowVersions + 1);
  EXPECT_EQ(errorCode([&] { commitSet("a", "1", v); }), errors::kTransactionTooOld);
}

TEST_F(EngineWithManualClock, FutureVersionsWaitThenFail) {
  int64_t now = engine.getReadVersion();
  // Half a second ahead: the (manual) clock is waited forward and the read succeeds.
  EXPECT_EQ(engine.read(now + 500'000).get("a"), std::nullopt);
  int64_t start = clock->nowMicros();
  EXPECT_EQ(errorCode([&] { engine.read(now + 100'000'000); }), errors::kFutureVersion);
  EXPECT_EQ(clock->nowMicros() - start, kFutureVersionWaitMicros);
}

TEST_F(EngineWithManualClock, ConflictIffNewerWriteIntersectsReads) {
  int64_t rv = engine.getReadVersion();
  commitSet("b", "x", engine.getReadVersion());
  const std::vector<KeyRange> readCd = {KeyRange{"c", "d"}};
  const std::vector<KeyRange> writeZ = {KeyRange{"z", std::string("z\0", 2)}};
  CommitRequest disjoint;
  disjoint.readVersion = rv;
  disjoint.readConflicts = readCd;
  disjoint.writeConflicts = writeZ;
  EXPECT_NO_THROW(engine.commit(disjoint));
  const std::vector<KeyRange> readCdAndAc = {KeyRange{"c", "d"}, KeyRange{"a", "c"}};
  CommitRequest overlapping = disjoint;
  overlapping.readConflicts = readCdAndAc;
  EXPECT_EQ(errorCode([&] { engine.commit(overlapping); }), errors::kNotCommitted);
  EXPECT_EQ(engine.stats().conflicts, 1);
}

TEST_F(EngineWithManualClock, MemoryStaysBoundedUnderASteadyWorkload) {
  // 20 seconds of overwriting 10 keys at 1000 commits per second: without garbage
  // collection the store would hold 20,000 versions.
  for (int i = 0; i < 20000; ++i) {
    clock->advanceMicros(1000);
    commitSet("key" + std::to_string(i % 10), std::to_string(i), engine.getReadVersion());
  }
  EngineStats stats = engine.stats();
  EXPECT_EQ(stats.keys, 10u);
  // The 5-second window at 1000 commits per second: about 5000 versions (+ one per key).
  EXPECT_LE(stats.versionEntries, 5000u + 10u + 10u);
  EXPECT_GE(stats.versionEntries, 4990u);
  EXPECT_LE(stats.conflictBoundaries, 2u * 10u + 2u);
}

}  // namespace
}  // namespace fdb::engine
