// rl::cli::parsePrintable, the inverse of fdb::printable.
#include "printable.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "fdb/bytes.h"
#include "fdb/tuple.h"

namespace rl::cli {
namespace {

TEST(RlPrintable, DecodedTupleShowsPackedTuplesOnly) {
  EXPECT_EQ(decodedTuple(fdb::Tuple{"orders", int64_t{42}}.pack()), R"(("orders", 42))");
  EXPECT_EQ(decodedTuple(""), "()");
  EXPECT_EQ(decodedTuple("\x02no terminator"), std::nullopt);
  EXPECT_EQ(decodedTuple("\xfe"), std::nullopt);
}

TEST(RlPrintable, ReadsEscapes) {
  EXPECT_EQ(parsePrintable(""), "");
  EXPECT_EQ(parsePrintable("hello world"), "hello world");
  EXPECT_EQ(parsePrintable(R"(a\x00\xffb)"), std::string("a\x00\xff"
                                                         "b",
                                                         4));
  EXPECT_EQ(parsePrintable(R"(\xAb\xaB)"), "\xab\xab");
  EXPECT_EQ(parsePrintable(R"(back\\slash)"), "back\\slash");
  EXPECT_EQ(parsePrintable("caf\xc3\xa9"), "caf\xc3\xa9");  // typed UTF-8 stays as it is
}

TEST(RlPrintable, InvertsFdbPrintableForEveryByte) {
  std::string every;
  for (int b = 0; b < 256; ++b) every.push_back(static_cast<char>(b));
  EXPECT_EQ(parsePrintable(fdb::printable(every)), every);
  EXPECT_EQ(parsePrintable(fdb::printable("\\x41")), "\\x41");
}

TEST(RlPrintable, BadEscapesSayWhere) {
  auto messageOf = [](const std::string& text) {
    try {
      parsePrintable(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(messageOf(R"(ab\xZZ)"),
            R"(bad escape at character 3 of `ab\xZZ': \x takes two hex digits (\x00 to \xff))");
  EXPECT_EQ(messageOf(R"(\x1)"),
            R"(bad escape at character 1 of `\x1': \x takes two hex digits (\x00 to \xff))");
  EXPECT_EQ(
      messageOf(R"(a\q)"),
      R"(bad escape at character 2 of `a\q': a backslash starts \xNN (a byte) or \\ (a backslash))");
  EXPECT_EQ(messageOf("\xc3\xa9\\"),
            "bad escape at character 2 of `\xc3\xa9\\': a backslash at the end (\\\\ is a "
            "backslash)");
}

}  // namespace
}  // namespace rl::cli
