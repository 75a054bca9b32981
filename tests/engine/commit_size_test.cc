// The commit size FoundationDB checks against the size limit (engine/commit_size.h): the
// mutations its read-your-writes map sends once merged, and coalesced conflict ranges.
#include "engine/commit_size.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

namespace fdb::engine {
namespace {

constexpr int64_t kMutation = 40;  // sizeof(MutationRef)
constexpr int64_t kRange = 32;     // sizeof(KeyRangeRef)

// Mutations in issue order, owning their bytes.
class Writes {
 public:
  Writes& set(std::string_view key, std::string_view value) {
    mutations_.push_back(Mutation{Mutation::Kind::kSet, keep(key), keep(value)});
    return *this;
  }
  Writes& clear(std::string_view begin, std::string_view end) {
    mutations_.push_back(Mutation{Mutation::Kind::kClearRange, keep(begin), keep(end)});
    return *this;
  }
  Writes& atomic(std::string_view key, MutationType type, std::string_view param) {
    mutations_.push_back(Mutation{Mutation::Kind::kAtomic, keep(key), keep(param), type});
    return *this;
  }
  int64_t merged() const { return mergedMutationBytes(mutations_); }
  // The bytes of the mutations as issued.
  int64_t issued() const {
    int64_t total = 0;
    for (const Mutation& m : mutations_) {
      total += kMutation + static_cast<int64_t>(m.key.size() + m.param.size());
    }
    return total;
  }

 private:
  std::string_view keep(std::string_view bytes) { return storage_.emplace_back(bytes); }
  std::deque<Bytes> storage_;
  std::vector<Mutation> mutations_;
};

TEST(MergedMutationBytes, AKeySetManyTimesIsSentOnce) {
  Writes writes;
  for (int i = 0; i < 5; ++i) writes.set("key", "value");
  EXPECT_EQ(writes.merged(), kMutation + 3 + 5);
}

TEST(MergedMutationBytes, AClearIsCutAroundTheKeysWrittenInsideIt) {
  Writes writes;
  writes.clear("a", "z").set("m", "v");
  // [a, m), [m\0, z) and the set of m.
  EXPECT_EQ(writes.merged(), (kMutation + 2) + (kMutation + 3) + (kMutation + 2));
  // Touching clears are one; a key right at a clear's begin leaves no empty piece.
  Writes touching;
  touching.clear("a", "c").clear("c", "e").set("a", "1");
  EXPECT_EQ(touching.merged(), (kMutation + 3) + (kMutation + 2));  // [a\0, e), a
  // A clear of a single key, then a set of it: the set alone.
  Writes single;
  single.clear("k", std::string("k\0", 2)).set("k", "v");
  EXPECT_EQ(single.merged(), kMutation + 2);
}

TEST(MergedMutationBytes, AClearRemovesTheWritesBeforeIt) {
  Writes writes;
  writes.set("b", "1").set("c", "2").clear("a", "d");
  EXPECT_EQ(writes.merged(), kMutation + 2);
}

TEST(MergedMutationBytes, AtomicOperationsMergeAsFoundationDBStacksThem) {
  const Bytes one8 = Bytes("\x01") + Bytes(7, '\0');
  {
    Writes writes;  // the same associative kind and size: one operation
    writes.atomic("n", MutationType::kAdd, one8).atomic("n", MutationType::kAdd, one8);
    EXPECT_EQ(writes.merged(), kMutation + 1 + 8);
  }
  {
    Writes writes;  // a non-associative kind with operands of other sizes: both
    writes.atomic("n", MutationType::kAdd, one8).atomic("n", MutationType::kAdd, "\x01");
    EXPECT_EQ(writes.merged(), (kMutation + 1 + 8) + (kMutation + 1 + 1));
  }
  {
    Writes writes;  // different kinds stack
    writes.atomic("n", MutationType::kBitOr, "\x01").atomic("n", MutationType::kBitXor, "\x01");
    EXPECT_EQ(writes.merged(), 2 * (kMutation + 2));
  }
  {
    Writes writes;  // on a set: a set of the result
    writes.set("n", one8).atomic("n", MutationType::kAdd, std::string("\x01\x00", 2));
    EXPECT_EQ(writes.merged(), kMutation + 1 + 2);
  }
  {
    Writes writes;  // on a cleared key: a set of the result
    writes.clear("a", "z").atomic("n", MutationType::kBitOr, "\x05");
    EXPECT_EQ(writes.merged(), (kMutation + 2) + (kMutation + 3) + (kMutation + 2));
  }
  {
    Writes writes;  // a compare-and-clear that matches a set: a clear of the key
    writes.set("n", "x").atomic("n", MutationType::kCompareAndClear, "x");
    EXPECT_EQ(writes.merged(), kMutation + 3);
  }
}

TEST(MergedMutationBytes, WritesAfterAVersionstampedValueAreNotMerged) {
  const Bytes operand = Bytes(10, '\0') + Bytes(4, '\0');
  Writes writes;
  writes.atomic("k", MutationType::kSetVersionstampedValue, operand).set("k", "1").set("k", "2");
  EXPECT_EQ(writes.merged(), (kMutation + 1 + 14) + 2 * (kMutation + 2));
  writes.clear("k", std::string("k\0", 2)).set("k", "3").set("k", "4");
  EXPECT_EQ(writes.merged(), kMutation + 2);
}

TEST(MergedMutationBytes, VersionstampedKeysAreSentAsIssued) {
  const Bytes operand = "q/" + Bytes(10, '\0') + Bytes("\x02\0\0\0", 4);
  Writes writes;
  writes.atomic(operand, MutationType::kSetVersionstampedKey, "v")
      .atomic(operand, MutationType::kSetVersionstampedKey, "v");
  EXPECT_EQ(writes.merged(), 2 * (kMutation + 16 + 1));
}

// commitSize skips merging when the running estimate is at most a quarter of the limit: merging
// never makes the mutations more than four times their bytes as issued.
TEST(MergedMutationBytes, NeverMoreThanFourTimesTheBytesAsIssued) {
  std::mt19937 random(20);
  const MutationType types[] = {MutationType::kAdd,
                                MutationType::kBitAnd,
                                MutationType::kBitOr,
                                MutationType::kMax,
                                MutationType::kMin,
                                MutationType::kAppendIfFits,
                                MutationType::kCompareAndClear,
                                MutationType::kByteMax};
  auto key = [&] { return std::string(1 + random() % 2, static_cast<char>('a' + random() % 6)); };
  for (int round = 0; round < 2000; ++round) {
    Writes writes;
    int count = 1 + static_cast<int>(random() % 20);
    for (int i = 0; i < count; ++i) {
      switch (random() % 4) {
        case 0: writes.set(key(), std::string(random() % 3, 'v')); break;
        case 1: {
          std::string a = key(), b = key();
          writes.clear(std::min(a, b), std::max(a, b));
          break;
        }
        default:
          writes.atomic(key(), types[random() % std::size(types)],
                        std::string(1 + random() % 2, static_cast<char>(random() % 4)));
      }
    }
    ASSERT_LE(writes.merged(), 4 * writes.issued()) << "round " << round;
  }
}

TEST(CoalescedRangeBytes, OverlappingAndTouchingRangesCountOnce) {
  std::vector<KeyRange> ranges = {{"a", "c"}, {"b", "d"}, {"d", "e"}, {"x", "y"}, {"a", "c"}};
  EXPECT_EQ(coalescedRangeBytes(KeyRangesView(ranges)), (kRange + 2) + (kRange + 2));
  EXPECT_EQ(coalescedRangeBytes(KeyRangesView()), 0);
}

}  // namespace
}  // namespace fdb::engine
