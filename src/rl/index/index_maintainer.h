// IndexMaintainer — what one index type does for one index of an open record store: keep its
// entries in step with saves and deletes, scan them, delete them by primary-key prefix, and
// evaluate aggregates over them (docs/indexes.md). IndexMaintainerFactory makes maintainers
// for one index type, validates index definitions of that type when a store opens, and makes
// the store checker's check of an index of that type; factories are registered by type name
// in the IndexMaintainerRegistry (index_maintainer_registry.h). The record store, the online
// indexer and the checker reach an index only through these.
//
//   IndexMaintainer& maintainer = state.maintainer(storeIndex);  // made on first use
//   maintainer.update(primaryKey, IndexedRecord{&old, oldType, oldVersion},
//                     IndexedRecord{&record, type, version});
//   CursorPtr<IndexEntry> entries =
//       maintainer.scan(IndexScanType::kByValue, range, std::nullopt, ScanProperties());
//
// Thread-safety: a maintainer belongs to its store, used by one thread at a time; factories
// are shared and const.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "fdb/tuple.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_aggregate_function.h"
#include "rl/index/index_fetch.h"
#include "rl/index/index_fetch_method.h"
#include "rl/metadata/index.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata.h"
#include "rl/record/record_version.h"
#include "rl/store/record_store.h"

namespace rl {

struct StoreIndex;  // record_store_state.h
class IndexCheck;   // index_check.h
struct IndexCheckTarget;

// One side of a record change: the record (null: none) with its type and version.
struct IndexedRecord {
  const google::protobuf::Message* record = nullptr;
  const RecordType* type = nullptr;
  std::optional<RecordVersion> version;
};

// One entry an index has for a record, before the primary key is added.
struct EvaluatedIndexEntry {
  fdb::Tuple key;    // the index columns
  fdb::Tuple value;  // the value columns
  bool containsNonUniqueNull = false;

  friend bool operator==(const EvaluatedIndexEntry& a, const EvaluatedIndexEntry& b) {
    return a.key == b.key && a.value == b.value;
  }
};

// How an index is scanned (the Java Record Layer's IndexScanType): by its entries' keys, by
// group (aggregate indexes), by rank (rank indexes), by time window.
enum class IndexScanType { kByValue, kByGroup, kByRank, kByTimeWindow };
std::string_view indexScanTypeName(IndexScanType type);  // "BY_VALUE", ...

class IndexMaintainer {
 public:
  IndexMaintainer(RecordStore::State& store, const StoreIndex& index)
      : store_(store), storeIndex_(index) {}
  virtual ~IndexMaintainer() = default;
  IndexMaintainer(const IndexMaintainer&) = delete;
  IndexMaintainer& operator=(const IndexMaintainer&) = delete;

  const Index& index() const;

  // The entries `record` has in this index, before its primary key is added (none when the
  // record is absent).
  virtual std::vector<EvaluatedIndexEntry> evaluateIndex(const IndexedRecord& record) const = 0;

  // Keeps the index in step with the record `primaryKey` changing from `before` to `after`.
  // A side is absent (null record) when there is no record or the index does not cover its
  // type; the store calls this only for indexes that are not DISABLED.
  virtual void update(const fdb::Tuple& primaryKey, const IndexedRecord& before,
                      const IndexedRecord& after) = 0;

  // Whether indexing a record twice leaves the index as indexing it once (VALUE, the _ever
  // aggregates) or not (count, sum): a WRITE_ONLY index that is not idempotent is updated by
  // saves only for records in the range an online build has covered (docs/indexes.md).
  virtual bool isIdempotent() const { return true; }

  // The index's entries over `range`, scanned as `type` says. The store has checked that the
  // index is scannable. RecordCoreArgumentException for a scan type the index does not
  // support.
  virtual CursorPtr<IndexEntry> scan(IndexScanType type, const TupleRange& range,
                                     const std::optional<fdb::Bytes>& continuation,
                                     const ScanProperties& properties) = 0;

  // The index's entries over `range` with the records they point to, fetched by `method`
  // (RecordStore::scanIndexRecords). By default RecordCoreArgumentException: the index type
  // does not point at records.
  virtual CursorPtr<IndexedRawRecord> scanRecords(const TupleRange& range,
                                                  const std::optional<fdb::Bytes>& continuation,
                                                  const ScanProperties& properties,
                                                  IndexFetchMethod method,
                                                  IndexOrphanBehavior orphanBehavior,
                                                  size_t pipelineSize);

  // Why the entries of the records whose primary keys start with `prefix` cannot be cleared
  // by range (RecordStore::deleteRecordsWhere words it as "index <name> <why>"), or nullopt
  // when deleteWhere can clear them. By default they cannot.
  virtual std::optional<std::string> cannotDeleteWhere(const fdb::Tuple& prefix) const;
  // Clears the entries of the records whose primary keys start with `prefix`.
  // REQUIRES: !cannotDeleteWhere(prefix).
  virtual void deleteWhere(const fdb::Tuple& prefix);

  // Whether evaluateAggregate can compute `function` from this index. By default no.
  virtual bool canEvaluateAggregate(const IndexAggregateFunction& function) const;
  // `function` over the entries in `range`. By default RecordCoreArgumentException naming
  // the function, the index and its type.
  virtual fdb::Tuple evaluateAggregate(const IndexAggregateFunction& function,
                                       const TupleRange& range, IsolationLevel isolation);

 protected:
  RecordStore::State& store_;
  const StoreIndex& storeIndex_;  // its state changes as the store marks the index
};

class IndexMaintainerFactory {
 public:
  virtual ~IndexMaintainerFactory() = default;

  // The index type this factory maintains, by the Java Record Layer's name ("value").
  virtual std::string_view type() const = 0;

  // Throws MetaDataException when `index` (of this type, in `metaData`) is not one this type
  // can maintain. Called for every index when a store opens.
  virtual void validate(const Index& index, const RecordMetaData& metaData) const = 0;

  // The maintainer of `index` in the open store `store`.
  virtual std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                                  const StoreIndex& index) const = 0;

  // The store checker's check of one index of this type, or null when the type brings none
  // (the checker then lists the index as skipped). By default none.
  virtual std::unique_ptr<IndexCheck> createCheck(const IndexCheckTarget& target) const;

  // Whether the query planner may use indexes of this type as it uses VALUE indexes: their
  // entries are the root expression's columns then the primary-key columns not among them,
  // one entry per key the expression yields, each pointing at its record, and a BY_VALUE scan
  // returns them in key order (docs/query.md, "Which indexes the planner uses"). By default no.
  virtual bool plannableAsValueScan() const { return false; }
};

}  // namespace rl
