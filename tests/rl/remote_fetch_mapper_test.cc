// The remote-fetch mapper, byte for byte as the Java Record Layer builds it (docs/format.md,
// "Index fetch"). Expected bytes are written out from the tuple encoding.
#include "rl/index/remote_fetch_mapper.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdb/tuple.h"

namespace {

using rl::index::decodeServerTuple;
using rl::index::entryPrimaryKeyPositions;
using rl::index::remoteFetchMapper;

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(RemoteFetchMapper, TheDocumentedExampleOneIndexedColumnThenThePrimaryKey) {
  // Store ("app", 5), index "idx" on one column, primary key (id): entries are
  // (value, id) under ("app", 5, 2, "idx"), so id is element 1 + 4.
  std::vector<int> positions = entryPrimaryKeyPositions({}, /*columnSize=*/1, /*pkLength=*/1);
  EXPECT_EQ(positions, std::vector<int>{1});
  auto mapper = remoteFetchMapper(fdb::Tuple{"app", 5}.pack(),
                                  fdb::Tuple{"app", 5, 2, "idx"}.pack(), positions);
  ASSERT_TRUE(mapper.has_value());
  std::string expected = bytes({0x02, 'a',  'p', 'p', 0x00,                  // "app"
                                0x15, 0x05,                                  // 5
                                0x15, 0x01,                                  // 1: records
                                0x02, '{',  'K', '[', '5',  ']', '}', 0x00,  // "{K[5]}"
                                0x02, '{',  '.', '.', '.',  '}', 0x00});     // "{...}"
  EXPECT_EQ(*mapper, expected);
}

TEST(RemoteFetchMapper, TrimmedPrimaryKeyColumnsPointIntoTheIndexedColumns) {
  // Index on (customer, id) with primary key (region, id): id is indexed at position 1 and
  // trimmed from the entry; region follows the two index columns.
  const std::vector<int> componentPositions{-1, 1};
  std::vector<int> positions = entryPrimaryKeyPositions(componentPositions, /*columnSize=*/2, 2);
  EXPECT_EQ(positions, (std::vector<int>{2, 1}));
  // The empty store prefix: the index subspace is (2, "i") (2 elements).
  auto mapper = remoteFetchMapper("", fdb::Tuple{2, "i"}.pack(), positions);
  ASSERT_TRUE(mapper.has_value());
  EXPECT_EQ(*mapper, bytes({0x15, 0x01,                                 // 1: records
                            0x02, '{',  'K', '[', '4', ']', '}', 0x00,  // region
                            0x02, '{',  'K', '[', '3', ']', '}', 0x00,  // id
                            0x02, '{',  '.', '.', '.', '}', 0x00}));
}

TEST(RemoteFetchMapper, PrefixesTheServerCannotParseCannotUseRemoteFetch) {
  std::vector<int> positions{1};
  // Not a tuple at all (a raw 0xfe prefix).
  EXPECT_FALSE(remoteFetchMapper("\xfe", std::string("\xfe\x15\x02\x02i\x00", 6), positions));
  // Tuples with element types outside the server's subset: a UUID, a nested tuple.
  fdb::Uuid uuid{};
  EXPECT_FALSE(decodeServerTuple(fdb::Tuple{uuid}.pack()).has_value());
  EXPECT_FALSE(decodeServerTuple(fdb::Tuple{fdb::Tuple{1}}.pack()).has_value());
  EXPECT_FALSE(remoteFetchMapper(fdb::Tuple{fdb::Tuple{1}}.pack(),
                                 fdb::Tuple{fdb::Tuple{1}, 2, "i"}.pack(), positions));
  // Every type it does parse.
  auto ok = decodeServerTuple(
      fdb::Tuple{nullptr, fdb::ByteString{"b"}, "s", -7, 1.5f, 2.5, true, false}.pack());
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->size(), 8u);
}

}  // namespace
