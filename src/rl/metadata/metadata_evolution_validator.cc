// The metadata evolution rules (metadata_evolution_validator.h; docs/guide.md, "Evolving the
// metadata").
#include "rl/metadata/metadata_evolution_validator.h"

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fdb/tuple_text.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

// Every refusal: the rule's name, then what breaks it.
[[noreturn]] void refuse(std::string_view rule, const std::string& details) {
  throw MetaDataException(fmt::format("{}: {}", rule, details));
}

std::string optionalVersion(const std::optional<int>& version) {
  return version ? std::to_string(*version) : std::string("none");
}

std::string optionalName(const std::optional<std::string>& name) {
  return name ? *name : std::string("(none)");
}

std::string formatKey(const fdb::TupleElement& key) { return fdb::formatElement(key); }

// Rewrites the field names of `expression` (read against `from`) to the names the fields of the
// same numbers have in `to`; fields `from` does not have are left as they are.
void renameFields(KeyExpressionProto& expression, const Descriptor* from, const Descriptor* to) {
  auto renameField =
      [&](::com::apple::foundationdb::record::expressions::Field* field) -> const FieldDescriptor* {
    const FieldDescriptor* oldField = from ? from->FindFieldByName(field->field_name()) : nullptr;
    const FieldDescriptor* newField =
        oldField && to ? to->FindFieldByNumber(oldField->number()) : nullptr;
    if (newField) field->set_field_name(newField->name());
    return oldField;
  };
  if (expression.has_field()) {
    renameField(expression.mutable_field());
  } else if (expression.has_nesting()) {
    auto* nesting = expression.mutable_nesting();
    const FieldDescriptor* oldParent = renameField(nesting->mutable_parent());
    const FieldDescriptor* newParent =
        oldParent && to ? to->FindFieldByNumber(oldParent->number()) : nullptr;
    if (nesting->has_child()) {
      renameFields(*nesting->mutable_child(), oldParent ? oldParent->message_type() : nullptr,
                   newParent ? newParent->message_type() : nullptr);
    }
  } else if (expression.has_then()) {
    for (auto& child : *expression.mutable_then()->mutable_child()) renameFields(child, from, to);
  } else if (expression.has_list()) {
    for (auto& child : *expression.mutable_list()->mutable_child()) renameFields(child, from, to);
  } else if (expression.has_grouping()) {
    renameFields(*expression.mutable_grouping()->mutable_whole_key(), from, to);
  } else if (expression.has_key_with_value()) {
    renameFields(*expression.mutable_key_with_value()->mutable_inner_key(), from, to);
  }
}

// `expression` as it reads after the field renames between two versions of a record type.
KeyExpression renamed(const KeyExpression& expression, const Descriptor& from,
                      const Descriptor& to) {
  KeyExpressionProto proto = expression.toProto();
  renameFields(proto, &from, &to);
  return KeyExpression::fromProto(proto);
}

// An index's options that may change without touching its entries (Java's IndexValidator).
bool optionMayChange(const std::string& option) {
  return option == "allowedForQuery" || std::string_view(option).starts_with("replacedBy");
}

// One validation of new metadata against old.
class Evolution {
 public:
  Evolution(const MetaDataEvolutionOptions& options, const RecordMetaData& oldMetaData,
            const RecordMetaData& newMetaData)
      : options_(options), old_(oldMetaData), new_(newMetaData) {}

  void run() {
    version();
    schemaOptions();
    unionTypes();
    recordTypes();
    indexes();
  }

 private:
  void version() {
    if (old_.version() > new_.version() ||
        (!options_.allowNoVersionChange && old_.version() == new_.version())) {
      refuse("new meta-data does not have newer version than old meta-data",
             fmt::format("old version {}, new version {}", old_.version(), new_.version()));
    }
  }

  void schemaOptions() {
    if (!options_.allowUnsplitToSplit && !old_.splitLongRecords() && new_.splitLongRecords()) {
      refuse("new meta-data splits long records",
             "split_long_records turned on (stores created before format version 5 keep "
             "unsplit records without a suffix; allowUnsplitToSplit allows it)");
    }
    if (old_.splitLongRecords() && !new_.splitLongRecords()) {
      refuse("new meta-data no longer splits long records",
             "split_long_records turned off (records already split could not be read)");
    }
  }

  // The union's fields, matched by number, and the record types behind them.
  void unionTypes() {
    const Descriptor& oldUnion = old_.unionDescriptor();
    const Descriptor& newUnion = new_.unionDescriptor();
    std::map<const Descriptor*, const Descriptor*> oldToNew;
    std::map<const Descriptor*, const Descriptor*> newToOld;
    for (int i = 0; i < oldUnion.field_count(); ++i) {
      const FieldDescriptor& oldField = *oldUnion.field(i);
      if (oldField.type() != FieldDescriptor::TYPE_MESSAGE) {
        refuse("field in union is not a message type", "union field " + oldField.name());
      }
      const FieldDescriptor* newField = newUnion.FindFieldByNumber(oldField.number());
      if (!newField) {
        refuse("record type removed from union",
               fmt::format("record type {} (union field {} = {})", oldField.message_type()->name(),
                           oldField.name(), oldField.number()));
      }
      if (newField->type() != FieldDescriptor::TYPE_MESSAGE) {
        refuse("field in new union is not a message type", "union field " + newField->name());
      }
      const Descriptor* oldRecord = oldField.message_type();
      const Descriptor* newRecord = newField->message_type();
      auto seenOld = oldToNew.find(oldRecord);
      if (seenOld != oldToNew.end() && seenOld->second != newRecord) {
        refuse("record type corresponds to multiple types in new meta-data",
               fmt::format("record type {} is now {} and {}", oldRecord->name(), newRecord->name(),
                           seenOld->second->name()));
      }
      auto seenNew = newToOld.find(newRecord);
      if (seenNew != newToOld.end() && seenNew->second != oldRecord) {
        refuse("record type corresponds to multiple types in old meta-data",
               fmt::format("record types {} and {} are both now {}", oldRecord->name(),
                           seenNew->second->name(), newRecord->name()));
      }
      oldToNew[oldRecord] = newRecord;
      newToOld[newRecord] = oldRecord;
      if (oldRecord->name() != newRecord->name()) {
        if (options_.disallowTypeRenames) {
          refuse("record type name changed",
                 fmt::format("record type {} is now {}", oldRecord->name(), newRecord->name()));
        }
        typeRenames_[oldRecord->name()] = newRecord->name();
      }
      message(*oldRecord, *newRecord);
    }
  }

  std::string newTypeName(const std::string& oldName) const {
    auto it = typeRenames_.find(oldName);
    return it == typeRenames_.end() ? oldName : it->second;
  }

  void message(const Descriptor& oldMessage, const Descriptor& newMessage) {
    if (&oldMessage == &newMessage) return;
    // A message may nest itself: each pair is checked once.
    if (!seen_.emplace(&oldMessage, &newMessage).second) return;
    const std::string oldSyntax = FileDescriptor::SyntaxName(oldMessage.file()->syntax());
    const std::string newSyntax = FileDescriptor::SyntaxName(newMessage.file()->syntax());
    if (oldSyntax != newSyntax) {
      refuse("message descriptor proto syntax changed",
             fmt::format("message {}: {} is now {}", oldMessage.name(), oldSyntax, newSyntax));
    }
    for (int i = 0; i < oldMessage.field_count(); ++i) {
      const FieldDescriptor& oldField = *oldMessage.field(i);
      const FieldDescriptor* newField = newMessage.FindFieldByNumber(oldField.number());
      if (!newField) {
        refuse("field removed from message descriptor",
               fmt::format("field {} (= {}) of {}", oldField.name(), oldField.number(),
                           oldMessage.name()));
      }
      field(oldField, *newField);
    }
    for (int i = 0; i < newMessage.field_count(); ++i) {
      const FieldDescriptor& newField = *newMessage.field(i);
      if (!oldMessage.FindFieldByNumber(newField.number()) && newField.is_required()) {
        refuse("required field added to record type",
               fmt::format("field {} of {}", newField.name(), newMessage.name()));
      }
    }
  }

  void field(const FieldDescriptor& oldField, const FieldDescriptor& newField) {
    const std::string where =
        fmt::format("field {} of {}", oldField.name(), oldField.containing_type()->name());
    const bool oldDeprecated = oldField.options().deprecated();
    const bool newDeprecated = newField.options().deprecated();
    if (oldField.name() != newField.name() &&
        !(options_.allowFieldRenames ||
          (options_.allowDeprecatedFieldRenames && (oldDeprecated || newDeprecated)))) {
      refuse("field renamed", fmt::format("{} is now named {} (allowFieldRenames allows it)", where,
                                          newField.name()));
    }
    if (oldDeprecated && !newDeprecated && !options_.allowUndeprecatingFields) {
      refuse("field is no longer deprecated", where + " (allowUndeprecatingFields allows it)");
    }
    if (oldField.type() != newField.type()) {
      const bool widened = (oldField.type() == FieldDescriptor::TYPE_INT32 &&
                            newField.type() == FieldDescriptor::TYPE_INT64) ||
                           (oldField.type() == FieldDescriptor::TYPE_SINT32 &&
                            newField.type() == FieldDescriptor::TYPE_SINT64);
      if (!widened) {
        refuse("field type changed",
               fmt::format("{}: {} is now {}", where, FieldDescriptor::TypeName(oldField.type()),
                           FieldDescriptor::TypeName(newField.type())));
      }
    }
    if (oldField.is_required() && !newField.is_required()) {
      refuse("required field is no longer required", where);
    }
    if (oldField.is_repeated() && !newField.is_repeated()) {
      refuse("repeated field is no longer repeated", where);
    }
    if (oldField.has_presence() != newField.has_presence()) {
      refuse("field changed whether default values are stored if set explicitly", where);
    }
    if (oldField.type() == FieldDescriptor::TYPE_ENUM) {
      const EnumDescriptor& oldEnum = *oldField.enum_type();
      const EnumDescriptor& newEnum = *newField.enum_type();
      for (int i = 0; i < oldEnum.value_count(); ++i) {
        if (!newEnum.FindValueByNumber(oldEnum.value(i)->number())) {
          refuse("enum removes value",
                 fmt::format("{}: enum {} has no value {} ({}) any more", where, oldEnum.name(),
                             oldEnum.value(i)->number(), oldEnum.value(i)->name()));
        }
      }
    }
    if (oldField.type() == FieldDescriptor::TYPE_MESSAGE ||
        oldField.type() == FieldDescriptor::TYPE_GROUP) {
      message(*oldField.message_type(), *newField.message_type());
    }
  }

  void recordTypes() {
    std::set<std::string> oldNamesNow;
    for (const auto& [oldName, oldType] : old_.recordTypes()) {
      const std::string newName = newTypeName(oldName);
      oldNamesNow.insert(newName);
      const RecordType* newType = new_.findRecordType(newName);
      if (!newType) {
        refuse("record type removed from meta-data",
               newName == oldName ? "record type " + oldName
                                  : fmt::format("record type {} (now {})", oldName, newName));
      }
      if (oldType.sinceVersion() != newType->sinceVersion()) {
        refuse("record type since version changed",
               fmt::format("record type {}: {} is now {}", newName,
                           optionalVersion(oldType.sinceVersion()),
                           optionalVersion(newType->sinceVersion())));
      }
      const KeyExpression required =
          renamed(oldType.primaryKey(), oldType.descriptor(), newType->descriptor());
      if (!(required == newType->primaryKey())) {
        if (required == oldType.primaryKey()) {
          refuse("record type primary key changed",
                 fmt::format("record type {}: {} is now {}", newName,
                             oldType.primaryKey().toString(), newType->primaryKey().toString()));
        }
        refuse("record type primary key does not match required",
               fmt::format("record type {}: {} must be {} after the field renames, not {}", newName,
                           oldType.primaryKey().toString(), required.toString(),
                           newType->primaryKey().toString()));
      }
      if (!(oldType.recordTypeKey() == newType->recordTypeKey())) {
        refuse("record type key changed", fmt::format("record type {}: {} is now {}", newName,
                                                      formatKey(oldType.recordTypeKey()),
                                                      formatKey(newType->recordTypeKey())));
      }
    }
    for (const auto& [newName, newType] : new_.recordTypes()) {
      if (oldNamesNow.count(newName)) continue;
      const std::optional<int> since = newType.sinceVersion();
      if (!since) {
        if (!options_.allowNoSinceVersion) {
          refuse("new record type is missing since version", "record type " + newName);
        }
      } else if (*since <= old_.version()) {
        refuse("new record type has since version older than old meta-data",
               fmt::format("record type {}: since version {}, old meta-data version {}", newName,
                           *since, old_.version()));
      }
    }
  }

  // Indexes and former indexes, matched by subspace key.
  void indexes() {
    std::map<fdb::TupleElement, const FormerIndex*> oldFormer;
    std::map<fdb::TupleElement, const FormerIndex*> newFormer;
    std::map<fdb::TupleElement, const Index*> oldIndexes;
    std::map<fdb::TupleElement, const Index*> newIndexes;
    for (const FormerIndex& former : old_.formerIndexes()) oldFormer[former.subspaceKey] = &former;
    for (const FormerIndex& former : new_.formerIndexes()) newFormer[former.subspaceKey] = &former;
    for (const auto& index : old_.allIndexes()) oldIndexes[index->subspaceKey()] = index.get();
    for (const auto& index : new_.allIndexes()) newIndexes[index->subspaceKey()] = index.get();

    for (const FormerIndex& former : old_.formerIndexes()) {
      auto reused = newIndexes.find(former.subspaceKey);
      if (reused != newIndexes.end()) {
        refuse("former index key used for new index in meta-data",
               fmt::format("index {} has the subspace key {} of former index {}",
                           reused->second->name(), formatKey(former.subspaceKey),
                           optionalName(former.formerName)));
      }
      if (!newFormer.count(former.subspaceKey)) {
        refuse("former index removed from meta-data",
               fmt::format("former index {} (subspace key {})", optionalName(former.formerName),
                           formatKey(former.subspaceKey)));
      }
    }
    for (const auto& index : old_.allIndexes()) {
      if (!newIndexes.count(index->subspaceKey()) && !newFormer.count(index->subspaceKey())) {
        refuse("index missing in new meta-data",
               fmt::format("index {} (subspace key {}) is neither an index nor a former index",
                           index->name(), formatKey(index->subspaceKey())));
      }
    }
    for (const FormerIndex& former : new_.formerIndexes()) {
      const std::string what =
          fmt::format("former index {} (subspace key {})", optionalName(former.formerName),
                      formatKey(former.subspaceKey));
      auto before = oldFormer.find(former.subspaceKey);
      if (before != oldFormer.end()) {
        keptFormerIndex(*before->second, former, what);
        continue;
      }
      if (former.removedVersion <= old_.version()) {
        refuse(
            "new former index has removed version that is not newer than the old meta-data "
            "version",
            fmt::format("{}: removed version {}, old meta-data version {}", what,
                        former.removedVersion, old_.version()));
      }
      auto index = oldIndexes.find(former.subspaceKey);
      if (index == oldIndexes.end()) {
        // Added and removed since the old metadata: nothing of it can be in a store.
        if (!options_.allowOlderFormerIndexAddedVersions && former.addedVersion <= old_.version()) {
          refuse(
              "former index without existing index has added version prior to old meta-data "
              "version",
              fmt::format("{}: added version {}, old meta-data version {}", what,
                          former.addedVersion, old_.version()));
        }
      } else {
        formerIndexOfIndex(*index->second, former, what);
      }
    }
    for (const auto& index : new_.allIndexes()) {
      auto before = oldIndexes.find(index->subspaceKey());
      if (before != oldIndexes.end()) {
        keptIndex(*before->second, *index);
      } else if (index->lastModifiedVersion() <= old_.version()) {
        refuse("new index has version that is not newer than the old meta-data version",
               fmt::format("index {}: last-modified version {}, old meta-data version {}",
                           index->name(), index->lastModifiedVersion(), old_.version()));
      }
    }
  }

  void keptFormerIndex(const FormerIndex& oldFormer, const FormerIndex& newFormer,
                       const std::string& what) {
    if (oldFormer.removedVersion != newFormer.removedVersion) {
      refuse("removed version of former index differs from prior version",
             fmt::format("{}: {} is now {}", what, oldFormer.removedVersion,
                         newFormer.removedVersion));
    }
    if (oldFormer.addedVersion != newFormer.addedVersion) {
      refuse("added version of former index differs from prior version",
             fmt::format("{}: {} is now {}", what, oldFormer.addedVersion, newFormer.addedVersion));
    }
    if (oldFormer.formerName != newFormer.formerName) {
      refuse("name of former index differs from prior version",
             fmt::format("{}: {} is now {}", what, optionalName(oldFormer.formerName),
                         optionalName(newFormer.formerName)));
    }
  }

  void formerIndexOfIndex(const Index& oldIndex, const FormerIndex& former,
                          const std::string& what) {
    if ((!options_.allowMissingFormerIndexNames || former.formerName) &&
        former.formerName != oldIndex.name()) {
      refuse("former index has different name than old index",
             fmt::format("{} replaces index {}", what, oldIndex.name()));
    }
    if (former.addedVersion > oldIndex.addedVersion()) {
      refuse("former index added after old index",
             fmt::format("{}: added version {}, index {} added at {}", what, former.addedVersion,
                         oldIndex.name(), oldIndex.addedVersion()));
    }
    if (!options_.allowOlderFormerIndexAddedVersions &&
        former.addedVersion != oldIndex.addedVersion()) {
      refuse("former index reports added version older than replacing index",
             fmt::format("{}: added version {}, index {} added at {}", what, former.addedVersion,
                         oldIndex.name(), oldIndex.addedVersion()));
    }
    if (former.removedVersion <= oldIndex.lastModifiedVersion()) {
      refuse("former index removed before old index's last modification",
             fmt::format("{}: removed version {}, index {} last modified at {}", what,
                         former.removedVersion, oldIndex.name(), oldIndex.lastModifiedVersion()));
    }
  }

  void keptIndex(const Index& oldIndex, const Index& newIndex) {
    const std::string& name = newIndex.name();
    if (oldIndex.name() != name) {
      refuse("index name changed",
             fmt::format("index {} is now named {} (subspace key {})", oldIndex.name(), name,
                         formatKey(newIndex.subspaceKey())));
    }
    if (oldIndex.addedVersion() != newIndex.addedVersion()) {
      refuse("new index added version does not match old index added version",
             fmt::format("index {}: {} is now {}", name, oldIndex.addedVersion(),
                         newIndex.addedVersion()));
    }
    if (oldIndex.lastModifiedVersion() > newIndex.lastModifiedVersion()) {
      refuse("old index has last-modified version newer than new index",
             fmt::format("index {}: {} is now {}", name, oldIndex.lastModifiedVersion(),
                         newIndex.lastModifiedVersion()));
    }
    if (oldIndex.lastModifiedVersion() != newIndex.lastModifiedVersion()) {
      if (!options_.allowIndexRebuilds) {
        refuse("last modified version of index changed",
               fmt::format("index {}: {} is now {} (a rebuild; allowIndexRebuilds allows it)", name,
                           oldIndex.lastModifiedVersion(), newIndex.lastModifiedVersion()));
      }
      return;  // rebuilt: any change is fine
    }
    if (oldIndex.type() != newIndex.type()) {
      refuse("index type changed",
             fmt::format("index {}: {} is now {}", name, oldIndex.type(), newIndex.type()));
    }
    std::set<std::string> oldTypes;
    std::set<std::string> newTypes;
    for (const RecordType* type : old_.recordTypesForIndex(oldIndex)) {
      oldTypes.insert(newTypeName(type->name()));
    }
    for (const RecordType* type : new_.recordTypesForIndex(newIndex)) newTypes.insert(type->name());
    for (const std::string& type : oldTypes) {
      if (!newTypes.count(type)) {
        refuse("new index removes record type",
               fmt::format("index {} no longer covers record type {}", name, type));
      }
    }
    for (const std::string& type : newTypes) {
      if (oldTypes.count(type)) continue;
      const std::optional<int> since = new_.recordType(type).sinceVersion();
      if (!since || *since <= old_.version()) {
        refuse("new index adds record type that is not newer than old meta-data",
               fmt::format("index {} now covers record type {} (since version {}, old meta-data "
                           "version {})",
                           name, type, optionalVersion(since), old_.version()));
      }
    }
    // The key expression, with renamed fields renamed (the same for every record type).
    std::optional<KeyExpression> required;
    for (const RecordType* oldType : old_.recordTypesForIndex(oldIndex)) {
      const RecordType& newType = new_.recordType(newTypeName(oldType->name()));
      KeyExpression forType =
          renamed(oldIndex.rootExpression(), oldType->descriptor(), newType.descriptor());
      if (!required) {
        required = forType;
      } else if (!(*required == forType)) {
        refuse("field renames result in inconsistent index definition for multi-type index",
               fmt::format("index {}: {} reads as {} on one record type and {} on another", name,
                           oldIndex.rootExpression().toString(), required->toString(),
                           forType.toString()));
      }
    }
    if (!required) required = oldIndex.rootExpression();
    if (!(newIndex.rootExpression() == *required)) {
      if (oldIndex.rootExpression() == *required) {
        refuse("index key expression changed",
               fmt::format("index {}: {} is now {}", name, oldIndex.rootExpression().toString(),
                           newIndex.rootExpression().toString()));
      }
      refuse("index key expression does not match required",
             fmt::format("index {}: {} must be {} after the field renames, not {}", name,
                         oldIndex.rootExpression().toString(), required->toString(),
                         newIndex.rootExpression().toString()));
    }
    const auto& oldPositions = oldIndex.primaryKeyComponentPositions();
    const auto& newPositions = newIndex.primaryKeyComponentPositions();
    if (oldPositions && !newPositions) {
      refuse("new index drops primary key component positions", "index " + name);
    }
    if (!oldPositions && newPositions) {
      refuse("new index adds primary key component positions", "index " + name);
    }
    if (oldPositions && *oldPositions != *newPositions) {
      refuse("new index changes primary key component positions", "index " + name);
    }
    options(oldIndex, newIndex);
  }

  static void options(const Index& oldIndex, const Index& newIndex) {
    std::set<std::string> changed;
    for (const auto& [key, value] : oldIndex.options()) {
      const std::optional<std::string> now = newIndex.option(key);
      if (!now || *now != value) changed.insert(key);
    }
    for (const auto& [key, value] : newIndex.options()) {
      if (!oldIndex.options().count(key)) changed.insert(key);
    }
    for (const std::string& key : changed) {
      if (optionMayChange(key)) continue;
      if (key == Index::kUniqueOption) {
        if (!oldIndex.isUnique() && newIndex.isUnique()) {
          refuse("index adds uniqueness constraint", "index " + newIndex.name());
        }
        continue;
      }
      refuse("index option changed",
             fmt::format("index {}: option {} was {}, is now {}", newIndex.name(), key,
                         optionalName(oldIndex.option(key)), optionalName(newIndex.option(key))));
    }
  }

  const MetaDataEvolutionOptions& options_;
  const RecordMetaData& old_;
  const RecordMetaData& new_;
  std::set<std::pair<const Descriptor*, const Descriptor*>> seen_;
  std::map<std::string, std::string> typeRenames_;
};

}  // namespace

void MetaDataEvolutionValidator::validate(const RecordMetaData& oldMetaData,
                                          const RecordMetaData& newMetaData) const {
  Evolution(options_, oldMetaData, newMetaData).run();
}

}  // namespace rl
