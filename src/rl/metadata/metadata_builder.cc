#include "rl/metadata/metadata_builder.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

#include "record_metadata_options.pb.h"
#include "rl/metadata/descriptor_pools.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

namespace options = ::com::apple::foundationdb::record;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

constexpr std::string_view kDefaultUnionName = "RecordTypeUnion";

// The value of extension `extension` on `optionsMessage`, if set. Options of a pool built
// at run time may hold the extension as unknown fields; parsing a copy into the generated
// options type resolves it against the compiled-in extension.
template <typename Options, typename Extension>
auto extensionOf(const Options& optionsMessage, const Extension& extension)
    -> std::optional<std::decay_t<decltype(optionsMessage.GetExtension(extension))>> {
  if (optionsMessage.HasExtension(extension)) return optionsMessage.GetExtension(extension);
  if (optionsMessage.unknown_fields().empty()) return std::nullopt;
  Options reparsed;
  if (!reparsed.ParseFromString(optionsMessage.SerializeAsString())) return std::nullopt;
  if (reparsed.HasExtension(extension)) return reparsed.GetExtension(extension);
  return std::nullopt;
}

std::optional<options::RecordTypeOptions> recordOptionsOf(const Descriptor& type) {
  return extensionOf(type.options(), options::record);
}

const Descriptor* findUnion(const FileDescriptor& file) {
  const Descriptor* found = nullptr;
  for (int i = 0; i < file.message_type_count(); ++i) {
    const Descriptor* type = file.message_type(i);
    auto recordOptions = recordOptionsOf(*type);
    bool isUnion = type->name() == kDefaultUnionName;
    if (recordOptions && recordOptions->has_usage()) {
      if (recordOptions->usage() == options::RecordTypeOptions::UNION) {
        isUnion = true;
      } else if (recordOptions->usage() == options::RecordTypeOptions::NESTED) {
        if (type->name() == kDefaultUnionName) {
          throw MetaDataException("message type RecordTypeUnion cannot have NESTED usage");
        }
        continue;
      }
    }
    if (!isUnion) continue;
    if (found != nullptr) {
      throw MetaDataException("schema " + file.name() + " has more than one union message (" +
                              found->name() + " and " + type->name() + ")");
    }
    found = type;
  }
  if (found == nullptr) {
    throw MetaDataException("schema " + file.name() +
                            " has no union message: name one RecordTypeUnion or give it the "
                            "option (com.apple.foundationdb.record.record).usage = UNION");
  }
  return found;
}

// Unsigned integer fields are refused, as in the Java Record Layer (their values would not
// order as the tuple layer orders integers).
void validateFieldTypes(const FileDescriptor& file) {
  std::deque<const Descriptor*> pending;
  std::set<const Descriptor*> seen;
  for (int i = 0; i < file.message_type_count(); ++i) pending.push_back(file.message_type(i));
  while (!pending.empty()) {
    const Descriptor* type = pending.front();
    pending.pop_front();
    if (!seen.insert(type).second) continue;
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      switch (field->type()) {
        case FieldDescriptor::TYPE_MESSAGE:
        case FieldDescriptor::TYPE_GROUP: pending.push_back(field->message_type()); break;
        case FieldDescriptor::TYPE_FIXED32:
        case FieldDescriptor::TYPE_FIXED64:
        case FieldDescriptor::TYPE_UINT32:
        case FieldDescriptor::TYPE_UINT64:
          throw MetaDataException("field " + field->name() + " in message " + type->full_name() +
                                  " has the unsigned type " + field->type_name() +
                                  ", which records may not use");
        default: break;
      }
    }
  }
}

bool unionHasType(const Descriptor& unionType, const Descriptor& type) {
  for (int i = 0; i < unionType.field_count(); ++i) {
    if (unionType.field(i)->message_type() == &type) return true;
  }
  return false;
}

void validateUnion(const FileDescriptor& file, const Descriptor& unionType) {
  for (int i = 0; i < unionType.field_count(); ++i) {
    const FieldDescriptor* field = unionType.field(i);
    if (field->type() != FieldDescriptor::TYPE_MESSAGE) {
      throw MetaDataException("union field " + field->name() + " of " + unionType.name() +
                              " is not a message");
    }
    if (field->is_repeated()) {
      throw MetaDataException("union field " + field->name() + " of " + unionType.name() +
                              " must not be repeated");
    }
    const Descriptor* type = field->message_type();
    if (type->name() == kDefaultUnionName) {
      throw MetaDataException("union message type " + type->name() + " cannot be a union field");
    }
    auto recordOptions = recordOptionsOf(*type);
    if (recordOptions && recordOptions->has_usage() &&
        recordOptions->usage() != options::RecordTypeOptions::RECORD) {
      throw MetaDataException("union field " + field->name() + " has type " + type->name() +
                              ", which is not a record");
    }
  }
  for (int i = 0; i < file.message_type_count(); ++i) {
    const Descriptor* type = file.message_type(i);
    auto recordOptions = recordOptionsOf(*type);
    if (!recordOptions || recordOptions->usage() != options::RecordTypeOptions::RECORD) continue;
    if (type->name() == kDefaultUnionName) {
      if (unionHasType(unionType, *type)) {
        throw MetaDataException("union message type " + type->name() + " cannot be a union field");
      }
    } else if (!unionHasType(unionType, *type)) {
      throw MetaDataException("record message type " + type->name() + " must be a field of the " +
                              "union message " + unionType.name());
    }
  }
  // A union's oneof, if it has one, must hold every field.
  if (unionType.oneof_decl_count() > 1) {
    throw MetaDataException("union message " + unionType.name() + " has more than one oneof");
  }
  if (unionType.oneof_decl_count() == 1 &&
      unionType.oneof_decl(0)->field_count() != unionType.field_count()) {
    throw MetaDataException("union message " + unionType.name() +
                            "'s oneof must contain every field");
  }
}

// A field expression for one field, fanned out when it is repeated.
KeyExpression fieldExpressionFor(const FieldDescriptor& field) {
  return rl::field(field.name(), field.is_repeated() ? FanType::kFanOut : FanType::kScalar);
}

}  // namespace

RecordTypeBuilder& RecordTypeBuilder::setPrimaryKey(KeyExpression primaryKey) {
  primaryKey_ = std::move(primaryKey);
  return *this;
}

RecordTypeBuilder& RecordTypeBuilder::setRecordTypeKey(const KeyExpressionValueProto& key) {
  valueFromProto(key);  // validates
  explicitKey_ = key;
  return *this;
}

RecordTypeBuilder& RecordTypeBuilder::setSinceVersion(int version) {
  sinceVersion_ = version;
  return *this;
}

RecordMetaDataBuilder::RecordMetaDataBuilder(const LoadedSchema& schema,
                                             bool processExtensionOptions)
    : RecordMetaDataBuilder(schema.file, processExtensionOptions, schema.owner) {
  messageFactory_ = schema.messageFactory;
}

RecordMetaDataBuilder::RecordMetaDataBuilder(const FileDescriptor* records,
                                             bool processExtensionOptions,
                                             std::shared_ptr<const void> descriptorOwner)
    : descriptorOwner_(std::move(descriptorOwner)), records_(records) {
  if (records == nullptr) throw MetaDataException("no schema file descriptor given");
  union_ = findUnion(*records);
  validateFieldTypes(*records);
  validateUnion(*records, *union_);
  for (int i = 0; i < union_->field_count(); ++i) {
    const FieldDescriptor* unionField = union_->field(i);
    const Descriptor* type = unionField->message_type();
    auto existing = recordTypes_.find(type->name());
    if (existing != recordTypes_.end()) {
      if (existing->second.descriptor_ != type) {
        throw MetaDataException("there is already a record type named " + type->name());
      }
      // Several fields of one type: prefer the one named "_<Type>", else the largest number.
      const std::string canonical = "_" + type->name();
      const FieldDescriptor* current = existing->second.unionField_;
      if (unionField->name() == canonical ||
          (current->name() != canonical && unionField->number() > current->number())) {
        existing->second.unionField_ = unionField;
      }
      continue;
    }
    RecordTypeBuilder recordType;
    recordType.name_ = type->name();
    recordType.descriptor_ = type;
    recordType.unionField_ = unionField;
    auto [it, inserted] = recordTypes_.emplace(type->name(), std::move(recordType));
    recordTypeOrder_.push_back(type->name());
    if (processExtensionOptions) {
      if (auto recordOptions = recordOptionsOf(*type)) {
        if (recordOptions->has_since_version()) {
          it->second.sinceVersion_ = recordOptions->since_version();
        }
        if (recordOptions->has_record_type_key()) {
          it->second.setRecordTypeKey(recordOptions->record_type_key());
        }
      }
      processFieldOptions(it->second);
    }
  }
  if (processExtensionOptions) {
    if (auto schema = extensionOf(records->options(), options::schema)) {
      if (schema->has_split_long_records()) splitLongRecords_ = schema->split_long_records();
      if (schema->has_store_record_versions()) {
        storeRecordVersions_ = schema->store_record_versions();
      }
    }
  }
}

// Reads the deprecated `indexed` field option and record-count key on purpose: schemas and
// metadata written long ago still use them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void RecordMetaDataBuilder::processFieldOptions(RecordTypeBuilder& recordType) {
  const Descriptor& type = *recordType.descriptor_;
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    auto fieldOptions = extensionOf(field.options(), options::field);
    if (!fieldOptions) continue;
    // As in the Java Record Layer, a field that declares an index is not also read for
    // primary_key.
    if (fieldOptions->has_index() || fieldOptions->has_indexed()) {
      std::string indexType(Index::kValue);
      std::map<std::string, std::string> indexOptions;
      if (fieldOptions->has_index()) {
        const auto& indexOption = fieldOptions->index();
        indexType = indexOption.type();
        if (indexOption.unique()) indexOptions[std::string(Index::kUniqueOption)] = "true";
        for (const auto& option : indexOption.options()) {
          indexOptions[option.key()] = option.value();
        }
      } else {
        const auto indexed = fieldOptions->indexed();
        if (indexed == IndexProto::RANK || indexed == IndexProto::RANK_UNIQUE) {
          indexType = Index::kRank;
        }
        if (indexed == IndexProto::UNIQUE || indexed == IndexProto::RANK_UNIQUE) {
          indexOptions[std::string(Index::kUniqueOption)] = "true";
        }
      }
      KeyExpression root = fieldExpressionFor(field);
      if (indexType == Index::kRank) root = root.ungrouped();
      addIndex(recordType.name_,
               Index(type.name() + "$" + field.name(), root, indexType, std::move(indexOptions)));
    } else if (fieldOptions->primary_key()) {
      if (recordType.primaryKey_) {
        throw MetaDataException("record type " + type.name() +
                                " may have only one primary_key field; it has " +
                                recordType.primaryKey_->toString() + " and " + field.name());
      }
      if (field.is_repeated()) {
        throw MetaDataException("primary key field " + type.name() + "." + field.name() +
                                " must not be repeated");
      }
      recordType.primaryKey_ = fieldExpressionFor(field);
    }
  }
}

RecordMetaDataBuilder RecordMetaDataBuilder::fromProto(const MetaDataProto& proto) {
  std::vector<const google::protobuf::FileDescriptorProto*> dependencies;
  for (const auto& dependency : proto.dependencies()) dependencies.push_back(&dependency);
  const FileDescriptor* records = nullptr;
  std::shared_ptr<const OwnedDescriptorPool> pool =
      poolFromFileProtos(proto.records(), dependencies, &records);
  RecordMetaDataBuilder builder(records, /*processExtensionOptions=*/false, pool);

  if (proto.has_subspace_key_counter() && !proto.uses_subspace_key_counter()) {
    throw MetaDataException("metadata sets subspace_key_counter but not uses_subspace_key_counter");
  }
  if (proto.uses_subspace_key_counter() && !proto.has_subspace_key_counter()) {
    throw MetaDataException("metadata sets uses_subspace_key_counter but not subspace_key_counter");
  }
  builder.usesSubspaceKeyCounter_ = proto.uses_subspace_key_counter();
  builder.subspaceKeyCounter_ = proto.subspace_key_counter();

  for (const IndexProto& indexProto : proto.indexes()) {
    std::vector<std::string> types(indexProto.record_type().begin(),
                                   indexProto.record_type().end());
    Index index = Index::fromProto(indexProto);
    if (types.size() == 1) {
      builder.addIndex(types[0], std::move(index));
    } else {
      builder.addMultiTypeIndex(types, std::move(index));
    }
  }
  for (const auto& typeProto : proto.record_types()) {
    RecordTypeBuilder& recordType = builder.recordType(typeProto.name());
    if (typeProto.has_primary_key()) {
      recordType.setPrimaryKey(KeyExpression::fromProto(typeProto.primary_key()));
    }
    if (typeProto.has_since_version()) recordType.setSinceVersion(typeProto.since_version());
    if (typeProto.has_explicit_key()) recordType.setRecordTypeKey(typeProto.explicit_key());
  }
  if (proto.has_split_long_records()) builder.splitLongRecords_ = proto.split_long_records();
  if (proto.has_store_record_versions()) {
    builder.storeRecordVersions_ = proto.store_record_versions();
  }
  for (const auto& former : proto.former_indexes()) {
    builder.formerIndexes_.push_back(FormerIndex::fromProto(former));
  }
  if (proto.has_record_count_key()) {
    builder.recordCountKey_ = KeyExpression::fromProto(proto.record_count_key());
  }
  if (proto.has_version()) builder.version_ = proto.version();
  return builder;
}

#pragma GCC diagnostic pop

RecordTypeBuilder& RecordMetaDataBuilder::recordType(std::string_view name) {
  auto it = recordTypes_.find(name);
  if (it == recordTypes_.end()) {
    throw MetaDataException("unknown record type " + std::string(name));
  }
  return it->second;
}

bool RecordMetaDataBuilder::hasIndex(std::string_view name) const {
  return std::any_of(indexes_.begin(), indexes_.end(),
                     [&](const Index& index) { return index.name() == name; });
}

void RecordMetaDataBuilder::addIndexCommon(Index& index) {
  if (hasIndex(index.name())) {
    throw MetaDataException("index " + index.name() + " is already defined");
  }
  if (index.lastModifiedVersion() <= 0) {
    index.setLastModifiedVersion(++version_);
  } else if (index.lastModifiedVersion() > version_) {
    version_ = index.lastModifiedVersion();
  }
  if (index.addedVersion() <= 0) index.setAddedVersion(index.lastModifiedVersion());
  if (usesSubspaceKeyCounter_ && !index.hasExplicitSubspaceKey()) {
    index.setSubspaceKey(++subspaceKeyCounter_);
  }
}

void RecordMetaDataBuilder::addIndex(std::string_view recordTypeName, Index index) {
  RecordTypeBuilder& type = recordType(recordTypeName);
  addIndexCommon(index);
  type.indexNames_.push_back(index.name());
  indexes_.push_back(std::move(index));
}

void RecordMetaDataBuilder::addMultiTypeIndex(const std::vector<std::string>& recordTypeNames,
                                              Index index) {
  if (recordTypeNames.size() == 1) {
    addIndex(recordTypeNames[0], std::move(index));
    return;
  }
  for (const std::string& name : recordTypeNames) recordType(name);  // all must exist
  addIndexCommon(index);
  if (recordTypeNames.empty()) {
    universalIndexNames_.push_back(index.name());
  } else {
    for (const std::string& name : recordTypeNames) {
      recordType(name).multiTypeIndexNames_.push_back(index.name());
    }
  }
  indexes_.push_back(std::move(index));
}

void RecordMetaDataBuilder::addUniversalIndex(Index index) {
  addMultiTypeIndex({}, std::move(index));
}

void RecordMetaDataBuilder::removeIndex(std::string_view name) {
  auto it = std::find_if(indexes_.begin(), indexes_.end(),
                         [&](const Index& index) { return index.name() == name; });
  if (it == indexes_.end()) throw MetaDataException("no index named " + std::string(name));
  auto dropName = [&](std::vector<std::string>& names) {
    names.erase(std::remove(names.begin(), names.end(), name), names.end());
  };
  for (auto& [typeName, type] : recordTypes_) {
    dropName(type.indexNames_);
    dropName(type.multiTypeIndexNames_);
  }
  dropName(universalIndexNames_);
  formerIndexes_.push_back(
      FormerIndex{it->subspaceKey(), it->addedVersion(), ++version_, std::string(name)});
  indexes_.erase(it);
}

void RecordMetaDataBuilder::addFormerIndex(FormerIndex formerIndex) {
  formerIndexes_.push_back(std::move(formerIndex));
}

void RecordMetaDataBuilder::enableCounterBasedSubspaceKeys() {
  if (!indexes_.empty()) {
    throw MetaDataException("counter-based subspace keys must be enabled before adding indexes");
  }
  usesSubspaceKeyCounter_ = true;
}

void RecordMetaDataBuilder::setSplitLongRecords(bool split) {
  if (split != splitLongRecords_) {
    ++version_;
    splitLongRecords_ = split;
  }
}

void RecordMetaDataBuilder::setStoreRecordVersions(bool store) {
  if (store != storeRecordVersions_) {
    ++version_;
    storeRecordVersions_ = store;
  }
}

std::vector<std::string> RecordMetaDataBuilder::recordTypesOf(const std::string& indexName) const {
  std::vector<std::string> names;
  for (const auto& [name, type] : recordTypes_) {
    auto has = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), indexName) != list.end();
    };
    if (has(type.indexNames_) || has(type.multiTypeIndexNames_)) names.push_back(name);
  }
  return names;
}

void RecordMetaDataBuilder::evolveFrom(const RecordMetaData& previous) {
  // Record types, by union field number.
  for (auto& [name, type] : recordTypes_) {
    if (type.sinceVersion_) continue;
    const google::protobuf::FieldDescriptor* before =
        previous.unionDescriptor().FindFieldByNumber(type.unionField_->number());
    const RecordType* previousType = before && before->message_type()
                                         ? previous.findRecordType(before->message_type()->name())
                                         : nullptr;
    type.sinceVersion_ = previousType ? previousType->sinceVersion() : std::optional<int>(version_);
  }

  // Indexes, by name.
  auto universal = [](const std::vector<std::shared_ptr<const Index>>& list, const Index& index) {
    return std::any_of(list.begin(), list.end(),
                       [&](const auto& candidate) { return candidate->name() == index.name(); });
  };
  auto sameDefinition = [&](const Index& now, const Index& before) {
    const bool nowUniversal = std::find(universalIndexNames_.begin(), universalIndexNames_.end(),
                                        now.name()) != universalIndexNames_.end();
    if (nowUniversal != universal(previous.universalIndexes(), before)) return false;
    if (!nowUniversal) {
      std::vector<std::string> beforeTypes;
      for (const RecordType* type : previous.recordTypesForIndex(before)) {
        beforeTypes.push_back(type->name());
      }
      if (recordTypesOf(now.name()) != beforeTypes) return false;  // both sorted by name
    }
    const std::string nowPredicate = now.predicate() ? now.predicate()->SerializeAsString() : "";
    const std::string beforePredicate =
        before.predicate() ? before.predicate()->SerializeAsString() : "";
    return now.type() == before.type() && now.rootExpression() == before.rootExpression() &&
           now.options() == before.options() && nowPredicate == beforePredicate &&
           (!now.hasExplicitSubspaceKey() || now.subspaceKey() == before.subspaceKey());
  };
  for (Index& index : indexes_) {
    const Index* before = previous.hasIndex(index.name()) ? &previous.index(index.name()) : nullptr;
    if (!before) {
      index.setAddedVersion(version_);
      index.setLastModifiedVersion(version_);
      // A removed index's subspace key stays a former index's: one of the same name added
      // again takes "<name>@<version>".
      const bool taken = std::any_of(
          previous.formerIndexes().begin(), previous.formerIndexes().end(),
          [&](const FormerIndex& former) { return former.subspaceKey == index.subspaceKey(); });
      if (taken && !index.hasExplicitSubspaceKey()) {
        index.setSubspaceKey(index.name() + "@" + std::to_string(version_));
      }
      continue;
    }
    if (!index.hasExplicitSubspaceKey() && before->hasExplicitSubspaceKey()) {
      index.setSubspaceKey(before->subspaceKey());
    }
    index.setAddedVersion(before->addedVersion());
    index.setLastModifiedVersion(sameDefinition(index, *before) ? before->lastModifiedVersion()
                                                                : version_);
  }
  std::vector<FormerIndex> formers = previous.formerIndexes();
  for (const auto& before : previous.allIndexes()) {
    if (hasIndex(before->name())) continue;
    formers.push_back(
        FormerIndex{before->subspaceKey(), before->addedVersion(), version_, before->name()});
  }
  for (FormerIndex& former : formers) {
    const bool known = std::any_of(
        formerIndexes_.begin(), formerIndexes_.end(),
        [&](const FormerIndex& mine) { return mine.subspaceKey == former.subspaceKey; });
    if (!known) formerIndexes_.push_back(std::move(former));
  }
}

RecordMetaData RecordMetaDataBuilder::build() const {
  auto data = std::make_shared<RecordMetaData::Data>();
  RecordMetaData metaData;
  metaData.data_ = data;  // filled in below, immutable once returned
  data->descriptorOwner_ = descriptorOwner_;
  if (messageFactory_) {
    data->messageFactory_ = messageFactory_;
  } else if (records_->pool() == google::protobuf::DescriptorPool::generated_pool()) {
    // Not owned: the generated factory lives as long as the program.
    data->messageFactory_ = std::shared_ptr<google::protobuf::MessageFactory>(
        std::shared_ptr<void>(), google::protobuf::MessageFactory::generated_factory());
  } else {
    data->messageFactory_ = std::make_shared<google::protobuf::DynamicMessageFactory>();
  }
  data->records_ = records_;
  data->union_ = union_;
  data->version_ = version_;
  data->splitLongRecords_ = splitLongRecords_;
  data->storeRecordVersions_ = storeRecordVersions_;
  data->usesSubspaceKeyCounter_ = usesSubspaceKeyCounter_;
  data->subspaceKeyCounter_ = subspaceKeyCounter_;
  data->formerIndexes_ = formerIndexes_;
  data->recordCountKey_ = recordCountKey_;
  if (recordTypes_.empty()) throw MetaDataException("the schema defines no record types");

  // Indexes, with primary-key positions for those on a single record type.
  std::map<std::string, std::shared_ptr<Index>, std::less<>> indexesByName;
  for (const Index& index : indexes_) {
    auto copy = std::make_shared<Index>(index);
    indexesByName.emplace(index.name(), copy);
    data->allIndexes_.push_back(copy);
  }
  for (const std::string& name : universalIndexNames_) {
    data->universalIndexes_.push_back(indexesByName.at(name));
  }

  std::map<fdb::TupleElement, std::string> typeKeys;
  for (const auto& [name, builder] : recordTypes_) {
    if (!builder.primaryKey_) {
      throw MetaDataException("record type " + name + " must have a primary key");
    }
    const KeyExpression& primaryKey = *builder.primaryKey_;
    try {
      primaryKey.validate(*builder.descriptor_);
    } catch (const MetaDataException& e) {
      throw MetaDataException("primary key of record type " + name + ": " + e.what());
    }
    if (primaryKey.createsDuplicates()) {
      throw MetaDataException("primary key " + primaryKey.toString() + " of record type " + name +
                              " can yield more than one key (it fans out)");
    }
    RecordType type;
    type.name_ = name;
    type.descriptor_ = builder.descriptor_;
    type.unionField_ = builder.unionField_;
    type.primaryKey_ = primaryKey;
    type.sinceVersion_ = builder.sinceVersion_;
    type.explicitRecordTypeKey_ = builder.explicitKey_;
    if (builder.explicitKey_) {
      type.recordTypeKey_ = tupleElementFromValueProto(*builder.explicitKey_);
    } else {
      int smallest = builder.unionField_->number();
      for (int i = 0; i < union_->field_count(); ++i) {
        if (union_->field(i)->message_type() == builder.descriptor_) {
          smallest = std::min(smallest, union_->field(i)->number());
        }
      }
      type.recordTypeKey_ = static_cast<int64_t>(smallest);
    }
    auto [other, fresh] = typeKeys.emplace(type.recordTypeKey_, name);
    if (!fresh) {
      throw MetaDataException("record types " + other->second + " and " + name +
                              " have the same record type key");
    }
    if (type.sinceVersion_ && *type.sinceVersion_ > version_) {
      throw MetaDataException("record type " + name + " has since version " +
                              std::to_string(*type.sinceVersion_) +
                              ", greater than the metadata version " + std::to_string(version_));
    }
    for (const std::string& indexName : builder.indexNames_) {
      std::shared_ptr<Index>& index = indexesByName.at(indexName);
      index->setPrimaryKeyComponentPositions(
          primaryKeyComponentPositions(index->rootExpression(), primaryKey));
      type.indexes_.push_back(index);
    }
    for (const std::string& indexName : builder.multiTypeIndexNames_) {
      type.multiTypeIndexes_.push_back(indexesByName.at(indexName));
    }
    data->recordTypes_.emplace(name, std::move(type));
  }

  // Every index fits each record type it covers; subspace keys and versions are sane.
  std::map<fdb::TupleElement, std::string> subspaceKeys;
  for (const auto& index : data->allIndexes_) {
    for (const RecordType* type : metaData.recordTypesForIndex(*index)) {
      try {
        index->rootExpression().validate(type->descriptor());
      } catch (const MetaDataException& e) {
        throw MetaDataException("index " + index->name() + " on record type " + type->name() +
                                ": " + e.what());
      }
    }
    auto [other, fresh] = subspaceKeys.emplace(index->subspaceKey(), index->name());
    if (!fresh) {
      throw MetaDataException("indexes " + other->second + " and " + index->name() +
                              " have the same subspace key");
    }
    if (index->addedVersion() > version_ || index->lastModifiedVersion() > version_) {
      throw MetaDataException("index " + index->name() +
                              " has a version greater than the metadata version " +
                              std::to_string(version_));
    }
  }
  for (const FormerIndex& former : formerIndexes_) {
    auto used = subspaceKeys.find(former.subspaceKey);
    if (used != subspaceKeys.end()) {
      throw MetaDataException("index " + used->second + " uses the subspace key of a former index" +
                              (former.formerName ? " " + *former.formerName : std::string()));
    }
  }
  // The indexes covering each record type, once for every store opened with this metadata.
  for (const auto& [name, type] : data->recordTypes_) {
    auto positionOf = [&](const Index* index) {
      for (size_t i = 0; i < data->allIndexes_.size(); ++i) {
        if (data->allIndexes_[i].get() == index) return i;
      }
      throw MetaDataException("index " + index->name() + " is not in the metadata's index list");
    };
    std::vector<size_t> positions;
    for (const auto& index : type.indexes()) positions.push_back(positionOf(index.get()));
    for (const auto& index : type.multiTypeIndexes()) positions.push_back(positionOf(index.get()));
    for (const auto& index : data->universalIndexes_) positions.push_back(positionOf(index.get()));
    data->indexesCovering_.emplace_back(&type, std::move(positions));
  }
  return metaData;
}

}  // namespace rl
