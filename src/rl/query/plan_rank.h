// Planning rank comparisons (plan_rank.cc; docs/query.md, "Rank comparisons"). Private to
// src/rl/query.
#pragma once

#include <optional>

#include "rl/metadata/metadata.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_plan.h"
#include "rl/query/record_query_planner.h"

namespace rl::query {

// The plan of `query` when its filter compares a rank: a BY_RANK scan of the rank index
// ranking what it compares. nullopt when the filter compares no rank. Throws
// InvalidQueryException, UnplannableQueryException (no readable rank index ranks it, a rank
// under an OR or a NOT, a group without its equality, a sort the scan does not give).
std::optional<RecordQueryPlanPtr> planRankQuery(
    const RecordMetaData& metaData, const RecordQueryPlanner::IndexStates& indexStates,
    const RecordQueryPlannerConfiguration& configuration, const RecordQuery& query);

}  // namespace rl::query
