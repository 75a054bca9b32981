// Read-your-writes (docs/semantics.md, "Snapshot reads", "Read-your-writes"): reads see the
// transaction's own sets, clears and atomic ops, applied in issue order on top of the snapshot at
// the read version — point reads, range reads in both directions and key selectors alike; snapshot
// reads too (the snapshot-RYW counter starts at 1). Other transactions see nothing before commit.

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::MutationType;
using fdb::RangeOptions;
using fdb::Transaction;

class ReadYourWritesTest : public ConformanceTest {};

TEST_P(ReadYourWritesTest, GetSeesOwnSet) {
  write("k", "old");
  Transaction tr = db().createTransaction();
  tr.set("k", "new");
  tr.set("fresh", "1");
  EXPECT_EQ(tr.get("k").get(), "new");
  EXPECT_EQ(tr.get("fresh").get(), "1");
  tr.set("k", "newer");
  EXPECT_EQ(tr.get("k").get(), "newer");
}

TEST_P(ReadYourWritesTest, GetSeesOwnClear) {
  write("k", "old");
  Transaction tr = db().createTransaction();
  tr.clear("k");
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
  tr.set("k", "again");
  EXPECT_EQ(tr.get("k").get(), "again");
  tr.clear("k");
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
}

TEST_P(ReadYourWritesTest, SetOfEmptyValueIsPresent) {
  Transaction tr = db().createTransaction();
  tr.set("k", "");
  EXPECT_EQ(tr.get("k").get(), Bytes());
  tr.commit().get();
  EXPECT_EQ(read("k"), Bytes());
}

TEST_P(ReadYourWritesTest, GetSeesOwnClearRange) {
  writeAll({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  Transaction tr = db().createTransaction();
  tr.clearRange("a", "c");
  EXPECT_EQ(tr.get("a").get(), std::nullopt);
  EXPECT_EQ(tr.get("b").get(), std::nullopt);
  EXPECT_EQ(tr.get("c").get(), "3");  // the end is exclusive
  tr.set("b", "again");
  EXPECT_EQ(tr.get("b").get(), "again");
}

TEST_P(ReadYourWritesTest, AtomicOpOnUnknownBaseReadsDatabaseValue) {
  write("counter", bytes({5, 0}));
  Transaction tr = db().createTransaction();
  tr.atomicOp("counter", bytes({3, 0}), MutationType::kAdd);
  tr.atomicOp("absent", bytes({7}), MutationType::kAdd);
  EXPECT_EQ(tr.get("counter").get(), bytes({8, 0}));
  EXPECT_EQ(tr.get("absent").get(), bytes({7}));
  tr.atomicOp("counter", bytes({1, 1}), MutationType::kAdd);
  EXPECT_EQ(tr.get("counter").get(), bytes({9, 1}));
  tr.commit().get();
  EXPECT_EQ(read("counter"), bytes({9, 1}));
  EXPECT_EQ(read("absent"), bytes({7}));
}

TEST_P(ReadYourWritesTest, AtomicOpOnKnownBaseIsEvaluatedAgainstIt) {
  write("k", bytes({100}));
  Transaction tr = db().createTransaction();
  tr.set("k", bytes({1}));
  tr.atomicOp("k", bytes({2}), MutationType::kAdd);
  EXPECT_EQ(tr.get("k").get(), bytes({3}));
  tr.clear("k");
  tr.atomicOp("k", bytes({9}), MutationType::kAdd);  // after a clear: absent base
  EXPECT_EQ(tr.get("k").get(), bytes({9}));
  tr.commit().get();
  EXPECT_EQ(read("k"), bytes({9}));
}

TEST_P(ReadYourWritesTest, MixedOperationsComposeInIssueOrder) {
  write("k", bytes({0x10}));
  Transaction tr = db().createTransaction();
  tr.atomicOp("k", bytes({0x05}), MutationType::kAdd);     // 0x15
  tr.atomicOp("k", bytes({0x0f}), MutationType::kBitAnd);  // 0x05
  tr.atomicOp("k", bytes({0x20}), MutationType::kMax);     // 0x20
  tr.atomicOp("k", bytes({0x01}), MutationType::kBitOr);   // 0x21
  tr.atomicOp("k", "xyz", MutationType::kAppendIfFits);    // 0x21 "xyz"
  EXPECT_EQ(tr.get("k").get(), bytes({0x21, 'x', 'y', 'z'}));
  tr.commit().get();
  EXPECT_EQ(read("k"), bytes({0x21, 'x', 'y', 'z'}));
}

TEST_P(ReadYourWritesTest, CompareAndClearMatchingOwnSetMakesKeyAbsent) {
  Transaction tr = db().createTransaction();
  tr.set("k", "x");
  tr.atomicOp("k", "x", MutationType::kCompareAndClear);
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
  EXPECT_TRUE(tr.getRange(KeyRange{"a", "z"}).get().rows.empty());
}

TEST_P(ReadYourWritesTest, RangeReadSeesMergedViewForward) {
  writeAll({{"a", "1"}, {"c", "3"}, {"e", "5"}, {"g", "7"}, {"i", "9"}});
  Transaction tr = db().createTransaction();
  tr.set("b", "new-b");                                   // insert
  tr.clear("c");                                          // delete
  tr.set("e", "new-e");                                   // overwrite
  tr.clearRange("f", "h");                                // delete g
  tr.set("fa", "in-cleared");                             // written after the clear
  tr.atomicOp("g", bytes({1}), MutationType::kAdd);       // ADD on a cleared key
  tr.atomicOp("h", bytes({2}), MutationType::kAdd);       // ADD on an absent key appears
  tr.atomicOp("i", "9", MutationType::kCompareAndClear);  // matching: removed
  std::vector<KeyValue> expected{{"a", "1"},           {"b", "new-b"},    {"e", "new-e"},
                                 {"fa", "in-cleared"}, {"g", bytes({1})}, {"h", bytes({2})}};
  // One read stops early: the first read of the database ends at the cleared [f, h), and "h"
  // needs the database's value (docs/semantics.md, "Range reads").
  fdb::RangeResult first = tr.getRange(KeyRange{"", "\xff"}).get();
  EXPECT_EQ(first.rows, std::vector<KeyValue>(expected.begin(), expected.end() - 1));
  EXPECT_TRUE(first.more);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"", "\xff"}), expected);
  tr.commit().get();
  EXPECT_EQ(readAll(), expected);
}

TEST_P(ReadYourWritesTest, RangeReadSeesMergedViewReverse) {
  writeAll({{"a", "1"}, {"c", "3"}, {"e", "5"}});
  Transaction tr = db().createTransaction();
  tr.set("b", "new-b");
  tr.clear("c");
  tr.set("d", "new-d");
  tr.atomicOp("f", bytes({4}), MutationType::kAdd);
  std::vector<KeyValue> expected{
      {"f", bytes({4})}, {"e", "5"}, {"d", "new-d"}, {"b", "new-b"}, {"a", "1"}};
  EXPECT_EQ(tr.getRange(KeyRange{"", "\xff"}, RangeOptions{.reverse = true}).get().rows, expected);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"", "\xff"}, 0, /*reverse=*/true), expected);
}

TEST_P(ReadYourWritesTest, LimitedRangeReadsCountMergedRows) {
  writeAll({{"a", "1"}, {"c", "3"}, {"e", "5"}});
  Transaction tr = db().createTransaction();
  tr.set("b", "2");
  tr.clear("c");
  tr.set("d", "4");
  auto forward = tr.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 3}).get();
  EXPECT_EQ(forward.rows, (std::vector<KeyValue>{{"a", "1"}, {"b", "2"}, {"d", "4"}}));
  EXPECT_TRUE(forward.more);
  auto reverse = tr.getRange(KeyRange{"a", "z"}, RangeOptions{.limit = 2, .reverse = true}).get();
  EXPECT_EQ(reverse.rows, (std::vector<KeyValue>{{"e", "5"}, {"d", "4"}}));
  EXPECT_TRUE(reverse.more);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"a", "z"}, 2, /*reverse=*/true),
            (std::vector<KeyValue>{{"e", "5"}, {"d", "4"}}));
}

TEST_P(ReadYourWritesTest, KeySelectorsResolveOverMergedView) {
  writeAll({{"a", "1"}, {"c", "3"}, {"e", "5"}});
  Transaction tr = db().createTransaction();
  tr.set("b", "2");
  tr.clear("c");
  tr.atomicOp("f", bytes({1}), MutationType::kAdd);
  // Visible keys: a, b, e, f.
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual("b")).get(), "b");
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterThan("b")).get(), "e");
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual("c")).get(), "e");
  EXPECT_EQ(tr.getKey(KeySelector::lastLessThan("e")).get(), "b");
  EXPECT_EQ(tr.getKey(KeySelector::lastLessOrEqual("c")).get(), "b");
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual("a") + 3).get(), "f");
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterThan("e")).get(), "f");
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterThan("f")).get(), "\xff");
  EXPECT_EQ(tr.snapshot().getKey(KeySelector::lastLessOrEqual("d")).get(), "b");
}

TEST_P(ReadYourWritesTest, RangeReadWithSelectorsOverMergedView) {
  writeAll({{"a", "1"}, {"c", "3"}, {"e", "5"}, {"g", "7"}});
  Transaction tr = db().createTransaction();
  tr.set("d", "4");
  tr.clear("e");
  // Visible keys: a, c, d, g. [firstGreaterThan(a), lastLessOrEqual(g)) = [c, g).
  auto rows =
      tr.getRange(KeySelector::firstGreaterThan("a"), KeySelector::lastLessOrEqual("g")).get().rows;
  EXPECT_EQ(rows, (std::vector<KeyValue>{{"c", "3"}, {"d", "4"}}));
}

TEST_P(ReadYourWritesTest, SnapshotReadsSeeOwnWritesByDefault) {
  writeAll({{"a", "1"}, {"b", "2"}});
  Transaction tr = db().createTransaction();
  tr.set("foo", "bar");
  tr.clear("a");
  tr.atomicOp("b", bytes({1}), MutationType::kAppendIfFits);
  EXPECT_EQ(tr.snapshot().get("foo").get(), "bar");
  EXPECT_EQ(tr.snapshot().get("a").get(), std::nullopt);
  EXPECT_EQ(tr.snapshot().get("b").get(), bytes({'2', 1}));
  std::vector<KeyValue> expected{{"b", bytes({'2', 1})}, {"foo", "bar"}};
  EXPECT_EQ(tr.snapshot().getRange(KeyRange{"", "\xff"}).get().rows, expected);
  EXPECT_EQ(tr.snapshot().getRangeAll(KeyRange{"", "\xff"}), expected);
  EXPECT_EQ(tr.snapshot().getKey(KeySelector::firstGreaterOrEqual("")).get(), "b");
}

TEST_P(ReadYourWritesTest, ReadsAnsweredLocallyStillWorkWithoutDatabaseRows) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  EXPECT_EQ(tr.get("k").get(), "v");
  EXPECT_EQ(tr.getRange(KeyRange{"", "\xff"}).get().rows, (std::vector<KeyValue>{{"k", "v"}}));
}

TEST_P(ReadYourWritesTest, UncommittedWritesAreInvisibleToOthers) {
  write("k", "old");
  Transaction writer = db().createTransaction();
  writer.set("k", "new");
  writer.set("n", "1");
  Transaction early = db().createTransaction();
  EXPECT_EQ(early.get("k").get(), "old");
  EXPECT_EQ(early.get("n").get(), std::nullopt);
  writer.commit().get();
  // A transaction whose read version predates the commit still sees the old snapshot.
  EXPECT_EQ(early.get("k").get(), "old");
  EXPECT_EQ(early.getRange(KeyRange{"", "\xff"}).get().rows, (std::vector<KeyValue>{{"k", "old"}}));
  EXPECT_EQ(read("k"), "new");
  EXPECT_EQ(read("n"), "1");
}

TEST_P(ReadYourWritesTest, CommittedResultEqualsIssueOrder) {
  writeAll({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  Transaction tr = db().createTransaction();
  tr.set("b", "x");
  tr.clearRange("a", "c");
  tr.set("a", "y");
  tr.clear("c");
  tr.set("c", "z");
  tr.atomicOp("c", "!", MutationType::kAppendIfFits);
  tr.commit().get();
  EXPECT_EQ(readAll(), (std::vector<KeyValue>{{"a", "y"}, {"c", "z!"}}));
}

RL_CONFORMANCE_INSTANTIATE(ReadYourWritesTest);

}  // namespace
}  // namespace conformance
