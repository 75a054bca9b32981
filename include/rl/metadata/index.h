// rl::Index — the definition of one secondary index: its name, type, key expression,
// options and where its entries live (docs/format.md, "Indexes"); and rl::FormerIndex,
// what remains of an index that was removed.
//
// An index's entries live under (2, subspaceKey); the subspace key defaults to the name.
// For an index on a single record type, the metadata also works out which primary-key
// columns already appear in the index key, so that entries need not repeat them
// (primaryKeyComponentPositions(); docs/format.md, "VALUE index entries").
//
//   rl::Index byPrice("Order$price", rl::field("price"));
//   rl::Index uniqueEmail("by_email", rl::field("email"), rl::Index::kValue,
//                         {{rl::Index::kUniqueOption, "true"}});
//   builder.addIndex("Order", byPrice);
//   // later, from an entry key (price, id) read back from the index:
//   fdb::Tuple primaryKey = metaData.index("Order$price").entryPrimaryKey(entry);
//
// Thread-safety: a value; const access from many threads is safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdb/tuple.h"
#include "record_metadata.pb.h"
#include "rl/metadata/key_expression.h"

namespace rl {

using IndexProto = ::com::apple::foundationdb::record::Index;
using FormerIndexProto = ::com::apple::foundationdb::record::FormerIndex;
using IndexPredicateProto = ::com::apple::foundationdb::record::Predicate;

class Index {
 public:
  // Index types (the Java Record Layer's IndexTypes) this library names.
  static constexpr std::string_view kValue = "value";
  static constexpr std::string_view kVersion = "version";
  static constexpr std::string_view kRank = "rank";
  static constexpr std::string_view kCount = "count";
  static constexpr std::string_view kSum = "sum";
  static constexpr std::string_view kMinEver = "min_ever";
  static constexpr std::string_view kMaxEver = "max_ever";
  // The option that makes an index unique ("true").
  static constexpr std::string_view kUniqueOption = "unique";

  Index(std::string name, KeyExpression rootExpression, std::string_view type = kValue,
        std::map<std::string, std::string> options = {});

  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  const KeyExpression& rootExpression() const { return rootExpression_; }
  const std::map<std::string, std::string>& options() const { return options_; }
  std::optional<std::string> option(std::string_view key) const;
  // "true" (any case) is true; an absent option is `defaultValue`.
  bool booleanOption(std::string_view key, bool defaultValue) const;
  bool isUnique() const { return booleanOption(kUniqueOption, false); }

  // The key of the index's subspace (2, subspaceKey): the name unless set explicitly.
  const fdb::TupleElement& subspaceKey() const { return subspaceKey_; }
  bool hasExplicitSubspaceKey() const { return explicitSubspaceKey_; }
  // Throws MetaDataException for a null key.
  void setSubspaceKey(fdb::TupleElement key);

  // Metadata versions; 0 means "not yet assigned" (the builder assigns them).
  int addedVersion() const { return addedVersion_; }
  int lastModifiedVersion() const { return lastModifiedVersion_; }
  void setAddedVersion(int version) { addedVersion_ = version; }
  void setLastModifiedVersion(int version) { lastModifiedVersion_ = version; }

  // A filtered index's predicate, carried as its serialized form (not evaluated here).
  const IndexPredicateProto* predicate() const { return predicate_.get(); }

  // For each primary-key column, the index-key column holding the same value, or -1; no
  // value when no primary-key column appears in the index key (then entries carry the
  // whole primary key).
  const std::optional<std::vector<int>>& primaryKeyComponentPositions() const {
    return primaryKeyPositions_;
  }
  void setPrimaryKeyComponentPositions(std::optional<std::vector<int>> positions) {
    primaryKeyPositions_ = std::move(positions);
  }

  // Columns of the index key (the root expression's column size).
  int columnSize() const { return rootExpression_.columnSize(); }
  // The primary-key columns an entry key carries after its index columns: `primaryKey`
  // without the columns the index key already holds.
  fdb::Tuple trimPrimaryKey(const fdb::Tuple& primaryKey) const;
  // The record's primary key, rebuilt from an entry key (index columns then the trimmed
  // primary key). Throws fdb::Error 2251 when `entry` is too short.
  fdb::Tuple entryPrimaryKey(const fdb::Tuple& entry) const;

  // The serialized form, without its record types (RecordMetaData::toProto adds them).
  IndexProto toProto() const;
  // Reads the deprecated index_type and value_expression fields as Java does, and wraps a
  // rank/count/sum/min_ever/max_ever root that is not a grouping. Throws MetaDataException.
  static Index fromProto(const IndexProto& proto);

  friend bool operator==(const Index& a, const Index& b);

 private:
  std::string name_;
  std::string type_;
  KeyExpression rootExpression_;
  std::map<std::string, std::string> options_;
  fdb::TupleElement subspaceKey_;
  bool explicitSubspaceKey_ = false;
  int addedVersion_ = 0;
  int lastModifiedVersion_ = 0;
  std::shared_ptr<const IndexPredicateProto> predicate_;
  std::optional<std::vector<int>> primaryKeyPositions_;
};

// An index that was removed, kept in the metadata so stores that still hold its data
// clear its subspace when they are opened.
struct FormerIndex {
  fdb::TupleElement subspaceKey;
  int addedVersion = 0;
  int removedVersion = 0;
  std::optional<std::string> formerName;

  FormerIndexProto toProto() const;
  static FormerIndex fromProto(const FormerIndexProto& proto);

  friend bool operator==(const FormerIndex&, const FormerIndex&) = default;
};

// For each column of `primaryKey`, the column of `indexKey` that equals it, or -1;
// no value when none does (Java's buildPrimaryKeyComponentPositions).
std::optional<std::vector<int>> primaryKeyComponentPositions(const KeyExpression& indexKey,
                                                             const KeyExpression& primaryKey);

// A subspace key as the metadata proto stores it: a packed one-element tuple.
std::string packSubspaceKey(const fdb::TupleElement& key);
// Throws MetaDataException unless `packed` is exactly one non-null element.
fdb::TupleElement unpackSubspaceKey(std::string_view packed);

}  // namespace rl
