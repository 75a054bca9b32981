#include "rl/index/value_index.h"

#include <fmt/format.h>
#include <algorithm>

#include "rl/cursor/key_value_cursor.h"
#include "rl/index/index_scan_facts.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_store_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

void addUniquenessViolation(RecordStore::State& state, const Index& index,
                            const fdb::Tuple& valueKey, const fdb::Tuple& primaryKey,
                            const fdb::Tuple& existingKey) {
  fdb::Bytes key = store::uniquenessViolationsPrefix(state, index);
  valueKey.packInto(key);
  primaryKey.packInto(key);
  const fdb::Bytes value = existingKey.pack();
  state.context->transaction().set(key, value);
  state.countWrite(key, value);
}

void removeUniquenessViolations(RecordStore::State& state, const Index& index,
                                const fdb::Tuple& valueKey, const fdb::Tuple& primaryKey) {
  fdb::Bytes valuePrefix = store::uniquenessViolationsPrefix(state, index);
  valueKey.packInto(valuePrefix);
  fdb::Transaction& tr = state.context->transaction();
  fdb::Bytes key = valuePrefix;
  primaryKey.packInto(key);
  tr.clear(key);
  // The last remaining violation of a value is no violation: clear it too.
  // Up to two rows, following `more`: one read may stop early (docs/semantics.md, "Range
  // reads").
  const fdb::KeyRange range = keyspace::prefixRange(valuePrefix);
  if (tr.getRangeAll(range, 2).size() == 1) tr.clearRange(range);
}

// Throws (or, while the index is write-only, records) when another record has `valueKey`.
void checkUniqueness(RecordStore::State& state, const StoreIndex& storeIndex,
                     const fdb::Tuple& valueKey, const fdb::Tuple& primaryKey) {
  const Index& index = *storeIndex.index;
  state.counters.uniquenessChecks += 1;
  fdb::Bytes valuePrefix = storeIndex.subspacePrefix;
  valueKey.packInto(valuePrefix);
  // Every entry of the value, following `more` (docs/semantics.md, "Range reads").
  const std::vector<fdb::KeyValue> existing =
      state.context->transaction().getRangeAll(keyspace::prefixRange(valuePrefix));
  for (const fdb::KeyValue& row : existing) {
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

class ValueIndexMaintainer : public IndexMaintainer {
 public:
  using IndexMaintainer::IndexMaintainer;

  std::vector<EvaluatedIndexEntry> evaluateIndex(const IndexedRecord& record) const override {
    if (record.record == nullptr) return {};
    return evaluateValueIndex(index(), *record.type, *record.record, record.version);
  }

  void update(const fdb::Tuple& primaryKey, const IndexedRecord& before,
              const IndexedRecord& after) override {
    RecordStore::State& state = store_;
    const Index& index = this->index();
    std::vector<EvaluatedIndexEntry> oldEntries = evaluateIndex(before);
    std::vector<EvaluatedIndexEntry> newEntries = evaluateIndex(after);
    removeCommonEntries(oldEntries, newEntries);
    if (oldEntries.empty() && newEntries.empty()) return;

    fdb::Transaction& tr = state.context->transaction();
    const fdb::Tuple trimmed = index.trimPrimaryKey(primaryKey);
    const bool unique = index.isUnique();
    const bool writeOnly = storeIndex_.state == IndexState::kWriteOnly ||
                           storeIndex_.state == IndexState::kWriteOnlyWithQueue;
    // Clear first, so that a unique check below does not see this record's old entries.
    for (const EvaluatedIndexEntry& entry : oldEntries) {
      tr.clear(valueIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed));
      state.counters.indexEntriesCleared += 1;
      if (unique && writeOnly) removeUniquenessViolations(state, index, entry.key, primaryKey);
    }
    for (const EvaluatedIndexEntry& entry : newEntries) {
      const fdb::Bytes key = valueIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed);
      const fdb::Bytes value = valueIndexEntryValue(entry);
      if (key.size() > state.options.indexKeySizeLimit) {
        throw IndexEntryTooLargeException(fmt::format(
            "index entry is too large to be stored in FDB key: {} bytes for index {} (limit {})",
            key.size(), index.name(), state.options.indexKeySizeLimit));
      }
      if (value.size() > state.options.indexValueSizeLimit) {
        throw IndexEntryTooLargeException(fmt::format(
            "index entry is too large to be stored in FDB value: {} bytes for index {} (limit "
            "{})",
            value.size(), index.name(), state.options.indexValueSizeLimit));
      }
      if (unique && !entry.containsNonUniqueNull) {
        checkUniqueness(state, storeIndex_, entry.key, primaryKey);
      }
      tr.set(key, value);
      state.countWrite(key, value);
      state.counters.indexEntriesWritten += 1;
    }
  }

  CursorPtr<IndexEntry> scan(IndexScanType type, const TupleRange& range,
                             const std::optional<fdb::Bytes>& continuation,
                             const ScanProperties& properties) override {
    if (type != IndexScanType::kByValue) {
      throw RecordCoreArgumentException(fmt::format("index {} of type {} cannot be scanned {}",
                                                    index().name(), index().type(),
                                                    indexScanTypeName(type)));
    }
    const fdb::Subspace subspace = fdb::Subspace::fromBytes(storeIndex_.subspacePrefix);
    auto inner = std::make_unique<KeyValueCursor>(*store_.context, subspace, range, properties,
                                                  continuation);
    return map(CursorPtr<fdb::KeyValueRef>(std::move(inner)),
               [state = store_.shared_from_this(), index = storeIndex_.index,
                prefixSize = storeIndex_.subspacePrefix.size()](fdb::KeyValueRef&& row) {
                 state->countRead(row.key, row.value);
                 IndexEntry entry;
                 entry.key = fdb::Tuple::unpack(row.key.substr(prefixSize));
                 if (!row.value.empty()) entry.value = fdb::Tuple::unpack(row.value);
                 entry.primaryKey = index->entryPrimaryKey(entry.key);
                 return entry;
               });
  }

  CursorPtr<IndexedRawRecord> scanRecords(const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties, IndexFetchMethod method,
                                          IndexOrphanBehavior orphanBehavior,
                                          size_t pipelineSize) override {
    RecordStore::State& state = store_;
    IndexScanFacts facts = indexScanFacts(state, storeIndex_);
    if (facts.oldVersionFormat && state.metaData.storeRecordVersions()) {
      throw RecordCoreException(fmt::format(
          "index {}: fetching records of a store that keeps versions in the old format (8, pk) "
          "is not supported; scan the index and load each record instead",
          index().name()));
    }
    IndexScanSpec spec = indexScanSpec(std::move(facts));
    spec.log = state.options.logger;
    return rl::scanIndexRecords(*state.context, spec, range, continuation, properties, method,
                                orphanBehavior, pipelineSize);
  }

  // Entries can be cleared by range when the index's first columns are the primary key's
  // first columns, for every record type it covers.
  std::optional<std::string> cannotDeleteWhere(const fdb::Tuple& prefix) const override {
    const Index& index = this->index();
    const std::vector<KeyExpression> indexColumns =
        index.rootExpression().normalizeKeyForPositions();
    bool matches = indexColumns.size() >= prefix.size();
    for (const RecordType* type : store_.metaData.recordTypesForIndex(index)) {
      const std::vector<KeyExpression> keyColumns = type->primaryKey().normalizeKeyForPositions();
      if (keyColumns.size() < prefix.size()) matches = false;
      for (size_t i = 0; matches && i < prefix.size(); ++i) {
        matches = indexColumns[i].matchesColumn(keyColumns[i]);
      }
    }
    if (matches) return std::nullopt;
    return fmt::format(
        "({}) does not start with the primary key's first {} column(s), so its entries cannot "
        "be deleted by range",
        index.rootExpression().toString(), prefix.size());
  }

  void deleteWhere(const fdb::Tuple& prefix) override {
    RecordStore::State& state = store_;
    const fdb::Bytes indexPrefix = storeIndex_.subspacePrefix + prefix.pack();
    state.context->clearRange(keyspace::prefixRange(indexPrefix));
    const fdb::Bytes violations = store::uniquenessViolationsPrefix(state, index()) + prefix.pack();
    state.context->clearRange(keyspace::prefixRange(violations));
  }
};

class ValueIndexMaintainerFactory : public IndexMaintainerFactory {
 public:
  std::string_view type() const override { return Index::kValue; }

  // A record's version is complete only at commit, so an entry holding it could not be
  // written as a plain key (that takes a VERSION index).
  void validate(const Index& index, const RecordMetaData&) const override {
    if (index.rootExpression().versionColumns() > 0) {
      throw MetaDataException(fmt::format(
          "index {} of type value holds a record version ({}); a value index cannot maintain "
          "versions: use a version index",
          index.name(), index.rootExpression().toString()));
    }
  }

  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    return std::make_unique<ValueIndexMaintainer>(store, index);
  }

  std::unique_ptr<IndexCheck> createCheck(const IndexCheckTarget& target) const override {
    return makeValueIndexCheck(target);
  }

  bool plannableAsValueScan() const override { return true; }
};

}  // namespace

void removeCommonEntries(std::vector<EvaluatedIndexEntry>& before,
                         std::vector<EvaluatedIndexEntry>& after) {
  if (before.empty() || after.empty()) return;
  std::vector<EvaluatedIndexEntry> common;
  for (const EvaluatedIndexEntry& entry : before) {
    if (entry.key.hasIncompleteVersionstamp()) continue;
    if (std::find(after.begin(), after.end(), entry) != after.end()) common.push_back(entry);
  }
  auto isCommon = [&](const EvaluatedIndexEntry& entry) {
    return std::find(common.begin(), common.end(), entry) != common.end();
  };
  std::erase_if(before, isCommon);
  std::erase_if(after, isCommon);
}

std::unique_ptr<IndexMaintainer> makeValueIndexMaintainer(RecordStore::State& store,
                                                          const StoreIndex& index) {
  return std::make_unique<ValueIndexMaintainer>(store, index);
}

std::shared_ptr<const IndexMaintainerFactory> valueIndexMaintainerFactory() {
  return std::make_shared<ValueIndexMaintainerFactory>();
}

fdb::Bytes valueIndexEntryKey(std::string_view indexPrefix, const fdb::Tuple& key,
                              const fdb::Tuple& trimmedPrimaryKey) {
  fdb::Bytes bytes(indexPrefix);
  key.packInto(bytes);
  trimmedPrimaryKey.packInto(bytes);
  return bytes;
}

fdb::Bytes valueIndexEntryValue(const EvaluatedIndexEntry& entry) {
  return entry.value.empty() ? fdb::Bytes() : entry.value.pack();
}

std::vector<EvaluatedIndexEntry> evaluateValueIndex(const Index& index, const RecordType& type,
                                                    const google::protobuf::Message& record,
                                                    const std::optional<RecordVersion>& version) {
  std::vector<EvaluatedKey> keys;
  std::optional<fdb::Versionstamp> versionstamp;
  if (version) versionstamp = version->toVersionstamp();
  const KeyExpression& root = index.rootExpression();
  root.evaluateInto(record, type.evaluationContext(versionstamp), keys);
  std::vector<EvaluatedIndexEntry> entries;
  entries.reserve(keys.size());
  for (EvaluatedKey& key : keys) {
    const size_t columns = key.columns.size();
    if (root.kind() == KeyExpression::Kind::kKeyWithValue) {
      const size_t split = std::min(static_cast<size_t>(root.splitPoint()), columns);
      entries.push_back(EvaluatedIndexEntry{key.subTuple(0, split), key.subTuple(split, columns),
                                            key.containsNonUniqueNull});
    } else {
      entries.push_back(
          EvaluatedIndexEntry{std::move(key.columns), fdb::Tuple{}, key.containsNonUniqueNull});
    }
  }
  return entries;
}

}  // namespace rl
