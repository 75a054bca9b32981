// How a record message becomes the bytes a store keeps and back (docs/format.md, "Union message"):
// the schema's union message with exactly one field set, the record's type's field. Written
// directly on the wire (a tag, a length, the record), so no union message is built; read by walking
// the union's fields without parsing them, so the record's bytes are parsed once, into the
// message the caller wants.
#pragma once

#include <memory>
#include <string_view>

#include <google/protobuf/message.h>

#include "fdb/bytes.h"
#include "rl/metadata/metadata.h"
#include "rl/metadata/record_type.h"
#include "rl/record/record_serializer.h"

namespace rl::store {

// Appends the union message holding `record` in `type`'s union field to `out`. Throws
// RecordCoreArgumentException when a required field of `record` is missing.
void appendUnionMessage(const RecordType& type, const google::protobuf::Message& record,
                        fdb::Bytes& out);

// The record inside a serialized union message.
struct UnionRecord {
  const RecordType* type = nullptr;
  std::string_view bytes;  // the record message's bytes (views the input)
  bool isMerged = false;   // the field occurs more than once: `merged` joins them
  fdb::Bytes merged;

  std::string_view recordBytes() const { return isMerged ? std::string_view(merged) : bytes; }
};

// Finds the one record field of a union message. Throws RecordDeserializationException
// when the message has unknown fields, more than one known field, or none.
UnionRecord findUnionRecord(const RecordMetaData& metaData, std::string_view unionBytes);

// Parses `bytes` (a record of `type`) into `message`. Throws RecordDeserializationException.
void parseRecord(const RecordType& type, std::string_view bytes,
                 google::protobuf::Message& message);

// The record inside the bytes a store keeps: its union message, unwrapped first when
// `serializer` finds it compressed (into `buffer`, which the result may view).
UnionRecord findStoredRecord(const RecordMetaData& metaData,
                             const TransformedRecordSerializer& serializer, std::string_view stored,
                             fdb::Bytes& buffer);

// `factory`'s prototype of `type`'s message. RecordCoreException when it has none.
const google::protobuf::Message& prototypeOf(google::protobuf::MessageFactory& factory,
                                             const RecordType& type);

// The record inside the bytes a store keeps, parsed into a new message made by `factory`;
// `type` is set to its type. Throws what findStoredRecord and parseRecord throw.
std::unique_ptr<google::protobuf::Message> parseStoredRecord(
    const RecordMetaData& metaData, google::protobuf::MessageFactory& factory,
    const TransformedRecordSerializer& serializer, std::string_view stored,
    const RecordType*& type);

}  // namespace rl::store
