// Opening a record store: the header, the existence checks, the format and metadata
// version rules and the index states (docs/format.md: "Store header", "Format versions", "Index
// states").
#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <algorithm>
#include <chrono>

#include "fdb/error.h"
#include "rl/index/index_maintainer_registry.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_store.h"
#include "rl/store/record_store_state.h"

namespace rl {
using namespace store;  // NOLINT: this file implements parts of it
}

namespace rl {
namespace {

uint64_t nowMillis(const RecordStoreOptions& options) {
  if (options.clock) return options.clock();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

void setUpMessageFactory(RecordStore::State& state) {
  // The metadata's own factory unless the options name one: either way shared, so opening
  // a store (once a transaction) builds no prototypes.
  state.ownedMessageFactory = state.options.messageFactory ? state.options.messageFactory
                                                           : state.metaData.sharedMessageFactory();
  state.messageFactory = state.ownedMessageFactory.get();
}

// The store's view of each index (which indexes cover which record type is the metadata's,
// worked out once when it was built), with its type's maintainer factory, which validates
// it. MetaDataException for an index of a type no factory is registered for, or one its
// type cannot maintain.
void setUpIndexes(RecordStore::State& state) {
  const std::vector<std::shared_ptr<const Index>>& indexes = state.metaData.allIndexes();
  const IndexMaintainerRegistry& registry = IndexMaintainerRegistry::instance();
  state.indexes.reserve(indexes.size());
  for (const auto& index : indexes) {
    StoreIndex storeIndex;
    storeIndex.index = index;
    storeIndex.factory = registry.factoryFor(*index);
    storeIndex.factory->validate(*index, state.metaData);
    storeIndex.subspacePrefix = keyspace::childKey(state.prefix(), keyspace::kIndex);
    fdb::Tuple{index->subspaceKey()}.packInto(storeIndex.subspacePrefix);
    state.indexes.push_back(std::move(storeIndex));
  }
}

// Parses an index state value, Tuple(code).
IndexState parseIndexState(std::string_view name, std::string_view value) {
  const std::optional<IndexState> state = decodeIndexState(value);
  if (!state) {
    throw RecordCoreStorageException(
        fmt::format("index {} has an unknown state value {}", name, fdb::printable(value)));
  }
  return *state;
}

// Whether the first key of a store without a header may be tolerated (docs/format.md, "Store
// header").
bool toleratedFirstKey(RecordStore::State& state, std::string_view key, StoreExistenceCheck check) {
  if (check == StoreExistenceCheck::kNone) {
    state.log(fmt::format("Record store has no info but is not empty; first key {}",
                          fdb::printable(key)));
    return true;
  }
  int64_t space = -1;
  try {
    const fdb::Tuple first = state.subspace().unpack(key);
    if (!first.empty() && first[0].type() == fdb::TupleType::kInteger) space = first.getInt(0);
  } catch (const fdb::Error&) {
  }
  const bool metaDataOnly = space == keyspace::kIndexState || space == keyspace::kIndexRange ||
                            space == keyspace::kIndexBuild;
  if (metaDataOnly && check == StoreExistenceCheck::kErrorIfNoInfoAndHasRecordsOrIndexes) {
    state.log(fmt::format("Record store has no info or records but is not empty; first key {}",
                          fdb::printable(key)));
    return true;
  }
  throw RecordStoreNoInfoAndNotEmptyException(
      fmt::format("Record store has no info {}but is not empty: first key {} in {}",
                  metaDataOnly ? "or records " : "", fdb::printable(key),
                  fdb::printable(state.subspace().key())));
}

// Moves versions from (8, pk) to (1, pk, -1) (an upgrade past format 6).
void convertRecordVersions(RecordStore::State& state) {
  fdb::Transaction& tr = state.context->transaction();
  const fdb::KeyRange range = state.legacyVersionSubspace().range();
  for (const fdb::KeyValue& row : tr.getRangeAll(range)) {
    const fdb::Tuple primaryKey = state.legacyVersionSubspace().unpack(row.key);
    const RecordVersion version = RecordVersion::fromOldFormatValue(row.value);
    fdb::Bytes key = state.recordsSubspace.pack(primaryKey);
    fdb::Tuple{kRecordVersionSuffix}.packInto(key);
    tr.set(key, version.toInlineValue());
  }
  tr.clearRange(range);
}

// Records in the store, counted up to `limit` + 1 (snapshot).
int64_t countRecords(RecordStore::State& state, int64_t limit) {
  ExecuteProperties execute;
  execute.returnedRowLimit = static_cast<int>(limit + 1);
  execute.isolation = IsolationLevel::kSnapshot;
  CursorPtr<RawRecord> cursor =
      scanRawRecords(*state.context, state.recordsSubspace, TupleRange::all(),
                     ScanProperties(execute), std::nullopt, recordScanLayout(state));
  int64_t count = 0;
  while (cursor->next().hasValue()) ++count;
  return count;
}

void removeFormerIndex(RecordStore::State& state, const FormerIndex& former) {
  for (int64_t space :
       {keyspace::kIndex, keyspace::kIndexSecondarySpace, keyspace::kIndexSlidingWindow,
        keyspace::kIndexRange, keyspace::kIndexUniquenessViolations}) {
    state.context->clearRange(state.subspace().range(fdb::Tuple{space, former.subspaceKey}));
  }
  // An ungrouped aggregate index's value sits at P+(2, sk) itself.
  state.context->clear(state.subspace().pack(fdb::Tuple{keyspace::kIndex, former.subspaceKey}));
  if (former.formerName) {
    state.context->clear(
        state.subspace().pack(fdb::Tuple{keyspace::kIndexState, *former.formerName}));
  }
  state.log(fmt::format("removed former index {}", former.formerName.value_or("(unnamed)")));
}

}  // namespace

std::optional<IndexState> store::decodeIndexState(std::string_view value) {
  int64_t code = -1;
  try {
    const fdb::Tuple tuple = fdb::Tuple::unpack(value);
    if (tuple.size() == 1) code = tuple.getInt(0);
  } catch (const fdb::Error&) {
  }
  if (code < 0 || code > static_cast<int64_t>(IndexState::kWriteOnlyWithQueue)) return std::nullopt;
  return static_cast<IndexState>(code);
}

void store::writeIndexState(RecordStore::State& state, StoreIndex& storeIndex,
                            IndexState newState) {
  const fdb::Bytes key =
      state.subspace().pack(fdb::Tuple{keyspace::kIndexState, storeIndex.index->name()});
  fdb::Transaction& tr = state.context->transaction();
  tr.addReadConflictKey(key);
  if (newState == IndexState::kReadable) {
    tr.clear(key);
  } else {
    tr.set(key, fdb::Tuple{static_cast<int64_t>(newState)}.pack());
  }
  storeIndex.state = newState;
}

void store::clearIndexData(RecordStore::State& state, const Index& index) {
  // From P+(2, sk) itself: an ungrouped aggregate index keeps its value there.
  const fdb::Bytes entries =
      state.subspace().pack(fdb::Tuple{keyspace::kIndex, index.subspaceKey()});
  state.context->clearRange(fdb::KeyRange{entries, entries + '\xff'});
  for (int64_t space : {keyspace::kIndexSecondarySpace, keyspace::kIndexRange,
                        keyspace::kIndexUniquenessViolations, keyspace::kIndexBuild}) {
    state.context->clearRange(state.subspace().range(fdb::Tuple{space, index.subspaceKey()}));
  }
}

namespace {

void checkVersion(RecordStore::State& state, const DataStoreInfo& stored) {
  using store::clearIndexData;
  using store::writeIndexState;
  const RecordStoreOptions& options = state.options;
  const RecordMetaData& metaData = state.metaData;
  DataStoreInfo info = stored;
  const int oldFormatVersion = stored.formatversion();
  const bool newStore = oldFormatVersion == 0;
  bool dirty = false;

  // 1. The layout flags.
  state.omitUnsplitRecordSuffix = options.formatVersion < kSaveUnsplitWithSuffixFormatVersion;
  if (oldFormatVersion >= kSaveUnsplitWithSuffixFormatVersion) {
    state.omitUnsplitRecordSuffix = info.omit_unsplit_record_suffix();
  }
  // 2. Cacheability.
  if (std::max(oldFormatVersion, options.formatVersion) >= kCacheableStateFormatVersion &&
      (options.updateCacheabilityOfExistingStores || newStore) &&
      info.cacheable() != options.stateCacheable) {
    info.set_cacheable(options.stateCacheable);
    dirty = true;
  }
  // 3. The user version.
  if (options.userVersionChecker.checkUserVersion) {
    const int oldUserVersion = newStore ? -1 : info.userversion();
    const int newUserVersion = options.userVersionChecker.checkUserVersion(
        oldUserVersion, newStore ? -1 : info.metadataversion(), metaData);
    if (newUserVersion != oldUserVersion) {
      if (oldUserVersion > newUserVersion) {
        throw RecordStoreStaleUserVersionException(
            fmt::format("Stale user version with local version {} and stored version {}",
                        newUserVersion, oldUserVersion));
      }
      info.set_userversion(newUserVersion);
      dirty = true;
    }
  }
  // 4. The format version.
  const int newFormatVersion = std::max(oldFormatVersion, options.formatVersion);
  const int oldMetaDataVersion = newStore ? -1 : info.metadataversion();
  const int newMetaDataVersion = metaData.version();
  if (oldMetaDataVersion > newMetaDataVersion) {
    throw RecordStoreStaleMetaDataVersionException(
        fmt::format("Local meta-data has stale version: local {}, stored {}", newMetaDataVersion,
                    oldMetaDataVersion));
  }
  state.formatVersion = newFormatVersion;
  const bool formatVersionChanged = oldFormatVersion != newFormatVersion;
  const bool metaDataVersionChanged = oldMetaDataVersion != newMetaDataVersion;
  if (formatVersionChanged || metaDataVersionChanged) {
    dirty = true;
    if (newStore) {
      state.log(fmt::format("new record store: format version {}, metadata version {}",
                            newFormatVersion, newMetaDataVersion));
    }
    if (formatVersionChanged) {
      info.set_formatversion(newFormatVersion);
      if (!newStore && oldFormatVersion < kSaveUnsplitWithSuffixFormatVersion &&
          newFormatVersion >= kSaveUnsplitWithSuffixFormatVersion && !metaData.splitLongRecords()) {
        state.log("unsplit records stored at old format: omitting the suffix for good");
        info.set_omit_unsplit_record_suffix(true);
        state.omitUnsplitRecordSuffix = true;
      }
      if (!newStore && oldFormatVersion < kSaveVersionWithRecordFormatVersion &&
          metaData.storeRecordVersions() && !state.oldVersionFormat()) {
        state.log("migrating record versions to the inline format");
        convertRecordVersions(state);
      }
    }
  }
  // The record counts, when the key counted by changed.
  if (checkRecordCountKey(state, info, oldFormatVersion)) dirty = true;
  if (metaDataVersionChanged) {
    // 5. Metadata changes: versions no longer stored, former indexes.
    const bool oldVersionLayout =
        oldFormatVersion < kSaveVersionWithRecordFormatVersion || state.omitUnsplitRecordSuffix;
    if (!metaData.storeRecordVersions() && !newStore && oldVersionLayout) {
      state.context->clearRange(state.legacyVersionSubspace().range());
    }
    info.set_metadataversion(newMetaDataVersion);
    if (!newStore) {
      state.log(fmt::format("meta-data version changed from {} to {}", oldMetaDataVersion,
                            newMetaDataVersion));
    }
    for (const FormerIndex& former : metaData.formerIndexes()) {
      if (former.removedVersion > oldMetaDataVersion && former.addedVersion <= oldMetaDataVersion) {
        removeFormerIndex(state, former);
      }
    }
    // 6. Indexes new since the stored metadata version.
    std::optional<int64_t> recordCount;
    for (StoreIndex& storeIndex : state.indexes) {
      const Index& index = *storeIndex.index;
      if (index.lastModifiedVersion() <= oldMetaDataVersion) continue;
      IndexState newState = IndexState::kReadable;
      if (!newStore) {
        const std::vector<const RecordType*> types = metaData.recordTypesForIndex(index);
        const bool onNewTypes = std::all_of(types.begin(), types.end(), [&](const RecordType* t) {
          return t->sinceVersion() && *t->sinceVersion() > oldMetaDataVersion;
        });
        if (!recordCount) recordCount = countRecords(state, kMaxRecordsForRebuild);
        newState =
            options.userVersionChecker.needRebuildIndex
                ? options.userVersionChecker.needRebuildIndex(index, *recordCount, onNewTypes)
                : disabledIfTooManyRecordsForRebuild(*recordCount, onNewTypes);
      }
      if (newState == IndexState::kReadable) {
        if (!newStore) {
          store::rebuildIndex(state, storeIndex);
          state.log(fmt::format("built index {} while opening ({} records)", index.name(),
                                recordCount.value_or(0)));
        } else {
          writeIndexState(state, storeIndex, IndexState::kReadable);
        }
      } else {
        clearIndexData(state, index);
        writeIndexState(state, storeIndex, newState);
        state.log(fmt::format("index {} needs building: marked {}", index.name(),
                              indexStateName(newState)));
      }
    }
  }
  // 7. The header, if anything changed.
  if (dirty) {
    info.set_lastupdatetime(nowMillis(options));
    const fdb::Bytes value = info.SerializeAsString();
    const fdb::Bytes key = state.subspace().pack(fdb::Tuple{keyspace::kStoreInfo});
    state.context->transaction().set(key, value);
    state.countWrite(key, value);
    state.headerChanged = true;
  }
  state.header = std::move(info);
}

}  // namespace

std::string_view indexStateName(IndexState state) {
  switch (state) {
    case IndexState::kReadable: return "READABLE";
    case IndexState::kWriteOnly: return "WRITE_ONLY";
    case IndexState::kDisabled: return "DISABLED";
    case IndexState::kReadableUniquePending: return "READABLE_UNIQUE_PENDING";
    case IndexState::kWriteOnlyWithQueue: return "WRITE_ONLY_WITH_QUEUE";
  }
  return "UNKNOWN";
}

IndexState disabledIfTooManyRecordsForRebuild(int64_t recordCount, bool indexOnNewRecordTypes) {
  return indexOnNewRecordTypes || recordCount <= kMaxRecordsForRebuild ? IndexState::kReadable
                                                                       : IndexState::kDisabled;
}

IndexState writeOnlyIfTooManyRecordsForRebuild(int64_t recordCount, bool indexOnNewRecordTypes) {
  return indexOnNewRecordTypes || recordCount <= kMaxRecordsForRebuild ? IndexState::kReadable
                                                                       : IndexState::kWriteOnly;
}

StoreIndex& RecordStore::State::storeIndex(std::string_view name) {
  return const_cast<StoreIndex&>(std::as_const(*this).storeIndex(name));
}

const StoreIndex& RecordStore::State::storeIndex(std::string_view name) const {
  for (const StoreIndex& storeIndex : indexes) {
    if (storeIndex.index->name() == name) return storeIndex;
  }
  throw RecordCoreArgumentException(fmt::format("no index named {} in the metadata", name));
}

const std::vector<size_t>& RecordStore::State::indexesFor(const RecordType& type) const {
  try {
    return metaData.indexesCovering(type);
  } catch (const MetaDataException&) {
    throw RecordCoreArgumentException("record type " + type.name() +
                                      " is not in this store's metadata");
  }
}

const fdb::Subspace& RecordStore::State::subspace() const {
  if (!subspace_) subspace_ = fdb::Subspace::fromBytes(prefix());
  return *subspace_;
}

const fdb::Subspace& RecordStore::State::legacyVersionSubspace() const {
  if (!legacyVersionSubspace_) {
    legacyVersionSubspace_ =
        fdb::Subspace::fromBytes(keyspace::childKey(prefix(), keyspace::kRecordVersion));
  }
  return *legacyVersionSubspace_;
}

RecordStore RecordStore::open(RecordContext& context, const StoreLocation& location,
                              RecordMetaData metaData, RecordStoreOptions options) {
  if (options.formatVersion < kMinFormatVersion || options.formatVersion > kMaxFormatVersion) {
    throw UnsupportedFormatVersionException(
        fmt::format("Unsupported format version {} (supported: {} to {})", options.formatVersion,
                    kMinFormatVersion, kMaxFormatVersion));
  }
  auto state = std::make_shared<State>(std::move(metaData));
  state->context = &context;
  state->options = std::move(options);
  state->serializer = TransformedRecordSerializer(
      RecordSerializerOptions{state->options.compressRecords, state->options.compressionLevel});
  const StoreExistenceCheck check = state->options.existenceCheck;

  fdb::Transaction& tr = context.transaction();
  // P+(1), built in a per-thread buffer: the store keeps this one subspace, and P is its
  // beginning.
  thread_local fdb::Bytes recordsKey;
  recordsKey.clear();
  try {
    location.appendPrefix(tr,
                          check == StoreExistenceCheck::kErrorIfNotExists ? StoreLocation::kOpen
                                                                          : StoreLocation::kCreate,
                          recordsKey);
  } catch (const fdb::Error& e) {
    if (e.code() == fdb::errors::kDirectoryDoesNotExist) {
      throw RecordStoreDoesNotExistException("Record store does not exist: " + location.describe());
    }
    throw;
  }
  keyspace::appendElement(recordsKey, keyspace::kRecord);
  state->recordsSubspace = fdb::Subspace::fromBytes(recordsKey);
  setUpMessageFactory(*state);
  setUpIndexes(*state);

  // The first key of the store (the header, if there is one) and the index states, both
  // issued before either is awaited. The first key is read at snapshot with a conflict on
  // the header key alone, so writes of records elsewhere in the store do not conflict.
  // The reads and the conflict copy their keys, so these are per-thread buffers.
  const std::string_view prefix = state->prefix();
  thread_local fdb::Bytes headerKey;
  headerKey.assign(prefix);
  keyspace::appendElement(headerKey, keyspace::kStoreInfo);
  thread_local fdb::KeyRange storeRange;
  keyspace::assignPrefixRange(storeRange, prefix);
  fdb::RangeOptions firstKeyOptions;
  firstKeyOptions.limit = 1;
  fdb::Future<fdb::RangeResult> firstKey = tr.snapshot().getRange(storeRange, firstKeyOptions);
  fdb::RangeOptions allOptions;
  allOptions.mode = fdb::StreamingMode::kWantAll;
  thread_local fdb::Bytes statePrefix;
  statePrefix.assign(prefix);
  keyspace::appendElement(statePrefix, keyspace::kIndexState);
  thread_local fdb::KeyRange statesRange;
  keyspace::assignPrefixRange(statesRange, statePrefix);
  fdb::Future<fdb::RangeResult> indexStates = tr.getRange(statesRange, allOptions);
  tr.addReadConflictKey(headerKey);
  // From here on the buffers are not read again (a logger may open another store).
  const size_t headerKeySize = headerKey.size();
  const size_t statePrefixSize = statePrefix.size();
  auto isHeaderKey = [&](std::string_view key) {
    return key.size() == headerKeySize && key.starts_with(prefix) && key.back() == '\x14';
  };

  DataStoreInfo stored;
  bool hasHeader = false;
  {
    const fdb::RangeResult first = std::move(firstKey).get();
    if (!first.rows.empty()) {
      const fdb::KeyValueRef& row = first.rows[0];
      state->countRead(row.key, row.value);
      if (isHeaderKey(row.key)) {
        if (!stored.ParseFromArray(row.value.data(), static_cast<int>(row.value.size()))) {
          throw RecordCoreStorageException("the store header does not parse as DataStoreInfo: " +
                                           location.describe());
        }
        hasHeader = true;
      } else {
        toleratedFirstKey(*state, row.key, check);
      }
    }
  }
  if (!hasHeader) {
    if (check == StoreExistenceCheck::kErrorIfNotExists) {
      throw RecordStoreDoesNotExistException("Record store does not exist: " + location.describe());
    }
  } else if (check == StoreExistenceCheck::kErrorIfExists) {
    throw RecordStoreAlreadyExistsException("Record store already exists: " + location.describe());
  } else {
    if (stored.formatversion() < kMinFormatVersion || stored.formatversion() > kMaxFormatVersion) {
      throw UnsupportedFormatVersionException(fmt::format(
          "Unsupported format version {} (supported: {} to {}) in {}", stored.formatversion(),
          kMinFormatVersion, kMaxFormatVersion, location.describe()));
    }
    if (stored.has_store_lock_state() &&
        stored.store_lock_state().lock_state() == DataStoreInfo::StoreLockState::FULL_STORE) {
      throw StoreIsLockedException("Record store is locked: " + stored.store_lock_state().reason());
    }
  }

  {
    auto applyState = [&](std::string_view rowKey, std::string_view rowValue) {
      state->countRead(rowKey, rowValue);
      // Within the range read, so under the state prefix.
      const fdb::Tuple key = fdb::Tuple::unpack(rowKey.substr(statePrefixSize));
      if (key.size() != 1 || key[0].type() != fdb::TupleType::kString) return;
      const std::string& name = key.getString(0);
      for (StoreIndex& storeIndex : state->indexes) {
        if (storeIndex.index->name() == name) storeIndex.state = parseIndexState(name, rowValue);
      }
    };
    const fdb::RangeResult states = std::move(indexStates).get();
    for (const fdb::KeyValueRef& row : states.rows) applyState(row.key, row.value);
    if (states.more) {
      // The read stopped early (docs/semantics.md, "Range reads"): the rest, after its last row.
      const std::string_view lastKey = states.rows.back().key;
      const fdb::KeyRange rest{
          fdb::Bytes(lastKey) + '\x00',
          keyspace::prefixRange(fdb::Bytes(lastKey.substr(0, statePrefixSize))).end};
      for (const fdb::KeyValue& row : tr.getRangeAll(rest)) applyState(row.key, row.value);
    }
  }

  checkVersion(*state, stored);
  state->roundTripsAtOpen = tr.roundTrips();  // the reads of opening are not counted
  return RecordStore(std::move(state));
}

RecordStore RecordStore::create(RecordContext& context, const StoreLocation& location,
                                RecordMetaData metaData, RecordStoreOptions options) {
  options.existenceCheck = StoreExistenceCheck::kErrorIfExists;
  return open(context, location, std::move(metaData), std::move(options));
}

RecordStore RecordStore::openExisting(RecordContext& context, const StoreLocation& location,
                                      RecordMetaData metaData, RecordStoreOptions options) {
  options.existenceCheck = StoreExistenceCheck::kErrorIfNotExists;
  return open(context, location, std::move(metaData), std::move(options));
}

// --- Index states ---

IndexState RecordStore::indexState(std::string_view indexName) const {
  return state_->storeIndex(indexName).state;
}

bool RecordStore::markIndexWriteOnly(std::string_view indexName) {
  StoreIndex& storeIndex = state_->storeIndex(indexName);
  if (storeIndex.state == IndexState::kWriteOnly) return false;
  if (storeIndex.state == IndexState::kReadable) {
    // As the Java Record Layer does: a built index keeps a record of being built (the whole
    // range), so an index that counts goes on being maintained by every save.
    const fdb::Subspace rangeSet = builtRangeSet(*state_, *storeIndex.index);
    fdb::Transaction& tr = state_->context->transaction();
    if (tr.getRangeAll(rangeSet.range(), 1).empty()) {
      tr.set(rangeSet.pack(fdb::Tuple{fdb::ByteString{fdb::Bytes(1, '\x00')}}),
             fdb::Bytes(1, '\xff'));
    }
  }
  writeIndexState(*state_, storeIndex, IndexState::kWriteOnly);
  return true;
}

bool RecordStore::markIndexDisabled(std::string_view indexName) {
  StoreIndex& storeIndex = state_->storeIndex(indexName);
  if (storeIndex.state == IndexState::kDisabled) return false;
  clearIndexData(*state_, *storeIndex.index);
  writeIndexState(*state_, storeIndex, IndexState::kDisabled);
  return true;
}

bool RecordStore::markIndexReadable(std::string_view indexName) {
  return store::markIndexReadable(*state_, state_->storeIndex(indexName));
}

bool store::markIndexReadable(RecordStore::State& state, StoreIndex& storeIndex) {
  if (storeIndex.state == IndexState::kReadable) return false;
  if (storeIndex.index->isUnique()) {
    fdb::RangeOptions options;
    options.limit = 1;
    const fdb::Bytes prefix = uniquenessViolationsPrefix(state, *storeIndex.index);
    const fdb::RangeResult violations =
        state.context->transaction().getRange(keyspace::prefixRange(prefix), options).get();
    if (!violations.rows.empty()) {
      throw IndexNotBuiltException(
          fmt::format("Uniqueness violations found for index {}: it cannot be marked readable",
                      storeIndex.index->name()));
    }
  }
  // The index is built: forget any online-build progress.
  const fdb::TupleElement& subspaceKey = storeIndex.index->subspaceKey();
  state.context->clearRange(state.subspace().range(fdb::Tuple{keyspace::kIndexRange, subspaceKey}));
  state.context->clearRange(state.subspace().range(fdb::Tuple{keyspace::kIndexBuild, subspaceKey}));
  writeIndexState(state, storeIndex, IndexState::kReadable);
  return true;
}

void RecordStore::rebuildIndex(std::string_view indexName) {
  store::rebuildIndex(*state_, state_->storeIndex(indexName));
}

void store::rebuildIndex(RecordStore::State& state, StoreIndex& storeIndex) {
  const Index& index = *storeIndex.index;
  clearIndexData(state, index);
  // Built as a write-only index: uniqueness violations are recorded, not thrown.
  writeIndexState(state, storeIndex, IndexState::kWriteOnly);
  CursorPtr<LoadedRecord> records =
      scanLoadedRecords(state, TupleRange::all(), std::nullopt, ScanProperties());
  for (auto result = records->next(); result.hasValue(); result = records->next()) {
    indexRecord(state, storeIndex, result.value());
  }
  try {
    markIndexReadable(state, storeIndex);
  } catch (const IndexNotBuiltException&) {
    state.log(fmt::format("index {} has uniqueness violations: left WRITE_ONLY", index.name()));
  }
}

}  // namespace rl
