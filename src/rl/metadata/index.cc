#include "rl/metadata/index.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "fdb/error.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool needsGroupingWrapper(std::string_view type) {
  return type == Index::kRank || type == Index::kCount || type == Index::kMaxEver ||
         type == Index::kMinEver || type == Index::kSum;
}

// The root of an index whose deprecated value_expression is set.
KeyExpression withValueExpression(const KeyExpression& root, const KeyExpression& value) {
  if (value.columnSize() == 0) return root;
  return keyWithValue(concat(root, value), root.columnSize());
}

}  // namespace

Index::Index(std::string name, KeyExpression rootExpression, std::string_view type,
             std::map<std::string, std::string> options)
    : name_(std::move(name)),
      type_(type),
      rootExpression_(std::move(rootExpression)),
      options_(std::move(options)),
      subspaceKey_(name_) {}

std::optional<std::string> Index::option(std::string_view key) const {
  auto it = options_.find(std::string(key));
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

bool Index::booleanOption(std::string_view key, bool defaultValue) const {
  std::optional<std::string> value = option(key);
  if (!value) return defaultValue;
  return equalsIgnoringCase(*value, "true");
}

void Index::setSubspaceKey(fdb::TupleElement key) {
  if (key.isNull()) throw MetaDataException("index " + name_ + " cannot have a null subspace key");
  subspaceKey_ = std::move(key);
  explicitSubspaceKey_ = true;
}

fdb::Tuple Index::trimPrimaryKey(const fdb::Tuple& primaryKey) const {
  if (!primaryKeyPositions_) return primaryKey;
  fdb::Tuple trimmed;
  for (size_t i = 0; i < primaryKey.size(); ++i) {
    if (i >= primaryKeyPositions_->size() || (*primaryKeyPositions_)[i] < 0) {
      trimmed.append(primaryKey[i]);
    }
  }
  return trimmed;
}

fdb::Tuple Index::entryPrimaryKey(const fdb::Tuple& entry) const {
  fdb::Tuple primaryKey;
  size_t after = static_cast<size_t>(columnSize());
  if (!primaryKeyPositions_) {
    for (size_t i = after; i < entry.size(); ++i) primaryKey.append(entry[i]);
    return primaryKey;
  }
  for (int position : *primaryKeyPositions_) {
    primaryKey.append(entry.at(position < 0 ? after++ : static_cast<size_t>(position)));
  }
  return primaryKey;
}

IndexProto Index::toProto() const {
  IndexProto proto;
  proto.set_name(name_);
  *proto.mutable_root_expression() = rootExpression_.toProto();
  proto.set_type(type_);
  for (const auto& [key, value] : options_) {
    auto* option = proto.add_options();
    option->set_key(key);
    option->set_value(value);
  }
  proto.set_subspace_key(packSubspaceKey(subspaceKey_));
  if (addedVersion_ > 0) proto.set_added_version(addedVersion_);
  if (lastModifiedVersion_ > 0) proto.set_last_modified_version(lastModifiedVersion_);
  if (predicate_) *proto.mutable_predicate() = *predicate_;
  return proto;
}

// Reads the deprecated fields on purpose: metadata written long ago still uses them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
Index Index::fromProto(const IndexProto& proto) {
  std::string type(kValue);
  std::map<std::string, std::string> options;
  if (proto.has_index_type()) {
    const auto indexType = proto.index_type();
    if (indexType == IndexProto::RANK || indexType == IndexProto::RANK_UNIQUE) type = kRank;
    if (indexType == IndexProto::UNIQUE || indexType == IndexProto::RANK_UNIQUE) {
      options.emplace(kUniqueOption, "true");
    }
  } else {
    if (proto.has_type()) type = proto.type();
    for (const auto& option : proto.options()) options[option.key()] = option.value();
  }
  KeyExpression root = KeyExpression::fromProto(proto.root_expression());
  if (root.kind() != KeyExpression::Kind::kGrouping && needsGroupingWrapper(type)) {
    root = grouping(root, type == kCount ? root.columnSize() : 1);
  }
  if (proto.has_value_expression()) {
    root = withValueExpression(root, KeyExpression::fromProto(proto.value_expression()));
  }
  Index index(proto.name(), root, type, std::move(options));
  index.subspaceKey_ =
      proto.has_subspace_key() ? unpackSubspaceKey(proto.subspace_key()) : index.subspaceKey_;
  index.explicitSubspaceKey_ = true;
  index.addedVersion_ = proto.has_added_version() ? proto.added_version() : 1;
  index.lastModifiedVersion_ = proto.last_modified_version();
  if (proto.has_predicate()) {
    index.predicate_ = std::make_shared<const IndexPredicateProto>(proto.predicate());
  }
  return index;
}
#pragma GCC diagnostic pop

bool operator==(const Index& a, const Index& b) {
  bool samePredicate = (a.predicate_ == nullptr) == (b.predicate_ == nullptr) &&
                       (a.predicate_ == nullptr ||
                        a.predicate_->SerializeAsString() == b.predicate_->SerializeAsString());
  return a.name_ == b.name_ && a.type_ == b.type_ && a.rootExpression_ == b.rootExpression_ &&
         a.subspaceKey_ == b.subspaceKey_ && a.addedVersion_ == b.addedVersion_ &&
         a.lastModifiedVersion_ == b.lastModifiedVersion_ &&
         a.primaryKeyPositions_ == b.primaryKeyPositions_ && a.options_ == b.options_ &&
         samePredicate;
}

FormerIndexProto FormerIndex::toProto() const {
  FormerIndexProto proto;
  proto.set_subspace_key(packSubspaceKey(subspaceKey));
  if (addedVersion > 0) proto.set_added_version(addedVersion);
  if (removedVersion > 0) proto.set_removed_version(removedVersion);
  if (formerName) proto.set_former_name(*formerName);
  return proto;
}

FormerIndex FormerIndex::fromProto(const FormerIndexProto& proto) {
  FormerIndex former;
  former.subspaceKey = unpackSubspaceKey(proto.subspace_key());
  former.addedVersion = proto.added_version();
  former.removedVersion = proto.removed_version();
  if (proto.has_former_name()) former.formerName = proto.former_name();
  return former;
}

std::optional<std::vector<int>> primaryKeyComponentPositions(const KeyExpression& indexKey,
                                                             const KeyExpression& primaryKey) {
  std::vector<KeyExpression> indexColumns = indexKey.normalizeKeyForPositions();
  std::vector<KeyExpression> primaryColumns = primaryKey.normalizeKeyForPositions();
  std::vector<int> positions(primaryColumns.size(), -1);
  bool any = false;
  for (size_t i = 0; i < primaryColumns.size(); ++i) {
    for (size_t j = 0; j < indexColumns.size(); ++j) {
      if (indexColumns[j].matchesColumn(primaryColumns[i])) {
        positions[i] = static_cast<int>(j);
        any = true;
        break;
      }
    }
  }
  if (!any) return std::nullopt;
  return positions;
}

std::string packSubspaceKey(const fdb::TupleElement& key) { return fdb::Tuple{key}.pack(); }

fdb::TupleElement unpackSubspaceKey(std::string_view packed) {
  fdb::Tuple tuple;
  try {
    tuple = fdb::Tuple::unpack(packed);
  } catch (const fdb::Error& e) {
    throw MetaDataException(std::string("index subspace key is not a packed tuple: ") + e.what());
  }
  if (tuple.size() != 1 || tuple[0].isNull()) {
    throw MetaDataException("index subspace key must be a tuple of one non-null element");
  }
  return tuple[0];
}

}  // namespace rl
