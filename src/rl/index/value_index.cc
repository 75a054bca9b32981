#include "rl/index/value_index.h"

#include <fmt/format.h>
#include <algorithm>

#include "rl/record_store_exception.h"
#include "rl/store/keyspace.h"

namespace rl::store {
namespace {

fdb::Bytes entryKeyBytes(const StoreIndex& index, const fdb::Tuple& key,
                         const fdb::Tuple& trimmedPrimaryKey) {
  fdb::Bytes bytes = index.subspacePrefix;
  key.packInto(bytes);
  trimmedPrimaryKey.packInto(bytes);
  return bytes;
}

fdb::KeyRange prefixRange(const fdb::Bytes& prefix) {
  return fdb::KeyRange{prefix + '\x00', prefix + '\xff'};
}

void addUniquenessViolation(RecordStore::State& state, const Index& index,
                            const fdb::Tuple& valueKey, const fdb::Tuple& primaryKey,
                            const fdb::Tuple& existingKey) {
  fdb::Bytes key = uniquenessViolationsPrefix(state, index);
  valueKey.packInto(key);
  primaryKey.packInto(key);
  const fdb::Bytes value = existingKey.pack();
  state.context->transaction().set(key, value);
  state.countWrite(key, value);
}

void removeUniquenessViolations(RecordStore::State& state, const Index& index,
                                const fdb::Tuple& valueKey, const fdb::Tuple& primaryKey) {
  fdb::Bytes valuePrefix = uniquenessViolationsPrefix(state, index);
  valueKey.packInto(valuePrefix);
  fdb::Transaction& tr = state.context->transaction();
  fdb::Bytes key = valuePrefix;
  primaryKey.packInto(key);
  tr.clear(key);
  // The last remaining violation of a value is no violation: clear it too.
  fdb::RangeOptions options;
  options.limit = 2;
  options.mode = fdb::StreamingMode::kWantAll;
  const fdb::KeyRange range = prefixRange(valuePrefix);
  const fdb::RangeResult rest = tr.getRange(range, options).get();
  if (rest.rows.size() == 1) tr.clearRange(range);
}

// Throws (or, while the index is write-only, records) when another record has `valueKey`.
void checkUniqueness(RecordStore::State& state, const StoreIndex& storeIndex,
                     const fdb::Tuple& valueKey, const fdb::Tuple& primaryKey) {
  const Index& index = *storeIndex.index;
  state.counters.uniquenessChecks += 1;
  fdb::Bytes valuePrefix = storeIndex.subspacePrefix;
  valueKey.packInto(valuePrefix);
  fdb::RangeOptions options;
  options.mode = fdb::StreamingMode::kWantAll;
  const fdb::RangeResult existing =
      state.context->transaction().getRange(prefixRange(valuePrefix), options).get();
  for (const fdb::KeyValueRef& row : existing.rows) {
    state.countRead(row.key, row.value);
    const fdb::Tuple entry = fdb::Tuple::unpack(row.key.substr(storeIndex.subspacePrefix.size()));
    fdb::Tuple existingKey = index.entryPrimaryKey(entry);
    if (existingKey == primaryKey) continue;
    if (storeIndex.state == IndexState::kWriteOnly ||
        storeIndex.state == IndexState::kWriteOnlyWithQueue) {
      addUniquenessViolation(state, index, valueKey, primaryKey, existingKey);
      addUniquenessViolation(state, index, valueKey, existingKey, primaryKey);
    } else {
      // The message first: the key is moved into the exception below.
      std::string message = fmt::format(
          "Duplicate entry for unique index {}: value {} of primary key {} is "
          "already indexed for primary key {}",
          index.name(), fdb::printable(valueKey.pack()), fdb::printable(primaryKey.pack()),
          fdb::printable(existingKey.pack()));
      throw RecordIndexUniquenessViolation(std::move(message), index.name(), valueKey, primaryKey,
                                           std::move(existingKey));
    }
  }
}

void removeCommonEntries(std::vector<ValueIndexEntry>& before,
                         std::vector<ValueIndexEntry>& after) {
  if (before.empty() || after.empty()) return;
  std::vector<ValueIndexEntry> common;
  for (const ValueIndexEntry& entry : before) {
    if (std::find(after.begin(), after.end(), entry) != after.end()) common.push_back(entry);
  }
  auto isCommon = [&](const ValueIndexEntry& entry) {
    return std::find(common.begin(), common.end(), entry) != common.end();
  };
  std::erase_if(before, isCommon);
  std::erase_if(after, isCommon);
}

}  // namespace

fdb::Bytes uniquenessViolationsPrefix(const RecordStore::State& state, const Index& index) {
  return state.subspace().pack(
      fdb::Tuple{keyspace::kIndexUniquenessViolations, index.subspaceKey()});
}

std::vector<ValueIndexEntry> evaluateIndex(const Index& index, const RecordType& type,
                                           const google::protobuf::Message& record,
                                           const std::optional<RecordVersion>& version) {
  std::vector<EvaluatedKey> keys;
  std::optional<fdb::Versionstamp> versionstamp;
  if (version) versionstamp = version->toVersionstamp();
  const KeyExpression& root = index.rootExpression();
  root.evaluateInto(record, type.evaluationContext(versionstamp), keys);
  std::vector<ValueIndexEntry> entries;
  entries.reserve(keys.size());
  for (EvaluatedKey& key : keys) {
    const size_t columns = key.columns.size();
    if (root.kind() == KeyExpression::Kind::kKeyWithValue) {
      const size_t split = std::min(static_cast<size_t>(root.splitPoint()), columns);
      entries.push_back(ValueIndexEntry{key.subTuple(0, split), key.subTuple(split, columns),
                                        key.containsNonUniqueNull});
    } else {
      entries.push_back(
          ValueIndexEntry{std::move(key.columns), fdb::Tuple{}, key.containsNonUniqueNull});
    }
  }
  return entries;
}

bool indexCovers(const RecordStore::State& state, size_t indexPosition, const RecordType& type) {
  const std::vector<size_t>& positions = state.indexesFor(type);
  return std::find(positions.begin(), positions.end(), indexPosition) != positions.end();
}

void updateIndex(RecordStore::State& state, const StoreIndex& storeIndex,
                 const fdb::Tuple& primaryKey, const IndexedRecord& before,
                 const IndexedRecord& after) {
  const Index& index = *storeIndex.index;
  if (index.type() != Index::kValue) {
    throw RecordCoreException(fmt::format(
        "index {} has type {}, which this record store does not maintain (only value indexes)",
        index.name(), index.type()));
  }
  const size_t position = static_cast<size_t>(&storeIndex - state.indexes.data());
  std::vector<ValueIndexEntry> oldEntries;
  std::vector<ValueIndexEntry> newEntries;
  if (before.record != nullptr && indexCovers(state, position, *before.type)) {
    oldEntries = evaluateIndex(index, *before.type, *before.record, before.version);
  }
  if (after.record != nullptr && indexCovers(state, position, *after.type)) {
    newEntries = evaluateIndex(index, *after.type, *after.record, after.version);
  }
  removeCommonEntries(oldEntries, newEntries);
  if (oldEntries.empty() && newEntries.empty()) return;

  fdb::Transaction& tr = state.context->transaction();
  const fdb::Tuple trimmed = index.trimPrimaryKey(primaryKey);
  const bool unique = index.isUnique();
  const bool writeOnly = storeIndex.state == IndexState::kWriteOnly ||
                         storeIndex.state == IndexState::kWriteOnlyWithQueue;
  // Clear first, so that a unique check below does not see this record's old entries.
  for (const ValueIndexEntry& entry : oldEntries) {
    tr.clear(entryKeyBytes(storeIndex, entry.key, trimmed));
    state.counters.indexEntriesCleared += 1;
    if (unique && writeOnly) removeUniquenessViolations(state, index, entry.key, primaryKey);
  }
  for (const ValueIndexEntry& entry : newEntries) {
    const fdb::Bytes key = entryKeyBytes(storeIndex, entry.key, trimmed);
    const fdb::Bytes value = entry.value.empty() ? fdb::Bytes() : entry.value.pack();
    if (key.size() > state.options.indexKeySizeLimit) {
      throw IndexEntryTooLargeException(fmt::format(
          "index entry is too large to be stored in FDB key: {} bytes for index {} (limit {})",
          key.size(), index.name(), state.options.indexKeySizeLimit));
    }
    if (value.size() > state.options.indexValueSizeLimit) {
      throw IndexEntryTooLargeException(fmt::format(
          "index entry is too large to be stored in FDB value: {} bytes for index {} (limit {})",
          value.size(), index.name(), state.options.indexValueSizeLimit));
    }
    if (unique && !entry.containsNonUniqueNull) {
      checkUniqueness(state, storeIndex, entry.key, primaryKey);
    }
    tr.set(key, value);
    state.countWrite(key, value);
    state.counters.indexEntriesWritten += 1;
  }
}

void updateIndexes(RecordStore::State& state, const fdb::Tuple& primaryKey,
                   const IndexedRecord& before, const IndexedRecord& after) {
  const std::vector<size_t>* first = after.type ? &state.indexesFor(*after.type) : nullptr;
  const std::vector<size_t>* second =
      before.type && before.type != after.type ? &state.indexesFor(*before.type) : nullptr;
  auto update = [&](size_t position) {
    const StoreIndex& storeIndex = state.indexes[position];
    if (storeIndex.state == IndexState::kDisabled) return;
    updateIndex(state, storeIndex, primaryKey, before, after);
  };
  if (first != nullptr) {
    for (size_t position : *first) update(position);
  }
  if (second != nullptr) {
    for (size_t position : *second) {
      if (first == nullptr || std::find(first->begin(), first->end(), position) == first->end()) {
        update(position);
      }
    }
  }
}

}  // namespace rl::store
