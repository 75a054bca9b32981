// Conflict detection (docs/semantics.md, "Conflict ranges", "Commits"): a transaction with read
// version R fails with not_committed (1020) iff a write committed at a version > R intersects one
// of its read conflict ranges — and read conflict ranges are exactly the ones FoundationDB records.
//
// Pattern: T1 reads (which fixes its read version), T2 writes and commits, T1 commits.

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::MutationType;
using fdb::RangeOptions;
using fdb::Transaction;

class ConflictsTest : public ConformanceTest {
 protected:
  // Commits a transaction that sets each of `keys` to "other".
  void commitWrites(std::initializer_list<std::string_view> keys) {
    Transaction tr = db().createTransaction();
    for (std::string_view key : keys) tr.set(key, "other");
    tr.commit().get();
  }

  // Writes a, b, c, d (value "v").
  void writeABCD() { writeAll({{"a", "v"}, {"b", "v"}, {"c", "v"}, {"d", "v"}}); }
};

TEST_P(ConflictsTest, PointReadConflictsWithLaterCommittedWrite) {
  write("k", "old");
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get("k").get(), "old");
  commitWrites({"k"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
  EXPECT_EQ(read("x"), std::nullopt);  // a conflicting transaction writes nothing
}

TEST_P(ConflictsTest, PointReadOfAbsentKeyConflictsWithInsert) {
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get("k").get(), std::nullopt);
  commitWrites({"k"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, PointReadConflictRangeIsExactlyTheKey) {
  Transaction t1 = db().createTransaction();
  t1.get("k").get();
  commitWrites({"j", keyAfter("k"), "k0", ""});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, ClearOfAbsentKeyStillConflicts) {
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get("k").get(), std::nullopt);
  {
    Transaction t2 = db().createTransaction();
    t2.clear("k");  // a write conflict range on k even though k does not exist
    t2.commit().get();
  }
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, ClearRangeConflictsWithReadInside) {
  write("k", "v");
  Transaction t1 = db().createTransaction();
  t1.get("k").get();
  {
    Transaction t2 = db().createTransaction();
    t2.clearRange("a", "z");
    t2.commit().get();
  }
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, RangeReadConflictsWithPhantomInsert) {
  writeAll({{"a", "v"}, {"c", "v"}});
  Transaction t1 = db().createTransaction();
  auto rows = t1.getRange(KeyRange{"a", "e"}).get().rows;
  EXPECT_EQ(keysOf(rows), (std::vector<Bytes>{"a", "c"}));
  commitWrites({"b"});  // a key that did not exist, inside the range read
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, RangeReadConflictRangeIsHalfOpen) {
  writeAll({{"b", "v"}, {"c", "v"}});
  Transaction t1 = db().createTransaction();
  t1.getRange(KeyRange{"b", "e"}).get();
  commitWrites({"a", keyAfter("a"), "e", keyAfter("e"), "z"});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, LimitedRangeReadDoesNotConflictAfterLastReturnedRow) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  auto result = t1.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 2}).get();
  EXPECT_EQ(keysOf(result.rows), (std::vector<Bytes>{"a", "b"}));
  EXPECT_TRUE(result.more);
  // Past "b": an insert just after it, an update of a row not returned, an insert near the end.
  commitWrites({keyAfter("b"), "bb", "c", "y"});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, LimitedRangeReadConflictsUpToLastReturnedRow) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  auto result = t1.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 2}).get();
  EXPECT_EQ(keysOf(result.rows), (std::vector<Bytes>{"a", "b"}));
  commitWrites({"ab"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, LimitedRangeReadConflictsOnLastReturnedRow) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  t1.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 2}).get();
  commitWrites({"b"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, LimitedReverseRangeReadDoesNotConflictBeforeLastReturnedRow) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  auto result = t1.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 2, .reverse = true}).get();
  EXPECT_EQ(keysOf(result.rows), (std::vector<Bytes>{"d", "c"}));
  EXPECT_TRUE(result.more);
  commitWrites({"bb", "b", "a", keyAfter("a")});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, LimitedReverseRangeReadConflictsFromLastReturnedRowToEnd) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  t1.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 2, .reverse = true}).get();
  commitWrites({"cc"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, RangeReadNotCutByItsLimitCoversTheWholeRange) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  auto result = t1.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 10}).get();
  EXPECT_EQ(result.rows.size(), 4u);
  EXPECT_FALSE(result.more);
  commitWrites({"y"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, RangeReadWithBackwardBeginSelectorConflictsFromFirstReturnedRow) {
  // Begin lastLessOrEqual("c") over {a, b, d} resolves to b: the conflict range starts at b.
  writeAll({{"a", "v"}, {"b", "v"}, {"d", "v"}});
  {
    Transaction t1 = db().createTransaction();
    auto rows =
        t1.getRange(KeySelector::lastLessOrEqual("c"), KeySelector::firstGreaterOrEqual("z"))
            .get()
            .rows;
    EXPECT_EQ(keysOf(rows), (std::vector<Bytes>{"b", "d"}));
    commitWrites({"a0", "z"});
    t1.set("x", "1");
    EXPECT_NO_THROW(t1.commit().get());
  }
  {
    Transaction t1 = db().createTransaction();
    t1.getRange(KeySelector::lastLessOrEqual("c"), KeySelector::firstGreaterOrEqual("z")).get();
    commitWrites({"bb"});  // would now be the begin key
    t1.set("x", "1");
    EXPECT_FDB_ERROR(1020, t1.commit().get());
  }
}

TEST_P(ConflictsTest, RangeReadRunningOffTheEndConflictsUpToTheEndOfKeySpace) {
  // The end selector resolves past the last key, so the read covers everything after b.
  writeAll({{"b", "v"}, {"c", "v"}});
  Transaction t1 = db().createTransaction();
  auto rows =
      t1.getRange(KeySelector::firstGreaterOrEqual("b"), KeySelector::firstGreaterOrEqual("c") + 5)
          .get()
          .rows;
  EXPECT_EQ(keysOf(rows), (std::vector<Bytes>{"b", "c"}));
  commitWrites({"zz"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, GetKeyConflictRangeForwardSelector) {
  // firstGreaterOrEqual("b") over {a, d, f} resolves to d: conflict range [b, d\0).
  writeAll({{"a", "v"}, {"d", "v"}, {"f", "v"}});
  {
    Transaction t1 = db().createTransaction();
    EXPECT_EQ(t1.getKey(KeySelector::firstGreaterOrEqual("b")).get(), "d");
    commitWrites({"a", "e", keyAfter("d")});
    t1.set("x", "1");
    EXPECT_NO_THROW(t1.commit().get());
  }
  {
    Transaction t1 = db().createTransaction();
    EXPECT_EQ(t1.getKey(KeySelector::firstGreaterOrEqual("b")).get(), "d");
    commitWrites({"c"});
    t1.set("x", "1");
    EXPECT_FDB_ERROR(1020, t1.commit().get());
  }
}

TEST_P(ConflictsTest, GetKeyConflictRangeBackwardSelector) {
  // lastLessThan("e") over {a, c, f} resolves to c: conflict range [c, e).
  writeAll({{"a", "v"}, {"c", "v"}, {"f", "v"}});
  {
    Transaction t1 = db().createTransaction();
    EXPECT_EQ(t1.getKey(KeySelector::lastLessThan("e")).get(), "c");
    commitWrites({"b", "e", "f"});
    t1.set("x", "1");
    EXPECT_NO_THROW(t1.commit().get());
  }
  {
    Transaction t1 = db().createTransaction();
    EXPECT_EQ(t1.getKey(KeySelector::lastLessThan("e")).get(), "c");
    commitWrites({"d"});
    t1.set("x", "1");
    EXPECT_FDB_ERROR(1020, t1.commit().get());
  }
}

TEST_P(ConflictsTest, SnapshotReadsAddNoConflict) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.snapshot().get("a").get(), "v");
  EXPECT_EQ(t1.snapshot().getKey(KeySelector::firstGreaterThan("b")).get(), "c");
  // getKey read "c": a range read from it takes that row and stops at what it does not know
  // yet (docs/semantics.md, "Range reads").
  fdb::RangeResult fromC = t1.snapshot().getRange(KeyRange{"c", "z"}).get();
  EXPECT_EQ(fromC.rows.size(), 1u);
  EXPECT_TRUE(fromC.more);
  EXPECT_EQ(t1.snapshot().getRangeAll(KeyRange{"a", "z"}).size(), 4u);
  commitWrites({"a", "bb", "c", "cc", "y"});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("x"), "1");
}

TEST_P(ConflictsTest, WriteOnlyTransactionNeverConflicts) {
  write("k", "old");
  Transaction t1 = db().createTransaction();
  t1.getReadVersion().get();  // fix the read version before the other commit
  t1.set("k", "mine");
  t1.clear("j");
  t1.clearRange("m", "p");
  t1.atomicOp("q", bytes({1}), MutationType::kAdd);
  {
    Transaction t2 = db().createTransaction();
    t2.set("k", "theirs");
    t2.set("j", "theirs");
    t2.set("m", "theirs");
    t2.set("q", bytes({5}));
    t2.commit().get();
  }
  EXPECT_NO_THROW(t1.commit().get());
  // T1 committed last, so its writes are applied on top of T2's.
  EXPECT_EQ(read("k"), "mine");
  EXPECT_EQ(read("j"), std::nullopt);
  EXPECT_EQ(read("m"), std::nullopt);
  EXPECT_EQ(read("q"), bytes({6}));
}

TEST_P(ConflictsTest, ManualReadConflictRangeConflicts) {
  Transaction t1 = db().createTransaction();
  t1.getReadVersion().get();
  t1.addReadConflictRange("b", "d");
  commitWrites({"c"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, ManualReadConflictRangeIsHalfOpen) {
  Transaction t1 = db().createTransaction();
  t1.getReadVersion().get();
  t1.addReadConflictRange("b", "d");
  commitWrites({"a", "d", keyAfter("d")});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, ManualReadConflictKeyCoversOnlyThatKey) {
  {
    Transaction t1 = db().createTransaction();
    t1.getReadVersion().get();
    t1.addReadConflictKey("k");
    commitWrites({keyAfter("k"), "j"});
    t1.set("x", "1");
    EXPECT_NO_THROW(t1.commit().get());
  }
  {
    Transaction t1 = db().createTransaction();
    t1.getReadVersion().get();
    t1.addReadConflictKey("k");
    commitWrites({"k"});
    t1.set("x", "1");
    EXPECT_FDB_ERROR(1020, t1.commit().get());
  }
}

TEST_P(ConflictsTest, EmptyManualReadConflictRangeIsNoOp) {
  Transaction t1 = db().createTransaction();
  t1.getReadVersion().get();
  t1.addReadConflictRange("b", "b");
  commitWrites({"b"});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, ManualReadConflictRangeSkipsKeysThisTransactionWrote) {
  // docs/semantics.md, "Conflict ranges": an explicit read range is not recorded over keys already
  // written by this transaction.
  {
    Transaction t1 = db().createTransaction();
    t1.getReadVersion().get();
    t1.set("b", "mine");
    t1.addReadConflictRange("a", "c");
    commitWrites({"b"});
    EXPECT_NO_THROW(t1.commit().get());
    EXPECT_EQ(read("b"), "mine");
  }
  {
    Transaction t1 = db().createTransaction();
    t1.getReadVersion().get();
    t1.set("b", "mine");
    t1.addReadConflictRange("a", "c");
    commitWrites({"a"});
    EXPECT_FDB_ERROR(1020, t1.commit().get());
  }
}

TEST_P(ConflictsTest, ManualWriteConflictRangeConflictsWithOthersReads) {
  Transaction t2 = db().createTransaction();
  EXPECT_EQ(t2.get("m").get(), std::nullopt);
  {
    Transaction t1 = db().createTransaction();
    t1.addWriteConflictRange("l", "n");
    t1.commit().get();
  }
  EXPECT_EQ(read("m"), std::nullopt);  // a write conflict range writes nothing
  t2.set("x", "1");
  EXPECT_FDB_ERROR(1020, t2.commit().get());
}

TEST_P(ConflictsTest, ManualWriteConflictKeyConflictsWithOthersReads) {
  Transaction reader = db().createTransaction();
  reader.getRange(KeyRange{"a", "z"}).get();
  Transaction reader2 = db().createTransaction();
  reader2.get(keyAfter("m")).get();
  {
    Transaction t1 = db().createTransaction();
    t1.addWriteConflictKey("m");
    t1.commit().get();
  }
  reader.set("x", "1");
  EXPECT_FDB_ERROR(1020, reader.commit().get());
  reader2.set("y", "1");
  EXPECT_NO_THROW(reader2.commit().get());  // [m, m\0) does not contain m\0
}

TEST_P(ConflictsTest, DisjointReadAndWriteSetsNeverConflict) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  t1.get("a").get();
  t1.getRange(KeyRange{"c", "e"}).get();
  t1.getKey(KeySelector::firstGreaterOrEqual("c")).get();
  t1.addReadConflictRange("p", "q");
  // Other writes next to every read range, and on the keys T1 itself writes.
  commitWrites({keyAfter("a"), "bb", "e", "q", "w"});
  t1.set("w", "mine");
  t1.set("e", "mine");
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("w"), "mine");
}

TEST_P(ConflictsTest, ReadsAnsweredFromOwnWritesAddNoConflict) {
  write("n", "v");
  Transaction t1 = db().createTransaction();
  t1.getReadVersion().get();
  t1.set("k", "mine");
  EXPECT_EQ(t1.get("k").get(), "mine");
  t1.clear("j");
  EXPECT_EQ(t1.get("j").get(), std::nullopt);
  t1.clearRange("m", "p");
  EXPECT_TRUE(t1.getRange(KeyRange{"m", "p"}).get().rows.empty());
  EXPECT_EQ(t1.get("n").get(), std::nullopt);
  commitWrites({"k", "j", "n", "o"});
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("k"), "mine");
  EXPECT_EQ(read("n"), std::nullopt);
  EXPECT_EQ(read("o"), std::nullopt);
}

TEST_P(ConflictsTest, OwnWriteOnReadKeyIsNoConflict) {
  write("k", "1");
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get("k").get(), "1");
  t1.set("k", "2");
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("k"), "2");
}

TEST_P(ConflictsTest, AtomicOpAddsNoReadConflict) {
  Transaction t1 = db().createTransaction();
  t1.getReadVersion().get();
  t1.atomicOp("counter", bytes({1}), MutationType::kAdd);
  {
    Transaction t2 = db().createTransaction();
    t2.set("counter", bytes({5}));
    t2.commit().get();
  }
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("counter"), bytes({6}));  // evaluated against the value as of T1's commit
}

TEST_P(ConflictsTest, SerializableGetOfKeyWithPendingAtomicOpConflicts) {
  write("counter", bytes({1}));
  Transaction t1 = db().createTransaction();
  t1.atomicOp("counter", bytes({1}), MutationType::kAdd);
  EXPECT_EQ(t1.get("counter").get(), bytes({2}));
  {
    Transaction t2 = db().createTransaction();
    t2.set("counter", bytes({5}));
    t2.commit().get();
  }
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, SnapshotGetOfKeyWithPendingAtomicOpAddsNoConflict) {
  write("counter", bytes({1}));
  Transaction t1 = db().createTransaction();
  t1.atomicOp("counter", bytes({1}), MutationType::kAdd);
  EXPECT_EQ(t1.snapshot().get("counter").get(), bytes({2}));
  {
    Transaction t2 = db().createTransaction();
    t2.set("counter", bytes({5}));
    t2.commit().get();
  }
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("counter"), bytes({6}));
}

TEST_P(ConflictsTest, WriteCommittedBeforeReadVersionNeverConflicts) {
  Transaction t1 = db().createTransaction();  // created, but no read version yet
  commitWrites({"k"});
  EXPECT_EQ(t1.get("k").get(), "other");  // its read version comes after that commit
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, ConflictIsAgainstCommitsNotOpenTransactions) {
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get("k").get(), std::nullopt);
  Transaction t2 = db().createTransaction();
  t2.set("k", "theirs");  // written but not committed yet
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_NO_THROW(t2.commit().get());  // T2 read nothing, so it cannot conflict either
  EXPECT_EQ(read("k"), "theirs");
}

TEST_P(ConflictsTest, WriteSkewIsPrevented) {
  // T1 reads a and writes b; T2 reads b and writes a. Whoever commits second fails.
  Transaction t1 = db().createTransaction();
  Transaction t2 = db().createTransaction();
  t1.get("a").get();
  t2.get("b").get();
  t1.set("b", "1");
  t2.set("a", "2");
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_FDB_ERROR(1020, t2.commit().get());
  EXPECT_EQ(read("a"), std::nullopt);
  EXPECT_EQ(read("b"), "1");
}

TEST_P(ConflictsTest, ReadOnlyTransactionCommitsDespiteConflictingWrite) {
  // A transaction with no mutations and no write conflict ranges never reaches the resolver.
  Transaction t1 = db().createTransaction();
  t1.get("k").get();
  commitWrites({"k"});
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(t1.getCommittedVersion(), -1);
}

TEST_P(ConflictsTest, WriteConflictRangeOnlyTransactionCanConflict) {
  Transaction t1 = db().createTransaction();
  t1.get("k").get();
  t1.addWriteConflictKey("w");
  commitWrites({"k"});
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, RetryAfterConflictSeesTheNewValue) {
  write("k", "1");
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get("k").get(), "1");
  commitWrites({"k"});
  t1.set("k", "2");
  try {
    t1.commit().get();
    ADD_FAILURE() << "commit should have failed with 1020";
  } catch (const fdb::Error& e) {
    EXPECT_EQ(e.code(), 1020);
    t1.onError(e).get();
  }
  EXPECT_EQ(t1.get("k").get(), "other");
  t1.set("k", "2");
  EXPECT_NO_THROW(t1.commit().get());
  EXPECT_EQ(read("k"), "2");
}

// Range reads whose selectors resolve past each other, or that a limit stops early, still
// depend on what their selectors looked at (RYWImpl::addConflictRange). In each case the
// other transaction's change would alter what the read returns, so T1 must not commit.
TEST_P(ConflictsTest, EmptyRangeFromCrossingSelectorsConflictsBetweenTheirKeys) {
  writeAll({{"a", "v"}, {"b", "v"}});
  Transaction t1 = db().createTransaction();
  // lastLessThan(c) resolves to b, the end to b: no rows, but the read looked at [b, c).
  EXPECT_TRUE(t1.getRange(KeySelector::lastLessThan("c"), KeySelector::firstGreaterOrEqual("b"))
                  .get()
                  .rows.empty());
  {
    Transaction t2 = db().createTransaction();
    t2.clear("b");  // now lastLessThan(c) is a, and the same read returns [a]
    t2.commit().get();
  }
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, LimitedReadWithBackwardBeginConflictsUpToTheBeginKey) {
  writeABCD();
  Transaction t1 = db().createTransaction();
  RangeOptions limitOne;
  limitOne.limit = 1;
  // Begin: the key two before c, which is a; one row: [a].
  fdb::RangeRows rows = t1.getRange(KeySelector::lastLessThan("c") - 1,
                                    KeySelector::firstGreaterOrEqual("z"), limitOne)
                            .get()
                            .rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, "a");
  commitWrites({"aa"});  // the begin selector would now resolve to aa
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

TEST_P(ConflictsTest, LimitedReverseReadWithForwardBeginConflictsFromTheBeginKey) {
  writeAll({{"a", "v"}, {"b", "v"}, {"c", "v"}});
  Transaction t1 = db().createTransaction();
  RangeOptions reverseOne;
  reverseOne.limit = 1;
  reverseOne.reverse = true;
  // Begin: the second key >= a, which is b; the last row before c: [b].
  fdb::RangeRows rows = t1.getRange(KeySelector::firstGreaterOrEqual("a") + 1,
                                    KeySelector::firstGreaterOrEqual("c"), reverseOne)
                            .get()
                            .rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, "b");
  {
    Transaction t2 = db().createTransaction();
    t2.clear("a");  // the begin selector would now resolve to c: no rows
    t2.commit().get();
  }
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

// A selector that runs off the end of the data makes the read depend on everything up to
// the end of the key space (readThroughEnd) — unless the range it selects is empty anyway:
// here the begin, "first key >= a", is past the data too, so only the selectors' own span
// [a, a\x00) was read.
TEST_P(ConflictsTest, EmptyRangeWhoseSelectorsBothRunOffTheEndReadsOnlyTheirSpan) {
  Transaction t1 = db().createTransaction();
  EXPECT_TRUE(t1.getRange(KeySelector::firstGreaterOrEqual("a"), KeySelector{"a", true, 3})
                  .get()
                  .rows.empty());
  commitWrites({"m"});
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

TEST_P(ConflictsTest, SelectorRunningOffTheEndConflictsUpToTheEndOfKeySpace) {
  write("b", "v");
  Transaction t1 = db().createTransaction();
  // Rows from b to "the third key >= a\x00", which does not exist: [b] and a dependency on
  // everything after it.
  fdb::RangeRows rows =
      t1.getRange(KeySelector::firstGreaterOrEqual("a"), KeySelector{"a", true, 3}).get().rows;
  ASSERT_EQ(rows.size(), 1u);
  commitWrites({"m"});
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

// A versionstamped key conflicts like any write (docs/semantics.md, "Conflict ranges"): the key
// the commit produces gets a write conflict range at the commit version, so a transaction that
// read the keys a queue's versionstamps produce, and found none, fails once one was enqueued.
TEST_P(ConflictsTest, VersionstampedKeyConflictsWithAReadOfTheKeysItCouldProduce) {
  const Bytes queue = "queue/";
  Transaction t1 = db().createTransaction();
  EXPECT_TRUE(t1.getRange(KeyRange{queue, fdb::strinc(queue)}).get().rows.empty());
  Transaction t2 = db().createTransaction();
  t2.atomicOp(queue + Bytes(10, '\0') + littleEndian32(static_cast<uint32_t>(queue.size())), "item",
              MutationType::kSetVersionstampedKey);
  t2.commit().get();
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
  EXPECT_EQ(read("x"), std::nullopt);
}

// The conflict range is the one key produced, not every key the stamp could have made: a read
// of another key of the template's range does not conflict.
TEST_P(ConflictsTest, VersionstampedKeyConflictsOnlyOnTheKeyItProduced) {
  const Bytes queue = "queue/";
  Transaction t1 = db().createTransaction();
  EXPECT_EQ(t1.get(queue + Bytes(10, '\xff')).get(), std::nullopt);
  Transaction t2 = db().createTransaction();
  t2.atomicOp(queue + Bytes(10, '\0') + littleEndian32(static_cast<uint32_t>(queue.size())), "item",
              MutationType::kSetVersionstampedKey);
  t2.commit().get();
  t1.set("x", "1");
  EXPECT_NO_THROW(t1.commit().get());
}

// NEXT_WRITE_NO_WRITE_CONFLICT_RANGE does not take it away: the cluster adds it at commit.
TEST_P(ConflictsTest, VersionstampedKeyConflictsEvenWithoutItsOwnWriteConflictRange) {
  const Bytes queue = "queue/";
  Transaction t1 = db().createTransaction();
  EXPECT_TRUE(t1.getRange(KeyRange{queue, fdb::strinc(queue)}).get().rows.empty());
  Transaction t2 = db().createTransaction();
  t2.setOption(fdb::TransactionOption::kNextWriteNoWriteConflictRange);
  t2.atomicOp(queue + Bytes(10, '\0') + littleEndian32(static_cast<uint32_t>(queue.size())), "item",
              MutationType::kSetVersionstampedKey);
  t2.commit().get();
  t1.set("x", "1");
  EXPECT_FDB_ERROR(1020, t1.commit().get());
}

RL_CONFORMANCE_INSTANTIATE(ConflictsTest);

}  // namespace
}  // namespace conformance
