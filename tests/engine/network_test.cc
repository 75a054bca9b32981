// The simulated network on a virtual clock: round trips complete after their delay, from the
// timer thread, and operations issued together overlap. No wall-clock time is measured:
// the test moves a manual clock and checks which futures are ready.
#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "engine/memory_database.h"
#include "fdb/database.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

using test_support::errorCode;

constexpr int64_t kOneWay = 500;  // a round trip: 1000 us

class SimulatedNetwork : public ::testing::Test {
 protected:
  SimulatedNetwork() {
    EngineOptions options;
    options.oneWayDelayMicros = kOneWay;
    engine = std::make_shared<Engine>(clock, options);
    db = std::make_unique<Database>(std::make_shared<MemoryDatabase>(engine));
    // Seed data without delay: a second database handle on the same engine would also be
    // delayed, so write through the engine directly.
    std::vector<std::pair<Bytes, Bytes>> rows;
    for (int i = 0; i < 10; ++i)
      rows.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
    std::vector<Mutation> sets;
    for (const auto& [key, value] : rows)
      sets.push_back(Mutation{Mutation::Kind::kSet, key, value});
    CommitRequest seed;
    seed.readVersion = engine->getReadVersion();
    seed.mutations = sets;
    engine->commit(seed);
  }

  std::shared_ptr<ManualVersionClock> clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine;
  std::unique_ptr<Database> db;
};

TEST_F(SimulatedNetwork, ARoundTripCompletesAfterItsDelay) {
  Transaction tr = db->createTransaction();
  Future<int64_t> version = tr.getReadVersion();
  EXPECT_FALSE(version.isReady());
  clock->advanceMicros(999);
  EXPECT_FALSE(version.isReady());
  clock->advanceMicros(1);
  EXPECT_GT(version.get(), 0);  // completed by the timer thread
}

TEST_F(SimulatedNetwork, ReadsIssuedTogetherOverlap) {
  Transaction tr = db->createTransaction();
  int64_t start = clock->nowMicros();
  tr.getReadVersion();  // in flight: the reads below wait for it, then travel
  std::vector<Future<std::optional<Bytes>>> reads;
  for (int i = 0; i < 10; ++i) reads.push_back(tr.get("k" + std::to_string(i)));
  clock->advanceMicros(1999);  // the read version's round trip and most of one read's
  for (const auto& read : reads) EXPECT_FALSE(read.isReady());
  clock->advanceMicros(1);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(reads[static_cast<size_t>(i)].get(), "v" + std::to_string(i));
  // Ten reads took one round trip between them, not ten.
  EXPECT_EQ(clock->nowMicros() - start, 2 * 2 * kOneWay);
  RoundTrips expected{1, 10, 0, 0, 0};
  EXPECT_EQ(tr.roundTrips(), expected);
  EXPECT_EQ(db->roundTrips(), expected);
}

TEST_F(SimulatedNetwork, CancellingOrDestroyingATransactionFailsItsReadsInFlight) {
  Transaction cancelled = db->createTransaction();
  Future<std::optional<Bytes>> cancelledRead = cancelled.get("k1");
  cancelled.cancel();
  auto destroyedRead = [&] {
    Transaction destroyed = db->createTransaction();
    return destroyed.get("k2");
  }();
  EXPECT_FALSE(cancelledRead.isReady());
  EXPECT_FALSE(destroyedRead.isReady());
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(errorCode([&] { cancelledRead.get(); }), errors::kTransactionCancelled);
  EXPECT_EQ(errorCode([&] { destroyedRead.get(); }), errors::kTransactionCancelled);
  // After a reset, the transaction's new reads are not cancelled.
  cancelled.reset();
  Future<std::optional<Bytes>> again = cancelled.get("k1");
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(again.get(), "v1");
}

// FoundationDB's reset and retry cancel what the attempt has in flight (docs/semantics.md,
// "Transactions").
TEST_F(SimulatedNetwork, ResetAndRetryFailTheReadsInFlight) {
  Transaction reset = db->createTransaction();
  Future<std::optional<Bytes>> resetRead = reset.get("k1");
  reset.reset();
  Transaction retried = db->createTransaction();
  Future<std::optional<Bytes>> retriedRead = retried.get("k2");
  retried.onError(Error(errors::kNotCommitted)).get();
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(errorCode([&] { resetRead.get(); }), errors::kTransactionCancelled);
  EXPECT_EQ(errorCode([&] { retriedRead.get(); }), errors::kTransactionCancelled);
  Future<std::optional<Bytes>> again = reset.get("k1");  // the next attempt's are not
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(again.get(), "v1");
}

// docs/semantics.md, "When a commit is sent": a blind commit waits to be asked for, however
// long its read version takes; once asked it is sent and lands even if its transaction then
// goes, which only fails its future.
TEST_F(SimulatedNetwork, ABlindCommitIsSentOnlyWhenAskedFor) {
  auto unasked = [&] {
    Transaction tr = db->createTransaction();
    tr.set("unasked", "v");
    Future<void> commit = tr.commit();
    clock->advanceMicros(10 * 2 * kOneWay);  // its read version and commit trips are long over
    return commit;                           // the transaction goes; nobody asked
  }();
  EXPECT_EQ(errorCode([&] { unasked.get(); }), errors::kTransactionCancelled);

  auto asked = [&] {
    Transaction tr = db->createTransaction();
    tr.set("asked", "v");
    Future<void> commit = tr.commit();
    EXPECT_FALSE(commit.isReady());  // asked: sent now, its outcome two round trips away
    return commit;
  }();
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(errorCode([&] { asked.get(); }), errors::kTransactionCancelled);

  Transaction reader = db->createTransaction();
  Future<std::optional<Bytes>> landed = reader.get("asked");
  Future<std::optional<Bytes>> dropped = reader.get("unasked");
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(landed.get(), "v");
  EXPECT_EQ(dropped.get(), std::nullopt);
}

TEST_F(SimulatedNetwork, ACommitWaitsForTheReadsInFlight) {
  Transaction tr = db->createTransaction();
  Future<std::optional<Bytes>> read = tr.get("k1");  // read version and read: two round trips
  tr.set("mine", "1");
  Future<void> commit = tr.commit();
  tr.reset();  // before the read arrived: the commit was not sent
  EXPECT_EQ(errorCode([&] { commit.get(); }), errors::kTransactionCancelled);
  clock->advanceMicros(3 * 2 * kOneWay);
  EXPECT_EQ(errorCode([&] { read.get(); }), errors::kTransactionCancelled);
  Transaction reader = db->createTransaction();
  Future<std::optional<Bytes>> mine = reader.get("mine");
  clock->advanceMicros(2 * 2 * kOneWay);
  EXPECT_EQ(mine.get(), std::nullopt);
}

TEST_F(SimulatedNetwork, ReadsAnsweredFromOwnWritesAreNotRoundTrips) {
  Transaction tr = db->createTransaction();
  tr.set("mine", "x");
  Future<std::optional<Bytes>> own = tr.get("mine");
  EXPECT_TRUE(own.isReady());
  EXPECT_EQ(own.get(), "x");
  EXPECT_EQ(tr.roundTrips().total(), 0);
}

TEST_F(SimulatedNetwork, CommitIsARoundTripAfterTheReadVersion) {
  Transaction tr = db->createTransaction();
  tr.set("k0", "new");
  Future<void> commit = tr.commit();  // needs a read version first: two round trips
  clock->advanceMicros(2 * kOneWay);
  EXPECT_FALSE(commit.isReady());
  clock->advanceMicros(2 * kOneWay);
  commit.get();
  EXPECT_EQ(tr.roundTrips(), (RoundTrips{1, 0, 0, 0, 1}));
  EXPECT_EQ(engine->timer().stats().fired, 1);
}

// A read version is the newest committed version (docs/engine.md, "Versions"): read versions
// fetched over the network with no commit between them are equal, whatever time their round
// trips took, until an idle cluster's empty batch 2 s after the last commit.
TEST_F(SimulatedNetwork, ReadVersionsMoveOnlyWithCommitBatches) {
  auto readVersion = [&] {
    Transaction tr = db->createTransaction();
    Future<int64_t> version = tr.getReadVersion();
    clock->advanceMicros(2 * kOneWay);
    return version.get();
  };
  int64_t first = readVersion();
  EXPECT_EQ(readVersion(), first);
  clock->advanceMicros(1'000'000);
  EXPECT_EQ(readVersion(), first);

  Transaction writer = db->createTransaction();
  writer.set("k0", "new");
  Future<void> commit = writer.commit();
  clock->advanceMicros(4 * kOneWay);  // its read version, then the commit
  commit.get();
  int64_t committed = writer.getCommittedVersion();
  EXPECT_GT(committed, first);
  EXPECT_EQ(readVersion(), committed);
  EXPECT_EQ(readVersion(), committed);

  clock->advanceMicros(2'000'000);  // an empty batch has gone through since
  int64_t afterIdle = readVersion();
  EXPECT_GT(afterIdle, committed);
  EXPECT_EQ(readVersion(), afterIdle);
}

// FoundationDB's versionstamp future is ready once the commit is, not while the commit's
// round trip is still under way; a failed commit's 2020 arrives with its error too.
TEST_F(SimulatedNetwork, AVersionstampArrivesWithItsCommit) {
  Transaction tr = db->createTransaction();
  Future<int64_t> version = tr.getReadVersion();  // so that the commit is one round trip
  clock->advanceMicros(2 * kOneWay);
  EXPECT_GT(version.get(), 0);
  tr.set("k0", "new");
  Future<Bytes> stamp = tr.getVersionstamp();
  Future<void> commit = tr.commit();
  clock->advanceMicros(2 * kOneWay - 1);
  EXPECT_FALSE(commit.isReady());
  EXPECT_FALSE(stamp.isReady());
  clock->advanceMicros(1);
  commit.get();
  EXPECT_EQ(stamp.get().size(), 10u);

  // A conflict: k1, read by `conflicted`, is written by another commit first.
  Transaction conflicted = db->createTransaction();
  Future<std::optional<Bytes>> read = conflicted.get("k1");
  clock->advanceMicros(4 * kOneWay);  // its read version, then the read
  EXPECT_EQ(read.get(), "v1");
  Transaction other = db->createTransaction();
  other.set("k1", "theirs");
  Future<void> otherCommit = other.commit();
  clock->advanceMicros(4 * kOneWay);  // its read version, then the commit
  otherCommit.get();
  conflicted.set("k1", "mine");
  Future<Bytes> failedStamp = conflicted.getVersionstamp();
  Future<void> failedCommit = conflicted.commit();
  EXPECT_FALSE(failedCommit.isReady());
  EXPECT_FALSE(failedStamp.isReady());
  clock->advanceMicros(2 * kOneWay);
  EXPECT_EQ(errorCode([&] { failedCommit.get(); }), errors::kNotCommitted);
  EXPECT_EQ(errorCode([&] { failedStamp.get(); }), 2020);  // transaction_invalid_version
}

TEST(SimulatedNetworkShutdown, PendingResultsCompleteWhenTheDatabaseGoesAway) {
  auto clock = std::make_shared<ManualVersionClock>();
  EngineOptions options;
  options.oneWayDelayMicros = kOneWay;
  Future<int64_t> version = [&] {
    Database db(std::make_shared<MemoryDatabase>(std::make_shared<Engine>(clock, options)));
    Transaction tr = db.createTransaction();
    return tr.getReadVersion();
  }();  // the engine and its timer are gone; the clock never reached the deadline
  // Nothing hangs: the timer drained on destruction, and the transaction was destroyed
  // first, so its read version arrives as transaction_cancelled (docs/capi.md, "Memory ownership").
  EXPECT_EQ(errorCode([&] { version.get(); }), errors::kTransactionCancelled);
}

}  // namespace
}  // namespace fdb::engine
