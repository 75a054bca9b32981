// rl::IndexAggregateFunction — an aggregate an index can answer (the Java Record Layer's
// IndexAggregateFunction): its name and its operand, a grouping key expression whose group
// columns say what the aggregate is grouped by and whose aggregated columns say what it
// aggregates (docs/indexes.md, "Aggregate functions").
//
//   rl::IndexAggregateFunction total{"sum", rl::field("price").groupBy(rl::field("customer"))};
//   fdb::Tuple sum = store.evaluateAggregateFunction({"Order"}, total, fdb::Tuple{"alice"});
//
// Thread-safety: a value type.
#pragma once

#include <string>
#include <string_view>

#include "rl/metadata/key_expression.h"

namespace rl {

struct IndexAggregateFunction {
  // "count", "count_updates", "count_not_null", "sum", "min_ever", "max_ever",
  // "max_ever_version", or an index type's own name ("min_ever_long", ...).
  std::string name;
  // A grouping (x.groupBy(g...)), or a plain key: all of it aggregated, no group.
  KeyExpression operand;
};

}  // namespace rl
