// VALUE index maintenance (spec §4.2): an index's entries for a record are its root
// expression's keys, each stored at P+(2, sk) + (index columns..., trimmed primary key...)
// with the value columns (a KeyWithValue root's tail) packed as the value. A save diffs the
// old record's entries against the new one's: entries common to both are left alone, the
// old ones cleared, the new ones set (unique indexes checked first).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "fdb/tuple.h"
#include "rl/record_version.h"
#include "rl/store/record_store_state.h"

namespace rl::store {

// One entry an index has for a record, before the primary key is added.
struct ValueIndexEntry {
  fdb::Tuple key;    // the index columns
  fdb::Tuple value;  // the value columns
  bool containsNonUniqueNull = false;

  friend bool operator==(const ValueIndexEntry& a, const ValueIndexEntry& b) {
    return a.key == b.key && a.value == b.value;
  }
};

// The entries `index` has for `record` of `type` (none when the index does not cover it).
std::vector<ValueIndexEntry> evaluateIndex(const Index& index, const RecordType& type,
                                           const google::protobuf::Message& record,
                                           const std::optional<RecordVersion>& version);

// One side of a record change: the record (null: none) with its type and version.
struct IndexedRecord {
  const google::protobuf::Message* record = nullptr;
  const RecordType* type = nullptr;
  std::optional<RecordVersion> version;
};

// Updates every maintained (not DISABLED) index covering either side of the change of the
// record `primaryKey` from `before` to `after`.
void updateIndexes(RecordStore::State& state, const fdb::Tuple& primaryKey,
                   const IndexedRecord& before, const IndexedRecord& after);

// Updates one index for a change; the building block of updateIndexes and index rebuilds.
void updateIndex(RecordStore::State& state, const StoreIndex& index, const fdb::Tuple& primaryKey,
                 const IndexedRecord& before, const IndexedRecord& after);

// Whether `index` covers records of `type`.
bool indexCovers(const RecordStore::State& state, size_t indexPosition, const RecordType& type);

// The uniqueness-violation subspace key P+(7, sk) packed.
fdb::Bytes uniquenessViolationsPrefix(const RecordStore::State& state, const Index& index);

}  // namespace rl::store
