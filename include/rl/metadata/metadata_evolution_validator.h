// rl::MetaDataEvolutionValidator — checks that new metadata for a record store is a safe
// successor of the metadata the store was written with, by the rules of the Java Record
// Layer's MetaDataEvolutionValidator (docs/guide.md, "Evolving the metadata"): everything the
// old metadata wrote must read back the same with the new one, and index changes must not
// leave an index's entries out of step with its definition.
//
//   rl::MetaDataEvolutionValidator validator;                  // the default, strict rules
//   validator.validate(oldMetaData, newMetaData);              // throws MetaDataException
//   rl::MetaDataEvolutionValidator lax({.allowIndexRebuilds = true});
//
// The rules, in the order they are checked (each refusal's message starts with the rule's
// name, as Java words it, then names the record type, field or index):
// - the version goes up ("new meta-data does not have newer version than old meta-data");
// - split_long_records is not turned off, nor on without allowUnsplitToSplit;
// - every union field keeps a message type, no record type is removed from the union, split
//   into two or merged with another; record type renames are allowed unless
//   disallowTypeRenames;
// - in every record type and the message types it nests, recursively: the proto syntax is
//   unchanged; no field is removed; a field keeps its name (unless allowFieldRenames, or
//   allowDeprecatedFieldRenames and the field is deprecated on either side), stays
//   deprecated (unless allowUndeprecatingFields), keeps its type (but int32 may become
//   int64, and sint32 sint64), stays required or repeated and keeps whether it tracks
//   presence; an enum keeps every value number; no new field is required;
// - every old record type keeps its since_version, primary key (with renamed fields
//   renamed) and record type key; a new record type has a since_version above the old
//   metadata version (or none, with allowNoSinceVersion);
// - indexes and former indexes are matched by subspace key: a former index stays one with the
//   same versions and name, and its key is not taken by an index; an old index stays an
//   index or becomes a former index whose name is the index's (or absent, with
//   allowMissingFormerIndexNames), whose added version is the index's (or older, with
//   allowOlderFormerIndexAddedVersions) and whose removed version is above the index's last
//   modification and the old metadata version; a new index's last-modified version is above
//   the old metadata version;
// - an index kept keeps its name and added version, and its last-modified version unless
//   allowIndexRebuilds (then a higher one allows any change: the store rebuilds it); else it
//   keeps its type, its record types (it may add record types newer than the old metadata),
//   its key expression, its primary-key component positions and its options, except that a
//   unique index may become non-unique and "allowedForQuery" and "replacedBy*" may change.
//
// Thread-safety: immutable; validate() may run on many threads at once.
#pragma once

#include "rl/metadata/metadata.h"

namespace rl {

// The relaxations (all off by default), named as Java's MetaDataEvolutionValidator.Builder
// names them.
struct MetaDataEvolutionOptions {
  // The new metadata may have the same version as the old one (its changes are still checked).
  bool allowNoVersionChange = false;
  // A new record type may have no since_version.
  bool allowNoSinceVersion = false;
  // Any field may be renamed (same number, new name); key expressions must follow the rename.
  bool allowFieldRenames = false;
  // A field deprecated before or after may be renamed.
  bool allowDeprecatedFieldRenames = false;
  // A deprecated field may stop being deprecated.
  bool allowUndeprecatingFields = false;
  // An index may change in ways that need a rebuild when its last-modified version goes up.
  bool allowIndexRebuilds = false;
  // A former index replacing an index may leave out the index's name.
  bool allowMissingFormerIndexNames = false;
  // A former index may record an added version older than its index's.
  bool allowOlderFormerIndexAddedVersions = false;
  // The metadata may start splitting long records (safe for stores created at format version 5
  // or later, where unsplit records already carry the split suffix).
  bool allowUnsplitToSplit = false;
  // Refuse renamed record types (a union field whose message type has another name).
  bool disallowTypeRenames = false;
};

class MetaDataEvolutionValidator {
 public:
  MetaDataEvolutionValidator() = default;
  explicit MetaDataEvolutionValidator(MetaDataEvolutionOptions options) : options_(options) {}

  const MetaDataEvolutionOptions& options() const { return options_; }

  // Throws MetaDataException naming the first rule `newMetaData` breaks as a successor of
  // `oldMetaData`.
  void validate(const RecordMetaData& oldMetaData, const RecordMetaData& newMetaData) const;

 private:
  MetaDataEvolutionOptions options_;
};

}  // namespace rl
