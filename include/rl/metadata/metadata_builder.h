// rl::RecordMetaDataBuilder — assembles a RecordMetaData from a schema file, then lets
// code change what the file's options do not say: primary keys, record type keys, more
// indexes, the schema-wide options, the version.
//
// From the file (docs/format.md, "Metadata from a schema"): the union message is the one whose
// (com.apple.foundationdb.record.record).usage is UNION, else the one named
// RecordTypeUnion; each distinct message type of its fields is a record type; a field
// option primary_key = true makes that field the type's primary key; a field option
// index = {...} adds an index named "<Type>$<field>"; the file options split_long_records
// and store_record_versions set the schema-wide options. Each index added without a
// version raises the metadata version by one and takes it as its version.
//
//   rl::RecordMetaDataBuilder builder(Order::descriptor()->file());
//   builder.recordType("Order").setPrimaryKey(rl::concat(rl::recordType(), rl::field("id")));
//   builder.addIndex("Order", rl::Index("by_customer", rl::field("customer").nest("id")));
//   rl::RecordMetaData metaData = builder.build();
//
// Errors are rl::MetaDataException: at construction for a schema without a union, a
// union field that is repeated or not a message, a RECORD message missing from the union;
// in build() for a record type without a primary key, a primary key that fans out, an
// expression naming a field its type does not have; in addIndex for a duplicate name.
// Thread-safety: none; build from one thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rl/metadata/index.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata.h"
#include "rl/metadata/proto_schema_loader.h"

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
class FileDescriptor;
}  // namespace google::protobuf

namespace rl {

// A record type while its metadata is being built.
class RecordTypeBuilder {
 public:
  const std::string& name() const { return name_; }
  const google::protobuf::Descriptor& descriptor() const { return *descriptor_; }
  const std::optional<KeyExpression>& primaryKey() const { return primaryKey_; }
  RecordTypeBuilder& setPrimaryKey(KeyExpression primaryKey);
  // An explicit record type key (what recordType() yields) in place of the union field
  // number.
  RecordTypeBuilder& setRecordTypeKey(const KeyExpressionValueProto& key);
  RecordTypeBuilder& setSinceVersion(int version);

 private:
  friend class RecordMetaDataBuilder;
  std::string name_;
  const google::protobuf::Descriptor* descriptor_ = nullptr;
  const google::protobuf::FieldDescriptor* unionField_ = nullptr;
  std::optional<KeyExpression> primaryKey_;
  std::optional<KeyExpressionValueProto> explicitKey_;
  std::optional<int> sinceVersion_;
  std::vector<std::string> indexNames_;
  std::vector<std::string> multiTypeIndexNames_;
};

class RecordMetaDataBuilder {
 public:
  // Reads the union and record types from `records`, and, when `processExtensionOptions`,
  // the primary keys, indexes and schema options its options declare. `descriptorOwner`
  // keeps a run-time descriptor pool alive for as long as the metadata lives.
  explicit RecordMetaDataBuilder(const google::protobuf::FileDescriptor* records,
                                 bool processExtensionOptions = true,
                                 std::shared_ptr<const void> descriptorOwner = nullptr);
  // The same for a schema loaded at run time: its pool stays alive with the metadata, and
  // the metadata makes records with the schema's own message factory (so a message from
  // schema.newMessage and a loaded record share one reflection).
  explicit RecordMetaDataBuilder(const LoadedSchema& schema, bool processExtensionOptions = true);
  // From the serialized form (see RecordMetaData::fromProto), to change and build again.
  static RecordMetaDataBuilder fromProto(const MetaDataProto& proto);

  // Throws MetaDataException when there is no such record type.
  RecordTypeBuilder& recordType(std::string_view name);
  const std::map<std::string, RecordTypeBuilder, std::less<>>& recordTypes() const {
    return recordTypes_;
  }

  // An index on one record type. Throws MetaDataException for an unknown type or an index
  // name already in use.
  void addIndex(std::string_view recordType, Index index);
  // An index on several record types (all of them when `recordTypes` is empty).
  void addMultiTypeIndex(const std::vector<std::string>& recordTypes, Index index);
  // An index on every record type.
  void addUniversalIndex(Index index);
  // Removes an index, leaving a FormerIndex; raises the version.
  void removeIndex(std::string_view name);
  void addFormerIndex(FormerIndex formerIndex);
  bool hasIndex(std::string_view name) const;

  // New indexes get subspace keys 1, 2, 3, ... (integers) instead of their names.
  // Throws MetaDataException once any index exists.
  void enableCounterBasedSubspaceKeys();

  // Changing either raises the version.
  void setSplitLongRecords(bool split);
  void setStoreRecordVersions(bool store);
  void setVersion(int version) { version_ = version; }
  // The key whose values the store counts records by at P+(4, value...) (the Java Record
  // Layer's deprecated record count key; EmptyKeyExpression: one count of every record);
  // nullopt: none.
  void setRecordCountKey(std::optional<KeyExpression> key) { recordCountKey_ = std::move(key); }
  int version() const { return version_; }

  // Makes this metadata a successor of `previous` that MetaDataEvolutionValidator accepts
  // for the changes it can make safely, as when a store's schema file changes (docs/guide.md,
  // "Evolving the metadata"). Call it last, once the version is set. Matching by name: an
  // index defined as before keeps its versions and subspace key; a changed index keeps its
  // added version and subspace key and takes this version as last modified (a rebuild, which
  // the validator refuses unless allowIndexRebuilds); a new index takes this version as added
  // and last modified (and, when its name was a removed index's, the subspace key
  // "<name>@<version>", the name being a former index's key); an index of `previous` not here
  // becomes a former index removed at this version; `previous`'s former indexes stay. Matching
  // record types by union field number: a type without a since_version keeps the one it had, or
  // takes this version when it is new.
  void evolveFrom(const RecordMetaData& previous);

  // Validates and freezes. Throws MetaDataException.
  RecordMetaData build() const;

 private:
  RecordMetaDataBuilder() = default;
  void addIndexCommon(Index& index);
  void processFieldOptions(RecordTypeBuilder& recordType);
  // The record types an index is on, by name (empty for a universal index).
  std::vector<std::string> recordTypesOf(const std::string& indexName) const;

  std::shared_ptr<const void> descriptorOwner_;
  std::shared_ptr<google::protobuf::MessageFactory> messageFactory_;  // unset: made at build
  const google::protobuf::FileDescriptor* records_ = nullptr;
  const google::protobuf::Descriptor* union_ = nullptr;
  std::map<std::string, RecordTypeBuilder, std::less<>> recordTypes_;
  std::vector<std::string> recordTypeOrder_;  // union field order
  std::vector<Index> indexes_;                // in the order added
  std::vector<std::string> universalIndexNames_;
  std::vector<FormerIndex> formerIndexes_;
  int version_ = 0;
  bool splitLongRecords_ = false;
  bool storeRecordVersions_ = false;
  bool usesSubspaceKeyCounter_ = false;
  int64_t subspaceKeyCounter_ = 0;
  std::optional<KeyExpression> recordCountKey_;
};

}  // namespace rl
