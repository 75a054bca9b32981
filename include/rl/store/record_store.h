// rl::RecordStore — typed protobuf records and their VALUE indexes in one key range of the
// database, laid out byte for byte as the Java Record Layer lays them out (docs/format.md).
//
// A store lives at a StoreLocation (its prefix P) and is opened in a RecordContext with a
// RecordMetaData. Opening reads the store header DataStoreInfo at P+(0) (creating it for a
// new store), the index states at P+(5, name), and applies the open-time upgrade rules:
// the format version only goes up (default 7, at most 15), the metadata version only goes
// up, new indexes are built at once on stores of at most 200 records (else DISABLED), and
// the data of removed indexes is cleared.
//
//   rl::RecordMetaData metaData = rl::RecordMetaData::build(Order::descriptor()->file());
//   rl::runInContext(db, [&](rl::RecordContext& context) {
//     rl::RecordStore store = rl::RecordStore::open(context, location, metaData);
//     store.saveRecord(order);                                    // insert or update
//     std::optional<rl::TypedRecord<Order>> back = store.loadRecord<Order>(fdb::Tuple{42});
//     auto cursor = store.scanIndex("Order$price", rl::TupleRange::all(), std::nullopt, {});
//   });
//
// Records are stored as the schema's union message with exactly one field set, split in
// 100,000-byte chunks when the metadata says split_long_records, with their versions
// inline at (1, pk, -1) (format 6 and later) or at (8, pk) (older formats). Records written
// compressed by the Java serializer are read; they are written compressed only when
// RecordStoreOptions::serializer asks for it.
//
// Thread-safety: a store is used by one thread at a time, as its RecordContext. A store and
// the cursors it hands out must not outlive the context.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "fdb/types.h"
#include "record_metadata.pb.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_aggregate_function.h"
#include "rl/index/index_fetch_method.h"
#include "rl/index/raw_index_entry.h"
#include "rl/metadata/metadata.h"
#include "rl/record/record_version.h"
#include "rl/store/record_store_exception.h"
#include "rl/store/store_location.h"

namespace google::protobuf {
class Message;
class MessageFactory;
}  // namespace google::protobuf

namespace rl {

struct FetchChoice;  // rl/index/index_fetch_chooser.h

class Bindings;                          // rl/query/bindings.h
class RecordQueryPlan;                   // rl/query/record_query_plan.h
struct RecordQuery;                      // rl/query/record_query.h
struct RecordQueryPlannerConfiguration;  // rl/query/record_query_planner.h
struct QueriedRecord;                    // rl/query/queried_record.h

using DataStoreInfo = ::com::apple::foundationdb::record::DataStoreInfo;

// --- Format versions (docs/format.md, "Format versions") ---
inline constexpr int kInfoAddedFormatVersion = 1;
inline constexpr int kRecordCountFormatVersion = 2;     // counts by the record count key
inline constexpr int kRecordCountKeyFormatVersion = 3;  // the header remembers that key
inline constexpr int kSaveUnsplitWithSuffixFormatVersion = 5;
inline constexpr int kSaveVersionWithRecordFormatVersion = 6;
inline constexpr int kCacheableStateFormatVersion = 7;
inline constexpr int kReadableUniquePendingFormatVersion = 9;
inline constexpr int kMinFormatVersion = kInfoAddedFormatVersion;
inline constexpr int kMaxFormatVersion = 15;
inline constexpr int kDefaultFormatVersion = kCacheableStateFormatVersion;

// Default limits on index entries (FDBRecordStore.KEY_SIZE_LIMIT / VALUE_SIZE_LIMIT).
inline constexpr size_t kIndexKeySizeLimit = 10'000;
inline constexpr size_t kIndexValueSizeLimit = 100'000;
// Stores with at most this many records build new indexes while opening.
inline constexpr int64_t kMaxRecordsForRebuild = 200;

// The state of an index in one store, kept at P+(5, name) as Tuple(code); READABLE is the
// absent key (docs/format.md, "Index states").
enum class IndexState : int {
  kReadable = 0,               // maintained and scannable
  kWriteOnly = 1,              // maintained, not scannable
  kDisabled = 2,               // neither
  kReadableUniquePending = 3,  // scannable, uniqueness violations outstanding
  kWriteOnlyWithQueue = 4,     // writes queued for an indexer (not supported here)
};
std::string_view indexStateName(IndexState state);  // "READABLE", "WRITE_ONLY", ...
constexpr bool isScannable(IndexState state) {
  return state == IndexState::kReadable || state == IndexState::kReadableUniquePending;
}

// What opening checks about the store's existence (docs/format.md, "Store header").
enum class StoreExistenceCheck {
  // No header but keys in the store: RecordStoreNoInfoAndNotEmptyException. (The default.)
  kErrorIfNoInfoAndNotEmpty,
  // As above, but keys only in the index state, range and build spaces (5, 6, 9) are allowed.
  kErrorIfNoInfoAndHasRecordsOrIndexes,
  kErrorIfExists,     // a header: RecordStoreAlreadyExistsException
  kErrorIfNotExists,  // no header: RecordStoreDoesNotExistException
  kNone,              // open whatever is there (a headerless non-empty store is logged only)
};

// What saveRecord requires of the record already stored under the primary key.
enum class SaveMode {
  kInsert,  // none: RecordAlreadyExistsException otherwise
  kUpdate,  // one of the same type: RecordDoesNotExistException / RecordTypeChangedException
  kInsertOrUpdate,  // either
};

// Which version a save stores with the record (docs/format.md, "Record versions").
enum class VersionstampSaveBehavior {
  kDefault,      // the given version, else a new incomplete one if the metadata stores versions
  kNoVersion,    // none
  kWithVersion,  // the given version, else a new incomplete one even if versions are off
  kIfPresent,    // only the given version
};

// A hook on the store's user version and on the state of indexes new to a store.
struct UserVersionChecker {
  // The user version to store, given the stored one (-1 for a new store). Returning a
  // smaller one than the stored one fails the open (RecordStoreStaleUserVersionException).
  std::function<int(int storedUserVersion, int storedMetaDataVersion, const RecordMetaData&)>
      checkUserVersion;
  // The state of an index added since the store's metadata version, given how many records
  // the store holds (counted up to kMaxRecordsForRebuild + 1) and whether every type it
  // covers is newer than the store's metadata. READABLE builds it while opening. Unset:
  // disabledIfTooManyRecordsForRebuild.
  std::function<IndexState(const Index&, int64_t recordCount, bool indexOnNewRecordTypes)>
      needRebuildIndex;
};
// READABLE when the index only covers new record types or the store has at most 200
// records, else DISABLED (the Java default) / WRITE_ONLY.
IndexState disabledIfTooManyRecordsForRebuild(int64_t recordCount, bool indexOnNewRecordTypes);
IndexState writeOnlyIfTooManyRecordsForRebuild(int64_t recordCount, bool indexOnNewRecordTypes);

struct RecordStoreOptions {
  // The format version to upgrade to (never down). 1..15; default 7 as in Java.
  int formatVersion = kDefaultFormatVersion;
  StoreExistenceCheck existenceCheck = StoreExistenceCheck::kErrorIfNoInfoAndNotEmpty;
  UserVersionChecker userVersionChecker;
  // The header's `cacheable` flag (format 7 and later) for new stores, and for existing
  // ones too when updateCacheabilityOfExistingStores.
  bool stateCacheable = false;
  bool updateCacheabilityOfExistingStores = false;
  // Write records compressed (docs/format.md, "Stored record bytes"). Reading recognises every form
  // regardless.
  bool compressRecords = false;
  int compressionLevel = 9;
  // Makes the messages of loaded records. Unset: the metadata's factory
  // (RecordMetaData::messageFactory: the generated one for compiled schemas, else one
  // DynamicMessageFactory shared by every store using that metadata).
  std::shared_ptr<google::protobuf::MessageFactory> messageFactory;
  // Keep RecordStoreCounters' saveNanos / loadNanos / deleteNanos.
  bool timeOperations = false;
  // Where the store logs what it does at open and on notable events (nothing if unset).
  std::function<void(std::string_view)> logger;
  // Milliseconds since the epoch for the header's lastUpdateTime (system clock if unset).
  std::function<uint64_t()> clock;
  size_t indexKeySizeLimit = kIndexKeySizeLimit;
  size_t indexValueSizeLimit = kIndexValueSizeLimit;
};

// What a store has done since it was opened.
struct RecordStoreCounters {
  int64_t recordsSaved = 0;
  int64_t recordsLoaded = 0;  // by loadRecord and scans
  int64_t recordsDeleted = 0;
  int64_t keysRead = 0;  // record and index key-values read
  int64_t bytesRead = 0;
  int64_t keysWritten = 0;  // record and index key-values set
  int64_t bytesWritten = 0;
  int64_t indexEntriesWritten = 0;
  int64_t indexEntriesCleared = 0;
  int64_t uniquenessChecks = 0;
  // Time spent in saveRecord, loadRecord and deleteRecord (nanoseconds, steady clock), kept
  // only with RecordStoreOptions::timeOperations (reading the clock costs about as much as
  // a small engine read, so it is off by default).
  int64_t saveNanos = 0;
  int64_t loadNanos = 0;
  int64_t deleteNanos = 0;
};

// How a stored record occupies the database.
struct RecordSize {
  int keyCount = 0;
  int keySize = 0;
  int valueSize = 0;
  bool isSplit = false;
  bool isVersionedInline = false;
};

// A record as the store knows it, without its message: primary key, type, version, size.
struct StoredRecord {
  fdb::Tuple primaryKey;
  const RecordType* recordType = nullptr;
  std::optional<RecordVersion> version;
  RecordSize size;
};

// A loaded record with its message (a generated message for compiled schemas, a
// DynamicMessage for run-time ones).
//
// The message lives on a protobuf arena shared with the other records of the same cursor
// (loadRecord: an arena of its own), and `record` shares the ownership of that arena: the
// message stays valid as long as any copy of `record` is held, after the cursor, the store
// and the transaction are gone. Holding one record of a scan keeps the arena it was made on
// alive (a cursor starts a new arena every megabyte or so, so a long scan whose rows are let
// go does not keep them all). Copy the message (CopyFrom into one of your own) to change it
// or to keep it apart from the others.
struct LoadedRecord : StoredRecord {
  std::shared_ptr<const google::protobuf::Message> record;

  // The record as the generated message type M. Throws RecordDeserializationException when
  // it is not one (another record type, or a DynamicMessage of a run-time schema).
  template <typename M>
  const M& as() const {
    const auto* typed = dynamic_cast<const M*>(record.get());
    if (typed == nullptr) {
      throw RecordDeserializationException(
          "record " + fdb::formatTuple(primaryKey) + " is a " +
          (record ? record->GetDescriptor()->full_name() : std::string("missing record")) +
          ", not a " + M::descriptor()->full_name());
    }
    return *typed;
  }
};

// A loaded record as the generated message type M.
template <typename M>
struct TypedRecord : StoredRecord {
  M record;
};

// One entry of an index scan.
struct IndexEntry {
  fdb::Tuple key;         // the whole entry key: index columns, then the trimmed primary key
  fdb::Tuple value;       // the entry's value columns (empty for a plain VALUE index)
  fdb::Tuple primaryKey;  // the record's primary key, rebuilt from `key`
};

// One row of scanIndexRecords: the index entry (decoded on demand: key(), value(),
// primaryKey()) and the record it points to (nullopt: an orphan entry returned under
// IndexOrphanBehavior::kReturn).
struct FetchedRecord {
  RawIndexEntry entry;
  std::optional<LoadedRecord> record;
};

class RecordStore {
 public:
  // Opens (or creates) the store at `location`. Throws the exceptions of
  // record_store_exception.h for the existence check, unsupported or stale versions;
  // options.formatVersion outside 1..15 is UnsupportedFormatVersionException too; an index
  // of a type no maintainer is registered for, or one its type cannot maintain, is
  // MetaDataException (docs/indexes.md).
  // `metaData` is a handle: the store shares it (and what it worked out once, such as the
  // indexes covering each record type) instead of copying it.
  static RecordStore open(RecordContext& context, const StoreLocation& location,
                          RecordMetaData metaData, RecordStoreOptions options = {});
  // open() with kErrorIfExists / kErrorIfNotExists.
  static RecordStore create(RecordContext& context, const StoreLocation& location,
                            RecordMetaData metaData, RecordStoreOptions options = {});
  static RecordStore openExisting(RecordContext& context, const StoreLocation& location,
                                  RecordMetaData metaData, RecordStoreOptions options = {});

  RecordStore(RecordStore&&) noexcept;
  RecordStore& operator=(RecordStore&&) noexcept;
  ~RecordStore();

  RecordContext& context() const;
  const RecordMetaData& metaData() const;
  const fdb::Subspace& subspace() const;                  // P
  const fdb::Subspace& recordsSubspace() const;           // P+(1)
  fdb::Subspace indexSubspace(const Index& index) const;  // P+(2, sk)

  // The header as written (or found, when nothing changed) by open.
  const DataStoreInfo& header() const;
  int formatVersion() const;
  bool omitUnsplitRecordSuffix() const;
  // Versions at (8, pk) rather than inline: format < 6 or the unsuffixed layout.
  bool oldVersionFormat() const;
  int userVersion() const;
  // Whether open wrote the header (a new store, or an upgrade).
  bool headerChanged() const;

  // --- Records ---
  // Saves `record` (a message of one of the metadata's record types) under the primary key
  // its type evaluates, maintaining every index on its type that is not DISABLED. Throws
  // per SaveMode, RecordIndexUniquenessViolation, IndexEntryTooLargeException,
  // RecordCoreArgumentException (a record too long for an unsplit store, a type that is not
  // a record type).
  StoredRecord saveRecord(const google::protobuf::Message& record,
                          SaveMode mode = SaveMode::kInsertOrUpdate,
                          std::optional<RecordVersion> version = std::nullopt,
                          VersionstampSaveBehavior behavior = VersionstampSaveBehavior::kDefault);
  StoredRecord insertRecord(const google::protobuf::Message& record) {
    return saveRecord(record, SaveMode::kInsert);
  }
  StoredRecord updateRecord(const google::protobuf::Message& record) {
    return saveRecord(record, SaveMode::kUpdate);
  }

  // The record under `primaryKey`, or nullopt. Throws RecordDeserializationException for
  // bytes that are not one of the metadata's records, RecordCoreStorageException for a
  // malformed layout.
  std::optional<LoadedRecord> loadRecord(const fdb::Tuple& primaryKey);
  // As the generated type M; RecordDeserializationException when the stored record is of
  // another type.
  template <typename M>
  std::optional<TypedRecord<M>> loadRecord(const fdb::Tuple& primaryKey) {
    static_assert(std::is_base_of_v<google::protobuf::Message, M>);
    std::optional<TypedRecord<M>> loaded(std::in_place);
    if (!loadInto(primaryKey, loaded->record, *loaded)) return std::nullopt;
    return loaded;
  }
  // The version stored with the record, or nullopt (no record, or none stored).
  std::optional<RecordVersion> loadRecordVersion(const fdb::Tuple& primaryKey);
  bool recordExists(const fdb::Tuple& primaryKey);
  // Deletes the record and its index entries; false when there was none.
  bool deleteRecord(const fdb::Tuple& primaryKey);
  // Clears every record, index entry and per-index datum; keeps the header and the index
  // states (exactly the ranges docs/format.md, "Store keyspace" names).
  void deleteAllRecords();
  // Deletes every record whose primary key starts with `prefix`, and the matching ranges
  // of every index whose key starts with the same columns as the primary key.
  // DeleteRecordsWhereException when some maintained index cannot be cleared by range.
  void deleteRecordsWhere(const fdb::Tuple& prefix);

  // --- Scans ---
  // Records whose primary keys fall in `range`, in primary-key order (reverse with
  // properties.reverse). Continuations: the last key of the last record returned.
  CursorPtr<LoadedRecord> scanRecords(const TupleRange& range,
                                      const std::optional<fdb::Bytes>& continuation,
                                      const ScanProperties& properties);
  // Entries of a scannable index whose key tuples fall in `range` (over the index
  // columns). Throws ScanNonReadableIndexException for WRITE_ONLY or DISABLED indexes.
  CursorPtr<IndexEntry> scanIndex(std::string_view indexName, const TupleRange& range,
                                  const std::optional<fdb::Bytes>& continuation,
                                  const ScanProperties& properties);
  // The records an index's entries over `range` point to, in index order, each with its
  // entry, fetched by `method` (docs/format.md, "Index fetch"): kScanAndFetch scans the index and
  // loads each record (`pipelineSize` loads in flight); kUseRemoteFetch asks the storage server for
  // both in mapped range reads; kUseRemoteFetchWithFallback does that and falls back to scan and
  // fetch when it cannot. Every method returns the same rows with the same continuations
  // (an index scan's), so a scan stopped under one resumes under another. Throws
  // ScanNonReadableIndexException as scanIndex does, UnsupportedRemoteFetchIndexException
  // (kUseRemoteFetch on a store whose prefix is not a tuple the server parses, or with
  // snapshot isolation), RecordCoreException on stores keeping versions in the old format;
  // the cursor throws OrphanIndexEntryException for a missing record under kError.
  CursorPtr<FetchedRecord> scanIndexRecords(
      std::string_view indexName, const TupleRange& range,
      const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties,
      IndexFetchMethod method = IndexFetchMethod::kScanAndFetch,
      IndexOrphanBehavior orphanBehavior = IndexOrphanBehavior::kError, size_t pipelineSize = 10);
  // What IndexFetchMethod::kAdaptive would choose now for a scan of the VALUE index
  // `indexName` with `properties`, and why (docs/index_fetch.md). Include
  // rl/index/index_fetch_chooser.h to call it.
  FetchChoice chooseIndexFetch(std::string_view indexName, const ScanProperties& properties,
                               size_t pipelineSize = 10);

  // --- Rank indexes (docs/indexes.md, "RANK indexes") ---
  // Each takes the name of a RANK index (RecordCoreArgumentException for another type) that
  // is scannable (ScanNonReadableIndexException as scanIndex). A rank counts from 0, in score
  // order within the group; equal scores share a rank unless the index counts duplicates.
  // The rank of `record`'s score within its group; nullopt when the index has no entry for it.
  std::optional<int64_t> rank(std::string_view indexName, const google::protobuf::Message& record);
  // The score (the index's ranked columns) at `rank` within `group`; nullopt past the last.
  std::optional<fdb::Tuple> scoreForRank(std::string_view indexName, const fdb::Tuple& group,
                                         int64_t rank);
  // The rank `score` has within `group`, or would have if some record had it.
  int64_t rankForScore(std::string_view indexName, const fdb::Tuple& group,
                       const fdb::Tuple& score);
  // The entries whose scores have the ranks in `rankRange`, a range over (group..., rank)
  // whose ends name one group; continuations as scanIndex's.
  CursorPtr<IndexEntry> scanIndexByRank(std::string_view indexName, const TupleRange& rankRange,
                                        const std::optional<fdb::Bytes>& continuation,
                                        const ScanProperties& properties);
  // The records of those entries, in rank order (the record at rank r: the range [r, r]).
  CursorPtr<FetchedRecord> scanIndexRecordsByRank(std::string_view indexName,
                                                  const TupleRange& rankRange,
                                                  const std::optional<fdb::Bytes>& continuation,
                                                  const ScanProperties& properties);

  // --- Queries (docs/query.md) ---
  // The plan for `query` on this store's metadata and the indexes readable in it now
  // (rl::RecordQueryPlanner). Include rl/query/record_query_planner.h to call these.
  std::shared_ptr<const RecordQueryPlan> planQuery(const RecordQuery& query) const;
  std::shared_ptr<const RecordQueryPlan> planQuery(
      const RecordQuery& query, const RecordQueryPlannerConfiguration& configuration) const;
  // The rows of `plan` under `bindings` (its parameters' values), from just after
  // `continuation` (nullopt: from the start), within `properties`: skip, returned-row limit,
  // scanned-records / scanned-bytes / time limits (shared by every scan of the plan), isolation.
  // A plan made by another store or planner runs on this one if it fits this store's metadata.
  CursorPtr<QueriedRecord> executeQuery(const RecordQueryPlan& plan,
                                        const std::optional<fdb::Bytes>& continuation,
                                        const ExecuteProperties& properties);
  CursorPtr<QueriedRecord> executeQuery(const RecordQueryPlan& plan, const Bindings& bindings,
                                        const std::optional<fdb::Bytes>& continuation,
                                        const ExecuteProperties& properties);

  // --- Aggregates (docs/indexes.md, "Aggregate functions") ---
  // `function` over the records of `recordTypeNames` (empty: every record type) in the
  // group `group` (a prefix of the operand's group columns; empty: every group), answered
  // from a READABLE index covering exactly those types that can evaluate it (the one with
  // the fewest columns). count, count_updates, count_not_null and sum give (n), 0 when no
  // record counts; min_ever, max_ever and max_ever_version give the value, or the empty
  // tuple when there is none. RecordCoreArgumentException naming the function, its operand
  // and the types when no readable index matches.
  fdb::Tuple evaluateAggregateFunction(const std::vector<std::string>& recordTypeNames,
                                       const IndexAggregateFunction& function,
                                       const fdb::Tuple& group,
                                       IsolationLevel isolation = IsolationLevel::kSerializable);
  // The number of records, read at snapshot (no conflict): from the record counts
  // (docs/format.md, "Record counts") when the metadata has a record count key the key is a
  // prefix of, else from a readable COUNT index grouped by `key` (evaluateAggregateFunction's
  // error when there is none). `value`: the key's values (as many as its columns).
  int64_t snapshotRecordCount();
  int64_t snapshotRecordCount(const KeyExpression& key, const fdb::Tuple& value);

  // --- Index states ---
  IndexState indexState(std::string_view indexName) const;
  bool isIndexReadable(std::string_view indexName) const {
    return indexState(indexName) == IndexState::kReadable;
  }
  // Change an index's state; true when it changed. markIndexReadable requires no
  // uniqueness violations recorded (IndexNotBuiltException otherwise); markIndexDisabled
  // also clears the index's data.
  bool markIndexWriteOnly(std::string_view indexName);
  bool markIndexDisabled(std::string_view indexName);
  bool markIndexReadable(std::string_view indexName);
  // Clears the index and builds it from every record in this transaction, then marks it
  // readable (what open does for small stores).
  void rebuildIndex(std::string_view indexName);
  // Uniqueness violations recorded for a unique index while it was WRITE_ONLY: the
  // primary keys of the records involved.
  std::vector<fdb::Tuple> uniquenessViolations(std::string_view indexName);

  // --- Observability ---
  const RecordStoreCounters& counters() const;
  // Round trips of the context's transaction since open returned (the reads of opening
  // itself are not counted).
  fdb::RoundTrips roundTrips() const;

  struct State;

 private:
  explicit RecordStore(std::shared_ptr<State> state);
  // Loads the record into `message` (of the stored record's type); false when absent.
  bool loadInto(const fdb::Tuple& primaryKey, google::protobuf::Message& message,
                StoredRecord& info);

  std::shared_ptr<State> state_;

  friend struct RecordStoreAccess;  // the library's own code (src/rl/store/record_store_state.h)
};

}  // namespace rl
