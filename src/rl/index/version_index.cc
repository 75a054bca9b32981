#include "rl/index/version_index.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <vector>

#include "rl/index/value_index.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/record_store_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

// Scans, fetches and range deletes are a VALUE index's (value(), made on first use, so a
// transaction that only saves makes none); saves and deletes write versionstamped keys for
// incomplete versions.
class VersionIndexMaintainer : public IndexMaintainer {
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

    RecordContext& context = *state.context;
    const fdb::Tuple trimmed = index.trimPrimaryKey(primaryKey);
    for (const EvaluatedIndexEntry& entry : oldEntries) {
      const fdb::Bytes key = versionIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed);
      if (entry.key.hasIncompleteVersionstamp()) {
        // Saved earlier in this transaction: the entry is still a held-back mutation.
        context.removeVersionMutation(key);
      } else {
        context.transaction().clear(key);
      }
      state.counters.indexEntriesCleared += 1;
    }
    for (const EvaluatedIndexEntry& entry : newEntries) {
      const fdb::Bytes key = versionIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed);
      const fdb::Bytes value = valueIndexEntryValue(entry);
      const bool incomplete = entry.key.hasIncompleteVersionstamp();
      const size_t keySize = incomplete ? key.size() - 4 : key.size();
      if (keySize > state.options.indexKeySizeLimit) {
        throw IndexEntryTooLargeException(fmt::format(
            "index entry is too large to be stored in FDB key: {} bytes for index {} (limit {})",
            keySize, index.name(), state.options.indexKeySizeLimit));
      }
      if (value.size() > state.options.indexValueSizeLimit) {
        throw IndexEntryTooLargeException(fmt::format(
            "index entry is too large to be stored in FDB value: {} bytes for index {} (limit "
            "{})",
            value.size(), index.name(), state.options.indexValueSizeLimit));
      }
      if (incomplete) {
        context.addVersionMutation(fdb::MutationType::kSetVersionstampedKey, key, value);
      } else {
        context.transaction().set(key, value);
      }
      state.countWrite(key, value);
      state.counters.indexEntriesWritten += 1;
    }
  }

  CursorPtr<IndexEntry> scan(IndexScanType type, const TupleRange& range,
                             const std::optional<fdb::Bytes>& continuation,
                             const ScanProperties& properties) override {
    return value().scan(type, range, continuation, properties);
  }

  CursorPtr<IndexedRawRecord> scanRecords(const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties, IndexFetchMethod method,
                                          IndexOrphanBehavior orphanBehavior,
                                          size_t pipelineSize) override {
    return value().scanRecords(range, continuation, properties, method, orphanBehavior,
                               pipelineSize);
  }

  std::optional<std::string> cannotDeleteWhere(const fdb::Tuple& prefix) const override {
    return value().cannotDeleteWhere(prefix);
  }

  // Clears through the context, so held-back entries of this transaction go too.
  void deleteWhere(const fdb::Tuple& prefix) override { value().deleteWhere(prefix); }

 private:
  IndexMaintainer& value() const {
    if (!value_) value_ = makeValueIndexMaintainer(store_, storeIndex_);
    return *value_;
  }

  mutable std::unique_ptr<IndexMaintainer> value_;
};

class VersionIndexMaintainerFactory : public IndexMaintainerFactory {
 public:
  std::string_view type() const override { return Index::kVersion; }

  // The Java Record Layer's rules for version indexes: not grouped, not unique, exactly one
  // version() column, on metadata that stores record versions.
  void validate(const Index& index, const RecordMetaData& metaData) const override {
    const KeyExpression& root = index.rootExpression();
    if (root.kind() == KeyExpression::Kind::kGrouping) {
      throw MetaDataException(
          fmt::format("version index {} cannot be grouped ({})", index.name(), root.toString()));
    }
    if (index.isUnique()) {
      throw MetaDataException(
          fmt::format("version index {} cannot be unique: versions do not repeat", index.name()));
    }
    if (root.versionColumns() != 1) {
      throw MetaDataException(
          fmt::format("version index {} must have exactly one version() column; ({}) has {}",
                      index.name(), root.toString(), root.versionColumns()));
    }
    if (!metaData.storeRecordVersions()) {
      throw MetaDataException(fmt::format(
          "version index {} needs record versions: the metadata does not store them (set "
          "store_record_versions)",
          index.name()));
    }
  }

  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    return std::make_unique<VersionIndexMaintainer>(store, index);
  }

  // The checker reads committed records, whose versions are complete: their entries are
  // VALUE-shaped keys, checked as VALUE's are.
  std::unique_ptr<IndexCheck> createCheck(const IndexCheckTarget& target) const override {
    return makeValueIndexCheck(target);
  }

  bool plannableAsValueScan() const override { return true; }
};

}  // namespace

std::shared_ptr<const IndexMaintainerFactory> versionIndexMaintainerFactory() {
  return std::make_shared<VersionIndexMaintainerFactory>();
}

fdb::Bytes versionIndexEntryKey(std::string_view indexPrefix, const fdb::Tuple& key,
                                const fdb::Tuple& trimmedPrimaryKey) {
  if (!key.hasIncompleteVersionstamp()) {
    return valueIndexEntryKey(indexPrefix, key, trimmedPrimaryKey);
  }
  // The primary key goes between the packed columns and the offset, which it does not move.
  fdb::Bytes bytes = key.packWithVersionstamp(indexPrefix);
  const size_t offsetAt = bytes.size() - 4;
  const std::array<char, 4> offset = {bytes[offsetAt], bytes[offsetAt + 1], bytes[offsetAt + 2],
                                      bytes[offsetAt + 3]};
  bytes.resize(offsetAt);
  trimmedPrimaryKey.packInto(bytes);
  bytes.append(offset.data(), offset.size());
  return bytes;
}

}  // namespace rl
