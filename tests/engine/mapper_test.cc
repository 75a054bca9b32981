// Mapper: the mapper language of mapped range reads, built from the packed bytes of index
// entries. The byte-level build must give what packing the decoded elements gives.
#include "engine/mapper.h"

#include <gtest/gtest.h>

#include <string>

#include "fdb/error.h"
#include "fdb/tuple.h"

namespace fdb::engine {
namespace {

TEST(Mapper, BuildsFromTheEntrysElementsAsPackingThemWould) {
  Versionstamp stamp =
      Versionstamp::fromBytes(std::string(10, '\x07') + std::string("\x00\x03", 2));
  // Every element type the server parses, with an escaped 0x00 and integers of several
  // sizes on both sides of zero.
  Tuple key{std::string("a\0b", 3),
            ByteString{std::string("\0\xff", 2)},
            -300,
            0,
            70000,
            INT64_MIN,
            1.5f,
            -2.25,
            true,
            false,
            nullptr,
            stamp};
  Tuple value{"v", 9};
  for (size_t i = 0; i < key.size(); ++i) {
    Mapper mapper =
        Mapper::parse(Tuple{"r", "{K[" + std::to_string(i) + "]}", "{V[1]}", "{...}"}.pack());
    EXPECT_TRUE(mapper.isRange());
    EXPECT_EQ(mapper.build(key.pack(), value.pack()), (Tuple{"r", key[i], 9}.pack())) << i;
  }
  // Literals of every kind, and the {{ }} escape (a byte-string literal).
  Mapper literals = Mapper::parse(Tuple{nullptr, 7, "x{{y}}", -1.0, "{K[0]}"}.pack());
  EXPECT_FALSE(literals.isRange());
  EXPECT_EQ(literals.build(Tuple{"k"}.pack(), ""),
            (Tuple{nullptr, 7, ByteString{"x{y}"}, -1.0, "k"}.pack()));
}

TEST(Mapper, SplitsOnlyTuplesTheServerParses) {
  PackedElements elements;  // views into the packed bytes, which must outlive them
  const Bytes packed = Tuple{"ab", 1, nullptr}.pack();
  ASSERT_TRUE(splitServerTuple(packed, elements));
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[0], std::string("\x02"
                                     "ab\x00",
                                     4));
  EXPECT_EQ(elements[1], std::string("\x15\x01", 2));
  EXPECT_EQ(elements[2], std::string("\x00", 1));
  EXPECT_TRUE(splitServerTuple("", elements));
  EXPECT_TRUE(elements.empty());
  // Nested tuples, UUIDs, integers beyond eight bytes and truncated elements are refused.
  EXPECT_FALSE(splitServerTuple(Tuple{Tuple{1}}.pack(), elements));
  EXPECT_FALSE(splitServerTuple(Tuple{Uuid{}}.pack(), elements));
  EXPECT_FALSE(splitServerTuple(Tuple{BigInt::parse("36893488147419103232")}.pack(), elements));
  EXPECT_FALSE(splitServerTuple(std::string("\x02"
                                            "ab",
                                            3),
                                elements));                              // no terminator
  EXPECT_FALSE(splitServerTuple(std::string("\x16\x01", 2), elements));  // 2-byte int cut
  EXPECT_FALSE(splitServerTuple(std::string("\x21\x00", 2), elements));  // double cut
  // An entry key the server cannot parse fails the build with 2041.
  Mapper mapper = Mapper::parse(Tuple{"r", "{K[0]}"}.pack());
  try {
    mapper.build(Tuple{Uuid{}}.pack(), "");
    FAIL() << "built from a UUID key";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 2041);
  }
}

}  // namespace
}  // namespace fdb::engine
