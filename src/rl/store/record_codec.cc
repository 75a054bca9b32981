#include "rl/store/record_codec.h"

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "rl/store/record_store_exception.h"

namespace rl::store {

using google::protobuf::internal::WireFormatLite;
namespace io = google::protobuf::io;

void appendUnionMessage(const RecordType& type, const google::protobuf::Message& record,
                        fdb::Bytes& out) {
  if (!record.IsInitialized()) {
    throw RecordCoreArgumentException(
        fmt::format("record of type {} is missing required fields: {}", type.name(),
                    record.InitializationErrorString()));
  }
  const size_t size = record.ByteSizeLong();
  const uint32_t tag = WireFormatLite::MakeTag(type.unionField().number(),
                                               WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  const size_t header =
      io::CodedOutputStream::VarintSize32(tag) + io::CodedOutputStream::VarintSize64(size);
  const size_t start = out.size();
  out.resize(start + header + size);
  auto* target = reinterpret_cast<uint8_t*>(out.data() + start);
  target = io::CodedOutputStream::WriteVarint32ToArray(tag, target);
  target = io::CodedOutputStream::WriteVarint64ToArray(size, target);
  record.SerializeWithCachedSizesToArray(target);
}

UnionRecord findUnionRecord(const RecordMetaData& metaData, std::string_view unionBytes) {
  const google::protobuf::Descriptor& unionType = metaData.unionDescriptor();
  io::CodedInputStream input(reinterpret_cast<const uint8_t*>(unionBytes.data()),
                             static_cast<int>(unionBytes.size()));
  UnionRecord found;
  int fieldNumber = 0;
  int occurrences = 0;
  while (true) {
    const uint32_t tag = input.ReadTag();
    if (tag == 0) {
      if (!input.ConsumedEntireMessage() ||
          input.CurrentPosition() != static_cast<int>(unionBytes.size())) {
        throw RecordDeserializationException(
            "Could not deserialize union message: malformed bytes");
      }
      break;
    }
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    const google::protobuf::FieldDescriptor* field = unionType.FindFieldByNumber(number);
    if (field == nullptr || field->message_type() == nullptr ||
        WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      throw RecordDeserializationException(
          fmt::format("Could not deserialize union message because there are unknown fields "
                      "(field {} of {})",
                      number, unionType.full_name()));
    }
    if (fieldNumber != 0 && number != fieldNumber) {
      throw RecordDeserializationException(
          fmt::format("Could not deserialize union message because there are extra known "
                      "fields ({} and {} of {})",
                      fieldNumber, number, unionType.full_name()));
    }
    uint32_t length = 0;
    if (!input.ReadVarint32(&length) ||
        static_cast<size_t>(input.CurrentPosition()) + length > unionBytes.size()) {
      throw RecordDeserializationException("Could not deserialize union message: truncated field");
    }
    const std::string_view bytes =
        unionBytes.substr(static_cast<size_t>(input.CurrentPosition()), length);
    input.Skip(static_cast<int>(length));
    if (occurrences == 0) {
      fieldNumber = number;
      found.type = &metaData.recordTypeForDescriptor(*field->message_type());
      found.bytes = bytes;
    } else {
      // A message field seen twice merges, as protobuf parsing does: parse the joined bytes.
      if (occurrences == 1) found.merged.assign(found.bytes);
      found.merged.append(bytes);
    }
    ++occurrences;
  }
  if (occurrences == 0) {
    throw RecordDeserializationException(
        "Could not deserialize union message because there are no fields (" +
        unionType.full_name() + ")");
  }
  found.isMerged = occurrences > 1;
  return found;
}

void parseRecord(const RecordType& type, std::string_view bytes,
                 google::protobuf::Message& message) {
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw RecordDeserializationException(fmt::format(
        "Could not deserialize a record of type {} ({} bytes)", type.name(), bytes.size()));
  }
}

UnionRecord findStoredRecord(const RecordMetaData& metaData,
                             const TransformedRecordSerializer& serializer, std::string_view stored,
                             fdb::Bytes& buffer) {
  if (!stored.empty() &&
      TransformedRecordSerializer::transformOf(stored) != RecordTransform::kUntransformed) {
    buffer = serializer.deserialize(stored);
    stored = buffer;
  }
  return findUnionRecord(metaData, stored);
}

const google::protobuf::Message& prototypeOf(google::protobuf::MessageFactory& factory,
                                             const RecordType& type) {
  const google::protobuf::Message* prototype = factory.GetPrototype(&type.descriptor());
  if (prototype == nullptr) {
    throw RecordCoreException("no message factory prototype for " + type.descriptor().full_name());
  }
  return *prototype;
}

std::unique_ptr<google::protobuf::Message> parseStoredRecord(
    const RecordMetaData& metaData, google::protobuf::MessageFactory& factory,
    const TransformedRecordSerializer& serializer, std::string_view stored,
    const RecordType*& type) {
  fdb::Bytes buffer;
  const UnionRecord found = findStoredRecord(metaData, serializer, stored, buffer);
  type = found.type;
  std::unique_ptr<google::protobuf::Message> message(prototypeOf(factory, *found.type).New());
  parseRecord(*found.type, found.recordBytes(), *message);
  return message;
}

}  // namespace rl::store
