// Range results keep their rows' bytes in one block: the rows are views into it. Views must
// stay inside the result that holds them — after a move, in a copy, in a copy of a copy
// whose source is gone — and the builders must lay out exactly the rows appended.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "fdb/types.h"

namespace fdb {
namespace {

// True when every byte of `view` lies in the block of `rows`.
template <typename Rows>
bool inside(std::string_view view, const Rows& rows) {
  const auto* begin = reinterpret_cast<const char*>(rows.data());
  return view.data() >= begin && view.data() + view.size() <= begin + rows.blockBytes();
}

RangeRows threeRows() {
  RangeRowsBuilder builder;
  builder.append("apple", "red");
  builder.append("banana", std::string(100, 'y'));  // longer than any small-string buffer
  builder.append("", "");
  return builder.build();
}

const std::vector<KeyValue> kThreeRows = {
    {"apple", "red"}, {"banana", std::string(100, 'y')}, {"", ""}};

TEST(RangeRows, BuilderLaysOutTheRowsAppendedInOneBlock) {
  RangeRows rows = threeRows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows.empty());
  EXPECT_EQ(rows, kThreeRows);
  EXPECT_EQ(rows.front().key, "apple");
  EXPECT_EQ(rows.back().key, "");
  EXPECT_EQ(rows[1].value, std::string(100, 'y'));
  for (const KeyValueRef& row : rows) {
    EXPECT_TRUE(inside(row.key, rows));
    EXPECT_TRUE(inside(row.value, rows));
  }
  // Rows, then the bytes of their keys and values, nothing else.
  EXPECT_EQ(rows.blockBytes(), 3 * sizeof(KeyValueRef) + 5 + 3 + 6 + 100);
}

TEST(RangeRows, ComparesWithOwnedRowsElementByElement) {
  RangeRows rows = threeRows();
  EXPECT_EQ(rows, kThreeRows);
  EXPECT_EQ(kThreeRows, rows);
  std::vector<KeyValue> fewer(kThreeRows.begin(), kThreeRows.begin() + 2);
  EXPECT_NE(rows, fewer);
  std::vector<KeyValue> changed = kThreeRows;
  changed[2].value = "x";
  EXPECT_NE(rows, changed);
  EXPECT_EQ(RangeRows(), std::vector<KeyValue>());
}

TEST(RangeRows, ARowConvertsToAnOwnedCopy) {
  std::unique_ptr<RangeRows> rows = std::make_unique<RangeRows>(threeRows());
  KeyValue kept = (*rows)[1];
  std::vector<KeyValue> all(rows->begin(), rows->end());
  rows.reset();
  EXPECT_EQ(kept, (KeyValue{"banana", std::string(100, 'y')}));
  EXPECT_EQ(all, kThreeRows);
}

TEST(RangeRows, MovingKeepsTheViewsValid) {
  RangeRows rows = threeRows();
  const KeyValueRef* first = rows.data();
  std::string_view value = rows[1].value;
  RangeRows moved = std::move(rows);
  EXPECT_EQ(moved.data(), first);  // the same block
  EXPECT_EQ(moved[1].value.data(), value.data());
  EXPECT_TRUE(rows.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(moved, kThreeRows);
  RangeRows assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned, kThreeRows);
  EXPECT_EQ(assigned.data(), first);
}

TEST(RangeRows, ACopyHasItsOwnBlockAndOutlivesItsSource) {
  auto source = std::make_unique<RangeRows>(threeRows());
  RangeRows copy = *source;
  EXPECT_NE(copy.data(), source->data());
  EXPECT_EQ(copy.blockBytes(), source->blockBytes());
  for (const KeyValueRef& row : copy) {
    EXPECT_TRUE(inside(row.key, copy));
    EXPECT_TRUE(inside(row.value, copy));
    EXPECT_FALSE(inside(row.value, *source));
  }
  RangeRows assigned;
  assigned = *source;
  source.reset();  // the copies must not look at it again
  EXPECT_EQ(copy, kThreeRows);
  EXPECT_EQ(assigned, kThreeRows);
  RangeRows copyOfCopy(copy);
  copy = RangeRows();
  EXPECT_EQ(copyOfCopy, kThreeRows);
  RangeRows& self = copyOfCopy;
  copyOfCopy = self;  // self-assignment keeps the rows
  EXPECT_EQ(copyOfCopy, kThreeRows);
}

TEST(RangeRows, EmptyResultsHaveNoBlock) {
  RangeRowsBuilder builder;
  RangeRows rows = builder.build();
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(rows.size(), 0u);
  EXPECT_EQ(rows.blockBytes(), 0u);
  EXPECT_EQ(rows.begin(), rows.end());
  RangeRows copy = rows;
  EXPECT_TRUE(copy.empty());
}

TEST(RangeRows, ABuilderStartsEmptyAfterBuildAndAfterClear) {
  RangeRowsBuilder builder;
  builder.append("a", "1");
  RangeRows first = builder.build();
  EXPECT_TRUE(builder.empty());
  builder.append("b", "2");
  builder.clear();
  // Larger than what a builder keeps between results.
  builder.append("c", std::string(RangeRowsBuilder::kRetainedBytes + 1, 'z'));
  RangeRows second = builder.build();
  builder.append("d", "4");
  RangeRows third = builder.build();
  EXPECT_EQ(first, (std::vector<KeyValue>{{"a", "1"}}));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].key, "c");
  EXPECT_EQ(second[0].value.size(), RangeRowsBuilder::kRetainedBytes + 1);
  EXPECT_EQ(third, (std::vector<KeyValue>{{"d", "4"}}));
}

// The shape of the C API's FDBKeyValue: smaller than a row, packed to 4 bytes.
#pragma pack(push, 4)
struct CRow {
  const char* key;
  int keyLength;
  const char* value;
  int valueLength;
};
#pragma pack(pop)

TEST(RangeRows, IntoArrayBuildsTheArrayInTheBlockAndKeepsTheBytes) {
  std::vector<KeyValue> expected;
  RangeRowsBuilder builder;
  for (int i = 0; i < 50; ++i) {  // enough rows that the array overwrites most of the rows
    expected.push_back({"key" + std::to_string(i), std::string(static_cast<size_t>(i), 'v')});
    builder.append(expected.back().key, expected.back().value);
  }
  RangeRows rows = builder.build();
  const void* block = rows.data();
  // Fields written in reverse order: row i is no longer where element i goes.
  RowArray<CRow> array = std::move(rows).intoArray<CRow>([](const KeyValueRef& row, CRow& out) {
    out.valueLength = static_cast<int>(row.value.size());
    out.value = row.value.data();
    out.keyLength = static_cast<int>(row.key.size());
    out.key = row.key.data();
  });
  EXPECT_TRUE(rows.empty());  // NOLINT(bugprone-use-after-move): intoArray empties it
  EXPECT_EQ(static_cast<const void*>(array.data), block);
  ASSERT_EQ(array.size, expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(std::string_view(array.data[i].key, static_cast<size_t>(array.data[i].keyLength)),
              expected[i].key);
    EXPECT_EQ(std::string_view(array.data[i].value, static_cast<size_t>(array.data[i].valueLength)),
              expected[i].value);
  }
}

TEST(RangeRows, IntoArrayOfNoRowsIsEmpty) {
  RowArray<CRow> array = RangeRows().intoArray<CRow>([](const KeyValueRef&, CRow&) {});
  EXPECT_EQ(array.size, 0u);
  EXPECT_EQ(array.block, nullptr);
}

// Small blocks are reused by the thread that frees them: results of every size class and
// beyond, made on one thread and dropped on another, keep their rows until dropped.
TEST(RangeRows, BlocksOfEverySizeSurviveReuseAcrossThreads) {
  std::vector<RangeRows> made;
  std::vector<std::vector<KeyValue>> expected;
  for (int round = 0; round < 3; ++round) {
    for (size_t valueSize : {0, 10, 60, 100, 200, 400, 900, 2000}) {
      RangeRowsBuilder builder;
      std::vector<KeyValue> rows;
      for (int i = 0; i < 2; ++i) {
        rows.push_back(
            {"k" + std::to_string(i), std::string(valueSize, static_cast<char>('a' + i))});
        builder.append(rows.back().key, rows.back().value);
      }
      made.push_back(builder.build());
      expected.push_back(std::move(rows));
    }
    for (size_t i = 0; i < made.size(); ++i) EXPECT_EQ(made[i], expected[i]);
    // Half are dropped here (into this thread's cache), half on another thread.
    std::vector<RangeRows> elsewhere(std::make_move_iterator(made.begin() + made.size() / 2),
                                     std::make_move_iterator(made.end()));
    made.resize(made.size() / 2);
    expected.resize(expected.size() / 2);
    std::thread([dropped = std::move(elsewhere)]() mutable { dropped.clear(); }).join();
  }
}

TEST(RangeResult, CopiesAndMovesWithItsRows) {
  RangeResult result{threeRows(), true};
  RangeResult copy = result;
  RangeResult moved = std::move(result);
  EXPECT_EQ(copy.rows, kThreeRows);
  EXPECT_TRUE(copy.more);
  EXPECT_EQ(moved.rows, kThreeRows);
  EXPECT_NE(copy.rows.data(), moved.rows.data());
}

// ---- Mapped results -----------------------------------------------------------------

// Every view of every entry lies in the entries' one block.
void expectEveryViewInside(const MappedRangeRows& entries) {
  for (const MappedKeyValue& entry : entries) {
    for (std::string_view view : {entry.key, entry.value, entry.rangeBegin, entry.rangeEnd}) {
      EXPECT_TRUE(inside(view, entries));
    }
    for (const KeyValueRef& row : entry.rangeRows) {
      EXPECT_TRUE(inside(row.key, entries));
      EXPECT_TRUE(inside(row.value, entries));
    }
  }
}

MappedRangeRows twoEntries() {
  MappedRangeRowsBuilder builder;
  builder.addEntry("idx/alice", "1", "rec/1/", "rec/10");
  builder.addRangeRow("rec/1/a", "A1");
  builder.addRangeRow("rec/1/b", std::string(40, 'b'));
  builder.addEntry("idx/bob", "", "rec/2/", "rec/20");  // an entry whose range is empty
  return builder.build();
}

void expectTwoEntries(const MappedRangeRows& entries) {
  ASSERT_EQ(entries.size(), 2u);
  const MappedKeyValue& alice = entries[0];
  EXPECT_EQ(alice.key, "idx/alice");
  EXPECT_EQ(alice.value, "1");
  EXPECT_EQ(alice.rangeBegin, "rec/1/");
  EXPECT_EQ(alice.rangeEnd, "rec/10");
  EXPECT_EQ(alice.rangeRows,
            (std::vector<KeyValue>{{"rec/1/a", "A1"}, {"rec/1/b", std::string(40, 'b')}}));
  const MappedKeyValue& bob = entries[1];
  EXPECT_EQ(bob.key, "idx/bob");
  EXPECT_EQ(bob.value, "");
  EXPECT_EQ(bob.rangeBegin, "rec/2/");
  EXPECT_EQ(bob.rangeEnd, "rec/20");
  EXPECT_TRUE(bob.rangeRows.empty());
  expectEveryViewInside(entries);
}

TEST(MappedRangeRows, BuilderLaysOutEntriesAndTheirRangesInOneBlock) {
  MappedRangeRows entries = twoEntries();
  expectTwoEntries(entries);
  EXPECT_EQ(entries.blockBytes(), 2 * sizeof(MappedKeyValue) + 2 * sizeof(KeyValueRef) +
                                      (9 + 1 + 6 + 6) + (7 + 2 + 7 + 40) + (7 + 0 + 6 + 6));
}

TEST(MappedRangeRows, ACopyPointsIntoItsOwnBlock) {
  auto source = std::make_unique<MappedRangeRows>(twoEntries());
  MappedRangeRows copy = *source;
  const MappedKeyValue* sourceEntries = source->data();
  EXPECT_NE(copy.data(), sourceEntries);
  EXPECT_NE(copy[0].rangeRows.data(), (*source)[0].rangeRows.data());
  EXPECT_EQ(copy[0], (*source)[0]);
  source.reset();
  expectTwoEntries(copy);
  MappedRangeRows moved = std::move(copy);
  expectTwoEntries(moved);
}

// Entries whose records hold values of 16 kB and more (the chunks of split records): those
// values keep their own allocations, handed over to the result instead of copied into its block.
MappedRangeRows entriesWithLargeValues() {
  MappedRangeRowsBuilder builder;
  builder.addEntry("idx/big", "", "rec/3/", "rec/30");
  builder.addRangeRow("rec/3/0", std::string(100'000, 'x'));
  builder.addRangeRow("rec/3/1", std::string(16 << 10, 'y'));
  builder.addRangeRow("rec/3/2", "tail");
  builder.addEntry("idx/small", "2", "rec/4/", "rec/40");
  builder.addRangeRow("rec/4/", std::string((16 << 10) - 1, 'z'));  // just below: in the block
  return builder.build();
}

void expectEntriesWithLargeValues(const MappedRangeRows& entries) {
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].key, "idx/big");
  EXPECT_EQ(entries[0].rangeRows, (std::vector<KeyValue>{{"rec/3/0", std::string(100'000, 'x')},
                                                         {"rec/3/1", std::string(16 << 10, 'y')},
                                                         {"rec/3/2", "tail"}}));
  EXPECT_EQ(entries[1].key, "idx/small");
  EXPECT_EQ(entries[1].value, "2");
  EXPECT_EQ(entries[1].rangeRows,
            (std::vector<KeyValue>{{"rec/4/", std::string((16 << 10) - 1, 'z')}}));
}

TEST(MappedRangeRows, LargeValuesAreHandedOverNotCopiedIntoTheBlock) {
  const size_t smallBytes =
      (7 + 0 + 6 + 6) + (7 + 7 + 7 + 4) + (9 + 1 + 6 + 6) + 6 + ((16 << 10) - 1);
  const size_t largeBytes = 100'000 + (16 << 10);
  MappedRangeRows entries = entriesWithLargeValues();
  expectEntriesWithLargeValues(entries);
  // Counted in the result's bytes, not laid out in its block.
  EXPECT_EQ(entries.blockBytes(),
            2 * sizeof(MappedKeyValue) + 4 * sizeof(KeyValueRef) + smallBytes + largeBytes);
  EXPECT_FALSE(inside(entries[0].rangeRows[0].value, entries));
  EXPECT_FALSE(inside(entries[0].rangeRows[1].value, entries));
  EXPECT_TRUE(inside(entries[0].rangeRows[2].value, entries));
  EXPECT_TRUE(inside(entries[1].rangeRows[0].value, entries));
  // Moving keeps every address; the moved-from result holds nothing.
  const char* largeValue = entries[0].rangeRows[0].value.data();
  MappedRangeRows moved = std::move(entries);
  EXPECT_EQ(moved[0].rangeRows[0].value.data(), largeValue);
  EXPECT_EQ(entries.blockBytes(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from state
  expectEntriesWithLargeValues(moved);
}

TEST(MappedRangeRows, ACopyOfLargeValuesHoldsEveryByteInItsOwnBlock) {
  auto source = std::make_unique<MappedRangeRows>(entriesWithLargeValues());
  MappedRangeRows copy = *source;
  EXPECT_EQ(copy.blockBytes(), source->blockBytes());
  source.reset();
  expectEntriesWithLargeValues(copy);
  expectEveryViewInside(copy);
}

TEST(MappedRangeRows, ABuilderClearedBeforeBuildFreesItsLargeValues) {
  MappedRangeRowsBuilder builder;
  builder.addEntry("idx/big", "", "rec/3/", "rec/30");
  builder.addRangeRow("rec/3/0", std::string(100'000, 'x'));
  builder.clear();  // LeakSanitizer would see the value if it stayed
  EXPECT_TRUE(builder.empty());
  builder.addEntry("idx/small", "2", "rec/4/", "rec/40");
  MappedRangeRows entries = builder.build();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries.blockBytes(), sizeof(MappedKeyValue) + (9 + 1 + 6 + 6));
}

}  // namespace
}  // namespace fdb
