// `rl tuple pack|unpack`, run as a user would run it.
#include <gtest/gtest.h>

#include "cli/run_rl.h"

namespace rl::test {
namespace {

TEST(RlTuple, PackPrintsLowercaseHex) {
  RunResult r = runRl({"tuple", "pack", R"(("a", 1, -2.5, null, true, b"\x00\xff", ("nested",)))"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "0261001501213ffbffffffffffff00270100ffff0005026e65737465640000\n");
  EXPECT_EQ(r.err, "");
}

TEST(RlTuple, UnpackPrintsTheTuple) {
  RunResult r =
      runRl({"tuple", "unpack", "0261001501213ffbffffffffffff00270100ffff0005026e65737465640000"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "(\"a\", 1, -2.5, null, true, b\"\\x00\\xff\", (\"nested\",))\n");
}

TEST(RlTuple, UnpackAcceptsUppercaseSpacesAndPrefix) {
  RunResult r = runRl({"tuple", "unpack", "0x15 2A"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "(42,)\n");
}

TEST(RlTuple, BigIntegersRoundTrip) {
  RunResult packed = runRl({"tuple", "pack", "(18446744073709551616, -18446744073709551615)"});
  ASSERT_EQ(packed.exitCode, 0) << packed.err;
  EXPECT_EQ(packed.out,
            "1d09010000000000000000"
            "0c0000000000000000\n");
  RunResult unpacked = runRl({"tuple", "unpack", packed.out.substr(0, packed.out.size() - 1)});
  EXPECT_EQ(unpacked.out, "(18446744073709551616, -18446744073709551615)\n");
}

TEST(RlTuple, PackWithVersionstamp) {
  RunResult plain = runRl({"tuple", "pack", R"(("k", vs()))"});
  EXPECT_EQ(plain.exitCode, 1);
  EXPECT_NE(plain.err.find("incomplete versionstamp"), std::string::npos) << plain.err;
  RunResult r = runRl({"tuple", "pack", "--versionstamp", R"(("k", vs()))"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "026b0033ffffffffffffffffffff000004000000\n");
}

TEST(RlTuple, BadTupleSaysWhatAndWhere) {
  RunResult r = runRl({"tuple", "pack", R"(("a", 1 2))"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("rl: error: bad tuple at character 9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n  (\"a\", 1 2)\n          ^"), std::string::npos) << r.err;
}

TEST(RlTuple, ErrorColumnCountsCharactersNotBytes) {
  RunResult r = runRl({"tuple", "pack", "(\"\xc3\xa9\xc3\xa9\" 1)"});  // ("éé" 1)
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("bad tuple at character 7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n        ^"), std::string::npos) << r.err;
}

TEST(RlTuple, BadHexSaysWhere) {
  RunResult r = runRl({"tuple", "unpack", "15zz"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "rl: error: bad hex: 'z' at position 2 is not a hex digit\n");
}

TEST(RlTuple, MalformedTupleBytesAreAnFdbError) {
  RunResult r = runRl({"tuple", "unpack", "1601"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "rl: error: invalid_tuple_data_type (2250): truncated integer at byte 0\n");
}

TEST(RlTuple, MissingArgumentIsAUsageError) {
  RunResult r = runRl({"tuple", "pack"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("tuple is required"), std::string::npos) << r.err;
  RunResult none = runRl({});
  EXPECT_NE(none.exitCode, 0);
}

}  // namespace
}  // namespace rl::test
