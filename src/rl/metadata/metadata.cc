#include "rl/metadata/metadata.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <algorithm>
#include <map>
#include <string>

#include "rl/metadata/descriptor_pools.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

using google::protobuf::FileDescriptor;

// The files toProto leaves out: the reader has its own compiled-in copies (as Java's
// RecordMetaData leaves out its RecordMetaDataProto, RecordMetaDataOptionsProto and
// TupleFieldsProto files).
bool excludedFromDependencies(std::string_view name) {
  return name == "record_metadata.proto" || name == "record_metadata_options.proto" ||
         name == "tuple_fields.proto";
}

void collectDependencies(const FileDescriptor& file,
                         std::map<std::string, const FileDescriptor*>& out) {
  for (int i = 0; i < file.dependency_count(); ++i) {
    const FileDescriptor* dependency = file.dependency(i);
    if (excludedFromDependencies(dependency->name())) continue;
    if (out.emplace(dependency->name(), dependency).second) collectDependencies(*dependency, out);
  }
}

}  // namespace

RecordMetaData RecordMetaData::build(const LoadedSchema& schema) {
  return RecordMetaDataBuilder(schema).build();
}

RecordMetaData RecordMetaData::build(const FileDescriptor* records,
                                     std::shared_ptr<const void> descriptorOwner) {
  return RecordMetaDataBuilder(records, true, std::move(descriptorOwner)).build();
}

RecordMetaData RecordMetaData::fromProto(const MetaDataProto& proto) {
  return RecordMetaDataBuilder::fromProto(proto).build();
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // record_count_key
MetaDataProto RecordMetaData::toProto() const {
  MetaDataProto proto;
  data_->records_->CopyTo(proto.mutable_records());
  std::map<std::string, const FileDescriptor*> dependencies;
  collectDependencies(*data_->records_, dependencies);
  for (const auto& [name, file] : dependencies) file->CopyTo(proto.add_dependencies());

  std::map<std::string, IndexProto> indexProtos;  // by name, as Java writes them
  for (const auto& index : data_->allIndexes_) indexProtos.emplace(index->name(), index->toProto());
  for (const auto& [name, type] : data_->recordTypes_) {
    for (const auto& index : type.indexes()) indexProtos.at(index->name()).add_record_type(name);
    for (const auto& index : type.multiTypeIndexes()) {
      indexProtos.at(index->name()).add_record_type(name);
    }
    auto* typeProto = proto.add_record_types();
    typeProto->set_name(name);
    *typeProto->mutable_primary_key() = type.primaryKey().toProto();
    if (type.sinceVersion()) typeProto->set_since_version(*type.sinceVersion());
    if (type.explicitRecordTypeKey())
      *typeProto->mutable_explicit_key() = *type.explicitRecordTypeKey();
  }
  for (auto& [name, indexProto] : indexProtos) *proto.add_indexes() = std::move(indexProto);
  for (const FormerIndex& former : data_->formerIndexes_)
    *proto.add_former_indexes() = former.toProto();
  proto.set_split_long_records(data_->splitLongRecords_);
  proto.set_store_record_versions(data_->storeRecordVersions_);
  proto.set_version(data_->version_);
  if (data_->usesSubspaceKeyCounter_) {
    proto.set_subspace_key_counter(data_->subspaceKeyCounter_);
    proto.set_uses_subspace_key_counter(true);
  }
  if (data_->recordCountKey_) *proto.mutable_record_count_key() = data_->recordCountKey_->toProto();
  return proto;
}
#pragma GCC diagnostic pop

const RecordType& RecordMetaData::recordType(std::string_view name) const {
  const RecordType* type = findRecordType(name);
  if (type == nullptr) throw MetaDataException("unknown record type " + std::string(name));
  return *type;
}

const RecordType* RecordMetaData::findRecordType(std::string_view name) const {
  auto it = data_->recordTypes_.find(name);
  return it == data_->recordTypes_.end() ? nullptr : &it->second;
}

const RecordType& RecordMetaData::recordTypeForDescriptor(
    const google::protobuf::Descriptor& type) const {
  const RecordType* found = findRecordType(type.name());
  if (found == nullptr || found->descriptor().full_name() != type.full_name()) {
    throw MetaDataException("message type " + type.full_name() + " is not a record type");
  }
  return *found;
}

const std::vector<size_t>& RecordMetaData::indexesCovering(const RecordType& type) const {
  for (const auto& [candidate, positions] : data_->indexesCovering_) {
    if (candidate == &type) return positions;
  }
  throw MetaDataException("record type " + type.name() + " is not in this metadata");
}

bool RecordMetaData::hasIndex(std::string_view name) const {
  return std::any_of(data_->allIndexes_.begin(), data_->allIndexes_.end(),
                     [&](const auto& index) { return index->name() == name; });
}

const Index& RecordMetaData::index(std::string_view name) const {
  for (const auto& index : data_->allIndexes_) {
    if (index->name() == name) return *index;
  }
  throw MetaDataException("unknown index " + std::string(name));
}

std::vector<const RecordType*> RecordMetaData::recordTypesForIndex(const Index& index) const {
  std::vector<const RecordType*> types;
  for (const auto& universal : data_->universalIndexes_) {
    if (universal.get() == &index || universal->name() == index.name()) {
      for (const auto& [name, type] : data_->recordTypes_) types.push_back(&type);
      return types;
    }
  }
  for (const auto& [name, type] : data_->recordTypes_) {
    auto covers = [&](const std::vector<std::shared_ptr<const Index>>& indexes) {
      return std::any_of(indexes.begin(), indexes.end(),
                         [&](const auto& candidate) { return candidate->name() == index.name(); });
    };
    if (covers(type.indexes()) || covers(type.multiTypeIndexes())) types.push_back(&type);
  }
  return types;
}

std::optional<KeyExpression> RecordMetaData::commonPrimaryKey() const {
  std::vector<const RecordType*> types;
  for (const auto& [name, type] : data_->recordTypes_) types.push_back(&type);
  return commonPrimaryKey(types);
}

std::optional<KeyExpression> RecordMetaData::commonPrimaryKey(
    const std::vector<const RecordType*>& types) {
  if (types.empty()) return std::nullopt;
  const KeyExpression& first = types.front()->primaryKey();
  for (const RecordType* type : types) {
    if (!(type->primaryKey() == first)) return std::nullopt;
  }
  return first;
}

int RecordMetaData::commonPrimaryKeyLength(const std::vector<const RecordType*>& types) {
  if (types.empty()) return -1;
  int length = types.front()->primaryKey().columnSize();
  for (const RecordType* type : types) {
    if (type->primaryKey().columnSize() != length) return -1;
  }
  return length;
}

}  // namespace rl
