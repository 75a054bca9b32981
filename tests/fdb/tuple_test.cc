// Byte-exact vectors of the tuple encoding (docs/tuple.md, from FoundationDB's tuple layer
// and its bindings' examples), and the tuple API's behaviour and errors.
#include "fdb/tuple.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "fdb/error.h"

namespace fdb {
namespace {

Bytes hex(std::string_view h) { return fromHex(h); }

void expectEncoding(const Tuple& tuple, std::string_view expectedHex) {
  EXPECT_EQ(toHex(tuple.pack()), expectedHex);
  EXPECT_EQ(Tuple::unpack(hex(expectedHex)), tuple) << expectedHex;
}

template <typename F>
int errorCode(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

TEST(TupleEncoding, EmptyTupleIsEmptyBytes) { expectEncoding(Tuple{}, ""); }

TEST(TupleEncoding, Null) {
  expectEncoding(Tuple{nullptr}, "00");
  expectEncoding(Tuple{nullptr, nullptr}, "0000");
}

TEST(TupleEncoding, ByteStringEscapesZeroBytes) {
  expectEncoding(Tuple{ByteString{std::string("foo\x00"
                                              "bar",
                                              7)}},
                 "01666f6f00ff62617200");
  expectEncoding(Tuple{ByteString{""}}, "0100");
  expectEncoding(Tuple{ByteString{std::string("\x00", 1)}}, "0100ff00");
  expectEncoding(Tuple{ByteString{"\xff"}}, "01ff00");
}

TEST(TupleEncoding, UnicodeStringIsUtf8) {
  // "F\u00d4O\u0000bar" from design/tuple.md.
  expectEncoding(Tuple{std::string("F\xc3\x94O\x00"
                                   "bar",
                                   8)},
                 "0246c3944f00ff62617200");
  expectEncoding(Tuple{"hello"}, "0268656c6c6f00");
}

TEST(TupleEncoding, NestedTupleEscapesNull) {
  Tuple nested{ByteString{std::string("foo\x00"
                                      "bar",
                                      7)},
               nullptr, Tuple{}};
  expectEncoding(Tuple{nested}, "0501666f6f00ff6261720000ff050000");
  expectEncoding(Tuple{Tuple{nullptr}}, "0500ff00");
  expectEncoding(Tuple{Tuple{}}, "0500");
  expectEncoding(Tuple{Tuple{Tuple{nullptr, "a"}}, nullptr},
                 "050500ff02610000"
                 "0000");
}

TEST(TupleEncoding, SmallIntegers) {
  expectEncoding(Tuple{0}, "14");
  expectEncoding(Tuple{1}, "1501");
  expectEncoding(Tuple{-1}, "13fe");
  expectEncoding(Tuple{255}, "15ff");
  expectEncoding(Tuple{256}, "160100");
  expectEncoding(Tuple{-255}, "1300");
  expectEncoding(Tuple{-256}, "12feff");
  expectEncoding(Tuple{-5551212}, "11ab4b93");
  expectEncoding(Tuple{int64_t{1} << 32}, "190100000000");
  expectEncoding(Tuple{std::numeric_limits<int64_t>::max()}, "1c7fffffffffffffff");
  expectEncoding(Tuple{std::numeric_limits<int64_t>::min()}, "0c7fffffffffffffff");
}

TEST(TupleEncoding, UnsignedSixtyFourBitValuesUseEightBytesAsJavaDoes) {
  expectEncoding(Tuple{std::numeric_limits<uint64_t>::max()}, "1cffffffffffffffff");
  expectEncoding(Tuple{uint64_t{1} << 63}, "1c8000000000000000");
  expectEncoding(Tuple{BigInt::parse("-18446744073709551615")}, "0c0000000000000000");
  expectEncoding(Tuple{BigInt::parse("-9223372036854775809")}, "0c7ffffffffffffffe");
}

TEST(TupleEncoding, BigIntegersBeyondEightBytes) {
  expectEncoding(Tuple{BigInt::parse("18446744073709551616")}, "1d09010000000000000000");
  expectEncoding(Tuple{BigInt::parse("-18446744073709551616")}, "0bf6feffffffffffffffff");
  BigInt big = BigInt::fromMagnitude(false, Bytes(255, '\xff'));
  EXPECT_EQ(toHex(Tuple{big}.pack()), "1dff" + std::string(510, 'f'));
  EXPECT_EQ(Tuple::unpack(Tuple{big}.pack()), Tuple{big});
  BigInt negative = BigInt::fromMagnitude(true, Bytes(255, '\xff'));
  EXPECT_EQ(toHex(Tuple{negative}.pack()), "0b00" + std::string(510, '0'));
}

TEST(TupleEncoding, PythonFormOfEightByteMagnitudesIsAccepted) {
  // Python writes magnitudes >= 2^64-1 with 0x1d/0x0b.
  EXPECT_EQ(Tuple::unpack(hex("1d08ffffffffffffffff")),
            Tuple{std::numeric_limits<uint64_t>::max()});
  EXPECT_EQ(Tuple::unpack(hex("0bf70000000000000000")),
            Tuple{BigInt::parse("-18446744073709551615")});
  // Any length is read, even where a shorter code would do.
  EXPECT_EQ(Tuple::unpack(hex("1d0105")), Tuple{5});
  EXPECT_EQ(Tuple::unpack(hex("0bfefa")), Tuple{-5});
}

TEST(TupleEncoding, IntegerOverTwoHundredFiftyFiveBytesIsRefused) {
  BigInt huge = BigInt::fromMagnitude(false, Bytes(256, '\x01'));
  EXPECT_EQ(errorCode([&] { Tuple{huge}.pack(); }), errors::kInvalidTupleDataType);
}

TEST(TupleEncoding, FloatsAndDoubles) {
  expectEncoding(Tuple{-42.0f}, "203dd7ffff");
  expectEncoding(Tuple{42.0f}, "20c2280000");
  expectEncoding(Tuple{-42.0}, "213fbaffffffffffff");
  expectEncoding(Tuple{0.0}, "218000000000000000");
  expectEncoding(Tuple{-0.0}, "217fffffffffffffff");
  expectEncoding(Tuple{std::numeric_limits<double>::infinity()}, "21fff0000000000000");
  expectEncoding(Tuple{-std::numeric_limits<double>::infinity()}, "21000fffffffffffff");
  expectEncoding(Tuple{std::numeric_limits<double>::quiet_NaN()}, "21fff8000000000000");
  expectEncoding(Tuple{1.5f}, "20bfc00000");
}

TEST(TupleEncoding, BooleansUuidsVersionstamps) {
  expectEncoding(Tuple{false}, "26");
  expectEncoding(Tuple{true}, "27");
  Uuid uuid = Uuid::parse("00112233-4455-6677-8899-aabbccddeeff");
  expectEncoding(Tuple{uuid}, "3000112233445566778899aabbccddeeff");
  Versionstamp vs = Versionstamp::complete({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0x0b0c);
  expectEncoding(Tuple{vs}, "330102030405060708090a0b0c");
}

TEST(TupleEncoding, MixedTuple) {
  expectEncoding(Tuple{"a", 1, nullptr, true, ByteString{"\x01"}}, "02610015010027010100");
}

TEST(TupleVersionstamp, PackRefusesIncompleteVersionstamp) {
  Tuple t{"a", Versionstamp::incomplete()};
  EXPECT_TRUE(t.hasIncompleteVersionstamp());
  EXPECT_EQ(errorCode([&] { t.pack(); }), errors::kClientInvalidOperation);
}

TEST(TupleVersionstamp, PackWithVersionstampAppendsLittleEndianOffset) {
  Tuple t{"a", Versionstamp::incomplete(7)};
  // prefix 'p', 02 61 00, 33 at offset 4, transaction version at offset 5.
  EXPECT_EQ(toHex(t.packWithVersionstamp("p")), "7002610033ffffffffffffffffffff000705000000");
  EXPECT_EQ(toHex(t.packWithVersionstamp()), "02610033ffffffffffffffffffff000704000000");
}

TEST(TupleVersionstamp, OffsetCountsIntoNestedTuples) {
  Tuple t{1, Tuple{"x", Versionstamp::incomplete()}};
  Bytes packed = t.packWithVersionstamp();
  // 15 01 | 05 02 78 00 33 <10 bytes> 00 00 00 | offset
  EXPECT_EQ(toHex(packed.substr(packed.size() - 4)), "07000000");
  EXPECT_EQ(packed.substr(7, 10), Bytes(10, '\xff'));
}

TEST(TupleVersionstamp, PackWithVersionstampNeedsExactlyOne) {
  EXPECT_EQ(errorCode([] { Tuple{"a"}.packWithVersionstamp(); }), errors::kClientInvalidOperation);
  Tuple two{Versionstamp::incomplete(), Tuple{Versionstamp::incomplete(1)}};
  EXPECT_EQ(errorCode([&] { two.packWithVersionstamp(); }), errors::kClientInvalidOperation);
  Tuple complete{Versionstamp::complete({0, 0, 0, 0, 0, 0, 0, 1, 0, 0})};
  EXPECT_FALSE(complete.hasIncompleteVersionstamp());
  EXPECT_EQ(errorCode([&] { complete.packWithVersionstamp(); }), errors::kClientInvalidOperation);
}

TEST(TupleVersionstamp, CompletenessAndBytes) {
  EXPECT_FALSE(Versionstamp::incomplete().isComplete());
  Versionstamp::TransactionVersion almost;
  almost.fill(0xff);
  almost[9] = 0xfe;
  EXPECT_TRUE(Versionstamp::complete(almost).isComplete());
  EXPECT_EQ(toHex(Versionstamp::incomplete(0x1234).bytes()), "ffffffffffffffffffff1234");
  EXPECT_EQ(Versionstamp::fromBytes(hex("0102030405060708090a0b0c")).userVersion(), 0x0b0c);
  EXPECT_EQ(errorCode([] { Versionstamp::fromBytes("short"); }), errors::kInvalidVersionstampSize);
}

TEST(TupleUnpack, MalformedInputIsAClearError) {
  struct Case {
    std::string_view hex;
    std::string_view detail;
  };
  const Case cases[] = {
      {"01666f6f", "unterminated byte string at byte 0"},
      {"02", "unterminated unicode string at byte 0"},
      {"1601", "truncated integer at byte 0"},
      {"141c0102", "truncated integer at byte 1"},
      {"1d", "truncated integer length at byte 0"},
      {"1d0501", "truncated integer at byte 0"},
      {"0b", "truncated integer length at byte 0"},
      {"20010203", "truncated float at byte 0"},
      {"2101", "truncated double at byte 0"},
      {"30", "truncated UUID at byte 0"},
      {"33010203", "truncated versionstamp at byte 0"},
      {"0501", "unterminated byte string at byte 1"},
      {"05", "unterminated nested tuple at byte 0"},
      {"0515", "truncated integer at byte 1"},
      {"03", "unknown type code 0x03 at byte 0"},
      {"1425", "unknown type code 0x25 at byte 1"},
      {"ff", "unknown type code 0xff at byte 0"},
      {"0a", "unknown type code 0x0a at byte 0"},
      {"1e", "unknown type code 0x1e at byte 0"},
      {"00ff", "unknown type code 0xff at byte 1"},
  };
  for (const Case& c : cases) {
    try {
      Tuple::unpack(hex(c.hex));
      ADD_FAILURE() << c.hex << " unpacked";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errors::kInvalidTupleDataType) << c.hex;
      EXPECT_EQ(e.detail(), c.detail) << c.hex;
    }
  }
}

TEST(TupleUnpack, DeepNestingIsRefusedNotAStackOverflow) {
  Bytes deep(100000, '\x05');
  EXPECT_EQ(errorCode([&] { Tuple::unpack(deep); }), errors::kInvalidTupleDataType);
}

TEST(TupleAccess, TypedGettersAndTheirErrors) {
  Tuple t{"s", ByteString{"b"}, 7, 1.5, 2.5f, true, nullptr, Tuple{1}};
  EXPECT_EQ(t.getString(0), "s");
  EXPECT_EQ(t.getBytes(1), "b");
  EXPECT_EQ(t.getInt(2), 7);
  EXPECT_EQ(t.getBigInt(2), BigInt(7));
  EXPECT_EQ(t.getDouble(3), 1.5);
  EXPECT_EQ(t.getFloat(4), 2.5f);
  EXPECT_TRUE(t.getBool(5));
  EXPECT_TRUE(t.isNull(6));
  EXPECT_EQ(t.getTuple(7), Tuple{1});
  EXPECT_EQ(t.at(2).type(), TupleType::kInteger);

  EXPECT_EQ(errorCode([&] { t.getInt(0); }), errors::kInvalidTupleDataType);
  EXPECT_EQ(errorCode([&] { t.getString(1); }), errors::kInvalidTupleDataType);
  EXPECT_EQ(errorCode([&] { t.getDouble(4); }), errors::kInvalidTupleDataType);
  EXPECT_EQ(errorCode([&] { t.at(8); }), errors::kInvalidTupleIndex);
  EXPECT_EQ(errorCode([&] { Tuple{BigInt::parse("99999999999999999999")}.getInt(0); }),
            errors::kInvalidTupleDataType);
}

TEST(TupleAccess, IntegersAreOneTypeWhateverTheirCppForm) {
  EXPECT_EQ(Tuple{BigInt(5)}, Tuple{5});
  EXPECT_EQ(Tuple{uint64_t{5}}, Tuple{int16_t{5}});
  EXPECT_TRUE(std::holds_alternative<int64_t>(Tuple{BigInt(5)}[0].value()));
  EXPECT_TRUE(
      std::holds_alternative<BigInt>(Tuple{std::numeric_limits<uint64_t>::max()}[0].value()));
}

TEST(TupleAccess, AppendNestsAndAppendAllConcatenates) {
  Tuple t{1};
  t.append(Tuple{2, 3});
  EXPECT_EQ(t.size(), 2u);
  t.appendAll(Tuple{4, 5});
  EXPECT_EQ(t, (Tuple{1, Tuple{2, 3}, 4, 5}));
}

TEST(TupleOrder, TypesThenValues) {
  std::vector<Tuple> ascending = {
      Tuple{},
      Tuple{nullptr},
      Tuple{ByteString{""}},
      Tuple{ByteString{"a"}},
      Tuple{""},
      Tuple{Tuple{}},
      Tuple{BigInt::parse("-18446744073709551616")},
      Tuple{std::numeric_limits<int64_t>::min()},
      Tuple{-1},
      Tuple{0},
      Tuple{std::numeric_limits<int64_t>::max()},
      Tuple{std::numeric_limits<uint64_t>::max()},
      Tuple{-std::numeric_limits<float>::infinity()},
      Tuple{std::numeric_limits<float>::infinity()},
      Tuple{-std::numeric_limits<double>::quiet_NaN()},
      Tuple{-0.0},
      Tuple{0.0},
      Tuple{std::numeric_limits<double>::quiet_NaN()},
      Tuple{false},
      Tuple{true},
      Tuple{Uuid{}},
      Tuple{Versionstamp::complete({})},
  };
  for (size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(ascending[i], ascending[i + 1]) << i;
    EXPECT_LT(ascending[i].pack(), ascending[i + 1].pack()) << i;
  }
}

TEST(TupleOrder, PrefixSortsFirst) {
  EXPECT_LT((Tuple{"a"}), (Tuple{"a", nullptr}));
  EXPECT_LT((Tuple{"a"}).pack(), (Tuple{"a", nullptr}).pack());
}

TEST(TupleRange, CoversExactlyTheExtendingTuples) {
  KeyRange r = Tuple{"a", 1}.range();
  EXPECT_EQ(toHex(r.begin),
            "0261001501"
            "00");
  EXPECT_EQ(toHex(r.end),
            "0261001501"
            "ff");
  EXPECT_TRUE(r.contains(Tuple{"a", 1, nullptr}.pack()));
  EXPECT_TRUE(r.contains(Tuple{"a", 1, Versionstamp::complete({9})}.pack()));
  EXPECT_FALSE(r.contains(Tuple{"a", 1}.pack()));
  EXPECT_FALSE(r.contains(Tuple{"a", 2}.pack()));
}

TEST(BigIntTest, ParseAndPrintDecimal) {
  for (std::string_view text : {"0", "1", "-1", "255", "-256", "18446744073709551616",
                                "-340282366920938463463374607431768211456",
                                "123456789012345678901234567890123456789012345678901234567890"}) {
    EXPECT_EQ(BigInt::parse(text).toString(), text);
  }
  EXPECT_EQ(BigInt::parse("+007").toString(), "7");
  EXPECT_EQ(BigInt::parse("-0").toString(), "0");
  EXPECT_FALSE(BigInt::parse("-0").isNegative());
  EXPECT_THROW(BigInt::parse(""), std::invalid_argument);
  EXPECT_THROW(BigInt::parse("-"), std::invalid_argument);
  EXPECT_THROW(BigInt::parse("12a"), std::invalid_argument);
}

TEST(BigIntTest, ToInt64Boundaries) {
  EXPECT_EQ(BigInt::parse("9223372036854775807").toInt64(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(BigInt::parse("-9223372036854775808").toInt64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(BigInt::parse("9223372036854775808").toInt64(), std::nullopt);
  EXPECT_EQ(BigInt::parse("-9223372036854775809").toInt64(), std::nullopt);
  EXPECT_EQ(BigInt(std::numeric_limits<int64_t>::min()).toString(), "-9223372036854775808");
}

TEST(BigIntTest, Order) {
  EXPECT_LT(BigInt::parse("-1000"), BigInt::parse("-999"));
  EXPECT_LT(BigInt::parse("-1"), BigInt::parse("0"));
  EXPECT_LT(BigInt::parse("255"), BigInt::parse("256"));
  EXPECT_LT(BigInt::parse("-18446744073709551617"), BigInt::parse("-18446744073709551616"));
}

TEST(UuidTest, ParseAndFormat) {
  Uuid u = Uuid::parse("0123456789ABCDEF0123456789abcdef");
  EXPECT_EQ(u.toString(), "01234567-89ab-cdef-0123-456789abcdef");
  EXPECT_EQ(Uuid::parse(u.toString()), u);
  EXPECT_EQ(errorCode([] { Uuid::parse("0123"); }), errors::kInvalidUuidSize);
  EXPECT_EQ(errorCode([] { Uuid::parse("0123456789abcdef0123456789abcdeg"); }),
            errors::kInvalidUuidSize);
}

}  // namespace
}  // namespace fdb
