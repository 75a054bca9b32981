// The optional compression / encryption wrapper around serialized records (docs/format.md, "Stored
// record bytes"), byte for byte as the Java Record Layer's TransformedRecordSerializer writes it.
//
// Stored bytes start with a protobuf varint: low 3 bits the transformation (1 encrypted,
// 2 clear, 4 compressed, 5 compressed then encrypted), the rest the encryption key number.
// A compressed payload is version byte 1, the uncompressed length as 4 big-endian bytes,
// then a zlib stream. Records written with no wrapper at all (a plain union message, whose
// first byte is a length-delimited field tag) are recognised and returned as they are.
// Encrypted records cannot be read here (no key management): they are refused.
//
//   rl::TransformedRecordSerializer serializer({.compressWhenSerializing = true});
//   fdb::Bytes stored = serializer.serialize(unionMessageBytes);
//   fdb::Bytes back = serializer.deserialize(stored);   // == unionMessageBytes
//
// Independent of message types: it maps bytes to bytes. Thread-safety: const, stateless.
#pragma once

#include <string_view>

#include "fdb/bytes.h"

namespace rl {

enum class RecordTransform {
  kUntransformed,  // a plain protobuf message with no prefix
  kClear,
  kCompressed,
  kEncrypted,
  kCompressedThenEncrypted,
};

struct RecordSerializerOptions {
  // Compress on write (when that makes the record smaller and it is over 5 bytes).
  bool compressWhenSerializing = false;
  // zlib level 0..9 (9, best compression, is the Java default).
  int compressionLevel = 9;
};

class TransformedRecordSerializer {
 public:
  // The varint type codes.
  static constexpr int kPrefixEncrypted = 1;
  static constexpr int kPrefixClear = 2;
  static constexpr int kPrefixCompressed = 4;
  static constexpr int kPrefixCompressedThenEncrypted = 5;
  static constexpr int kCompressionVersion = 1;

  explicit TransformedRecordSerializer(RecordSerializerOptions options = {}) : options_(options) {}

  // The stored form of a serialized record: the prefix and the (maybe compressed) bytes.
  fdb::Bytes serialize(std::string_view recordBytes) const;
  // The serialized record inside `stored`. Throws RecordSerializationException for
  // encrypted, malformed or unknown forms.
  fdb::Bytes deserialize(std::string_view stored) const;
  // Which transformation `stored` carries. Throws RecordSerializationException when its
  // prefix is malformed.
  static RecordTransform transformOf(std::string_view stored);

 private:
  RecordSerializerOptions options_;
};

}  // namespace rl
