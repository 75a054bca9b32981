// When a commit is sent (docs/semantics.md, "When a commit is sent"): FoundationDB sends a
// commit only once its transaction has a read version, so the commit of a transaction that
// never took one waits, and destroying, resetting, cancelling or using the transaction before
// it is sent stops it: nothing lands. Here it waits until its outcome is asked for; a
// transaction that has its read version sends its commit at once.

#include <optional>

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::Future;
using fdb::KeyRange;
using fdb::Transaction;

class UnsentCommitsTest : public ConformanceTest {};

TEST_P(UnsentCommitsTest, ACommitNobodyWaitsForDoesNotLandIfItsTransactionGoesFirst) {
  {
    Transaction tr = db().createTransaction();
    tr.set("dropped", "v");
    tr.commit();  // the future is dropped at once, then the transaction
  }
  std::optional<Future<void>> kept;
  {
    Transaction tr = db().createTransaction();
    tr.set("destroyed", "v");
    kept = tr.commit();
  }
  EXPECT_FDB_ERROR(1025, kept->get());  // asked only after its transaction was destroyed
  EXPECT_EQ(read("dropped"), std::nullopt);
  EXPECT_EQ(read("destroyed"), std::nullopt);
}

TEST_P(UnsentCommitsTest, ResetOrCancelBeforeTheCommitIsSentStopsIt) {
  Transaction reset = db().createTransaction();
  reset.set("reset", "v");
  Future<void> resetCommit = reset.commit();
  reset.reset();
  EXPECT_FDB_ERROR(1025, resetCommit.get());
  Transaction cancelled = db().createTransaction();
  cancelled.set("cancelled", "v");
  Future<void> cancelledCommit = cancelled.commit();
  cancelled.cancel();
  EXPECT_FDB_ERROR(1025, cancelledCommit.get());
  EXPECT_EQ(read("reset"), std::nullopt);
  EXPECT_EQ(read("cancelled"), std::nullopt);
  // The reset transaction is as good as new.
  reset.set("again", "v");
  reset.commit().get();
  EXPECT_EQ(read("again"), "v");
}

TEST_P(UnsentCommitsTest, UsingTheTransactionBeforeTheCommitIsSentStopsIt) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  Future<void> commit = tr.commit();
  EXPECT_FDB_ERROR(2017, tr.get("other").get());
  EXPECT_FDB_ERROR(2017, commit.get());  // the transaction's poison
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(UnsentCommitsTest, ItsVersionstampFailsWithIt) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  Future<Bytes> versionstamp = tr.getVersionstamp();
  Future<void> commit = tr.commit();
  tr.reset();
  EXPECT_FDB_ERROR(1025, commit.get());
  EXPECT_FDB_ERROR(1025, versionstamp.get());
}

TEST_P(UnsentCommitsTest, ACommitAskedForLandsAndItsTransactionMayThenGo) {
  std::optional<Future<void>> commit;
  {
    Transaction tr = db().createTransaction();
    tr.set("k", "v");
    commit = tr.commit();
    EXPECT_NO_THROW(commit->get());  // asking sends it
    EXPECT_GT(tr.getCommittedVersion(), 0);
  }
  EXPECT_EQ(read("k"), "v");
}

TEST_P(UnsentCommitsTest, ATransactionWithItsReadVersionSendsItsCommitAtOnce) {
  write("seen", "1");
  {
    Transaction reader = db().createTransaction();
    EXPECT_EQ(reader.get("seen").get(), "1");  // the read version, and the read, are in
    reader.set("k", "v");
    reader.commit();  // nobody waits, and the transaction goes: sent already
  }
  {
    Transaction versioned = db().createTransaction();
    versioned.getReadVersion().get();
    versioned.set("k2", "v");
    versioned.commit();
  }
  EXPECT_EQ(readAll(), (std::vector<fdb::KeyValue>{{"k", "v"}, {"k2", "v"}, {"seen", "1"}}));
}

RL_CONFORMANCE_INSTANTIATE(UnsentCommitsTest);

}  // namespace
}  // namespace conformance
