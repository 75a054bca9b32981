// The text syntax of tuples (docs/tuple.md): parsing against tuples built with the C++
// API, exact formatting, round trips, and errors with their messages and positions.
#include "fdb/tuple_text.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fdb/bytes.h"

namespace fdb {
namespace {

Versionstamp::TransactionVersion transactionVersion(std::string_view hex) {
  Bytes bytes = fromHex(hex);
  Versionstamp::TransactionVersion version{};
  for (size_t i = 0; i < version.size(); ++i) version[i] = static_cast<uint8_t>(bytes.at(i));
  return version;
}

// A tuple of one nested tuple; Tuple{Tuple{...}} could read as a copy.
Tuple nest(Tuple inner) { return Tuple().append(std::move(inner)); }

void expectParses(std::string_view text, const Tuple& expected) {
  SCOPED_TRACE(text);
  try {
    EXPECT_EQ(parseTuple(text), expected) << formatTuple(parseTuple(text));
  } catch (const TupleSyntaxError& e) {
    ADD_FAILURE() << "unexpected syntax error at " << e.position() << ": " << e.what();
  }
}

void expectSyntaxError(std::string_view text, std::string_view messagePart, size_t position) {
  SCOPED_TRACE(text);
  try {
    Tuple parsed = parseTuple(text);
    ADD_FAILURE() << "parsed as " << formatTuple(parsed);
  } catch (const TupleSyntaxError& e) {
    EXPECT_NE(std::string_view(e.what()).find(messagePart), std::string_view::npos)
        << "message: " << e.what();
    EXPECT_EQ(e.position(), position) << "message: " << e.what();
  }
}

// Integers by their decimal text, whatever their size.
TupleElement integer(std::string_view decimal) { return BigInt::parse(decimal); }

// ---- Parsing --------------------------------------------------------------------------

TEST(TupleText, ParsesEveryElementType) {
  Tuple expected{"a",
                 1,
                 -2.5,
                 nullptr,
                 true,
                 ByteString{std::string("\x00\xff", 2)},
                 Tuple{"nested"},
                 1.5f,
                 Uuid::parse("0123456789abcdef0123456789abcdef"),
                 Versionstamp::complete(transactionVersion("0102030405060708090a"), 7),
                 Versionstamp::incomplete()};
  expectParses(
      R"(("a", 1, -2.5, null, true, b"\x00\xff", ("nested",), f32(1.5),
          uuid(01234567-89ab-cdef-0123-456789abcdef), vs(0102030405060708090a, 7), vs()))",
      expected);
}

TEST(TupleText, EmptyTupleAndTrailingCommas) {
  expectParses("()", Tuple{});
  expectParses("  (  )  ", Tuple{});
  expectParses("(1,)", Tuple{1});
  expectParses("(1, 2)", Tuple{1, 2});
  expectParses("(1, 2,)", Tuple{1, 2});
  expectParses("\n\t( 1 ,\r\n 2 , )\n", Tuple{1, 2});
}

TEST(TupleText, AcceptsPythonSpellings) {
  expectParses("(None, True, False)", Tuple{nullptr, true, false});
  expectParses("(null, true, false)", Tuple{nullptr, true, false});
  expectParses(R"(('single', b'bytes', 'it\'s', '"'))",
               Tuple{"single", ByteString{"bytes"}, "it's", "\""});
}

TEST(TupleText, Integers) {
  expectParses("(0, -0, +5, 007, -42)", Tuple{0, 0, 5, 7, -42});
  expectParses("(9223372036854775807, -9223372036854775808)", Tuple{INT64_MAX, INT64_MIN});
  // Just beyond int64_t, 2^64-1 and -(2^64): BigInt.
  expectParses("(9223372036854775808, -9223372036854775809)",
               Tuple{integer("9223372036854775808"), integer("-9223372036854775809")});
  expectParses("(18446744073709551615, -18446744073709551616)",
               Tuple{BigInt::fromUnsigned(UINT64_MAX), integer("-18446744073709551616")});
  std::string hundredDigits = "1234567890";
  for (int i = 0; i < 3; ++i) hundredDigits += hundredDigits;  // 80 digits
  hundredDigits += "12345678901234567890";
  ASSERT_EQ(hundredDigits.size(), 100u);
  expectParses("(" + hundredDigits + ", -" + hundredDigits + ")",
               Tuple{integer(hundredDigits), integer("-" + hundredDigits)});
  // Leading zeros do not make a number big.
  expectParses("(0000000000000000000000000000001,)", Tuple{1});
}

TEST(TupleText, IntegersThatFitAreInt64) {
  Tuple parsed = parseTuple("(9223372036854775807, 9223372036854775808)");
  EXPECT_TRUE(std::holds_alternative<int64_t>(parsed[0].value()));
  EXPECT_TRUE(std::holds_alternative<BigInt>(parsed[1].value()));
}

TEST(TupleText, LargestEncodableInteger) {
  BigInt largest = BigInt::fromMagnitude(false, std::string(255, '\xff'));  // 2^2040 - 1
  Tuple parsed = parseTuple("(" + largest.toString() + ", -" + largest.toString() + ")");
  EXPECT_EQ(parsed, (Tuple{largest, BigInt::fromMagnitude(true, std::string(255, '\xff'))}));
}

TEST(TupleText, Doubles) {
  expectParses("(1.5, -2.5, 1., .5, -.5, 1e10, 1E-3, 2.5e+2, 0.1)",
               Tuple{1.5, -2.5, 1.0, 0.5, -0.5, 1e10, 1e-3, 250.0, 0.1});
  expectParses("(inf, -inf, +inf)", Tuple{std::numeric_limits<double>::infinity(),
                                          -std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::infinity()});
  // Shortest forms of extreme values read back exactly.
  expectParses("(5e-324, 1.7976931348623157e+308)", Tuple{std::numeric_limits<double>::denorm_min(),
                                                          std::numeric_limits<double>::max()});
}

TEST(TupleText, NegativeZeroAndNanKeepTheirSign) {
  Tuple parsed = parseTuple("(-0.0, 0.0, nan, -nan)");
  ASSERT_EQ(parsed.size(), 4u);
  EXPECT_TRUE(std::signbit(parsed.getDouble(0)));
  EXPECT_EQ(parsed.getDouble(0), 0.0);
  EXPECT_FALSE(std::signbit(parsed.getDouble(1)));
  EXPECT_NE(parsed[0], parsed[1]);  // tuple order tells -0.0 from 0.0
  EXPECT_TRUE(std::isnan(parsed.getDouble(2)));
  EXPECT_FALSE(std::signbit(parsed.getDouble(2)));
  EXPECT_TRUE(std::isnan(parsed.getDouble(3)));
  EXPECT_TRUE(std::signbit(parsed.getDouble(3)));
}

TEST(TupleText, Floats) {
  expectParses("(f32(1.5), f32( -2 ), f32(0.1), f32(1e-45))",
               Tuple{1.5f, -2.0f, 0.1f, std::numeric_limits<float>::denorm_min()});
  Tuple special = parseTuple("(f32(nan), f32(-nan), f32(inf), f32(-inf), f32(-0.0))");
  EXPECT_TRUE(std::isnan(special.getFloat(0)));
  EXPECT_FALSE(std::signbit(special.getFloat(0)));
  EXPECT_TRUE(std::isnan(special.getFloat(1)));
  EXPECT_TRUE(std::signbit(special.getFloat(1)));
  EXPECT_EQ(special.getFloat(2), std::numeric_limits<float>::infinity());
  EXPECT_EQ(special.getFloat(3), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(special.getFloat(4)));
}

TEST(TupleText, FloatIsRoundedOnceNotThroughDouble) {
  // 1 + 2^-24 + 2^-60: the nearest float is 1 + 2^-23, but rounding to double first gives
  // 1 + 2^-24, exactly halfway, which then rounds to 1.0f.
  Tuple parsed =
      parseTuple("(f32(1.000000059604644776257986737988403547205962240695953369140625),)");
  EXPECT_EQ(std::bit_cast<uint32_t>(parsed.getFloat(0)), std::bit_cast<uint32_t>(1.0f) + 1);
}

TEST(TupleText, StringEscapes) {
  expectParses(R"(("", "plain", "q\"uote", "back\\slash", "\n\t\r", "nul\0byte"))",
               Tuple{"", "plain", "q\"uote", "back\\slash", "\n\t\r", std::string("nul\0byte", 8)});
  // \xNN is one raw byte of the UTF-8; \u and \U are code points.
  expectParses(R"(("\xc3\xa9", "\u00e9", "\U0001F600", "\xff", "\u0000"))",
               Tuple{"\xc3\xa9", "\xc3\xa9", "\xf0\x9f\x98\x80", "\xff", std::string(1, '\0')});
  // Non-ASCII UTF-8 in the input is taken as is.
  expectParses("(\"caf\xc3\xa9 \xe2\x82\xac\",)", Tuple{"caf\xc3\xa9 \xe2\x82\xac"});
  // Raw tabs and other characters are allowed, the other quote needs no escape.
  expectParses("(\"a\tb'c\",)", Tuple{"a\tb'c"});
}

TEST(TupleText, ByteStrings) {
  expectParses(
      R"((b"", b"abc", b"\x00\xff", b"\\\"\'", b"\n\t\r\0", b'x"y'))",
      Tuple{ByteString{""}, ByteString{"abc"}, ByteString{std::string("\x00\xff", 2)},
            ByteString{"\\\"'"}, ByteString{std::string("\n\t\r\0", 4)}, ByteString{"x\"y"}});
  // b"..." is a byte string, "..." a unicode string: different elements.
  EXPECT_NE(parseTuple(R"((b"a",))"), parseTuple(R"(("a",))"));
}

TEST(TupleText, NestedTuples) {
  expectParses("((),)", nest(Tuple{}));
  expectParses("((null,),)", nest(Tuple{nullptr}));
  expectParses("(((1,),),)", nest(nest(Tuple{1})));
  expectParses("((1, (2, ()), ()), 3)", Tuple{Tuple{1, Tuple{2, Tuple{}}, Tuple{}}, 3});
}

TEST(TupleText, Uuids) {
  Uuid expected = Uuid::parse("0123456789abcdef0123456789abcdef");
  expectParses("(uuid(0123456789abcdef0123456789abcdef),)", Tuple{expected});
  expectParses("(uuid( 01234567-89AB-CDEF-0123-456789ABCDEF ),)", Tuple{expected});
  // Quoted, as UUIDs are usually written.
  expectParses(R"((uuid("01234567-89ab-cdef-0123-456789abcdef"),))", Tuple{expected});
  expectParses(R"((uuid( '0123456789ABCDEF0123456789ABCDEF' ),))", Tuple{expected});
  expectParses(R"((uuid("00000000-0000-0000-0000-000000000001"),))",
               Tuple{Uuid::parse("00000000000000000000000000000001")});
}

TEST(TupleText, QuotedUuidErrorsSayWhat) {
  expectSyntaxError(R"((uuid("0123-4567"),))", "uuid() needs 32 hex digits, found 8", 6);
  expectSyntaxError(R"((uuid("01234567-89ab-cdef-0123-456789abcdeg"),))",
                    "not a UUID: 'g' is not a hex digit", 6);
  expectSyntaxError(R"((uuid("01234567-89ab-cdef-0123-456789abcdef),))",
                    "unterminated string literal", 6);
}

TEST(TupleText, Versionstamps) {
  auto version = transactionVersion("0102030405060708090a");
  expectParses("(vs(),)", Tuple{Versionstamp::incomplete()});
  expectParses("(vs( ),)", Tuple{Versionstamp::incomplete()});
  expectParses("(vs(0102030405060708090a),)", Tuple{Versionstamp::complete(version)});
  expectParses("(vs(0102030405060708090A, 65535),)", Tuple{Versionstamp::complete(version, 65535)});
  expectParses("(vs(ffffffffffffffffffff),)", Tuple{Versionstamp::incomplete()});
  expectParses("(vs(ffffffffffffffffffff, 9),)", Tuple{Versionstamp::incomplete(9)});
  EXPECT_FALSE(parseTuple("(vs(ffffffffffffffffffff, 9),)").getVersionstamp(0).isComplete());
}

// ---- Formatting -----------------------------------------------------------------------

TEST(TupleText, FormatsEveryElementType) {
  Tuple tuple{"a",
              1,
              -2.5,
              nullptr,
              true,
              ByteString{std::string("\x00\xff", 2)},
              Tuple{"nested"},
              1.5f,
              Uuid::parse("0123456789abcdef0123456789abcdef"),
              Versionstamp::complete(transactionVersion("0102030405060708090a"), 7),
              Versionstamp::incomplete()};
  EXPECT_EQ(formatTuple(tuple),
            R"(("a", 1, -2.5, null, true, b"\x00\xff", ("nested",), f32(1.5), )"
            R"(uuid(01234567-89ab-cdef-0123-456789abcdef), vs(0102030405060708090a, 7), vs()))");
}

TEST(TupleText, FormatsTupleShapes) {
  EXPECT_EQ(formatTuple(Tuple{}), "()");
  EXPECT_EQ(formatTuple(Tuple{false}), "(false,)");
  EXPECT_EQ(formatTuple(Tuple{1, 2}), "(1, 2)");
  EXPECT_EQ(formatTuple(nest(Tuple{})), "((),)");
  EXPECT_EQ(formatTuple(nest(Tuple{nullptr})), "((null,),)");
  EXPECT_EQ(formatTuple(Tuple{Tuple{}, Tuple{}}), "((), ())");
  EXPECT_EQ(formatElement(TupleElement(Tuple{})), "()");
  EXPECT_EQ(formatElement(TupleElement(Tuple{"x"})), "(\"x\",)");
  EXPECT_EQ(formatElement(42), "42");
  EXPECT_EQ(formatElement(nullptr), "null");
}

TEST(TupleText, FormatsNumbers) {
  EXPECT_EQ(formatTuple(Tuple{0, -1, INT64_MAX, INT64_MIN}),
            "(0, -1, 9223372036854775807, -9223372036854775808)");
  EXPECT_EQ(formatElement(BigInt::fromUnsigned(UINT64_MAX)), "18446744073709551615");
  EXPECT_EQ(formatElement(integer("-18446744073709551616")), "-18446744073709551616");

  EXPECT_EQ(formatElement(1.0), "1.0");
  EXPECT_EQ(formatElement(-0.0), "-0.0");
  EXPECT_EQ(formatElement(0.0), "0.0");
  EXPECT_EQ(formatElement(0.1), "0.1");
  EXPECT_EQ(formatElement(100.0), "100.0");
  EXPECT_EQ(formatElement(1e10), "1e+10");
  EXPECT_EQ(formatElement(1e-7), "1e-07");
  EXPECT_EQ(formatElement(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(formatElement(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(formatElement(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(formatElement(std::copysign(std::numeric_limits<double>::quiet_NaN(), -1.0)), "-nan");

  EXPECT_EQ(formatElement(1.5f), "f32(1.5)");
  EXPECT_EQ(formatElement(1.0f), "f32(1.0)");
  EXPECT_EQ(formatElement(0.1f), "f32(0.1)");  // shortest for the float, not the double
  EXPECT_EQ(formatElement(-0.0f), "f32(-0.0)");
  EXPECT_EQ(formatElement(-std::numeric_limits<float>::infinity()), "f32(-inf)");
  EXPECT_EQ(formatElement(std::numeric_limits<float>::quiet_NaN()), "f32(nan)");
}

TEST(TupleText, FormatsStrings) {
  EXPECT_EQ(formatElement(""), R"("")");
  EXPECT_EQ(formatElement("it's"), R"("it's")");
  EXPECT_EQ(formatElement("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(formatElement("\n\t\r"), R"("\n\t\r")");
  EXPECT_EQ(formatElement(std::string("\x00\x01\x1f\x7f", 4)), R"("\x00\x01\x1f\x7f")");
  // Well-formed UTF-8 as is.
  EXPECT_EQ(formatElement("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
  // Bytes outside well-formed UTF-8 escaped: stray, truncated, overlong, surrogate.
  EXPECT_EQ(formatElement("\xff"), R"("\xff")");
  EXPECT_EQ(formatElement("a\xc3"), R"("a\xc3")");
  EXPECT_EQ(formatElement(std::string("\xc3") + "a"), R"("\xc3a")");
  EXPECT_EQ(formatElement("\xc0\xaf"), R"("\xc0\xaf")");
  EXPECT_EQ(formatElement("\xed\xa0\x80"), R"("\xed\xa0\x80")");
  EXPECT_EQ(formatElement("\xf4\x90\x80\x80"), R"("\xf4\x90\x80\x80")");  // > U+10FFFF
  // C1 control characters are shown as code points.
  EXPECT_EQ(formatElement("\xc2\x85"), R"("\u0085")");
}

TEST(TupleText, FormatsByteStrings) {
  EXPECT_EQ(formatElement(ByteString{""}), R"(b"")");
  EXPECT_EQ(formatElement(ByteString{"az AZ 09 ~'"}), R"(b"az AZ 09 ~'")");
  EXPECT_EQ(formatElement(ByteString{"a\"b\\c"}), R"(b"a\"b\\c")");
  EXPECT_EQ(formatElement(ByteString{std::string("\x00\n\x7f\x80\xc3\xa9\xff", 7)}),
            R"(b"\x00\x0a\x7f\x80\xc3\xa9\xff")");
}

TEST(TupleText, FormatsUuidsAndVersionstamps) {
  EXPECT_EQ(formatElement(Uuid::parse("0123456789ABCDEF0123456789ABCDEF")),
            "uuid(01234567-89ab-cdef-0123-456789abcdef)");
  auto version = transactionVersion("0102030405060708090a");
  EXPECT_EQ(formatElement(Versionstamp::complete(version, 7)), "vs(0102030405060708090a, 7)");
  EXPECT_EQ(formatElement(Versionstamp::complete(version)), "vs(0102030405060708090a, 0)");
  EXPECT_EQ(formatElement(Versionstamp::incomplete()), "vs()");
  EXPECT_EQ(formatElement(Versionstamp::incomplete(65535)), "vs(ffffffffffffffffffff, 65535)");
}

// ---- Round trips ----------------------------------------------------------------------

std::vector<Tuple> roundTripSamples() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr float kFloatNan = std::numeric_limits<float>::quiet_NaN();
  std::string hundredDigits(100, '7');
  return {
      Tuple{},
      Tuple{nullptr},
      nest(Tuple{}),
      nest(nest(Tuple{})),
      nest(Tuple{nullptr}),
      Tuple{Tuple{nullptr, Tuple{}}, nullptr},
      Tuple{0, 1, -1, INT64_MAX, INT64_MIN},
      Tuple{BigInt::fromUnsigned(UINT64_MAX), integer("-18446744073709551616"),
            integer(hundredDigits), integer("-" + hundredDigits)},
      Tuple{0.0, -0.0, kInf, -kInf, kNan, std::copysign(kNan, -1.0), 0.1, 1e300, -1e-300,
            std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
            123456789.0, 1e22},
      Tuple{0.0f, -0.0f, std::numeric_limits<float>::infinity(), kFloatNan,
            std::copysign(kFloatNan, -1.0f), 0.1f, 3.4028235e38f,
            std::numeric_limits<float>::denorm_min(), 16777216.0f},
      Tuple{"", ByteString{""}},
      Tuple{"\"'\\", "\n\t\r", std::string("\x00\x01\x1f\x7f", 4), "\xc2\x85\xc2\xa0",
            "caf\xc3\xa9 \xf0\x9f\x98\x80", "\xff\xfe", "a\xc3", "\xed\xa0\x80", "\\x41"},
      Tuple{ByteString{std::string("\x00\xff\"\\'\n", 6)}, ByteString{"\\x41"}},
      Tuple{true, false, Uuid::parse("00000000-0000-0000-0000-000000000000"),
            Uuid::parse("ffffffff-ffff-ffff-ffff-ffffffffffff")},
      Tuple{Versionstamp::incomplete(), Versionstamp::incomplete(1),
            Versionstamp::complete(transactionVersion("00000000000000000000")),
            Versionstamp::complete(transactionVersion("fffffffffffffffffffe"), 65535)},
  };
}

TEST(TupleText, FormatThenParseGivesAnEqualTuple) {
  for (const Tuple& tuple : roundTripSamples()) {
    std::string text = formatTuple(tuple);
    SCOPED_TRACE(text);
    Tuple back = parseTuple(text);
    EXPECT_EQ(back, tuple);  // tuple equality compares floating-point bits
    EXPECT_EQ(formatTuple(back), text);
  }
}

TEST(TupleText, FormatThenParsePacksToTheSameBytes) {
  for (const Tuple& tuple : roundTripSamples()) {
    if (tuple.hasIncompleteVersionstamp()) continue;
    std::string text = formatTuple(tuple);
    SCOPED_TRACE(text);
    EXPECT_EQ(toHex(parseTuple(text).pack()), toHex(tuple.pack()));
  }
}

TEST(TupleText, CanonicalTextFormatsBackUnchanged) {
  for (std::string_view text : {
           R"(("orders", 42))",
           R"((null, ((), (null,)), b"", "", -0.0, f32(-nan), vs(), vs(ffffffffffffffffffff, 3)))",
           R"((18446744073709551615, -18446744073709551616, 1e+100, 5e-324))",
       }) {
    EXPECT_EQ(formatTuple(parseTuple(text)), text);
  }
}

// ---- Errors ---------------------------------------------------------------------------

TEST(TupleText, RejectsWhatIsNotOneTuple) {
  expectSyntaxError("", "expected '(' to start a tuple, found the end of the input", 0);
  expectSyntaxError("  1", "expected '(' to start a tuple, found '1'", 2);
  expectSyntaxError("(1,) x", "unexpected text after the tuple", 5);
  expectSyntaxError("(1,)(2,)", "unexpected text after the tuple", 4);
}

TEST(TupleText, ParenthesizedElementIsNotATuple) {
  expectSyntaxError("(1)", "'(1)' is not a tuple: write (1,) for a one-element tuple", 2);
  expectSyntaxError("((1,))", "'((1,))' is not a tuple: write ((1,),) for a one-element tuple", 5);
  std::string longText = "(\"" + std::string(60, 'a') + "\")";
  expectSyntaxError(longText, "write (x,) for a one-element tuple", longText.size() - 1);
}

TEST(TupleText, RejectsBadSeparators) {
  expectSyntaxError("(1 2)", "expected ',' or ')' after a tuple element, found '2'", 3);
  expectSyntaxError("(1", "expected ',' or ')' after a tuple element, found the end", 2);
  expectSyntaxError("((1,)", "expected ',' or ')' after a tuple element, found the end", 5);
  expectSyntaxError("(\"a\"", "expected ',' or ')' after a tuple element", 4);
  expectSyntaxError("(1,", "expected a tuple element, found the end of the input", 3);
  expectSyntaxError("(,)", "expected a tuple element, found ','", 1);
  expectSyntaxError("(1,,)", "expected a tuple element, found ','", 3);
  expectSyntaxError("(@,)", "expected a tuple element, found '@'", 1);
  expectSyntaxError("(\xff,)", "found byte 0xff", 1);
  expectSyntaxError("(true(),)", "expected ',' or ')' after a tuple element, found '('", 5);
}

TEST(TupleText, RejectsUnknownNames) {
  expectSyntaxError("(nul,)", "unknown name 'nul'", 1);
  expectSyntaxError("(1, NaN)", "unknown name 'NaN'", 4);
  expectSyntaxError("(Inf,)", "unknown name 'Inf'", 1);
  expectSyntaxError("(b,)", "unknown name 'b'", 1);
  expectSyntaxError("(nullx,)", "unknown name 'nullx'", 1);
}

TEST(TupleText, RejectsBadNumbers) {
  expectSyntaxError("(1e,)", "expected the digits of an exponent, found ','", 3);
  expectSyntaxError("(1x,)", "unexpected 'x' in a number", 2);
  expectSyntaxError("(0x10,)", "unexpected 'x' in a number", 2);
  expectSyntaxError("(1.5.3,)", "unexpected '.' in a number", 4);
  expectSyntaxError("(-,)", "expected a number, found ','", 2);
  expectSyntaxError("(.,)", "expected a number, found '.'", 1);
  expectSyntaxError("(-nanx,)", "expected a number, found 'nanx'", 2);
  expectSyntaxError("(1e400,)", "'1e400' is outside the range of a double", 1);
  expectSyntaxError("(-1e-400,)", "'-1e-400' is outside the range of a double", 1);
}

TEST(TupleText, RejectsIntegersTheTupleLayerCannotEncode) {
  // 2^2040 needs 256 bytes.
  BigInt tooLarge = BigInt::fromMagnitude(false, "\x01" + std::string(255, '\0'));
  expectSyntaxError("(" + tooLarge.toString() + ",)", "too large for the tuple layer", 1);
  expectSyntaxError("(1, -" + tooLarge.toString() + ")", "too large for the tuple layer", 4);
  expectSyntaxError("(" + std::string(100000, '9') + ",)", "too large for the tuple layer", 1);
}

TEST(TupleText, RejectsBadFloats) {
  expectSyntaxError("(f32(),)", "f32() needs a number, found ')'", 5);
  expectSyntaxError("(f32 1.5,)", "expected '(' after f32, found '1'", 5);
  expectSyntaxError("(f32(1.5,)", "expected ')' to close f32(, found ','", 8);
  expectSyntaxError("(f32(1e39),)", "'1e39' is outside the range of a float", 5);
  expectSyntaxError("(f32(\"1\"),)", "f32() needs a number", 5);
}

TEST(TupleText, RejectsBadStrings) {
  expectSyntaxError("(\"abc,)", "unterminated string literal", 1);
  expectSyntaxError("(b'abc,)", "unterminated string literal", 2);
  expectSyntaxError("(\"\\", "unterminated string literal", 1);
  expectSyntaxError("(\"a\nb\",)", "unterminated string literal", 1);
  expectSyntaxError(R"(("a\qb",))", R"('\q' is not a valid escape)", 3);
  expectSyntaxError(R"(("\x4",))", R"('\x' needs 2 hex digits)", 2);
  expectSyntaxError(R"(("\u12",))", R"('\u' needs 4 hex digits)", 2);
  expectSyntaxError(R"(("\U0001F60",))", R"('\U' needs 8 hex digits)", 2);
  expectSyntaxError(R"(("\ud800",))", "surrogate", 2);
  expectSyntaxError(R"(("\U00110000",))", "beyond U+10FFFF", 2);
  expectSyntaxError(R"(("\012",))", "octal escapes are not supported", 2);
  expectSyntaxError("(\"\\\xc3\xa9\",)", "a backslash followed by byte 0xc3 is not a valid escape",
                    2);
}

TEST(TupleText, RejectsBadByteStrings) {
  expectSyntaxError(R"((b"\u0041",))", "not a valid escape in a byte string", 3);
  expectSyntaxError("(b\"caf\xc3\xa9\",)", "only ASCII characters", 6);
  expectSyntaxError(R"((b"\q",))", R"('\q' is not a valid escape)", 3);
}

TEST(TupleText, RejectsBadUuids) {
  expectSyntaxError("(uuid(0123),)", "uuid() needs 32 hex digits, found 4", 6);
  expectSyntaxError("(uuid(),)", "uuid() needs 32 hex digits, found 0", 6);
  expectSyntaxError("(uuid(0123456789abcdef0123456789abcdeg),)", "'g' is not a hex digit", 37);
  expectSyntaxError("(uuid(0123456789abcdef0123456789abcdef0),)",
                    "uuid() needs 32 hex digits, found 33", 6);
  expectSyntaxError("(uuid(0123456789abcdef0123456789abcdef,)", "expected ')' to close uuid(", 38);
}

TEST(TupleText, RejectsBadVersionstamps) {
  expectSyntaxError("(vs(01),)", "vs() needs 20 hex digits, found 2", 4);
  expectSyntaxError("(vs(0102030405060708090a, 70000),)",
                    "user version 70000 is out of range 0..65535", 26);
  expectSyntaxError("(vs(0102030405060708090a, -1),)", "user version -1 is out of range 0..65535",
                    26);
  expectSyntaxError("(vs(0102030405060708090a, 99999999999999999999999),)",
                    "is out of range 0..65535", 26);
  expectSyntaxError("(vs(0102030405060708090a, ),)",
                    "expected a user version (0..65535), found ')'", 26);
  expectSyntaxError("(vs(0102030405060708090a 7),)", "expected ',' or ')' in vs(...), found '7'",
                    25);
}

TEST(TupleText, LimitsNestingDepth) {
  // Like Tuple::unpack: 1000 tuples inside the outermost are fine, the 1001st is refused
  // at its '('.
  auto nested = [](int levels) {
    std::string text(levels, '(');
    text += "()";
    for (int i = 0; i < levels; ++i) text += ",)";
    return text;
  };
  Tuple deep = parseTuple(nested(1000));
  size_t levels = 0;
  for (const Tuple* t = &deep; !t->empty(); t = &t->getTuple(0)) ++levels;
  EXPECT_EQ(levels, 1000u);
  EXPECT_EQ(Tuple::unpack(deep.pack()), deep);
  expectSyntaxError(nested(1001), "tuples are nested more than 1000 deep", 1001);
  expectSyntaxError(std::string(1000000, '('), "tuples are nested more than 1000 deep", 1001);
}

// Every prefix and many corruptions of valid text either parse or throw TupleSyntaxError,
// and what parses formats to text that parses back to the same tuple.
TEST(TupleText, MalformedInputOnlyEverThrowsSyntaxErrors) {
  std::vector<std::string> seeds;
  for (const Tuple& tuple : roundTripSamples()) seeds.push_back(formatTuple(tuple));
  seeds.emplace_back(
      R"(('a', b'\'', None, True, +inf, .5, 1., 1E5, f32(1), "\u00e9\U0001F600\x00", )"
      R"(uuid(0-1-2-3-4-5-6-7-8-9-a-b-c-d-e-f-0-1-2-3-4-5-6-7-8-9-a-b-c-d-e-f), )"
      R"(vs(0102030405060708090a, 1),))");
  auto check = [](const std::string& text) {
    try {
      Tuple parsed = parseTuple(text);
      EXPECT_EQ(parseTuple(formatTuple(parsed)), parsed) << text;
    } catch (const TupleSyntaxError& e) {
      EXPECT_LE(e.position(), text.size()) << text;
    }
  };
  std::mt19937 random(20240601);
  const std::string interesting = "()\"'\\,.-+0123456789abefnuxUvs ";
  for (const std::string& seed : seeds) {
    for (size_t n = 0; n <= seed.size(); ++n) check(seed.substr(0, n));
    for (int round = 0; round < 300; ++round) {
      std::string text = seed;
      int edits = 1 + static_cast<int>(random() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        size_t at = random() % text.size();
        switch (random() % 3) {
          case 0: text.erase(at, 1); break;
          case 1: text[at] = interesting[random() % interesting.size()]; break;
          default: text.insert(at, 1, static_cast<char>(random() % 256)); break;
        }
      }
      check(text);
    }
  }
}

}  // namespace
}  // namespace fdb
