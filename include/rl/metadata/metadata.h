// rl::RecordMetaData — everything a record store needs to know about its schema: the
// protobuf file of record messages, its union message, the record types with their
// primary keys and record type keys, the indexes, and the schema-wide options (docs/format.md,
// "Metadata from a schema").
//
// Built from a compiled schema (a generated file descriptor, or one loaded at run time by
// rl::ProtoSchemaLoader) with the options the .proto file sets, optionally changed in code
// with RecordMetaDataBuilder; or read back from its serialized form, MetaData, which
// carries the schema file and its imports and is the same message the Java Record Layer
// reads and writes.
//
//   rl::RecordMetaData metaData = rl::RecordMetaData::build(Order::descriptor()->file());
//   const rl::RecordType& orders = metaData.recordType("Order");
//   const rl::Index& byPrice = metaData.index("Order$price");
//   rl::MetaDataProto saved = metaData.toProto();
//   rl::RecordMetaData again = rl::RecordMetaData::fromProto(saved);
//
// Errors are rl::MetaDataException.
// Thread-safety: immutable once built; copies share their contents (a copy is a reference
// count, no allocation). Const access from many threads is safe. The descriptors it hands
// out live as long as any copy of it (and, for a generated schema, for the whole program).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "record_metadata.pb.h"
#include "rl/metadata/index.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/record_type.h"

namespace google::protobuf {
class Descriptor;
class FileDescriptor;
class MessageFactory;
}  // namespace google::protobuf

namespace rl {

struct LoadedSchema;  // proto_schema_loader.h

using MetaDataProto = ::com::apple::foundationdb::record::MetaData;

class RecordMetaData {
 public:
  // The metadata a schema file declares through its options (RecordMetaDataBuilder with
  // no changes). `descriptorOwner` keeps a run-time descriptor pool alive.
  static RecordMetaData build(const google::protobuf::FileDescriptor* records,
                              std::shared_ptr<const void> descriptorOwner = nullptr);
  // The metadata a schema loaded at run time declares (ProtoSchemaLoader), sharing its pool
  // and message factory.
  static RecordMetaData build(const LoadedSchema& schema);
  // From the serialized form. The schema file and its imports are rebuilt in a private
  // descriptor pool; this library's own schema files (record_metadata_options.proto,
  // tuple_fields.proto, ...) and google/protobuf/*.proto come from the compiled-in ones
  // when the message does not carry them.
  static RecordMetaData fromProto(const MetaDataProto& proto);
  // The serialized form: the schema file and every file it imports except this library's
  // own, indexes with their record types, record types, options.
  MetaDataProto toProto() const;

  const google::protobuf::FileDescriptor& recordsDescriptor() const { return *data_->records_; }
  const google::protobuf::Descriptor& unionDescriptor() const { return *data_->union_; }

  // Makes messages of the record types: the generated factory for a compiled schema, else
  // one DynamicMessageFactory shared by every copy of this metadata (its prototypes are
  // built once per type, not once per store or transaction). Thread-safe.
  google::protobuf::MessageFactory* messageFactory() const { return data_->messageFactory_.get(); }
  const std::shared_ptr<google::protobuf::MessageFactory>& sharedMessageFactory() const {
    return data_->messageFactory_;
  }

  int version() const { return data_->version_; }
  bool splitLongRecords() const { return data_->splitLongRecords_; }
  bool storeRecordVersions() const { return data_->storeRecordVersions_; }

  // Record types by name.
  const std::map<std::string, RecordType, std::less<>>& recordTypes() const {
    return data_->recordTypes_;
  }
  // Throws MetaDataException when there is no such type.
  const RecordType& recordType(std::string_view name) const;
  const RecordType* findRecordType(std::string_view name) const;
  // The record type of a message type (matched by full name, so a descriptor from another
  // pool holding the same schema works). Throws MetaDataException when it is not one.
  const RecordType& recordTypeForDescriptor(const google::protobuf::Descriptor& type) const;

  bool hasIndex(std::string_view name) const;
  // Throws MetaDataException when there is no such index.
  const Index& index(std::string_view name) const;
  // Every index, in the order they were added.
  const std::vector<std::shared_ptr<const Index>>& allIndexes() const { return data_->allIndexes_; }
  // Indexes on every record type.
  const std::vector<std::shared_ptr<const Index>>& universalIndexes() const {
    return data_->universalIndexes_;
  }
  // The record types an index covers (every type for a universal index).
  std::vector<const RecordType*> recordTypesForIndex(const Index& index) const;
  const std::vector<FormerIndex>& formerIndexes() const { return data_->formerIndexes_; }
  // The positions in allIndexes() of the indexes covering `type` (its own, the multi-type
  // ones including it, the universal ones), in that order. Throws MetaDataException when
  // `type` is not one of this metadata's record types (by address).
  const std::vector<size_t>& indexesCovering(const RecordType& type) const;

  // The primary key every record type shares, if they all have the same one.
  std::optional<KeyExpression> commonPrimaryKey() const;
  static std::optional<KeyExpression> commonPrimaryKey(const std::vector<const RecordType*>& types);
  // The column count all their primary keys share, or -1.
  static int commonPrimaryKeyLength(const std::vector<const RecordType*>& types);

  bool usesSubspaceKeyCounter() const { return data_->usesSubspaceKeyCounter_; }
  int64_t subspaceKeyCounter() const { return data_->subspaceKeyCounter_; }
  // The deprecated record-count key, if the metadata has one.
  const std::optional<KeyExpression>& recordCountKey() const { return data_->recordCountKey_; }

 private:
  friend class RecordMetaDataBuilder;
  RecordMetaData() = default;

  // What every copy shares, immutable once built.
  struct Data {
    std::shared_ptr<const void> descriptorOwner_;
    // Declared after the descriptors' owner: destroyed before the pool its prototypes use.
    std::shared_ptr<google::protobuf::MessageFactory> messageFactory_;
    const google::protobuf::FileDescriptor* records_ = nullptr;
    const google::protobuf::Descriptor* union_ = nullptr;
    std::map<std::string, RecordType, std::less<>> recordTypes_;
    std::vector<std::shared_ptr<const Index>> allIndexes_;
    std::vector<std::shared_ptr<const Index>> universalIndexes_;
    std::vector<FormerIndex> formerIndexes_;
    int version_ = 0;
    bool splitLongRecords_ = false;
    bool storeRecordVersions_ = false;
    bool usesSubspaceKeyCounter_ = false;
    int64_t subspaceKeyCounter_ = 0;
    std::optional<KeyExpression> recordCountKey_;
    // For each record type, the positions in allIndexes_ of the indexes covering it.
    std::vector<std::pair<const RecordType*, std::vector<size_t>>> indexesCovering_;
  };
  std::shared_ptr<const Data> data_;
};

}  // namespace rl
