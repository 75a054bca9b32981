// What a RecordStore knows once opened: its subspaces, header, layout flags, index states
// and the per-index facts maintenance needs, shared by the store and its cursors.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "fdb/subspace.h"
#include "fdb/types.h"
#include "rl/index/index_maintainer.h"
#include "rl/record/record_serializer.h"
#include "rl/record/split_helper.h"
#include "rl/store/record_arena.h"
#include "rl/store/record_store.h"

namespace rl {

// One index of the metadata as this store sees it.
struct StoreIndex {
  std::shared_ptr<const Index> index;
  fdb::Bytes subspacePrefix;  // P+(2, sk) packed
  IndexState state = IndexState::kReadable;
  // Its type's factory, found in the registry when the store opened.
  std::shared_ptr<const IndexMaintainerFactory> factory;
  // Made by `factory` when first asked for (State::maintainer).
  std::unique_ptr<IndexMaintainer> maintainer;
};

// Adds the time until it goes out of scope to `nanos` when `on` (timeOperations).
class OperationTimer {
 public:
  OperationTimer(bool on, int64_t& nanos) : nanos_(on ? &nanos : nullptr) {
    if (nanos_ != nullptr) start_ = std::chrono::steady_clock::now();
  }
  ~OperationTimer() {
    if (nanos_ == nullptr) return;
    *nanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - start_)
                   .count();
  }
  OperationTimer(const OperationTimer&) = delete;
  OperationTimer& operator=(const OperationTimer&) = delete;

 private:
  int64_t* nanos_;
  std::chrono::steady_clock::time_point start_;
};

struct RecordStore::State : std::enable_shared_from_this<RecordStore::State> {
  explicit State(RecordMetaData metaData) : metaData(std::move(metaData)) {}

  RecordContext* context = nullptr;
  RecordMetaData metaData;
  RecordStoreOptions options;
  fdb::Subspace recordsSubspace;  // P+(1)
  DataStoreInfo header;
  int formatVersion = 0;
  bool omitUnsplitRecordSuffix = false;
  bool headerChanged = false;
  TransformedRecordSerializer serializer;

  // Every index of the metadata, in metadata order (RecordMetaData::allIndexes), with its
  // state.
  std::vector<StoreIndex> indexes;

  google::protobuf::MessageFactory* messageFactory = nullptr;
  std::shared_ptr<google::protobuf::MessageFactory> ownedMessageFactory;

  RecordStoreCounters counters;
  fdb::RoundTrips roundTripsAtOpen;

 private:
  mutable std::optional<fdb::Subspace> subspace_;
  mutable std::optional<fdb::Subspace> legacyVersionSubspace_;

 public:
  // P: the records subspace P+(1) without its last element (always two bytes, 15 01).
  std::string_view prefix() const {
    const std::string_view records = recordsSubspace.key();
    return records.substr(0, records.size() - 2);
  }
  // P as a subspace, made when first asked for (loads and scans never ask).
  const fdb::Subspace& subspace() const;
  // P+(8), made when first asked for (only stores keeping versions in the old format do).
  const fdb::Subspace& legacyVersionSubspace() const;

  bool oldVersionFormat() const {
    return formatVersion < kSaveVersionWithRecordFormatVersion || omitUnsplitRecordSuffix;
  }
  SplitSaveOptions splitSaveOptions() const {
    SplitSaveOptions split;
    split.splitLongRecords = metaData.splitLongRecords();
    split.omitUnsplitSuffix = omitUnsplitRecordSuffix;
    return split;
  }
  SplitLoadOptions splitLoadOptions(
      IsolationLevel isolation = IsolationLevel::kSerializable) const {
    SplitLoadOptions load;
    load.splitLongRecords = metaData.splitLongRecords();
    load.missingUnsplitRecordSuffix = omitUnsplitRecordSuffix;
    load.isolation = isolation;
    return load;
  }

  StoreIndex& storeIndex(std::string_view name);
  const StoreIndex& storeIndex(std::string_view name) const;
  // The indexes covering `type` (positions in `indexes`). RecordCoreArgumentException when
  // `type` is not one of the store's metadata.
  const std::vector<size_t>& indexesFor(const RecordType& type) const;
  // Whether `index` (one of `indexes`) covers records of `type`.
  bool covers(const StoreIndex& index, const RecordType& type) const;
  // The maintainer of `index` (one of `indexes`), made on first use.
  IndexMaintainer& maintainer(StoreIndex& index);

  void log(std::string_view message) const {
    if (options.logger) options.logger(message);
  }
  void countWrite(std::string_view key, std::string_view value) {
    counters.keysWritten += 1;
    counters.bytesWritten += static_cast<int64_t>(key.size() + value.size());
  }
  void countRead(std::string_view key, std::string_view value) {
    counters.keysRead += 1;
    counters.bytesRead += static_cast<int64_t>(key.size() + value.size());
  }
};

// How the library's own code reaches the state of a RecordStore it is handed.
struct RecordStoreAccess {
  static RecordStore::State& state(const RecordStore& store) { return *store.state_; }
};

namespace store {

// Throws ScanNonReadableIndexException unless the index is READABLE or
// READABLE_UNIQUE_PENDING.
void checkScannable(const StoreIndex& storeIndex);

// An index state value, Tuple(code), decoded; nullopt when it is not one.
std::optional<IndexState> decodeIndexState(std::string_view value);
// Writes (or, for READABLE, clears) the index's state key, with a read conflict on it.
void writeIndexState(RecordStore::State& state, StoreIndex& storeIndex, IndexState newState);
// Clears the index's entries and its other per-index data.
void clearIndexData(RecordStore::State& state, const Index& index);
// Marks the index readable if it has no uniqueness violations (IndexNotBuiltException).
bool markIndexReadable(RecordStore::State& state, StoreIndex& storeIndex);
// Updates every maintained (not DISABLED) index covering either side of the change of the
// record `primaryKey` from `before` to `after`, through its maintainer.
void updateIndexes(RecordStore::State& state, const fdb::Tuple& primaryKey,
                   const IndexedRecord& before, const IndexedRecord& after);
// The index's built-range set P+(6, sk) (Java's RangeSet: (begin) -> end, packed primary keys).
fdb::Subspace builtRangeSet(const RecordStore::State& state, const Index& index);
// Whether an online build of `index` has covered the record `primaryKey` (read with a
// conflict range).
bool builtRangeContains(RecordStore::State& state, const StoreIndex& index,
                        const fdb::Tuple& primaryKey);
// Indexes `record` in `index` as the save of a new record would (index builds); false when
// the index does not cover its type.
bool indexRecord(RecordStore::State& state, StoreIndex& index, const LoadedRecord& record);
// Adds `delta` to the record count of `record`'s value of the record count key (none
// without a key or with counts DISABLED).
void addRecordCount(RecordStore::State& state, const google::protobuf::Message& record,
                    const RecordType& type, int64_t delta);
// At open: when the counted key changed (or appeared, or went), clears the counts, sets the
// header's record_count_key (format 3 and later) in `info` and, for an existing store,
// recounts every record. Returns whether the header changed.
bool checkRecordCountKey(RecordStore::State& state, DataStoreInfo& info, int oldFormatVersion);
// The uniqueness-violation subspace key P+(7, sk) packed.
fdb::Bytes uniquenessViolationsPrefix(const RecordStore::State& state, const Index& index);
// Clears the index, indexes every record, marks it readable (or leaves it WRITE_ONLY with
// its uniqueness violations recorded).
void rebuildIndex(RecordStore::State& state, StoreIndex& storeIndex);

// Stored record bytes (maybe compressed) into a new message; returns its type.
std::unique_ptr<google::protobuf::Message> deserializeRecord(RecordStore::State& state,
                                                             std::string_view stored,
                                                             const RecordType*& type);
// The same into a message made on `arenas` (a cursor's records), or on an arena of its own
// when `arenas` is null (a single load).
std::shared_ptr<const google::protobuf::Message> deserializeRecordOnArena(RecordStore::State& state,
                                                                          std::string_view stored,
                                                                          const RecordType*& type,
                                                                          RecordArenas* arenas);
// A cursor of whole records over `range` of the records subspace.
CursorPtr<LoadedRecord> scanLoadedRecords(RecordStore::State& state, const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties);
RecordScanLayout recordScanLayout(const RecordStore::State& state);
// `stored`, a record an index fetch read, deserialized (on `arenas`) into `loaded`, and
// counted as loaded.
void loadFetchedRecord(RecordStore::State& state, RawRecord&& stored, RecordArenas& arenas,
                       LoadedRecord& loaded);
// The records an index's entries over `range` point to, each with its entry, fetched by
// `method` through the index's maintainer (RecordStore::scanIndexRecords, query plans).
// REQUIRES: the index is scannable (checkScannable).
CursorPtr<FetchedRecord> scanIndexRecords(RecordStore::State& state, StoreIndex& storeIndex,
                                          const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties, IndexFetchMethod method,
                                          IndexOrphanBehavior orphanBehavior, size_t pipelineSize);

}  // namespace store
}  // namespace rl
