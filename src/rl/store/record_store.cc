// Records: save, load, delete, exists; deleting ranges; scans of records and indexes.
#include "rl/store/record_store.h"

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <algorithm>

#include "fdb/error.h"
#include "rl/index/aggregate_index.h"
#include "rl/index/index_fetch.h"
#include "rl/index/index_scan_facts.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_codec.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

RecordSize toRecordSize(const SizeInfo& sizes) {
  return RecordSize{sizes.keyCount, sizes.keySize, sizes.valueSize, sizes.isSplit,
                    sizes.isVersionedInline};
}

void checkRecordUpdatesAllowed(const RecordStore::State& state) {
  if (state.header.has_store_lock_state() &&
      state.header.store_lock_state().lock_state() ==
          DataStoreInfo::StoreLockState::FORBID_RECORD_UPDATE) {
    throw StoreIsLockedException("Record store is locked against record updates: " +
                                 state.header.store_lock_state().reason());
  }
}

bool hasMaintainedIndex(const RecordStore::State& state) {
  return std::any_of(state.indexes.begin(), state.indexes.end(),
                     [](const StoreIndex& index) { return index.state != IndexState::kDisabled; });
}

std::string describeKey(const fdb::Tuple& primaryKey) { return fdb::printable(primaryKey.pack()); }

// The stored record under `primaryKey` with its version, or nullopt. Its primaryKey is
// left empty: the caller has it.
std::optional<RawRecord> loadRaw(RecordStore::State& state, const fdb::Tuple& primaryKey,
                                 IsolationLevel isolation = IsolationLevel::kSerializable) {
  PendingRecordLoad load(*state.context, state.recordsSubspace, primaryKey,
                         state.splitLoadOptions(isolation));
  std::optional<RawRecord> raw = load.get(/*decodePrimaryKey=*/false);
  if (!raw) return std::nullopt;
  state.counters.keysRead += raw->sizes.keyCount;
  state.counters.bytesRead += raw->sizes.keySize + raw->sizes.valueSize;
  if (state.oldVersionFormat()) {
    raw->version =
        loadOldFormatVersion(*state.context, state.legacyVersionSubspace(), primaryKey, isolation);
  }
  return raw;
}

// Checks the stored record's type against the message type asked for.
void checkLoadedType(const RecordType& stored, const google::protobuf::Message& message,
                     const fdb::Tuple& primaryKey) {
  if (&stored.descriptor() != message.GetDescriptor() &&
      stored.descriptor().full_name() != message.GetDescriptor()->full_name()) {
    throw RecordDeserializationException(
        fmt::format("record {} is of type {}, not {}", describeKey(primaryKey),
                    stored.descriptor().full_name(), message.GetDescriptor()->full_name()));
  }
}

}  // namespace

// --- Shared helpers (record_store_state.h) ---

std::shared_ptr<const google::protobuf::Message> store::deserializeRecordOnArena(
    RecordStore::State& state, std::string_view stored, const RecordType*& type,
    RecordArenas* arenas) {
  fdb::Bytes buffer;
  const UnionRecord found = findStoredRecord(state.metaData, state.serializer, stored, buffer);
  type = found.type;
  const google::protobuf::Message& prototype = prototypeOf(*state.messageFactory, *found.type);
  std::shared_ptr<google::protobuf::Message> message =
      arenas != nullptr ? arenas->newMessage(prototype) : newMessageOnOwnArena(prototype);
  parseRecord(*found.type, found.recordBytes(), *message);
  return message;
}

std::unique_ptr<google::protobuf::Message> store::deserializeRecord(RecordStore::State& state,
                                                                    std::string_view stored,
                                                                    const RecordType*& type) {
  return parseStoredRecord(state.metaData, *state.messageFactory, state.serializer, stored, type);
}

RecordScanLayout store::recordScanLayout(const RecordStore::State& state) {
  RecordScanLayout layout;
  layout.splitLongRecords = state.metaData.splitLongRecords();
  layout.omitUnsplitSuffix = state.omitUnsplitRecordSuffix;
  layout.oldVersionFormat = state.oldVersionFormat();
  return layout;
}

CursorPtr<LoadedRecord> store::scanLoadedRecords(RecordStore::State& state, const TupleRange& range,
                                                 const std::optional<fdb::Bytes>& continuation,
                                                 const ScanProperties& properties) {
  CursorPtr<RawRecord> raw = scanRawRecords(*state.context, state.recordsSubspace, range,
                                            properties, continuation, recordScanLayout(state));
  const IsolationLevel isolation = properties.execute.isolation;
  return map(std::move(raw), [state = state.shared_from_this(), isolation,
                              arenas = RecordArenas()](RawRecord&& raw) mutable {
    LoadedRecord loaded;
    loaded.record = deserializeRecordOnArena(*state, raw.rawRecord, loaded.recordType, &arenas);
    loaded.primaryKey = std::move(raw.primaryKey);
    loaded.version = std::move(raw.version);
    loaded.size = toRecordSize(raw.sizes);
    if (state->oldVersionFormat()) {
      loaded.version = loadOldFormatVersion(*state->context, state->legacyVersionSubspace(),
                                            loaded.primaryKey, isolation);
    }
    state->counters.recordsLoaded += 1;
    state->counters.keysRead += raw.sizes.keyCount;
    state->counters.bytesRead += raw.sizes.keySize + raw.sizes.valueSize;
    return loaded;
  });
}

// --- RecordStore ---

RecordStore::RecordStore(std::shared_ptr<State> state) : state_(std::move(state)) {}
RecordStore::RecordStore(RecordStore&&) noexcept = default;
RecordStore& RecordStore::operator=(RecordStore&&) noexcept = default;
RecordStore::~RecordStore() = default;

RecordContext& RecordStore::context() const { return *state_->context; }
const RecordMetaData& RecordStore::metaData() const { return state_->metaData; }
const fdb::Subspace& RecordStore::subspace() const { return state_->subspace(); }
const fdb::Subspace& RecordStore::recordsSubspace() const { return state_->recordsSubspace; }
fdb::Subspace RecordStore::indexSubspace(const Index& index) const {
  return state_->subspace().subspace(fdb::Tuple{keyspace::kIndex, index.subspaceKey()});
}
const DataStoreInfo& RecordStore::header() const { return state_->header; }
int RecordStore::formatVersion() const { return state_->formatVersion; }
bool RecordStore::omitUnsplitRecordSuffix() const { return state_->omitUnsplitRecordSuffix; }
bool RecordStore::oldVersionFormat() const { return state_->oldVersionFormat(); }
int RecordStore::userVersion() const { return state_->header.userversion(); }
bool RecordStore::headerChanged() const { return state_->headerChanged; }
const RecordStoreCounters& RecordStore::counters() const { return state_->counters; }

fdb::RoundTrips RecordStore::roundTrips() const {
  const fdb::RoundTrips now = state_->context->transaction().roundTrips();
  const fdb::RoundTrips& then = state_->roundTripsAtOpen;
  return fdb::RoundTrips{now.readVersions - then.readVersions, now.reads - then.reads,
                         now.rangeReads - then.rangeReads,
                         now.mappedRangeReads - then.mappedRangeReads, now.commits - then.commits};
}

StoredRecord RecordStore::saveRecord(const google::protobuf::Message& record, SaveMode mode,
                                     std::optional<RecordVersion> version,
                                     VersionstampSaveBehavior behavior) {
  State& state = *state_;
  OperationTimer timer(state.options.timeOperations, state.counters.saveNanos);
  checkRecordUpdatesAllowed(state);
  const RecordType* type = nullptr;
  try {
    type = &state.metaData.recordTypeForDescriptor(*record.GetDescriptor());
  } catch (const MetaDataException& e) {
    throw RecordCoreArgumentException(e.what());
  }
  StoredRecord saved;
  saved.recordType = type;
  saved.primaryKey = type->primaryKey().evaluateSingleton(record, type->evaluationContext());

  // The record it replaces: needed to check the save mode and to update indexes.
  const bool maintainsIndexes = hasMaintainedIndex(state);
  std::optional<RawRecord> old;
  const bool counts = state.metaData.recordCountKey().has_value();
  const bool readOld = mode != SaveMode::kInsertOrUpdate || maintainsIndexes || counts;
  if (readOld) old = loadRaw(state, saved.primaryKey);
  std::unique_ptr<google::protobuf::Message> oldMessage;
  const RecordType* oldType = nullptr;
  if (old && (maintainsIndexes || mode == SaveMode::kUpdate)) {
    oldMessage = store::deserializeRecord(state, old->rawRecord, oldType);
  }
  if (mode == SaveMode::kInsert && old) {
    throw RecordAlreadyExistsException("record already exists: primary key " +
                                       describeKey(saved.primaryKey));
  }
  if (mode == SaveMode::kUpdate) {
    if (!old) {
      throw RecordDoesNotExistException("record does not exist: primary key " +
                                        describeKey(saved.primaryKey));
    }
    if (oldType != type) {
      throw RecordTypeChangedException(
          fmt::format("record type changed from {} to {}: primary key {}", oldType->name(),
                      type->name(), describeKey(saved.primaryKey)));
    }
  }

  switch (behavior) {
    case VersionstampSaveBehavior::kDefault:
      if (!version && state.metaData.storeRecordVersions()) {
        version = RecordVersion::incomplete(state.context->claimLocalVersion());
      }
      break;
    case VersionstampSaveBehavior::kNoVersion: version.reset(); break;
    case VersionstampSaveBehavior::kWithVersion:
      if (!version) version = RecordVersion::incomplete(state.context->claimLocalVersion());
      break;
    case VersionstampSaveBehavior::kIfPresent: break;
  }
  saved.version = version;

  fdb::Bytes serialized;
  store::appendUnionMessage(*type, record, serialized);
  if (state.options.compressRecords) serialized = state.serializer.serialize(serialized);

  SplitSaveOptions split = state.splitSaveOptions();
  if (readOld) {
    split.clearBasedOnPreviousSizeInfo = true;
    split.previousSizeInfo = old ? &old->sizes : nullptr;
  }
  const bool oldFormat = state.oldVersionFormat();
  SizeInfo sizes;
  saveWithSplit(*state.context, state.recordsSubspace, saved.primaryKey, serialized,
                oldFormat ? std::nullopt : version, split, &sizes);
  if (oldFormat) {
    if (version) {
      saveOldFormatVersion(*state.context, state.legacyVersionSubspace(), saved.primaryKey,
                           *version);
    } else if (!readOld || (old && old->version)) {
      deleteOldFormatVersion(*state.context, state.legacyVersionSubspace(), saved.primaryKey);
    }
  }
  saved.size = toRecordSize(sizes);
  state.counters.recordsSaved += 1;
  state.counters.keysWritten += sizes.keyCount;
  state.counters.bytesWritten += sizes.keySize + sizes.valueSize;

  if (counts && !old) store::addRecordCount(state, record, *type, 1);
  if (maintainsIndexes) {
    store::updateIndexes(
        state, saved.primaryKey,
        IndexedRecord{oldMessage.get(), oldType, old ? old->version : std::nullopt},
        IndexedRecord{&record, type, version});
  }
  return saved;
}

std::optional<LoadedRecord> RecordStore::loadRecord(const fdb::Tuple& primaryKey) {
  State& state = *state_;
  OperationTimer timer(state.options.timeOperations, state.counters.loadNanos);
  std::optional<RawRecord> raw = loadRaw(state, primaryKey);
  if (!raw) return std::nullopt;
  std::optional<LoadedRecord> loaded(std::in_place);
  loaded->record =
      store::deserializeRecordOnArena(state, raw->rawRecord, loaded->recordType, nullptr);
  loaded->primaryKey = primaryKey;
  loaded->version = std::move(raw->version);
  loaded->size = toRecordSize(raw->sizes);
  state.counters.recordsLoaded += 1;
  return loaded;
}

bool RecordStore::loadInto(const fdb::Tuple& primaryKey, google::protobuf::Message& message,
                           StoredRecord& info) {
  State& state = *state_;
  OperationTimer timer(state.options.timeOperations, state.counters.loadNanos);
  std::optional<RawRecord> raw = loadRaw(state, primaryKey);
  if (!raw) return false;
  fdb::Bytes buffer;
  const store::UnionRecord found =
      store::findStoredRecord(state.metaData, state.serializer, raw->rawRecord, buffer);
  checkLoadedType(*found.type, message, primaryKey);
  store::parseRecord(*found.type, found.recordBytes(), message);
  info.recordType = found.type;
  info.primaryKey = primaryKey;
  info.version = std::move(raw->version);
  info.size = toRecordSize(raw->sizes);
  state.counters.recordsLoaded += 1;
  return true;
}

std::optional<RecordVersion> RecordStore::loadRecordVersion(const fdb::Tuple& primaryKey) {
  std::optional<RawRecord> raw = loadRaw(*state_, primaryKey);
  if (!raw) return std::nullopt;
  return raw->version;
}

bool RecordStore::recordExists(const fdb::Tuple& primaryKey) {
  State& state = *state_;
  fdb::Transaction& tr = state.context->transaction();
  if (!state.metaData.splitLongRecords() && state.omitUnsplitRecordSuffix) {
    return tr.get(state.recordsSubspace.pack(primaryKey)).get().has_value();
  }
  // The first two keys under (pk): a version key alone is no record. Read to the end or to
  // two rows: one read may stop early with `more` (docs/semantics.md, "Range reads").
  const fdb::Bytes prefix = state.recordsSubspace.pack(primaryKey);
  const std::vector<fdb::KeyValue> rows = tr.getRangeAll(keyspace::prefixRange(prefix), 2);
  const fdb::Bytes versionKey = prefix + fdb::Tuple{kRecordVersionSuffix}.pack();
  return std::any_of(rows.begin(), rows.end(),
                     [&](const fdb::KeyValue& row) { return row.key != versionKey; });
}

bool RecordStore::deleteRecord(const fdb::Tuple& primaryKey) {
  State& state = *state_;
  OperationTimer timer(state.options.timeOperations, state.counters.deleteNanos);
  checkRecordUpdatesAllowed(state);
  std::optional<RawRecord> old = loadRaw(state, primaryKey);
  if (!old) return false;
  const bool maintainsIndexes = hasMaintainedIndex(state);
  if (maintainsIndexes || state.metaData.recordCountKey()) {
    const RecordType* oldType = nullptr;
    std::unique_ptr<google::protobuf::Message> oldMessage =
        store::deserializeRecord(state, old->rawRecord, oldType);
    store::addRecordCount(state, *oldMessage, *oldType, -1);
    if (maintainsIndexes) {
      store::updateIndexes(state, primaryKey,
                           IndexedRecord{oldMessage.get(), oldType, old->version}, IndexedRecord{});
    }
  }
  SplitSaveOptions split = state.splitSaveOptions();
  split.clearBasedOnPreviousSizeInfo = true;
  split.previousSizeInfo = &old->sizes;
  deleteSplit(*state.context, state.recordsSubspace, primaryKey, split);
  if (state.oldVersionFormat()) {
    deleteOldFormatVersion(*state.context, state.legacyVersionSubspace(), primaryKey);
  }
  state.counters.recordsDeleted += 1;
  return true;
}

void RecordStore::deleteAllRecords() {
  State& state = *state_;
  checkRecordUpdatesAllowed(state);
  // Everything from (1) to the index states, and everything after them: the header (0) and
  // the index states (5, ...) stay (docs/format.md, "Store keyspace").
  const fdb::KeyRange states = state.subspace().range(fdb::Tuple{keyspace::kIndexState});
  state.context->clearRange(state.recordsSubspace.key(), states.begin);
  state.context->clearRange(states.end, state.subspace().range().end);
}

void RecordStore::deleteRecordsWhere(const fdb::Tuple& prefix) {
  State& state = *state_;
  checkRecordUpdatesAllowed(state);
  if (prefix.empty()) {
    deleteAllRecords();
    return;
  }
  // Every index that holds entries must be clearable by the same prefix.
  std::vector<StoreIndex*> clearable;
  for (StoreIndex& storeIndex : state.indexes) {
    IndexMaintainer& maintainer = state.maintainer(storeIndex);
    std::optional<std::string> cannot = maintainer.cannotDeleteWhere(prefix);
    if (cannot) {
      if (storeIndex.state == IndexState::kDisabled) continue;  // it holds nothing
      throw DeleteRecordsWhereException(fmt::format("deleteRecordsWhere({}): index {} {}",
                                                    describeKey(prefix), storeIndex.index->name(),
                                                    *cannot));
    }
    clearable.push_back(&storeIndex);
  }
  const std::optional<KeyExpression>& countKey = state.metaData.recordCountKey();
  const bool clearCounts = countKey && state.header.record_count_state() != DataStoreInfo::DISABLED;
  if (clearCounts) {
    // The counts of the records under the prefix: those whose count key starts with it.
    const std::vector<KeyExpression> countColumns = keyColumns(*countKey);
    for (const auto& [name, type] : state.metaData.recordTypes()) {
      const std::vector<KeyExpression> keyColumns = type.primaryKey().normalizeKeyForPositions();
      bool matches = countColumns.size() >= prefix.size() && keyColumns.size() >= prefix.size();
      for (size_t i = 0; matches && i < prefix.size(); ++i) {
        matches = countColumns[i].matchesColumn(keyColumns[i]);
      }
      if (!matches) {
        throw DeleteRecordsWhereException(fmt::format(
            "deleteRecordsWhere({}): the record count key {} does not start with the primary "
            "key's first {} column(s) of {}",
            describeKey(prefix), countKey->toString(), prefix.size(), name));
      }
    }
  }
  state.context->clearRange(state.recordsSubspace.range(prefix));
  if (clearCounts) {
    const fdb::Bytes counted =
        state.subspace().pack(fdb::Tuple{keyspace::kRecordCount}) + prefix.pack();
    state.context->clearRange(fdb::KeyRange{counted, counted + '\xff'});
  }
  state.context->clearRange(fdb::KeyRange{state.recordsSubspace.pack(prefix),
                                          state.recordsSubspace.pack(prefix) + '\x00'});
  if (state.oldVersionFormat()) {
    state.context->clearRange(state.legacyVersionSubspace().range(prefix));
  }
  for (StoreIndex* storeIndex : clearable) state.maintainer(*storeIndex).deleteWhere(prefix);
}

// --- Scans ---

void store::checkScannable(const StoreIndex& storeIndex) {
  if (!isScannable(storeIndex.state)) {
    throw ScanNonReadableIndexException(fmt::format("Cannot scan non-readable index {} ({})",
                                                    storeIndex.index->name(),
                                                    indexStateName(storeIndex.state)));
  }
}

CursorPtr<LoadedRecord> RecordStore::scanRecords(const TupleRange& range,
                                                 const std::optional<fdb::Bytes>& continuation,
                                                 const ScanProperties& properties) {
  return store::scanLoadedRecords(*state_, range, continuation, properties);
}

CursorPtr<IndexEntry> RecordStore::scanIndex(std::string_view indexName, const TupleRange& range,
                                             const std::optional<fdb::Bytes>& continuation,
                                             const ScanProperties& properties) {
  StoreIndex& storeIndex = state_->storeIndex(indexName);
  store::checkScannable(storeIndex);
  return state_->maintainer(storeIndex)
      .scan(IndexScanType::kByValue, range, continuation, properties);
}

CursorPtr<FetchedRecord> RecordStore::scanIndexRecords(
    std::string_view indexName, const TupleRange& range,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties,
    IndexFetchMethod method, IndexOrphanBehavior orphanBehavior, size_t pipelineSize) {
  StoreIndex& storeIndex = state_->storeIndex(indexName);
  store::checkScannable(storeIndex);
  return store::scanIndexRecords(*state_, storeIndex, range, continuation, properties, method,
                                 orphanBehavior, pipelineSize);
}

FetchChoice RecordStore::chooseIndexFetch(std::string_view indexName,
                                          const ScanProperties& properties, size_t pipelineSize) {
  StoreIndex& storeIndex = state_->storeIndex(indexName);
  IndexScanSpec spec = indexScanSpec(indexScanFacts(*state_, storeIndex));
  return chooseAdaptiveFetch(*state_->context, spec, properties, pipelineSize);
}

CursorPtr<FetchedRecord> store::scanIndexRecords(
    RecordStore::State& state, StoreIndex& storeIndex, const TupleRange& range,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties,
    IndexFetchMethod method, IndexOrphanBehavior orphanBehavior, size_t pipelineSize) {
  CursorPtr<IndexedRawRecord> raw =
      state.maintainer(storeIndex)
          .scanRecords(range, continuation, properties, method, orphanBehavior, pipelineSize);
  return map(std::move(raw), [state = state.shared_from_this(),
                              arenas = store::RecordArenas()](IndexedRawRecord&& row) mutable {
    FetchedRecord fetched{std::move(row.entry), std::nullopt};
    state->countRead(fetched.entry.rawKey(), fetched.entry.packedValue());
    if (row.record) {
      store::loadFetchedRecord(*state, std::move(*row.record), arenas, fetched.record.emplace());
    }
    return fetched;
  });
}

void store::loadFetchedRecord(RecordStore::State& state, RawRecord&& stored, RecordArenas& arenas,
                              LoadedRecord& loaded) {
  loaded.record =
      store::deserializeRecordOnArena(state, stored.rawRecord, loaded.recordType, &arenas);
  loaded.primaryKey = std::move(stored.primaryKey);
  loaded.version = std::move(stored.version);
  loaded.size = toRecordSize(stored.sizes);
  state.counters.recordsLoaded += 1;
  state.counters.keysRead += stored.sizes.keyCount;
  state.counters.bytesRead += stored.sizes.keySize + stored.sizes.valueSize;
}

std::vector<fdb::Tuple> RecordStore::uniquenessViolations(std::string_view indexName) {
  const StoreIndex& storeIndex = state_->storeIndex(indexName);
  const fdb::Bytes prefix = store::uniquenessViolationsPrefix(*state_, *storeIndex.index);
  std::vector<fdb::Tuple> primaryKeys;
  const int keyColumns = storeIndex.index->columnSize();
  for (const fdb::KeyValue& row :
       state_->context->transaction().getRangeAll(keyspace::prefixRange(prefix))) {
    const fdb::Tuple key = fdb::Tuple::unpack(std::string_view(row.key).substr(prefix.size()));
    fdb::Tuple primaryKey;
    for (size_t i = static_cast<size_t>(keyColumns); i < key.size(); ++i) primaryKey.append(key[i]);
    primaryKeys.push_back(std::move(primaryKey));
  }
  return primaryKeys;
}

}  // namespace rl
