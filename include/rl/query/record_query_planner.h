// rl::RecordQueryPlanner — turns a RecordQuery into a plan: which index (or the primary-key
// scan) answers which comparisons, what is left to a filter, whether an intersection, a union
// or an IN join does better, and whether the index entries alone cover the query. Heuristic
// and deterministic, following the Java Record Layer's RecordQueryPlanner; its rules and
// scoring are in docs/query.md ("The planner").
//
//   rl::RecordQueryPlanner planner(store);   // the store's metadata and index states
//   std::shared_ptr<const rl::RecordQueryPlan> plan = planner.plan(query);
//   // or in one step: store.planQuery(query)
//
// Errors: InvalidQueryException (an unknown record type, field or index; a comparison whose
// comparand does not fit its field; a sort on a repeated field), UnplannableQueryException (a
// sort no index gives, when an in-memory sort is not allowed).
//
// Thread-safety: a planner is immutable once made; plan() may be called from many threads.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rl/index/index_fetch_method.h"
#include "rl/metadata/metadata.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_plan.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_store.h"

namespace rl {

// A query that does not fit the metadata: names what and where.
class InvalidQueryException : public RecordCoreArgumentException {
 public:
  using RecordCoreArgumentException::RecordCoreArgumentException;
};

// A query the planner cannot answer as asked (a sort no index gives).
class UnplannableQueryException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

struct RecordQueryPlannerConfiguration {
  // How index plans fetch their records (docs/format.md, "Index fetch"; ADAPTIVE chooses per
  // scan: docs/index_fetch.md).
  IndexFetchMethod indexFetchMethod = IndexFetchMethod::kAdaptive;
  // Record loads in flight for SCAN_AND_FETCH and Fetch plans.
  size_t pipelineSize = 10;
  // A sort no index gives: sorted in memory (RecordQuerySortPlan) instead of refused, for
  // inputs of at most inMemorySortLimit records.
  bool allowInMemorySort = false;
  size_t inMemorySortLimit = 10'000;
  // An IN whose values cannot be taken in sort order (the IN field is not where the sort
  // starts) is tried as an in-union merging the runs, when the list has at most this many
  // values (parameters: when bound); 0 turns it off.
  size_t inUnionMaxBranches = 100;
  // Union and intersection children that are index scans read only the entries, and the
  // records are fetched after the merge (Fetch(...)).
  bool deferFetchAfterUnionAndIntersection = true;
  // Told, line by line, which scans the planner considered for each conjunction and why each
  // one it did not choose lost (the first rule of docs/query.md's scoring that tells it from
  // the chosen one); unset: nothing. For `explain --verbose` and debugging.
  std::function<void(const std::string&)> trace;
};

class RecordQueryPlanner {
 public:
  // Index states by name; an index not named is READABLE.
  using IndexStates = std::map<std::string, IndexState, std::less<>>;

  // Plans against `metaData` with the indexes readable in `indexStates`.
  RecordQueryPlanner(RecordMetaData metaData, IndexStates indexStates = {},
                     RecordQueryPlannerConfiguration configuration = {});
  // Plans against the store's metadata and its index states now.
  explicit RecordQueryPlanner(const RecordStore& store,
                              RecordQueryPlannerConfiguration configuration = {});

  const RecordMetaData& metaData() const { return metaData_; }
  const RecordQueryPlannerConfiguration& configuration() const { return configuration_; }

  // The plan for `query`. Throws InvalidQueryException, UnplannableQueryException.
  RecordQueryPlanPtr plan(const RecordQuery& query) const;

  // `query` answered from the aggregate index `indexName`'s groups alone (the Java Record
  // Layer's planCoveringAggregateIndex; docs/query.md, "Aggregate indexes"): one partial record
  // a group, holding the group's fields, with the group's aggregate as its index entry's value.
  // The query must be on the index's one record type, its filter compare only group fields
  // (equalities on leading ones, then a range on the next), its sort follow the group fields
  // after the equalities, and its required results be group fields. Null when not, or when
  // the index is not a readable aggregate index; InvalidQueryException as plan() throws it.
  std::shared_ptr<const RecordQueryCoveringIndexPlan> planCoveringAggregateIndex(
      const RecordQuery& query, std::string_view indexName) const;

 private:
  RecordMetaData metaData_;
  IndexStates indexStates_;
  RecordQueryPlannerConfiguration configuration_;
};

}  // namespace rl
