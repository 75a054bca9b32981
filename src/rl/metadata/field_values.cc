#include "rl/metadata/field_values.h"

#include <array>
#include <string>
#include <string_view>

#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr std::string_view kTupleFieldsPackage = "com.apple.foundationdb.record.";

constexpr std::array<std::string_view, 8> kTupleFieldMessages = {
    "UUID",          "NullableDouble", "NullableFloat",  "NullableInt32",
    "NullableInt64", "NullableBool",   "NullableString", "NullableBytes",
};

fdb::Uuid uuidFromHalves(int64_t mostSignificant, int64_t leastSignificant) {
  fdb::Uuid uuid;
  auto high = static_cast<uint64_t>(mostSignificant);
  auto low = static_cast<uint64_t>(leastSignificant);
  for (int i = 0; i < 8; ++i) {
    uuid.bytes[i] = static_cast<uint8_t>(high >> (56 - 8 * i));
    uuid.bytes[8 + i] = static_cast<uint8_t>(low >> (56 - 8 * i));
  }
  return uuid;
}

[[noreturn]] void throwMessageAsValue(const FieldDescriptor& field) {
  throw MetaDataException("field " + field.full_name() + " holds a message of type " +
                          field.message_type()->full_name() +
                          ", which is not a tuple value: nest into it instead");
}

}  // namespace

bool isTupleFieldMessage(const Descriptor& type) {
  std::string_view name = type.full_name();
  if (name.substr(0, kTupleFieldsPackage.size()) != kTupleFieldsPackage) return false;
  name.remove_prefix(kTupleFieldsPackage.size());
  for (std::string_view candidate : kTupleFieldMessages) {
    if (name == candidate) return true;
  }
  return false;
}

fdb::TupleElement tupleFieldValue(const Message& wrapper) {
  const Descriptor& type = *wrapper.GetDescriptor();
  const Reflection& reflection = *wrapper.GetReflection();
  if (type.name() == "UUID") {
    const FieldDescriptor* high = type.FindFieldByNumber(1);
    const FieldDescriptor* low = type.FindFieldByNumber(2);
    return uuidFromHalves(reflection.GetInt64(wrapper, high), reflection.GetInt64(wrapper, low));
  }
  const FieldDescriptor* value = type.FindFieldByNumber(1);
  return fieldValue(wrapper, *value);
}

fdb::TupleElement fieldValue(const Message& message, const FieldDescriptor& field) {
  const Reflection& reflection = *message.GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return reflection.GetInt32(message, &field);
    case FieldDescriptor::CPPTYPE_INT64: return reflection.GetInt64(message, &field);
    case FieldDescriptor::CPPTYPE_UINT32: return reflection.GetUInt32(message, &field);
    case FieldDescriptor::CPPTYPE_UINT64: return reflection.GetUInt64(message, &field);
    case FieldDescriptor::CPPTYPE_FLOAT: return reflection.GetFloat(message, &field);
    case FieldDescriptor::CPPTYPE_DOUBLE: return reflection.GetDouble(message, &field);
    case FieldDescriptor::CPPTYPE_BOOL: return reflection.GetBool(message, &field);
    case FieldDescriptor::CPPTYPE_ENUM: return reflection.GetEnumValue(message, &field);
    case FieldDescriptor::CPPTYPE_STRING:
      if (field.type() == FieldDescriptor::TYPE_BYTES) {
        return fdb::ByteString{reflection.GetString(message, &field)};
      }
      return reflection.GetString(message, &field);
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!isTupleFieldMessage(*field.message_type())) throwMessageAsValue(field);
      return tupleFieldValue(reflection.GetMessage(message, &field));
  }
  return nullptr;
}

fdb::TupleElement repeatedFieldValue(const Message& message, const FieldDescriptor& field,
                                     int index) {
  const Reflection& reflection = *message.GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return reflection.GetRepeatedInt32(message, &field, index);
    case FieldDescriptor::CPPTYPE_INT64: return reflection.GetRepeatedInt64(message, &field, index);
    case FieldDescriptor::CPPTYPE_UINT32:
      return reflection.GetRepeatedUInt32(message, &field, index);
    case FieldDescriptor::CPPTYPE_UINT64:
      return reflection.GetRepeatedUInt64(message, &field, index);
    case FieldDescriptor::CPPTYPE_FLOAT: return reflection.GetRepeatedFloat(message, &field, index);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return reflection.GetRepeatedDouble(message, &field, index);
    case FieldDescriptor::CPPTYPE_BOOL: return reflection.GetRepeatedBool(message, &field, index);
    case FieldDescriptor::CPPTYPE_ENUM:
      return reflection.GetRepeatedEnumValue(message, &field, index);
    case FieldDescriptor::CPPTYPE_STRING:
      if (field.type() == FieldDescriptor::TYPE_BYTES) {
        return fdb::ByteString{reflection.GetRepeatedString(message, &field, index)};
      }
      return reflection.GetRepeatedString(message, &field, index);
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!isTupleFieldMessage(*field.message_type())) throwMessageAsValue(field);
      return tupleFieldValue(reflection.GetRepeatedMessage(message, &field, index));
  }
  return nullptr;
}

}  // namespace rl
