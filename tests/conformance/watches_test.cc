// Watches (docs/semantics.md: "Watches", "Conflict ranges", "Transactions"): a watch compares the
// key's value against what its transaction saw when it created the watch (own earlier writes
// included), is armed when that transaction commits, fires (ready, no error) only on an actual
// change, and otherwise fails with the commit's error, 1025 (reset / destroyed first), 1034 (RYW
// disabled), 2004, 2102, 1101 (cancelled) or 1032 (too many watches).
//
// Firing is asynchronous on a real cluster, so "it fires" waits for readiness with a generous
// cap (failing if the cap is reached) instead of blocking forever; "it does not fire" checks
// isReady() right after the non-changing commit, which is what an engine that wrongly fires
// synchronously gets caught by.

#include "conformance/backends.h"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::DatabaseOption;
using fdb::Future;
using fdb::MutationType;
using fdb::Transaction;
using fdb::TransactionOption;

constexpr std::chrono::seconds kCap{10};

// True once `future` is ready; false if it is still pending after `kCap`.
template <typename T>
bool becomesReady(const Future<T>& future) {
  auto deadline = std::chrono::steady_clock::now() + kCap;
  while (!future.isReady()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// get() of a watch that must complete (with a value or an error) within the cap; a watch still
// pending then is reported as a non-fdb exception, so EXPECT_FDB_ERROR shows it.
void getWithin(const Future<void>& watch) {
  if (!becomesReady(watch)) throw std::runtime_error("the watch never became ready");
  watch.get();
}

class WatchesTest : public ConformanceTest {
 protected:
  // A watch on `key` created by a transaction that then commits (read-only unless it wrote).
  Future<void> committedWatch(std::string_view key) {
    Transaction tr = db().createTransaction();
    Future<void> watch = tr.watch(key);
    tr.commit().get();
    return watch;
  }
};

TEST_P(WatchesTest, FiresWhenAnotherTransactionChangesTheKey) {
  write("k", "v1");
  Future<void> watch = committedWatch("k");
  EXPECT_FALSE(watch.isReady());  // nothing changed yet
  write("k", "v2");
  ASSERT_TRUE(becomesReady(watch));
  EXPECT_NO_THROW(watch.get());
}

TEST_P(WatchesTest, FiresWhenTheKeyIsCleared) {
  write("k", "v1");
  Future<void> watch = committedWatch("k");
  {
    Transaction tr = db().createTransaction();
    tr.clear("k");
    tr.commit().get();
  }
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, FiresWhenAnAtomicOpChangesTheKey) {
  write("k", bytes({1}));
  Future<void> watch = committedWatch("k");
  {
    Transaction tr = db().createTransaction();
    tr.atomicOp("k", bytes({1}), MutationType::kAdd);
    tr.commit().get();
  }
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, DoesNotFireWhenTheSameValueIsWritten) {
  write("k", "v1");
  Future<void> watch = committedWatch("k");
  write("k", "v1");
  EXPECT_FALSE(watch.isReady());
  write("other", "x");  // a change elsewhere does not fire it either
  EXPECT_FALSE(watch.isReady());
  write("k", "v2");
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, WatchOfAnAbsentKeyFiresOnInsert) {
  Future<void> watch = committedWatch("k");
  {
    Transaction tr = db().createTransaction();
    tr.clear("k");  // absent stays absent: no change
    tr.commit().get();
  }
  EXPECT_FALSE(watch.isReady());
  write("k", "");  // present but empty differs from absent
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, ExpectedValueIncludesTheTransactionsEarlierWrites) {
  write("k", "old");
  Transaction tr = db().createTransaction();
  tr.set("k", "mine");
  Future<void> watch = tr.watch("k");  // expects "mine"
  tr.commit().get();                   // the database now holds "mine": no change
  EXPECT_FALSE(watch.isReady());
  write("k", "mine");
  EXPECT_FALSE(watch.isReady());
  write("k", "other");
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, OwnLaterWriteThatChangesTheValueFiresItBeforeCommit) {
  write("k", "v1");
  Transaction tr = db().createTransaction();
  Future<void> watch = tr.watch("k");
  tr.set("k", "v1");  // the same value: no fire
  EXPECT_FALSE(watch.isReady());
  tr.set("k", "v2");
  ASSERT_TRUE(becomesReady(watch));  // without waiting for the commit
  EXPECT_NO_THROW(watch.get());
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v2");
}

TEST_P(WatchesTest, OwnLaterClearFiresIt) {
  write("k", "v1");
  Transaction tr = db().createTransaction();
  Future<void> watch = tr.watch("k");
  tr.clear("k");
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, OtherTransactionsChangesCountOnlyOnceItsTransactionCommits) {
  // The watch expects what its transaction saw ("v1", at its read version); a change committed
  // by someone else before the watching transaction commits does not fire it then, but once the
  // (read-only) transaction commits, the watch is armed at its read version and the value it
  // finds differs from "v1", so it fires.
  write("k", "v1");
  Transaction tr = db().createTransaction();
  Future<void> watch = tr.watch("k");
  write("k", "v2");
  EXPECT_FALSE(watch.isReady());
  tr.commit().get();
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, WatchAddsAReadConflictAndFailsWithTheCommitError) {
  write("k", "v1");
  Transaction tr = db().createTransaction();
  Future<void> watch = tr.watch("k");
  tr.set("x", "1");
  write("k", "v2");  // conflicts with the watch's read of k
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  EXPECT_FDB_ERROR(1020, getWithin(watch));
  EXPECT_EQ(read("x"), std::nullopt);
}

TEST_P(WatchesTest, ResetBeforeCommitFailsTheWatch) {
  Transaction tr = db().createTransaction();
  Future<void> watch = tr.watch("k");
  tr.reset();
  EXPECT_FDB_ERROR(1025, getWithin(watch));
  // The transaction is usable again, and the failed watch stays failed after a change.
  tr.set("k", "v");
  tr.commit().get();
  EXPECT_FDB_ERROR(1025, watch.get());
}

TEST_P(WatchesTest, DestroyingTheTransactionBeforeCommitFailsTheWatch) {
  std::optional<Future<void>> watch;
  {
    Transaction tr = db().createTransaction();
    watch.emplace(tr.watch("k"));
  }
  EXPECT_FDB_ERROR(1025, getWithin(*watch));
}

TEST_P(WatchesTest, CancellingTheTransactionBeforeCommitFailsTheWatch) {
  Transaction tr = db().createTransaction();
  Future<void> watch = tr.watch("k");
  tr.cancel();
  EXPECT_FDB_ERROR(1025, getWithin(watch));
}

TEST_P(WatchesTest, WatchOnAPoisonedTransactionFailsWithItsError) {
  {
    Transaction tr = db().createTransaction();
    tr.set("k", "v");
    tr.commit().get();
    EXPECT_FDB_ERROR(2017, getWithin(tr.watch("k")));  // used after commit
  }
  {
    Transaction tr = db().createTransaction();
    tr.cancel();
    EXPECT_FDB_ERROR(1025, getWithin(tr.watch("k")));
  }
  {
    Transaction tr = db().createTransaction();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    tr.setOption(TransactionOption::kTimeout, int64_t{1});  // fires at once ("Transactions")
    EXPECT_FDB_ERROR(1031, getWithin(tr.watch("k")));
  }
}

TEST_P(WatchesTest, WatchOutlivesItsCommittedTransaction) {
  write("k", "v1");
  std::optional<Future<void>> watch;
  {
    Transaction tr = db().createTransaction();
    watch.emplace(tr.watch("k"));
    tr.commit().get();
  }  // the transaction is gone
  EXPECT_FALSE(watch->isReady());
  write("k", "v2");
  EXPECT_NO_THROW(getWithin(*watch));
}

TEST_P(WatchesTest, ReadYourWritesDisabledFailsWithWatchesDisabled) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kReadYourWritesDisable);
  EXPECT_FDB_ERROR(1034, getWithin(tr.watch("k")));
}

TEST_P(WatchesTest, KeyInTheSpecialKeySpaceIsOutsideTheLegalRange) {
  for (const Bytes& key :
       {Bytes("\xff\xff"), Bytes("\xff\xff/status/json"), Bytes("\xff\xff\xff")}) {
    SCOPED_TRACE(fdb::printable(key));
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2004, getWithin(tr.watch(key)));
    Transaction system = db().createTransaction();  // even with system-key access
    system.setOption(TransactionOption::kAccessSystemKeys);
    EXPECT_FDB_ERROR(2004, getWithin(system.watch(key)));
  }
}

TEST_P(WatchesTest, SystemKeyNeedsSystemKeyAccess) {
  for (const Bytes& key : {Bytes("\xff"), Bytes("\xff\x02/rl_conformance/w")}) {
    SCOPED_TRACE(fdb::printable(key));
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2004, getWithin(tr.watch(key)));
  }
  // With read access the watch is accepted: it stays pending after its transaction commits.
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kReadSystemKeys);
  Future<void> watch = tr.watch("\xff\x02/rl_conformance/w");
  tr.commit().get();
  EXPECT_FALSE(watch.isReady());
}

TEST_P(WatchesTest, MetadataVersionKeyCanBeWatchedWithoutSystemKeyAccess) {
  const Bytes key = "\xff/metadataVersion";
  Future<void> watch = committedWatch(key);
  EXPECT_FALSE(watch.isReady());
  {
    Transaction tr = db().createTransaction();
    tr.atomicOp(key, Bytes(14, '\0'), MutationType::kSetVersionstampedValue);
    tr.commit().get();
  }
  EXPECT_NO_THROW(getWithin(watch));
}

TEST_P(WatchesTest, KeyTooLargeFails) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2102, getWithin(tr.watch(Bytes(10'001, 'k'))));
  Transaction ok = db().createTransaction();  // 10,000 bytes is the limit
  Future<void> watch = ok.watch(Bytes(10'000, 'k'));
  ok.commit().get();
  EXPECT_FALSE(watch.isReady());
}

TEST_P(WatchesTest, CancelledWatchFailsWithOperationCancelled) {
  write("k", "v1");
  Future<void> watch = committedWatch("k");
  watch.cancel();
  EXPECT_FDB_ERROR(1101, watch.get());
  write("k", "v2");  // a later change does not revive it
  EXPECT_FDB_ERROR(1101, watch.get());
}

TEST_P(WatchesTest, MoreThanMaxWatchesOutstandingFails) {
  db().setOption(DatabaseOption::kMaxWatches, int64_t{2});
  Transaction first = db().createTransaction();
  Future<void> a = first.watch("a");
  Future<void> b = first.watch("b");
  first.commit().get();
  Transaction second = db().createTransaction();
  Future<void> c = second.watch("c");
  EXPECT_NO_THROW(second.commit().get());  // only the watch fails
  EXPECT_FDB_ERROR(1032, getWithin(c));
  EXPECT_FALSE(a.isReady());  // the first two are unaffected
  EXPECT_FALSE(b.isReady());
  write("a", "1");
  EXPECT_NO_THROW(getWithin(a));
}

RL_CONFORMANCE_INSTANTIATE(WatchesTest);

}  // namespace
}  // namespace conformance
