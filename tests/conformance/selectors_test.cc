// Key selector resolution (docs/semantics.md, "Key selectors", "Key space"): a selector (k,
// orEqual, offset) resolves over the sorted visible keys S to S[i - 1 + offset], where i = #keys <
// k (k+\x00 when orEqual); below index 0 it gives "", past the end it gives "\xff". getKey with a
// selector key > "\xff" fails with key_outside_legal_range (2004).

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::Transaction;

class SelectorsTest : public ConformanceTest {
 protected:
  // The database holds a, c, e, g.
  void SetUp() override {
    ConformanceTest::SetUp();
    writeAll({{"a", "1"}, {"c", "3"}, {"e", "5"}, {"g", "7"}});
  }

  Bytes resolve(const KeySelector& selector) {
    Transaction tr = db().createTransaction();
    return tr.getKey(selector).get();
  }
};

TEST_P(SelectorsTest, StandardFormsOnExistingKey) {
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("c")), "c");
  EXPECT_EQ(resolve(KeySelector::firstGreaterThan("c")), "e");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("c")), "a");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("c")), "c");
}

TEST_P(SelectorsTest, StandardFormsBetweenKeys) {
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("d")), "e");
  EXPECT_EQ(resolve(KeySelector::firstGreaterThan("d")), "e");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("d")), "c");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("d")), "c");
  // A key that extends an existing one sorts after it.
  EXPECT_EQ(resolve(KeySelector::lastLessThan("c0")), "c");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual(keyAfter("c"))), "e");
}

// The read calls take selectors by view (KeySelectorRef): the key's bytes need only live
// during the call, so a caller may name them from a buffer it reuses at once.
TEST_P(SelectorsTest, SelectorKeysNeedOnlyLiveDuringTheCall) {
  Transaction tr = db().createTransaction();
  std::string begin = "b", end = "f";
  fdb::Future<fdb::RangeResult> range = tr.getRange(fdb::KeySelectorRef::firstGreaterOrEqual(begin),
                                                    fdb::KeySelectorRef::firstGreaterOrEqual(end));
  std::string buffer = "b";
  fdb::Future<Bytes> key = tr.getKey(fdb::KeySelectorRef(buffer, false, 1));
  buffer.assign("zzzz");
  begin.assign("zzzz");
  end.assign("a");
  EXPECT_EQ(key.get(), "c");
  std::vector<KeyValue> rows;
  for (const fdb::KeyValueRef& row : range.get().rows) rows.push_back(row);
  EXPECT_EQ(rows, (std::vector<KeyValue>{{"c", "3"}, {"e", "5"}}));
}

TEST_P(SelectorsTest, PositiveOffsets) {
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("a") + 1), "c");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("a") + 3), "g");
  EXPECT_EQ(resolve(KeySelector::firstGreaterThan("a") + 1), "e");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("c") + 1), "e");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("c") + 2), "e");
}

TEST_P(SelectorsTest, NegativeOffsets) {
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("g") - 3), "a");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("g") - 1), "c");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("e") - 1), "c");
  EXPECT_EQ(resolve(KeySelector::firstGreaterThan("e") - 2), "c");
}

TEST_P(SelectorsTest, RawSelectorsFollowTheResolutionRule) {
  // (c, orEqual, 2): k = c\0, i = #{a, c} = 2, t = 2 - 1 + 2 = 3 -> g.
  EXPECT_EQ(resolve(KeySelector{"c", true, 2}), "g");
  // (c, !orEqual, 2): i = #{a} = 1, t = 2 -> e.
  EXPECT_EQ(resolve(KeySelector{"c", false, 2}), "e");
  // (d, !orEqual, -1): i = 2, t = 0 -> a.
  EXPECT_EQ(resolve(KeySelector{"d", false, -1}), "a");
  // (d, orEqual, 1): same as firstGreaterThan(d) -> e.
  EXPECT_EQ(resolve(KeySelector{"d", true, 1}), "e");
}

TEST_P(SelectorsTest, BeforeFirstKeyResolvesToEmptyKey) {
  EXPECT_EQ(resolve(KeySelector::lastLessThan("a")), "");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("")), "");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("")), "");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("c") - 2), "");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("a") - 1), "");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("g") - 100), "");
}

TEST_P(SelectorsTest, PastLastKeyResolvesToEndOfKeySpace) {
  EXPECT_EQ(resolve(KeySelector::firstGreaterThan("g")), "\xff");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("h")), "\xff");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("c") + 3), "\xff");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("a") + 100), "\xff");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("\xff")), "\xff");
}

TEST_P(SelectorsTest, LastKeyBelowEndOfKeySpace) {
  EXPECT_EQ(resolve(KeySelector::lastLessThan("\xff")), "g");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("\xff")), "g");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("z") - 1), "e");
}

TEST_P(SelectorsTest, EmptyDatabase) {
  Transaction clear = db().createTransaction();
  clear.clearRange("", "\xff");
  clear.commit().get();
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("")), "\xff");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("m")), "\xff");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("m")), "");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("\xff")), "");
}

TEST_P(SelectorsTest, EmptyKeyIsAKeyLikeAnyOther) {
  write("", "root");
  EXPECT_EQ(resolve(KeySelector::firstGreaterOrEqual("")), "");
  EXPECT_EQ(resolve(KeySelector::firstGreaterThan("")), "a");
  EXPECT_EQ(resolve(KeySelector::lastLessThan("a")), "");
  EXPECT_EQ(resolve(KeySelector::lastLessOrEqual("")), "");
}

TEST_P(SelectorsTest, GetKeyBeyondEndOfKeySpaceFails) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr.getKey(KeySelector::firstGreaterOrEqual(keyAfter("\xff"))).get());
  Transaction tr2 = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr2.getKey(KeySelector::lastLessThan("\xff\x01")).get());
  Transaction tr3 = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr3.snapshot().getKey(KeySelector::firstGreaterThan("\xff\xff")).get());
}

TEST_P(SelectorsTest, RangeReadResolvesBothSelectors) {
  // A new transaction for each read: what one read learns would let the next stop early
  // (docs/semantics.md, "Range reads").
  Transaction tr = db().createTransaction();
  // [firstGreaterThan(a), firstGreaterOrEqual(g)) = [c, g).
  EXPECT_EQ(tr.getRange(KeySelector::firstGreaterThan("a"), KeySelector::firstGreaterOrEqual("g"))
                .get()
                .rows,
            (std::vector<KeyValue>{{"c", "3"}, {"e", "5"}}));
  tr = db().createTransaction();
  // [lastLessOrEqual(b), firstGreaterThan(e)) = [a, g).
  EXPECT_EQ(
      keysOf(tr.getRange(KeySelector::lastLessOrEqual("b"), KeySelector::firstGreaterThan("e"))
                 .get()
                 .rows),
      (std::vector<Bytes>{"a", "c", "e"}));
  tr = db().createTransaction();
  // Offsets on both ends: [a + 1, g + 1) = [c, \xff).
  EXPECT_EQ(keysOf(tr.getRange(KeySelector::firstGreaterOrEqual("a") + 1,
                               KeySelector::firstGreaterOrEqual("g") + 1)
                       .get()
                       .rows),
            (std::vector<Bytes>{"c", "e", "g"}));
  tr = db().createTransaction();
  // Begin before the first key, end past the last: everything.
  EXPECT_EQ(keysOf(tr.getRange(KeySelector::lastLessThan("a"), KeySelector::firstGreaterThan("z"))
                       .get()
                       .rows),
            (std::vector<Bytes>{"a", "c", "e", "g"}));
}

TEST_P(SelectorsTest, SelectorsResolvingToAnEmptyRangeGiveNoRows) {
  Transaction tr = db().createTransaction();
  // Both selectors resolve to e: empty.
  auto same =
      tr.getRange(KeySelector::firstGreaterOrEqual("d"), KeySelector::firstGreaterOrEqual("e"))
          .get();
  EXPECT_TRUE(same.rows.empty());
  EXPECT_FALSE(same.more);
  // Begin resolves after end: empty, not an error.
  auto inverted =
      tr.getRange(KeySelector::firstGreaterOrEqual("g"), KeySelector::firstGreaterOrEqual("a") + 1)
          .get();
  EXPECT_TRUE(inverted.rows.empty());
  EXPECT_FALSE(inverted.more);
}

RL_CONFORMANCE_INSTANTIATE(SelectorsTest);

}  // namespace
}  // namespace conformance
