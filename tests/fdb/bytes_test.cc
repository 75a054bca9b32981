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

TEST(Bytes, HexDigitValue) {
  EXPECT_EQ(hexDigitValue('0'), 0);
  EXPECT_EQ(hexDigitValue('9'), 9);
  EXPECT_EQ(hexDigitValue('a'), 10);
  EXPECT_EQ(hexDigitValue('F'), 15);
  for (char c : {'g', 'G', '/', ':', '@', '`', ' ', '\0'}) EXPECT_EQ(hexDigitValue(c), -1) << c;
}

TEST(KeyRange, PrefixRangeHoldsThePrefixAndEveryKeyStartingWithIt) {
  const KeyRange r = prefixRange("ab\xff");
  EXPECT_EQ(r, (KeyRange{"ab\xff", "ac"}));
  EXPECT_TRUE(r.contains("ab\xff"));
  EXPECT_TRUE(r.contains("ab\xff\xff\xff"));
  EXPECT_FALSE(r.contains("ab"));
  EXPECT_FALSE(r.contains("ac"));
  EXPECT_THROW(prefixRange("\xff\xff"), Error);
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
