#include "rl/record/record_serializer.h"

#include <fmt/format.h>
#include <zlib.h>
#include <cstdint>
#include <optional>

#include "rl/record_core_exception.h"

namespace rl {
namespace {

struct Prefix {
  int type;            // the low 3 bits
  uint64_t keyNumber;  // the rest
  size_t length;       // bytes the varint took
};

Prefix readPrefix(std::string_view stored) {
  uint64_t value = 0;
  for (size_t i = 0; i < stored.size() && i < 10; ++i) {
    const auto byte = static_cast<uint8_t>(stored[i]);
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      return Prefix{static_cast<int>(value & 0x7), value >> 3, i + 1};
    }
  }
  throw RecordSerializationException("stored record has no valid transformation prefix");
}

void appendVarint(fdb::Bytes& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Version byte, big-endian length, zlib stream; nullopt when that is not smaller.
std::optional<fdb::Bytes> compressPayload(std::string_view bytes, int level) {
  uLongf bound = compressBound(static_cast<uLong>(bytes.size()));
  fdb::Bytes out(5 + bound, '\0');
  out[0] = static_cast<char>(TransformedRecordSerializer::kCompressionVersion);
  const auto size = static_cast<uint32_t>(bytes.size());
  for (int i = 0; i < 4; ++i) out[1 + i] = static_cast<char>(size >> (8 * (3 - i)));
  if (compress2(reinterpret_cast<Bytef*>(out.data() + 5), &bound,
                reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                level) != Z_OK) {
    throw RecordSerializationException("zlib could not compress the record");
  }
  out.resize(5 + bound);
  if (out.size() >= bytes.size()) return std::nullopt;
  return out;
}

fdb::Bytes decompressPayload(std::string_view payload) {
  if (payload.size() < 5) throw RecordSerializationException("compressed record is truncated");
  const int version = static_cast<uint8_t>(payload[0]);
  if (version != TransformedRecordSerializer::kCompressionVersion) {
    throw RecordSerializationException(
        fmt::format("unknown compression version {} of a stored record", version));
  }
  uint32_t length = 0;
  for (int i = 1; i <= 4; ++i) length = (length << 8) | static_cast<uint8_t>(payload[i]);
  fdb::Bytes out(length, '\0');
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) throw RecordSerializationException("zlib inflateInit failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(payload.data() + 5));
  stream.avail_in = static_cast<uInt>(payload.size() - 5);
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&stream, Z_FINISH);
  const uLong produced = stream.total_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END || produced != length) {
    throw RecordSerializationException(fmt::format(
        "compressed record does not inflate to its stated {} bytes (zlib status {}, {} bytes)",
        length, status, produced));
  }
  return out;
}

}  // namespace

RecordTransform TransformedRecordSerializer::transformOf(std::string_view stored) {
  const Prefix prefix = readPrefix(stored);
  switch (prefix.type) {
    case kPrefixClear:
      // A plain message starts with a length-delimited field tag: wire type 2, field >= 1.
      return prefix.keyNumber != 0 ? RecordTransform::kUntransformed : RecordTransform::kClear;
    case kPrefixCompressed: return RecordTransform::kCompressed;
    case kPrefixEncrypted: return RecordTransform::kEncrypted;
    case kPrefixCompressedThenEncrypted: return RecordTransform::kCompressedThenEncrypted;
    default:
      throw RecordSerializationException(
          fmt::format("unknown transformation {} of a stored record", prefix.type));
  }
}

fdb::Bytes TransformedRecordSerializer::serialize(std::string_view recordBytes) const {
  fdb::Bytes out;
  if (options_.compressWhenSerializing && recordBytes.size() > 5) {
    if (std::optional<fdb::Bytes> compressed =
            compressPayload(recordBytes, options_.compressionLevel)) {
      appendVarint(out, kPrefixCompressed);
      out += *compressed;
      return out;
    }
  }
  appendVarint(out, kPrefixClear);
  out += recordBytes;
  return out;
}

fdb::Bytes TransformedRecordSerializer::deserialize(std::string_view stored) const {
  const Prefix prefix = readPrefix(stored);
  const RecordTransform transform = transformOf(stored);
  const std::string_view payload = stored.substr(prefix.length);
  switch (transform) {
    case RecordTransform::kUntransformed: return fdb::Bytes(stored);
    case RecordTransform::kClear: return fdb::Bytes(payload);
    case RecordTransform::kCompressed:
      if (prefix.keyNumber != 0) {
        throw RecordSerializationException("an unencrypted record names an encryption key");
      }
      return decompressPayload(payload);
    case RecordTransform::kEncrypted:
    case RecordTransform::kCompressedThenEncrypted:
      throw RecordSerializationException(fmt::format(
          "the stored record is encrypted (key number {}); this reader has no encryption keys",
          prefix.keyNumber));
  }
  throw RecordSerializationException("unknown transformation of a stored record");
}

}  // namespace rl
