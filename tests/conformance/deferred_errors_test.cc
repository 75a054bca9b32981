// Deferred errors, size limits and key-space guards (docs/semantics.md: "Deferred errors",
// "Read-your-writes", "Conflict ranges", "Key space", "Size limits"): errors of
// set/clear/clearRange/atomicOp surface at the next call that returns a future (usually commit),
// not at the call; they stay until reset or a successful onError. Inverted manual conflict ranges
// fail synchronously. Reads of keys that cannot exist (too long) are not errors.

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::Error;
using fdb::KeyRange;
using fdb::KeyValue;
using fdb::MutationType;
using fdb::Transaction;

const Bytes kMetadataVersionKey = "\xff/metadataVersion";

class DeferredErrorsTest : public ConformanceTest {};

TEST_P(DeferredErrorsTest, WriteOfSystemKeyFailsAtCommitNotAtTheCall) {
  for (const Bytes& key : {Bytes("\xff"), Bytes("\xff\x02"), Bytes("\xff/foo")}) {
    SCOPED_TRACE(fdb::printable(key));
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.set(key, "x"));
    EXPECT_FDB_ERROR(2004, tr.commit().get());
  }
}

// The special key space [\xff\xff, \xff\xff\xff) has its own rule (docs/semantics.md, "Key space"):
// writes need special_key_space_enable_writes, else special_keys_write_disabled (2114).
TEST_P(DeferredErrorsTest, WriteOfSpecialKeyNeedsItsOption) {
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.set("\xff\xff/foo", "x"));
  EXPECT_FDB_ERROR(2114, tr.commit().get());
}

TEST_P(DeferredErrorsTest, DeferredErrorSurfacesAtTheNextFutureReturningCall) {
  write("a", "1");
  {
    Transaction tr = db().createTransaction();
    tr.set("\xff", "x");
    EXPECT_FDB_ERROR(2004, tr.get("a").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("\xff", "x");
    EXPECT_FDB_ERROR(2004, tr.getReadVersion().get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("\xff", "x");
    EXPECT_FDB_ERROR(2004, tr.getRange(KeyRange{"a", "z"}).get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("\xff", "x");
    EXPECT_FDB_ERROR(2004, tr.getApproximateSize().get());
  }
}

TEST_P(DeferredErrorsTest, DeferredErrorStaysUntilReset) {
  Transaction tr = db().createTransaction();
  tr.set("\xff", "x");
  EXPECT_FDB_ERROR(2004, tr.get("a").get());
  EXPECT_FDB_ERROR(2004, tr.commit().get());
  tr.reset();
  tr.set("a", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("a"), "1");
}

TEST_P(DeferredErrorsTest, TheFailedTransactionWritesNothing) {
  Transaction tr = db().createTransaction();
  tr.set("a", "1");
  tr.set("\xff", "x");
  tr.set("b", "2");
  EXPECT_FDB_ERROR(2004, tr.commit().get());
  EXPECT_TRUE(readAll().empty());
}

TEST_P(DeferredErrorsTest, ClearsOfSystemKeysFail) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.clear("\xff/abc"));
    EXPECT_FDB_ERROR(2004, tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.clearRange("a", keyAfter("\xff")));
    EXPECT_FDB_ERROR(2004, tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.clearRange("a", "\xff");  // an end of exactly \xff is allowed
    EXPECT_NO_THROW(tr.commit().get());
  }
}

TEST_P(DeferredErrorsTest, KeyOver10000BytesIsTooLarge) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.set(Bytes(10'001, 'k'), "v"));
    EXPECT_FDB_ERROR(2102, tr.commit().get());
  }
  Transaction tr = db().createTransaction();
  tr.set(Bytes(10'000, 'k'), "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read(Bytes(10'000, 'k')), "v");
}

TEST_P(DeferredErrorsTest, ValueOver100000BytesIsTooLarge) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.set("k", Bytes(100'001, 'v')));
    EXPECT_FDB_ERROR(2103, tr.commit().get());
  }
  Transaction tr = db().createTransaction();
  tr.set("k", Bytes(100'000, 'v'));
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), Bytes(100'000, 'v'));
}

TEST_P(DeferredErrorsTest, CommitOver10000000BytesIsTooLarge) {
  // docs/semantics.md, "Commits" step 3: mutations count key + value + overhead; the default limit
  // is 10,000,000.
  const Bytes value(100'000, 'v');
  {
    Transaction tr = db().createTransaction();
    for (int i = 0; i < 101; ++i) tr.set("k" + std::to_string(1000 + i), value);
    EXPECT_FDB_ERROR(2101, tr.commit().get());
  }
  EXPECT_EQ(read("k1000"), std::nullopt);
  Transaction tr = db().createTransaction();
  for (int i = 0; i < 95; ++i) tr.set("k" + std::to_string(1000 + i), value);
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k1094"), value);
}

TEST_P(DeferredErrorsTest, InvertedClearRangeFailsAtCommit) {
  write("a", "1");
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.clearRange("b", "a"));
  EXPECT_FDB_ERROR(2005, tr.commit().get());
  EXPECT_EQ(read("a"), "1");
}

TEST_P(DeferredErrorsTest, EmptyClearRangeIsAllowed) {
  write("a", "1");
  Transaction tr = db().createTransaction();
  tr.clearRange("a", "a");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("a"), "1");
}

TEST_P(DeferredErrorsTest, InvertedManualConflictRangeFailsSynchronously) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2005, tr.addReadConflictRange("b", "a"));
  EXPECT_FDB_ERROR(2005, tr.addWriteConflictRange("b", "a"));
  // Nothing was recorded: the transaction goes on.
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(DeferredErrorsTest, ManualConflictRangeBeyondEndOfKeySpaceFailsAtCommit) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.addReadConflictRange("a", "\xff\x01"));
    tr.set("k", "v");
    EXPECT_FDB_ERROR(2004, tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_NO_THROW(tr.addWriteConflictRange("\xff\x01", "\xff\x02"));
    EXPECT_FDB_ERROR(2004, tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.addReadConflictRange("a", "\xff");
    tr.addWriteConflictRange("a", "\xff");
    EXPECT_NO_THROW(tr.commit().get());
  }
}

TEST_P(DeferredErrorsTest, MetadataVersionReadConflictRangeIsAllowed) {
  Transaction tr = db().createTransaction();
  tr.addReadConflictRange(kMetadataVersionKey, keyAfter(kMetadataVersionKey));
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(DeferredErrorsTest, ReadOfSystemKeyFails) {
  for (const Bytes& key : {Bytes("\xff"), Bytes("\xff\x01"), Bytes("\xff/foo")}) {
    SCOPED_TRACE(fdb::printable(key));
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2004, tr.get(key).get());
    Transaction snapshot = db().createTransaction();
    EXPECT_FDB_ERROR(2004, snapshot.snapshot().get(key).get());
  }
}

TEST_P(DeferredErrorsTest, MetadataVersionKeyIsReadable) {
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.get(kMetadataVersionKey).get());
}

TEST_P(DeferredErrorsTest, MetadataVersionKeyCannotBeSet) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2000, tr.set(kMetadataVersionKey, "x"); tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2000, tr.atomicOp(kMetadataVersionKey, bytes({1}), MutationType::kAdd);
                     tr.commit().get());
  }
}

TEST_P(DeferredErrorsTest, ReadsOfOverlongKeysReturnAbsent) {
  write("ab", "1");
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.get(Bytes(10'009, 'k')).get(), std::nullopt);
  EXPECT_EQ(tr.get(Bytes(20'000, 'k')).get(), std::nullopt);
  EXPECT_EQ(tr.snapshot().get(Bytes(50'000, 'k')).get(), std::nullopt);
  // Range endpoints that long are order-equivalent truncations, not errors.
  EXPECT_EQ(tr.getRange(KeyRange{Bytes(20'000, 'a'), Bytes(20'000, 'b')}).get().rows,
            (std::vector<KeyValue>{{"ab", "1"}}));
  EXPECT_EQ(tr.getKey(fdb::KeySelector::firstGreaterOrEqual(Bytes(20'000, 'a'))).get(), "ab");
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(DeferredErrorsTest, ClearsOfOverlongKeysAreNoOps) {
  write("k", "v");
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.clear(Bytes(20'000, 'k')));
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(DeferredErrorsTest, SuccessfulOnErrorClearsTheDeferredError) {
  Transaction tr = db().createTransaction();
  tr.set(Bytes(10'001, 'k'), "v");
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
}

RL_CONFORMANCE_INSTANTIATE(DeferredErrorsTest);

}  // namespace
}  // namespace conformance
