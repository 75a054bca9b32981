// Checking a RecordQuery against the metadata before planning: the record types exist, every
// field the filter, sort and required results name exists with the shape the query reads it
// in, and every comparand fits its field's type (converted to it: ComparandType). Errors are
// InvalidQueryException naming what and where (docs/query.md, "Checking a query"). Private
// to src/rl/query.
#pragma once

#include <optional>
#include <vector>

#include "rl/metadata/metadata.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_planner.h"

namespace rl::query {

struct ValidatedQuery {
  std::vector<const RecordType*> types;  // the queried types (every type when none named)
  bool allTypes = false;                 // the query named no type, or every one
  std::optional<QueryComponent> filter;  // comparands converted to their fields' types
};

ValidatedQuery validateQuery(const RecordMetaData& metaData, const RecordQuery& query);

}  // namespace rl::query
