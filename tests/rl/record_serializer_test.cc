// The stored-record wrapper of docs/format.md, "Stored record bytes": clear, untransformed,
// zlib-compressed (built here with zlib itself) and encrypted forms.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "fdb/bytes.h"
#include "rl/record/record_serializer.h"
#include "rl/record_core_exception.h"

namespace {

using fdb::fromHex;
using rl::RecordTransform;
using rl::TransformedRecordSerializer;

// A union message: field 1, length-delimited, 3 bytes.
const std::string kUnionMessage = fromHex("0a03616263");

// Byte 0x04 (compressed), version 1, big-endian length, then a zlib stream — by hand.
std::string javaStyleCompressed(const std::string& plain) {
  uLongf size = compressBound(static_cast<uLong>(plain.size()));
  std::string stream(size, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(stream.data()), &size,
                      reinterpret_cast<const Bytef*>(plain.data()),
                      static_cast<uLong>(plain.size()), Z_BEST_COMPRESSION),
            Z_OK);
  stream.resize(size);
  const auto n = static_cast<uint32_t>(plain.size());
  std::string out = fromHex("0401");
  out.push_back(static_cast<char>(n >> 24));
  out.push_back(static_cast<char>(n >> 16));
  out.push_back(static_cast<char>(n >> 8));
  out.push_back(static_cast<char>(n));
  return out + stream;
}

TEST(RecordSerializer, ClearIsPrefixTwoThenTheBytes) {
  TransformedRecordSerializer serializer;
  EXPECT_EQ(serializer.serialize(kUnionMessage), fromHex("02") + kUnionMessage);
  EXPECT_EQ(serializer.deserialize(fromHex("02") + kUnionMessage), kUnionMessage);
  EXPECT_EQ(TransformedRecordSerializer::transformOf(fromHex("02") + kUnionMessage),
            RecordTransform::kClear);
}

// A record written without the wrapper starts with a field tag (wire type 2, field >= 1):
// type 2 with a non-zero "key number", read as the plain message itself.
TEST(RecordSerializer, UntransformedProtobufIsReturnedAsIs) {
  TransformedRecordSerializer serializer;
  EXPECT_EQ(TransformedRecordSerializer::transformOf(kUnionMessage),
            RecordTransform::kUntransformed);
  EXPECT_EQ(serializer.deserialize(kUnionMessage), kUnionMessage);
  const std::string field2 = fromHex("1202ffee");  // field 2
  EXPECT_EQ(serializer.deserialize(field2), field2);
}

TEST(RecordSerializer, ReadsARecordCompressedWithZlib) {
  std::string plain;
  for (int i = 0; i < 200; ++i) plain += "order-" + std::to_string(i % 7) + ";";
  const std::string stored = javaStyleCompressed(plain);
  EXPECT_EQ(TransformedRecordSerializer::transformOf(stored), RecordTransform::kCompressed);
  EXPECT_EQ(TransformedRecordSerializer().deserialize(stored), plain);
}

TEST(RecordSerializer, WritesCompressedRecordsAndReadsThemBack) {
  TransformedRecordSerializer serializer({.compressWhenSerializing = true});
  const std::string plain(5000, 'x');
  const std::string stored = serializer.serialize(plain);
  ASSERT_GT(stored.size(), 6u);
  EXPECT_EQ(stored.substr(0, 6), fromHex("040100001388"));  // 5000 = 0x1388
  EXPECT_LT(stored.size(), plain.size());
  EXPECT_EQ(serializer.deserialize(stored), plain);
  EXPECT_EQ(TransformedRecordSerializer().deserialize(stored), plain);
}

TEST(RecordSerializer, SmallOrIncompressibleRecordsStayClear) {
  TransformedRecordSerializer serializer({.compressWhenSerializing = true});
  EXPECT_EQ(serializer.serialize("abcde"), fromHex("02") + "abcde");
  const std::string noise = fromHex("8f3a91c4e2075bd6a8193fe4710c2b5d");
  EXPECT_EQ(serializer.serialize(noise), fromHex("02") + noise);
}

TEST(RecordSerializer, EncryptedRecordsAreRefused) {
  TransformedRecordSerializer serializer;
  EXPECT_EQ(TransformedRecordSerializer::transformOf(fromHex("01") + kUnionMessage),
            RecordTransform::kEncrypted);
  EXPECT_THROW(serializer.deserialize(fromHex("01") + kUnionMessage),
               rl::RecordSerializationException);
  EXPECT_THROW(serializer.deserialize(fromHex("05") + kUnionMessage),
               rl::RecordSerializationException);
  // Encrypted with key number 1: (1 << 3) | 1.
  EXPECT_EQ(TransformedRecordSerializer::transformOf(fromHex("09") + kUnionMessage),
            RecordTransform::kEncrypted);
  EXPECT_THROW(serializer.deserialize(fromHex("09") + kUnionMessage),
               rl::RecordSerializationException);
}

TEST(RecordSerializer, MalformedCompressedRecordsAreRefused) {
  TransformedRecordSerializer serializer;
  std::string stored = javaStyleCompressed(std::string(100, 'a'));
  std::string wrongLength = stored;
  wrongLength[5] = 99;  // claims 99 bytes
  EXPECT_THROW(serializer.deserialize(wrongLength), rl::RecordSerializationException);
  std::string wrongVersion = stored;
  wrongVersion[1] = 2;
  EXPECT_THROW(serializer.deserialize(wrongVersion), rl::RecordSerializationException);
  std::string withKey = stored;
  withKey[0] = 0x0c;  // compressed, key number 1, but not encrypted
  EXPECT_THROW(serializer.deserialize(withKey), rl::RecordSerializationException);
  EXPECT_THROW(serializer.deserialize(fromHex("06") + "x"), rl::RecordSerializationException);
  EXPECT_THROW(serializer.deserialize(fromHex("0401")), rl::RecordSerializationException);
  EXPECT_THROW(serializer.deserialize(""), rl::RecordSerializationException);
}

}  // namespace
