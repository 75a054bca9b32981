// The transaction's life (docs/semantics.md: "Transactions", "Versions", "Commits", "Other
// queries"): cancel and use-after-commit poison a transaction until reset(); commit does not reset
// it; reset() clears writes and the read version; committed versions, read-only commits and the
// approximate size.

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::KeyRange;
using fdb::KeySelector;
using fdb::MutationType;
using fdb::Transaction;

class LifecycleTest : public ConformanceTest {
 protected:
  int64_t approximateSize(Transaction& tr) { return tr.getApproximateSize().get(); }
};

TEST_P(LifecycleTest, CancelFailsEveryLaterOperationUntilReset) {
  write("k", "v");
  Transaction tr = db().createTransaction();
  tr.set("mine", "1");
  tr.cancel();
  EXPECT_FDB_ERROR(1025, tr.get("k").get());
  EXPECT_FDB_ERROR(1025, tr.snapshot().get("k").get());
  EXPECT_FDB_ERROR(1025, tr.getKey(KeySelector::firstGreaterOrEqual("a")).get());
  EXPECT_FDB_ERROR(1025, tr.getRange(KeyRange{"a", "z"}).get());
  EXPECT_FDB_ERROR(1025, tr.getRangeAll(KeyRange{"a", "z"}));
  EXPECT_FDB_ERROR(1025, tr.getReadVersion().get());
  EXPECT_FDB_ERROR(1025, tr.set("other", "2"); tr.commit().get());
  EXPECT_FDB_ERROR(1025, tr.commit().get());
  EXPECT_EQ(read("mine"), std::nullopt);
  tr.reset();
  EXPECT_EQ(tr.get("k").get(), "v");
  EXPECT_EQ(tr.get("mine").get(), std::nullopt);  // reset dropped the cancelled writes
  tr.set("after", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("after"), "1");
}

TEST_P(LifecycleTest, CancelAfterReadsFailsTheCommit) {
  Transaction tr = db().createTransaction();
  tr.get("k").get();
  tr.set("k", "v");
  tr.cancel();
  EXPECT_FDB_ERROR(1025, tr.commit().get());
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(LifecycleTest, GetReadVersionStillWorksAfterCommit) {
  Transaction tr = db().createTransaction();
  int64_t version = tr.getReadVersion().get();
  tr.set("k", "v");
  tr.commit().get();
  EXPECT_EQ(tr.getReadVersion().get(), version);  // commit does not reset the transaction
}

TEST_P(LifecycleTest, UseAfterCommitFailsWithUsedDuringCommit) {
  write("k", "v");
  {
    Transaction tr = db().createTransaction();
    tr.set("a", "1");
    tr.commit().get();
    EXPECT_FDB_ERROR(2017, tr.get("k").get());
    EXPECT_FDB_ERROR(2017, tr.get("k").get());  // it sticks
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("a", "1");
    tr.commit().get();
    EXPECT_FDB_ERROR(2017, tr.getRange(KeyRange{"a", "z"}).get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("a", "1");
    tr.commit().get();
    EXPECT_FDB_ERROR(2017, tr.set("b", "2"); tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("a", "1");
    tr.commit().get();
    EXPECT_FDB_ERROR(2017, tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();  // read-only commits too
    tr.get("k").get();
    tr.commit().get();
    EXPECT_FDB_ERROR(2017, tr.getKey(KeySelector::firstGreaterOrEqual("a")).get());
  }
  EXPECT_EQ(read("b"), std::nullopt);
}

TEST_P(LifecycleTest, ResetAfterCommitMakesTheTransactionUsableAgain) {
  Transaction tr = db().createTransaction();
  tr.set("a", "1");
  tr.commit().get();
  int64_t first = tr.getCommittedVersion();
  tr.reset();
  EXPECT_EQ(tr.getCommittedVersion(), -1);
  EXPECT_EQ(tr.get("a").get(), "1");
  tr.set("b", "2");
  tr.commit().get();
  EXPECT_GT(tr.getCommittedVersion(), first);
  EXPECT_EQ(read("b"), "2");
}

TEST_P(LifecycleTest, ResetClearsWritesAndTheReadVersion) {
  Transaction tr = db().createTransaction();
  int64_t first = tr.getReadVersion().get();
  tr.set("k", "v");
  tr.addWriteConflictKey("w");
  Transaction other = db().createTransaction();
  other.set("other", "1");
  other.commit().get();
  int64_t committed = other.getCommittedVersion();
  ASSERT_GT(committed, first);
  tr.reset();
  EXPECT_GE(tr.getReadVersion().get(), committed);
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
  EXPECT_EQ(tr.get("other").get(), "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(tr.getCommittedVersion(), -1);  // nothing left to write: read-only
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(LifecycleTest, ResetClearsReadConflicts) {
  Transaction tr = db().createTransaction();
  tr.get("k").get();
  Transaction other = db().createTransaction();
  other.set("k", "theirs");
  other.commit().get();
  tr.reset();
  tr.set("x", "1");
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(LifecycleTest, CommittedVersionIsMinusOneUntilAWriteCommits) {
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.getCommittedVersion(), -1);
  tr.set("k", "v");
  EXPECT_EQ(tr.getCommittedVersion(), -1);
  tr.commit().get();
  int64_t committed = tr.getCommittedVersion();
  EXPECT_GT(committed, 0);
  Transaction later = db().createTransaction();
  EXPECT_GE(later.getReadVersion().get(), committed);
}

TEST_P(LifecycleTest, ReadOnlyCommitSucceedsWithVersionMinusOne) {
  write("k", "v");
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.get("k").get(), "v");
  tr.getRange(KeyRange{"a", "z"}).get();
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(tr.getCommittedVersion(), -1);
  Transaction empty = db().createTransaction();
  EXPECT_NO_THROW(empty.commit().get());
  EXPECT_EQ(empty.getCommittedVersion(), -1);
  Transaction readConflictOnly = db().createTransaction();
  readConflictOnly.addReadConflictKey("k");
  EXPECT_NO_THROW(readConflictOnly.commit().get());
  EXPECT_EQ(readConflictOnly.getCommittedVersion(), -1);
}

TEST_P(LifecycleTest, WriteConflictRangeOnlyTransactionIsNotReadOnly) {
  Transaction tr = db().createTransaction();
  tr.addWriteConflictRange("a", "b");
  tr.commit().get();
  int64_t committed = tr.getCommittedVersion();
  EXPECT_GT(committed, 0);
  Transaction later = db().createTransaction();
  EXPECT_GE(later.getReadVersion().get(), committed);
  EXPECT_TRUE(readAll().empty());
}

TEST_P(LifecycleTest, ClearOnlyTransactionIsNotReadOnly) {
  Transaction tr = db().createTransaction();
  tr.clear("absent");
  tr.commit().get();
  EXPECT_GT(tr.getCommittedVersion(), 0);
}

TEST_P(LifecycleTest, ApproximateSizeAfterOneSetIsAtLeastItsBytes) {
  Transaction tr = db().createTransaction();
  tr.set("foo", "bar");
  EXPECT_GE(approximateSize(tr), 3);
}

TEST_P(LifecycleTest, ApproximateSizeGrowsWithEveryMutationAndConflictRange) {
  Transaction tr = db().createTransaction();
  int64_t size = approximateSize(tr);
  EXPECT_GE(size, 0);
  auto expectGrowth = [&](const char* step) {
    int64_t next = approximateSize(tr);
    EXPECT_GT(next, size) << "after " << step;
    size = next;
  };
  tr.set("foo", "bar");
  expectGrowth("set");
  tr.set("foo2", "bar2");
  expectGrowth("second set");
  tr.clear("foo");
  expectGrowth("clear");
  tr.clearRange("m", "n");
  expectGrowth("clearRange");
  tr.atomicOp("counter", bytes({1}), MutationType::kAdd);
  expectGrowth("atomicOp");
  tr.addReadConflictKey("r");
  expectGrowth("addReadConflictKey");
  tr.addReadConflictRange("s", "t");
  expectGrowth("addReadConflictRange");
  tr.addWriteConflictKey("w");
  expectGrowth("addWriteConflictKey");
  tr.addWriteConflictRange("x", "y");
  expectGrowth("addWriteConflictRange");
}

TEST_P(LifecycleTest, ApproximateSizeCountsValueBytes) {
  Transaction small = db().createTransaction();
  small.set("k", "v");
  Transaction large = db().createTransaction();
  large.set("k", std::string(50'000, 'v'));
  EXPECT_GE(approximateSize(large), 50'000);
  EXPECT_GT(approximateSize(large), approximateSize(small));
}

TEST_P(LifecycleTest, TransactionHandlesShareOneTransaction) {
  Transaction tr = db().createTransaction();
  Transaction copy = tr;
  tr.set("k", "v");
  EXPECT_EQ(copy.get("k").get(), "v");
  copy.commit().get();
  EXPECT_EQ(read("k"), "v");
}

RL_CONFORMANCE_INSTANTIATE(LifecycleTest);

}  // namespace
}  // namespace conformance
