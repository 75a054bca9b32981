// getVersionstamp and unreadable versionstamped data (docs/semantics.md: "Versionstamps",
// "Commits" steps 2 and 7, "Read-your-writes"): the 10-byte versionstamp of a commit is its commit
// version big-endian followed by a 2-byte batch order; its future becomes ready only after a
// successful commit and otherwise fails with 2021 (read-only), 2020 (failed commit), 1025 (reset /
// cancelled / destroyed first) or 2017 (asked for after commit). The bytes that versionstamped
// operations write are cannot be read back within their transaction (1036).
// (atomic_ops_test.cc covers the byte layout of SET_VERSIONSTAMPED_KEY/VALUE themselves.)

#include "conformance/backends.h"

#include <cstdint>
#include <optional>
#include <string>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::Error;
using fdb::Future;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::MutationType;
using fdb::Transaction;

// A SET_VERSIONSTAMPED_VALUE operand whose whole value is the 10-byte stamp.
Bytes stampOnlyValue() { return Bytes(10, '\0') + littleEndian32(0); }

class VersionstampsTest : public ConformanceTest {
 protected:
  // The rows of a range read, or a failed expectation (not an escaping exception) if it throws.
  static fdb::RangeRows rowsOf(Transaction& tr, const KeyRange& range) {
    fdb::RangeRows rows;
    EXPECT_NO_THROW(rows = tr.getRange(range).get().rows) << fdb::printable(range.end);
    return rows;
  }
};

TEST_P(VersionstampsTest, VersionstampIsTheCommitVersionAndBatchOrder) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  Future<Bytes> stamp = tr.getVersionstamp();
  Future<Bytes> again = tr.getVersionstamp();
  EXPECT_FALSE(stamp.isReady());  // ready only after the commit
  tr.commit().get();
  Bytes value = stamp.get();
  ASSERT_EQ(value.size(), 10u);
  EXPECT_EQ(value.substr(0, 8), bigEndian64(tr.getCommittedVersion()));
  EXPECT_EQ(again.get(), value);
}

TEST_P(VersionstampsTest, VersionstampsOfSuccessiveCommitsIncrease) {
  std::vector<Bytes> stamps;
  for (int i = 0; i < 3; ++i) {
    Transaction tr = db().createTransaction();
    tr.set("k" + std::to_string(i), "v");
    Future<Bytes> stamp = tr.getVersionstamp();
    tr.commit().get();
    stamps.push_back(stamp.get());
  }
  EXPECT_LT(stamps[0], stamps[1]);
  EXPECT_LT(stamps[1], stamps[2]);
}

TEST_P(VersionstampsTest, VersionstampEqualsTheBytesVersionstampedOperationsWrote) {
  Bytes keyTemplate = "vk/" + Bytes(10, '\0') + littleEndian32(3);
  Transaction tr = db().createTransaction();
  tr.atomicOp("vv", "pre" + Bytes(10, '\0') + littleEndian32(3),
              MutationType::kSetVersionstampedValue);
  tr.atomicOp(keyTemplate, "value", MutationType::kSetVersionstampedKey);
  Future<Bytes> stamp = tr.getVersionstamp();
  tr.commit().get();
  Bytes value = stamp.get();
  EXPECT_EQ(read("vv"), "pre" + value);
  EXPECT_EQ(read("vk/" + value), "value");
}

TEST_P(VersionstampsTest, WriteConflictRangeOnlyCommitHasAVersionstamp) {
  Transaction tr = db().createTransaction();
  tr.addWriteConflictKey("w");  // not read-only ("Commits" step 2)
  Future<Bytes> stamp = tr.getVersionstamp();
  tr.commit().get();
  Bytes value = stamp.get();
  ASSERT_EQ(value.size(), 10u);
  EXPECT_EQ(value.substr(0, 8), bigEndian64(tr.getCommittedVersion()));
}

TEST_P(VersionstampsTest, ReadOnlyCommitHasNoCommitVersion) {
  {
    Transaction tr = db().createTransaction();
    Future<Bytes> stamp = tr.getVersionstamp();
    tr.commit().get();
    EXPECT_FDB_ERROR(2021, stamp.get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.get("k").get();
    tr.addReadConflictKey("r");
    Future<Bytes> stamp = tr.getVersionstamp();
    tr.commit().get();
    EXPECT_FDB_ERROR(2021, stamp.get());
  }
}

TEST_P(VersionstampsTest, FailedCommitHasAnInvalidVersion) {
  write("k", "old");
  Transaction tr = db().createTransaction();
  tr.get("k").get();
  tr.set("x", "1");
  Future<Bytes> stamp = tr.getVersionstamp();
  write("k", "new");
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  EXPECT_FDB_ERROR(2020, stamp.get());
}

TEST_P(VersionstampsTest, CommitFailingForAnyReasonHasAnInvalidVersion) {
  Transaction tr = db().createTransaction();
  tr.set("big", Bytes(90'000, 'v'));
  tr.set("big2", Bytes(90'000, 'v'));
  tr.setOption(fdb::TransactionOption::kSizeLimit, int64_t{100'000});
  Future<Bytes> stamp = tr.getVersionstamp();
  EXPECT_FDB_ERROR(2101, tr.commit().get());
  EXPECT_FDB_ERROR(2020, stamp.get());
}

TEST_P(VersionstampsTest, ResetBeforeCommitCancelsTheVersionstamp) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  Future<Bytes> stamp = tr.getVersionstamp();
  tr.reset();
  EXPECT_FDB_ERROR(1025, stamp.get());
  // A new stamp of the reset transaction works.
  tr.set("k", "v");
  Future<Bytes> next = tr.getVersionstamp();
  tr.commit().get();
  EXPECT_EQ(next.get().size(), 10u);
}

TEST_P(VersionstampsTest, CancelBeforeCommitCancelsTheVersionstamp) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  Future<Bytes> stamp = tr.getVersionstamp();
  tr.cancel();
  EXPECT_FDB_ERROR(1025, stamp.get());
}

TEST_P(VersionstampsTest, DestroyingTheTransactionBeforeCommitCancelsTheVersionstamp) {
  std::optional<Future<Bytes>> stamp;
  {
    Transaction tr = db().createTransaction();
    tr.set("k", "v");
    stamp.emplace(tr.getVersionstamp());
  }
  EXPECT_FDB_ERROR(1025, stamp->get());
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(VersionstampsTest, AskingAfterCommitIsUsedDuringCommit) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  tr.commit().get();
  EXPECT_FDB_ERROR(2017, tr.getVersionstamp().get());
  Transaction readOnly = db().createTransaction();
  readOnly.commit().get();
  EXPECT_FDB_ERROR(2017, readOnly.getVersionstamp().get());
}

TEST_P(VersionstampsTest, AskingWhileTheCommitIsOutstandingIsUsedDuringCommit) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  Future<void> commit = tr.commit();
  EXPECT_FDB_ERROR(2017, tr.getVersionstamp().get());
  // The commit itself either completed first or fails with 2017 ("Transactions").
  try {
    commit.get();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 2017);
  }
}

// --- Unreadable versionstamped data (docs/semantics.md, "Read-your-writes") ----------------------

TEST_P(VersionstampsTest, VersionstampedValueKeyIsUnreadableInRangesAndSnapshots) {
  write("a", "1");
  write("z", "1");
  Transaction tr = db().createTransaction();
  tr.atomicOp("vv", stampOnlyValue(), MutationType::kSetVersionstampedValue);
  EXPECT_FDB_ERROR(1036, tr.snapshot().get("vv").get());
  EXPECT_FDB_ERROR(1036, tr.getRange(KeyRange{"a", "zz"}).get());
  EXPECT_FDB_ERROR(1036, tr.getRange(KeyRange{"a", "zz"}, {.reverse = true}).get());
  EXPECT_FDB_ERROR(1036, tr.snapshot().getRange(KeyRange{"a", "zz"}).get());
  // Reads that do not touch it work.
  EXPECT_EQ(tr.get("a").get(), "1");
  // A range that ends at the key (exclusive) or starts after it does not touch it.
  EXPECT_EQ(rowsOf(tr, KeyRange{"a", "vv"}), (std::vector<KeyValue>{{"a", "1"}}));
  EXPECT_EQ(rowsOf(tr, KeyRange{keyAfter("vv"), "zz"}), (std::vector<KeyValue>{{"z", "1"}}));
  // The commit waits for the reads, and those that failed fail it ("Commits" step 1).
  EXPECT_FDB_ERROR(1036, tr.commit().get());
}

TEST_P(VersionstampsTest, PlainSetMakesAVersionstampedValueReadableAgain) {
  Transaction tr = db().createTransaction();
  tr.atomicOp("vv", stampOnlyValue(), MutationType::kSetVersionstampedValue);
  tr.set("vv", "plain");
  EXPECT_EQ(tr.get("vv").get(), "plain");
  tr.commit().get();
  EXPECT_EQ(read("vv"), "plain");
  // Read before the set, it fails, and so does the commit that waits for that read ("Commits"
  // step 1).
  Transaction readFirst = db().createTransaction();
  readFirst.atomicOp("vv", stampOnlyValue(), MutationType::kSetVersionstampedValue);
  EXPECT_FDB_ERROR(1036, readFirst.get("vv").get());
  readFirst.set("vv", "again");
  EXPECT_EQ(readFirst.get("vv").get(), "again");
  EXPECT_FDB_ERROR(1036, readFirst.commit().get());
  EXPECT_EQ(read("vv"), "plain");
}

TEST_P(VersionstampsTest, VersionstampedKeyRangeIsUnreadable) {
  // Template "vk/" + 10 stamp bytes + "/s": the range of keys the stamp could produce,
  // [template with stamp (read version or 0, batch 0), template with 10 0xff bytes + "\x00"),
  // cannot be read, and selectors cannot be resolved across it.
  write("a", "1");
  write("z", "1");
  Transaction tr = db().createTransaction();
  tr.atomicOp("vk/" + Bytes(10, '\0') + "/s" + littleEndian32(3), "v",
              MutationType::kSetVersionstampedKey);
  EXPECT_FDB_ERROR(1036, tr.getRange(KeyRange{"vk/", "vk0"}).get());
  EXPECT_FDB_ERROR(1036, tr.getRange(KeyRange{"a", "zz"}).get());
  EXPECT_FDB_ERROR(1036, tr.snapshot().getRange(KeyRange{"a", "zz"}).get());
  EXPECT_FDB_ERROR(1036, tr.get("vk/" + Bytes(10, '\x7f') + "/s").get());
  EXPECT_FDB_ERROR(1036, tr.getKey(KeySelector::firstGreaterOrEqual("vk/")).get());
  EXPECT_FDB_ERROR(1036, tr.getKey(KeySelector::lastLessThan("vk0")).get());
  // Outside it: readable.
  EXPECT_EQ(tr.get("vk/").get(), std::nullopt);
  const Bytes end = "vk/" + Bytes(10, '\xff') + "/s" + keyAfter("");
  EXPECT_EQ(tr.get(end).get(), std::nullopt);
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual(end)).get(), "z");
  EXPECT_EQ(tr.getKey(KeySelector::lastLessOrEqual("vk/")).get(), "a");
  EXPECT_EQ(rowsOf(tr, KeyRange{"a", "vk/"}), (std::vector<KeyValue>{{"a", "1"}}));
  EXPECT_EQ(rowsOf(tr, KeyRange{"a", "vk/" + Bytes(10, '\0') + "/s"}),
            (std::vector<KeyValue>{{"a", "1"}}));  // ends exactly where it begins
  EXPECT_FDB_ERROR(1036, tr.commit().get());       // the failed reads fail it ("Commits" step 1)
}

TEST_P(VersionstampsTest, VersionstampedKeyRangeStartsAtAKnownReadVersion) {
  // With the read version R already known, the lowest stamp the commit can produce is R with
  // batch 0, so keys with smaller stamps stay readable.
  Transaction tr = db().createTransaction();
  int64_t readVersion = tr.getReadVersion().get();
  ASSERT_GT(readVersion, 0);
  tr.atomicOp("vk/" + Bytes(10, '\0') + "/s" + littleEndian32(3), "v",
              MutationType::kSetVersionstampedKey);
  EXPECT_EQ(tr.get("vk/" + bigEndian64(readVersion - 1) + "\xff\xff/s").get(), std::nullopt);
  EXPECT_EQ(tr.get("vk/" + Bytes(10, '\0') + "/s").get(), std::nullopt);
  EXPECT_FDB_ERROR(1036, tr.get("vk/" + bigEndian64(readVersion) + Bytes(2, '\0') + "/s").get());
  EXPECT_FDB_ERROR(1036, tr.commit().get());  // the failed read fails it ("Commits" step 1)
}

RL_CONFORMANCE_INSTANTIATE(VersionstampsTest);

}  // namespace
}  // namespace conformance
