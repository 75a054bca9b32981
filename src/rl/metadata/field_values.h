// Reading protobuf field values as tuple elements (docs/format.md, "Key expressions"), through
// reflection so that generated messages and DynamicMessages read alike (private to the library).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "fdb/tuple.h"

namespace rl {

// Whether `type` is one of tuple_fields.proto's wrappers (UUID, NullableDouble, ...),
// matched by full name so a wrapper from a run-time descriptor pool counts too.
bool isTupleFieldMessage(const google::protobuf::Descriptor& type);

// The tuple element a tuple_fields.proto wrapper stands for (a UUID, or the wrapped
// scalar, the type's default when unset). REQUIRES: isTupleFieldMessage(wrapper type).
fdb::TupleElement tupleFieldValue(const google::protobuf::Message& wrapper);

// The value of non-repeated `field` of `message` (its default when unset) as a tuple
// element. Throws MetaDataException for a message field that is not a tuple-field wrapper.
fdb::TupleElement fieldValue(const google::protobuf::Message& message,
                             const google::protobuf::FieldDescriptor& field);

// Element `index` of repeated `field`, likewise.
fdb::TupleElement repeatedFieldValue(const google::protobuf::Message& message,
                                     const google::protobuf::FieldDescriptor& field, int index);

}  // namespace rl
