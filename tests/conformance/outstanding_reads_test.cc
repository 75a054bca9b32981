// A commit waits for the transaction's reads (docs/semantics.md, "Commits" step 1): a read that
// fails in the read path fails the commit with its error, whether or not anyone waited for the
// read; a read refused for its arguments does not; reset() and onError clear what the commit
// waits for.

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::Error;
using fdb::Future;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::MutationType;
using fdb::RangeOptions;
using fdb::Transaction;

class OutstandingReadsTest : public ConformanceTest {
 protected:
  // Makes [vk/<10 stamp bytes>/s] keys of `tr` unreadable: its own versionstamped key.
  static void writeVersionstampedKey(Transaction& tr) {
    tr.atomicOp("vk/" + Bytes(10, '\0') + "/s" + littleEndian32(3), "v",
                MutationType::kSetVersionstampedKey);
  }
  // A key inside that range.
  static Bytes unreadableKey() { return "vk/" + Bytes(10, '\x7f') + "/s"; }
};

TEST_P(OutstandingReadsTest, AnUnreadableReadNobodyWaitedForFailsTheCommit) {
  write("a", "1");
  Transaction tr = db().createTransaction();
  writeVersionstampedKey(tr);
  Future<std::optional<Bytes>> pending = tr.get(unreadableKey());  // never waited for
  tr.set("mine", "1");
  EXPECT_FDB_ERROR(1036, tr.commit().get());
  EXPECT_FDB_ERROR(1036, pending.get());
  EXPECT_EQ(read("mine"), std::nullopt);
  EXPECT_FDB_ERROR(2017, tr.get("a").get());  // the commit was called: used during commit
}

TEST_P(OutstandingReadsTest, EveryKindOfReadCounts) {
  write("a", "1");
  write("z", "1");
  auto expectCommitFails = [&](const char* what, auto issueRead) {
    SCOPED_TRACE(what);
    Transaction tr = db().createTransaction();
    writeVersionstampedKey(tr);
    issueRead(tr);
    EXPECT_FDB_ERROR(1036, tr.commit().get());
  };
  expectCommitFails("snapshot get", [](Transaction& tr) { tr.snapshot().get(unreadableKey()); });
  expectCommitFails("getKey",
                    [](Transaction& tr) { tr.getKey(KeySelector::firstGreaterOrEqual("vk/")); });
  expectCommitFails("getRange", [](Transaction& tr) { tr.getRange(KeyRange{"a", "zz"}); });
  expectCommitFails("reverse snapshot getRange", [](Transaction& tr) {
    tr.snapshot().getRange(KeyRange{"a", "zz"}, RangeOptions{.reverse = true});
  });
}

TEST_P(OutstandingReadsTest, AReadFromTheFutureFailsEvenAReadOnlyCommit) {
  write("k", "v");
  Transaction tr = db().createTransaction();
  // Far ahead of the database: the read waits a second for that version, then fails.
  tr.setReadVersion(db().createTransaction().getReadVersion().get() + 1'000'000'000);
  Future<std::optional<Bytes>> pending = tr.get("k");
  EXPECT_FDB_ERROR(1009, tr.commit().get());  // writes nothing, and still waits for the read
  EXPECT_FDB_ERROR(1009, pending.get());
}

TEST_P(OutstandingReadsTest, AReadRefusedForItsArgumentsDoesNotFailTheCommit) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr.get("\xff\x01").get());  // outside the readable key space
  EXPECT_FDB_ERROR(2004, tr.getKey(KeySelector::firstGreaterOrEqual("\xff\x01")).get());
  EXPECT_FDB_ERROR(2004, tr.getRange(KeyRange{"a", "\xff\x01"}).get());
  EXPECT_FDB_ERROR(2012, tr.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = -1}).get());
  EXPECT_FDB_ERROR(2210,
                   tr.getRange(KeyRange{"a", "z"}, RangeOptions{.mode = fdb::StreamingMode::kExact})
                       .get());  // EXACT without a limit
  tr.set("mine", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("mine"), "1");
}

TEST_P(OutstandingReadsTest, ResetForgetsTheFailedRead) {
  Transaction tr = db().createTransaction();
  writeVersionstampedKey(tr);
  tr.get(unreadableKey());
  tr.reset();
  tr.set("mine", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("mine"), "1");
}

TEST_P(OutstandingReadsTest, OnErrorForgetsTheFailedRead) {
  Transaction tr = db().createTransaction();
  writeVersionstampedKey(tr);
  tr.get(unreadableKey());
  tr.onError(Error(1020)).get();  // a retry: the next attempt starts without it
  tr.set("mine", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("mine"), "1");
}

TEST_P(OutstandingReadsTest, AWatchsReadDoesNotFailTheCommit) {
  Transaction tr = db().createTransaction();
  writeVersionstampedKey(tr);
  Future<void> watch = tr.watch(unreadableKey());
  EXPECT_FDB_ERROR(1036, watch.get());
  tr.set("mine", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("mine"), "1");
}

RL_CONFORMANCE_INSTANTIATE(OutstandingReadsTest);

}  // namespace
}  // namespace conformance
