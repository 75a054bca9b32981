// Running the plans that let some of their child's rows through: filters, type filters, and
// the primary-key distinct of scans over indexes on repeated fields.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "rl/index/index_maintainer.h"
#include "rl/index/value_index.h"
#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

// The index scan a distinct plan's rows come from (under type filters and filters).
const RecordQueryIndexPlan* scanUnder(const RecordQueryPlan& plan) {
  switch (plan.kind()) {
    case RecordQueryPlan::Kind::kIndex: return static_cast<const RecordQueryIndexPlan*>(&plan);
    case RecordQueryPlan::Kind::kTypeFilter:
    case RecordQueryPlan::Kind::kFilter: return scanUnder(*plan.children()[0]);
    default: return nullptr;
  }
}

}  // namespace

CursorPtr<QueriedRecord> RecordQueryFilterPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  return filter(children()[0]->execute(execution, bindings, continuation, properties),
                [self = shared_from_this(), bindings](const QueriedRecord& row) {
                  const auto& plan = static_cast<const RecordQueryFilterPlan&>(*self);
                  std::optional<fdb::Versionstamp> version;
                  if (row.version) version = row.version->toVersionstamp();
                  for (const QueryComponent& component : plan.filters()) {
                    if (!component.passes(*row.record, bindings, version ? &*version : nullptr)) {
                      return false;
                    }
                  }
                  return true;
                });
}

CursorPtr<QueriedRecord> RecordQueryTypeFilterPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  std::vector<const RecordType*> types;
  for (const std::string& name : recordTypes_) {
    types.push_back(&execution.store->metaData.recordType(name));
  }
  return filter(children()[0]->execute(execution, bindings, continuation, properties),
                [types = std::move(types)](const QueriedRecord& row) {
                  return std::find(types.begin(), types.end(), row.recordType) != types.end();
                });
}

// A record found through several entries of the scan is returned at the first entry the scan
// meets (the smallest of its entries in the scanned range, or the largest in reverse): that
// needs no memory of the records returned, so it holds across continuations too
// (docs/query.md, "Duplicates").
CursorPtr<QueriedRecord> RecordQueryUnorderedPrimaryKeyDistinctPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  const RecordQueryIndexPlan* scan = scanUnder(*children()[0]);
  if (scan == nullptr) {
    throw RecordCoreArgumentException(
        "a primary-key distinct plan needs an index scan beneath it: " + explain());
  }
  RecordStore::State& state = *execution.store;
  StoreIndex& storeIndex = state.storeIndex(scan->indexName());
  const fdb::KeyRange keys = scan->comparisons().toTupleRange(bindings).toRange(
      fdb::Subspace::fromBytes(storeIndex.subspacePrefix));
  return filter(
      children()[0]->execute(execution, bindings, continuation, properties),
      [state = execution.store, storeIndex = &storeIndex, keys,
       reverse = scan->isReverse()](const QueriedRecord& row) {
        if (!row.indexEntry || !row.record) return true;
        const std::string_view current = row.indexEntry->rawKey();
        IndexMaintainer& maintainer = state->maintainer(*storeIndex);
        const Index& index = *storeIndex->index;
        const fdb::Tuple trimmed = index.trimPrimaryKey(row.primaryKey);
        const std::vector<EvaluatedIndexEntry> entries =
            maintainer.evaluateIndex(IndexedRecord{row.record.get(), row.recordType, row.version});
        for (const EvaluatedIndexEntry& entry : entries) {
          const fdb::Bytes key = valueIndexEntryKey(storeIndex->subspacePrefix, entry.key, trimmed);
          if (key < keys.begin || key >= keys.end) continue;
          // An entry of this record the scan meets before the current one.
          if (reverse ? std::string_view(key) > current : std::string_view(key) < current) {
            return false;
          }
        }
        return true;
      });
}

}  // namespace rl
