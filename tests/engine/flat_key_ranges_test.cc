// FlatKeyRanges (src/engine/engine.h): the conflict ranges a transaction keeps, inline while
// they are few and short, in one buffer after that; and the KeyRangesView a commit reads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/engine.h"

namespace fdb::engine {
namespace {

using Small = FlatKeyRanges<16, 2>;

std::vector<KeyRange> contents(KeyRangesView view) {
  std::vector<KeyRange> out;
  for (KeyRangeView range : view) out.push_back(KeyRange{Bytes(range.begin), Bytes(range.end)});
  return out;
}

TEST(FlatKeyRanges, KeepsRangesInOrderInlineAndPastTheInlineCapacity) {
  Small ranges;
  EXPECT_TRUE(ranges.empty());
  std::vector<KeyRange> expected;
  // The first fits inline; the later ones outgrow both the byte and the range capacity.
  for (int i = 0; i < 20; ++i) {
    Bytes begin = "key" + std::to_string(i) + std::string(static_cast<size_t>(i), 'x');
    Bytes end = begin + "\xff";
    ranges.add(begin, end);
    expected.push_back(KeyRange{begin, end});
    ASSERT_EQ(ranges.size(), expected.size());
    // Every earlier range still reads right after the buffer moved.
    EXPECT_EQ(contents(ranges), expected);
  }
}

TEST(FlatKeyRanges, AddKeyIsTheRangeOfThatKeyAlone) {
  Small ranges;
  ranges.addKey("a");
  ranges.addKey(std::string_view("b\0c", 3));
  ranges.addKey("");
  EXPECT_EQ(contents(ranges), (std::vector<KeyRange>{{"a", Bytes("a\0", 2)},
                                                     {Bytes("b\0c", 3), Bytes("b\0c\0", 4)},
                                                     {"", Bytes("\0", 1)}}));
}

TEST(FlatKeyRanges, ClearEmptiesAndTheRangesCanBeRefilled) {
  Small ranges;
  for (int i = 0; i < 5; ++i) ranges.add(std::string(40, 'k'), std::string(41, 'k'));
  ranges.clear();
  EXPECT_TRUE(ranges.empty());
  EXPECT_EQ(KeyRangesView(ranges).size(), 0u);
  ranges.add("p", "q");
  EXPECT_EQ(contents(ranges), (std::vector<KeyRange>{{"p", "q"}}));
}

TEST(FlatKeyRanges, ViewsOfBothLayoutsReadTheSame) {
  ReadConflictRanges reads;
  WriteConflictRanges writes;
  std::vector<KeyRange> owned = {{"a", "b"}, {"c", "d"}, {std::string(300, 'e'), "f"}};
  for (const KeyRange& range : owned) {
    reads.add(range.begin, range.end);
    writes.add(range.begin, range.end);
  }
  EXPECT_EQ(contents(reads), owned);
  EXPECT_EQ(contents(writes), owned);
  EXPECT_EQ(contents(KeyRangesView(owned)), owned);
}

}  // namespace
}  // namespace fdb::engine
