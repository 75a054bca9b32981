#include "fdb/bytes.h"

#include <gtest/gtest.h>

#include "fdb/error.h"

namespace fdb {
namespace {

TEST(Bytes, HexRoundTrip) {
  Bytes all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  EXPECT_EQ(fromHex(toHex(all)), all);
  EXPECT_EQ(toHex(std::string("\x00\x7f\xff", 3)), "007fff");
  EXPECT_EQ(fromHex("ABcd"), "\xab\xcd");
}

TEST(Bytes, BadHexSaysWhere) {
  try {
    fromHex("01x2");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "'x' at position 2 is not a hex digit");
  }
  EXPECT_THROW(fromHex("abc"), std::invalid_argument);
}

TEST(Bytes, PrintableEscapesLikeFdbcli) {
  EXPECT_EQ(printable(std::string("a\x00\\\xff b", 6)), "a\\x00\\\\\\xff b");
}

TEST(Bytes, Strinc) {
  EXPECT_EQ(strinc("a"), "b");
  EXPECT_EQ(strinc("a\xff\xff"), "b");
  EXPECT_EQ(strinc("\x01\xfe"), "\x01\xff");
  EXPECT_THROW(strinc(""), Error);
  EXPECT_THROW(strinc("\xff"), Error);
}

TEST(KeyRange, ContainsIsHalfOpen) {
  KeyRange r{"b", "d"};
  EXPECT_FALSE(r.contains("a"));
  EXPECT_TRUE(r.contains("b"));
  EXPECT_TRUE(r.contains("c\xff"));
  EXPECT_FALSE(r.contains("d"));
}

}  // namespace
}  // namespace fdb
