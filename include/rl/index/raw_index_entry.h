// rl::RawIndexEntry — one entry of a VALUE index as read, before decoding: what index fetch
// returns with each raw record (the record store decodes it into its rl::IndexEntry).
//
// The entry's key is P + (2, sk) + (indexed values..., primary-key columns not already
// indexed...) and its value a packed tuple (zero-length for plain VALUE indexes: the empty
// tuple). An RawIndexEntry views those bytes where the scan read them (the range read's batch,
// which it keeps alive) and decodes only what is asked for: the entry tuple, the value tuple,
// or the record's primary key, rebuilt from the entry with the index's primary-key positions
// (docs/format.md, "VALUE index entries"; Java's Index.getEntryPrimaryKey).
//
//   for (auto r = entries->next(); r.hasValue(); r = entries->next()) {
//     fdb::Tuple price = r.value().key();          // e.g. (1999, 42)
//     fdb::Tuple primaryKey = r.value().primaryKey();  // (42)
//   }
//
// Copies are cheap (no allocation): they share the bytes they view.
// Thread-safety: a value; copies may be used from different threads.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/tuple.h"

namespace rl {

class RawIndexEntry {
 public:
  RawIndexEntry() = default;
  // An entry viewing `key` and `value`, bytes that `owner` keeps alive. The first
  // `prefixLength` bytes of `key` are the index subspace. `primaryKeyPositions[i]`: where
  // primary-key column i sits in the entry tuple (index::entryPrimaryKeyPositions).
  RawIndexEntry(std::shared_ptr<const void> owner, std::string_view key, std::string_view value,
                size_t prefixLength, std::shared_ptr<const std::vector<int>> primaryKeyPositions);
  // An entry owning copies of `key` and `value`.
  static RawIndexEntry copyOf(std::string_view key, std::string_view value, size_t prefixLength,
                              std::shared_ptr<const std::vector<int>> primaryKeyPositions);

  // The whole key as stored: the index subspace, then the packed entry tuple.
  std::string_view rawKey() const { return key_; }
  // The packed entry tuple (the key after the index subspace).
  std::string_view packedKey() const { return key_.substr(prefixLength_); }
  // The value as stored (zero-length: the empty tuple).
  std::string_view packedValue() const { return value_; }

  // The entry tuple: indexed values, then the primary-key columns not among them.
  fdb::Tuple key() const;
  // The value tuple (empty for a zero-length value).
  fdb::Tuple value() const;
  // The record's primary key rebuilt from the entry tuple.
  fdb::Tuple primaryKey() const;
  // Appends the packed primary key to `out`: the encodings of the entry's primary-key
  // columns, copied as they are (no decoding, no allocation beyond `out`'s growth).
  // Throws RecordCoreStorageException when the entry is not a tuple long enough.
  void appendPackedPrimaryKey(fdb::Bytes& out) const;

  const std::vector<int>& primaryKeyPositions() const;

  // Same key, value and primary-key positions.
  friend bool operator==(const RawIndexEntry& a, const RawIndexEntry& b);

 private:
  std::shared_ptr<const void> owner_;
  std::string_view key_;
  std::string_view value_;
  size_t prefixLength_ = 0;
  std::shared_ptr<const std::vector<int>> primaryKeyPositions_;
};

}  // namespace rl
