// rl::RecordType — one kind of record a store holds: a protobuf message type that is a
// field of the schema's union message, with its primary key, its record type key and the
// indexes defined on it (docs/format.md, "Union message").
//
//   const rl::RecordType& orders = metaData.recordType("Order");
//   fdb::Tuple primaryKey = orders.primaryKey().evaluateSingleton(order,
//                                                                 orders.evaluationContext());
//   for (const auto& index : orders.indexes()) { ... }
//
// RecordTypes are made by RecordMetaDataBuilder and live in a RecordMetaData.
// Thread-safety: immutable; const access from many threads is safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fdb/tuple.h"
#include "rl/metadata/index.h"
#include "rl/metadata/key_expression.h"

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
}  // namespace google::protobuf

namespace rl {

class RecordType {
 public:
  // The message's short name ("Order").
  const std::string& name() const { return name_; }
  const google::protobuf::Descriptor& descriptor() const { return *descriptor_; }
  // The union field a record of this type is stored in.
  const google::protobuf::FieldDescriptor& unionField() const { return *unionField_; }
  const KeyExpression& primaryKey() const { return primaryKey_; }
  // What recordType() key expressions yield: the explicit record_type_key option, else
  // the smallest union field number of this type (an integer).
  const fdb::TupleElement& recordTypeKey() const { return recordTypeKey_; }
  bool hasExplicitRecordTypeKey() const { return explicitRecordTypeKey_.has_value(); }
  // The explicit key in its serialized form, when there is one.
  const std::optional<KeyExpressionValueProto>& explicitRecordTypeKey() const {
    return explicitRecordTypeKey_;
  }
  // The metadata version that introduced this type, when known.
  std::optional<int> sinceVersion() const { return sinceVersion_; }

  // Indexes on this type alone, and indexes on several types including this one, in the
  // order they were added (universal indexes are RecordMetaData's).
  const std::vector<std::shared_ptr<const Index>>& indexes() const { return indexes_; }
  const std::vector<std::shared_ptr<const Index>>& multiTypeIndexes() const {
    return multiTypeIndexes_;
  }

  // What key expressions need to evaluate a record of this type (its record type key,
  // and the record's version when it has one).
  EvaluationContext evaluationContext(std::optional<fdb::Versionstamp> version = {}) const {
    return EvaluationContext{recordTypeKey_, version};
  }

 private:
  friend class RecordMetaDataBuilder;
  RecordType() = default;

  std::string name_;
  const google::protobuf::Descriptor* descriptor_ = nullptr;
  const google::protobuf::FieldDescriptor* unionField_ = nullptr;
  KeyExpression primaryKey_;
  fdb::TupleElement recordTypeKey_;
  std::optional<KeyExpressionValueProto> explicitRecordTypeKey_;
  std::optional<int> sinceVersion_;
  std::vector<std::shared_ptr<const Index>> indexes_;
  std::vector<std::shared_ptr<const Index>> multiTypeIndexes_;
};

}  // namespace rl
