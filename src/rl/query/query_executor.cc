// The store's query entry points: planning against the store's index states, and running a
// plan with the execute properties applied once, at the top (docs/query.md, "Execution").
#include "rl/query/bindings.h"
#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

// Plans that scan the store directly apply skip and the returned-row limit in their scan
// (key selectors and range-read limits); the others get them applied to their rows.
bool scansDirectly(const RecordQueryPlan& plan) {
  switch (plan.kind()) {
    case RecordQueryPlan::Kind::kIndex:
    case RecordQueryPlan::Kind::kScan:
    case RecordQueryPlan::Kind::kCoveringIndex: return true;
    default: return false;
  }
}

}  // namespace

std::shared_ptr<const RecordQueryPlan> RecordStore::planQuery(const RecordQuery& query) const {
  return RecordQueryPlanner(*this).plan(query);
}

std::shared_ptr<const RecordQueryPlan> RecordStore::planQuery(
    const RecordQuery& query, const RecordQueryPlannerConfiguration& configuration) const {
  return RecordQueryPlanner(*this, configuration).plan(query);
}

CursorPtr<QueriedRecord> RecordStore::executeQuery(const RecordQueryPlan& plan,
                                                   const std::optional<fdb::Bytes>& continuation,
                                                   const ExecuteProperties& properties) {
  return executeQuery(plan, Bindings(), continuation, properties);
}

CursorPtr<QueriedRecord> RecordStore::executeQuery(const RecordQueryPlan& plan,
                                                   const Bindings& bindings,
                                                   const std::optional<fdb::Bytes>& continuation,
                                                   const ExecuteProperties& properties) {
  const QueryExecution execution{state_};
  // Every scan of the plan counts against one set of out-of-band limits.
  const ExecuteProperties shared = properties.state ? properties : properties.shareLimits();
  if (scansDirectly(plan)) return plan.execute(execution, bindings, continuation, shared);
  CursorPtr<QueriedRecord> rows =
      plan.execute(execution, bindings, continuation, shared.clearSkipAndLimit());
  const int limit = properties.normalizedRowLimit();
  if (properties.skip == 0 && limit == 0) return rows;
  return skipThenLimit(std::move(rows), properties.skip, limit);
}

}  // namespace rl
