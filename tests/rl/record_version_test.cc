// RecordVersion: the 12-byte layout, its order and its two on-disk encodings (docs/format.md,
// "Record versions"). Every expected byte string is written out from docs/format.md, not taken from
// the code under test.
#include <gtest/gtest.h>

#include <string>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/record/record_version.h"
#include "rl/record_core_exception.h"

namespace {

using fdb::fromHex;
using rl::RecordVersion;

const RecordVersion::GlobalVersion kGlobal = {0x00, 0x00, 0x00, 0x01, 0x02,
                                              0x03, 0x04, 0x05, 0x00, 0x07};

TEST(RecordVersion, TwelveBytesGlobalThenBigEndianLocal) {
  RecordVersion v = RecordVersion::complete(kGlobal, 0x0102);
  EXPECT_EQ(v.toBytes(), fromHex("000000010203040500070102"));
  EXPECT_TRUE(v.isComplete());
  EXPECT_EQ(v.localVersion(), 0x0102);
  EXPECT_EQ(v.dbVersion(), 0x0000000102030405LL);
  EXPECT_EQ(RecordVersion::fromBytes(fromHex("000000010203040500070102")), v);
}

TEST(RecordVersion, IncompleteHasAllOnesGlobalPart) {
  RecordVersion v = RecordVersion::incomplete(7);
  EXPECT_FALSE(v.isComplete());
  EXPECT_EQ(v.toBytes(), fromHex("ffffffffffffffffffff0007"));
  EXPECT_FALSE(RecordVersion::fromBytes(fromHex("ffffffffffffffffffff0007")).isComplete());
  EXPECT_THROW(v.globalVersion(), rl::RecordCoreException);
  EXPECT_THROW(v.dbVersion(), rl::RecordCoreException);
}

TEST(RecordVersion, CompleteRejectsAllOnesAndWrongSizes) {
  RecordVersion::GlobalVersion ones;
  ones.fill(0xff);
  EXPECT_THROW(RecordVersion::complete(ones, 0), rl::RecordCoreArgumentException);
  EXPECT_THROW(RecordVersion::complete(std::string(9, '\0'), 0), rl::RecordCoreArgumentException);
  EXPECT_THROW(RecordVersion::fromBytes(std::string(11, '\0')), rl::RecordCoreArgumentException);
}

TEST(RecordVersion, MinAndMaxVersions) {
  EXPECT_EQ(RecordVersion::minVersion().toBytes(), fromHex("000000000000000000000000"));
  EXPECT_EQ(RecordVersion::maxVersion().toBytes(), fromHex("fffffffffffffffffffeffff"));
  EXPECT_TRUE(RecordVersion::maxVersion().isComplete());
}

TEST(RecordVersion, FirstAndLastInDatabaseVersion) {
  EXPECT_EQ(RecordVersion::firstInDBVersion(0x0102030405060708LL).toBytes(),
            fromHex("010203040506070800000000"));
  EXPECT_EQ(RecordVersion::lastInDBVersion(0x0102030405060708LL).toBytes(),
            fromHex("0102030405060708ffffffff"));
}

TEST(RecordVersion, OrderCompleteBeforeIncompleteThenByLocalVersion) {
  RecordVersion a = RecordVersion::complete(kGlobal, 5);
  RecordVersion b = RecordVersion::complete(kGlobal, 6);
  RecordVersion::GlobalVersion later = kGlobal;
  later[7] = 0x06;
  RecordVersion c = RecordVersion::complete(later, 0);
  RecordVersion i0 = RecordVersion::incomplete(0);
  RecordVersion i1 = RecordVersion::incomplete(1);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, i0);
  EXPECT_LT(RecordVersion::maxVersion(), i0);
  EXPECT_LT(i0, i1);
  EXPECT_LT(RecordVersion::minVersion(), a);
  EXPECT_LT(RecordVersion::firstInDBVersion(0x0000000102030405LL), a);
  EXPECT_LT(b, RecordVersion::lastInDBVersion(0x0000000102030405LL));
}

TEST(RecordVersion, WithCommittedVersionFillsTheGlobalPart) {
  RecordVersion done =
      RecordVersion::incomplete(9).withCommittedVersion(fromHex("00000000000000aa0001"));
  EXPECT_EQ(done.toBytes(), fromHex("00000000000000aa00010009"));
  EXPECT_THROW(done.withCommittedVersion(fromHex("00000000000000aa0001")), rl::RecordCoreException);
}

TEST(RecordVersion, NextAndPrevious) {
  RecordVersion v = RecordVersion::fromBytes(fromHex("0000000000000001000000ff"));
  EXPECT_EQ(v.next().toBytes(), fromHex("000000000000000100000100"));
  EXPECT_EQ(v.next().prev(), v);
  EXPECT_EQ(RecordVersion::incomplete(3).next(), RecordVersion::incomplete(4));
  EXPECT_THROW(RecordVersion::maxVersion().next(), rl::RecordCoreException);
  EXPECT_THROW(RecordVersion::minVersion().prev(), rl::RecordCoreException);
}

TEST(RecordVersion, VersionstampConversionBothWays) {
  RecordVersion v = RecordVersion::complete(kGlobal, 3);
  fdb::Versionstamp stamp = v.toVersionstamp();
  EXPECT_TRUE(stamp.isComplete());
  EXPECT_EQ(stamp.bytes(), v.toBytes());
  EXPECT_EQ(RecordVersion::fromVersionstamp(stamp), v);
  fdb::Versionstamp pending = RecordVersion::incomplete(4).toVersionstamp();
  EXPECT_FALSE(pending.isComplete());
  EXPECT_EQ(pending.userVersion(), 4);
  EXPECT_EQ(RecordVersion::fromVersionstamp(pending), RecordVersion::incomplete(4));
}

// Inline (1, pk, -1): the tuple-packed Versionstamp, 0x33 then the 12 bytes.
TEST(RecordVersion, InlineValueIsTheTuplePackedVersionstamp) {
  RecordVersion v = RecordVersion::complete(kGlobal, 0x0102);
  EXPECT_EQ(v.toInlineValue(), fromHex("33000000010203040500070102"));
  EXPECT_EQ(v.toInlineValue(), fdb::Tuple{v.toVersionstamp()}.pack());
  EXPECT_EQ(RecordVersion::fromInlineValue(fromHex("33000000010203040500070102")), v);
  EXPECT_THROW(RecordVersion::fromInlineValue(fromHex("34000000010203040500070102")),
               rl::RecordCoreStorageException);
  EXPECT_THROW(RecordVersion::fromInlineValue(fromHex("330000")), rl::RecordCoreStorageException);
}

// Incomplete inline: the 13 bytes plus the 4-byte little-endian offset 1 of the global part.
TEST(RecordVersion, IncompleteInlineValueCarriesOffsetOne) {
  RecordVersion v = RecordVersion::incomplete(7);
  EXPECT_EQ(v.toInlineValue(), fromHex("33ffffffffffffffffffff000701000000"));
  EXPECT_EQ(v.toInlineValue(), fdb::Tuple{v.toVersionstamp()}.packWithVersionstamp());
}

// Old format (8, pk): the raw 12 bytes; incomplete ones with the little-endian offset 0.
TEST(RecordVersion, OldFormatValueIsRawTwelveBytes) {
  RecordVersion v = RecordVersion::complete(kGlobal, 0x0102);
  EXPECT_EQ(v.toOldFormatValue(), fromHex("000000010203040500070102"));
  EXPECT_EQ(RecordVersion::fromOldFormatValue(fromHex("000000010203040500070102")), v);
  EXPECT_EQ(RecordVersion::incomplete(7).toOldFormatValue(),
            fromHex("ffffffffffffffffffff000700000000"));
  EXPECT_THROW(RecordVersion::fromOldFormatValue(fromHex("33000000010203040500070102")),
               rl::RecordCoreStorageException);
}

}  // namespace
