// VALUE index maintenance (docs/format.md, "VALUE index entries"): an index's entries for a record
// are its root expression's keys, each stored at P+(2, sk) + (index columns..., trimmed primary
// key...) with the value columns (a KeyWithValue root's tail) packed as the value. A save diffs the
// old record's entries against the new one's: entries common to both are left alone, the
// old ones cleared, the new ones set (unique indexes checked first).
//
// The VALUE maintainer is registered under "value" in the IndexMaintainerRegistry
// (index_maintainer_registry.h); its check (value_index_check.cc) verifies an index's entries
// against the records for the store checker.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/index/index_check.h"
#include "rl/index/index_maintainer.h"
#include "rl/metadata/index.h"
#include "rl/metadata/record_type.h"
#include "rl/record/record_version.h"

namespace rl {

// The factory of VALUE index maintainers.
std::shared_ptr<const IndexMaintainerFactory> valueIndexMaintainerFactory();

// A VALUE maintainer of `index` in `store`: for index types whose entries are laid out as
// VALUE's and that reuse its scans and range deletes (version_index.cc).
std::unique_ptr<IndexMaintainer> makeValueIndexMaintainer(RecordStore::State& store,
                                                          const StoreIndex& index);

// The entries `index` has for `record` of `type`.
std::vector<EvaluatedIndexEntry> evaluateValueIndex(const Index& index, const RecordType& type,
                                                    const google::protobuf::Message& record,
                                                    const std::optional<RecordVersion>& version);

// An entry's key: `indexPrefix` P+(2, sk), then the index columns, then the trimmed primary
// key.
fdb::Bytes valueIndexEntryKey(std::string_view indexPrefix, const fdb::Tuple& key,
                              const fdb::Tuple& trimmedPrimaryKey);
// An entry's value: its value columns packed, or nothing when there are none.
fdb::Bytes valueIndexEntryValue(const EvaluatedIndexEntry& entry);

// Drops from both sides the entries a save leaves as they are: in the old and the new record's
// entries, and complete (an entry with an incomplete version is written again: its local
// version may differ). Entries are keys here: a repeated one counts once.
void removeCommonEntries(std::vector<EvaluatedIndexEntry>& before,
                         std::vector<EvaluatedIndexEntry>& after);

// The store checker's check of a VALUE index (value_index_check.cc).
std::unique_ptr<IndexCheck> makeValueIndexCheck(const IndexCheckTarget& target);

}  // namespace rl
