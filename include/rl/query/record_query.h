// rl::RecordQuery — what a query asks for: records of some types that pass a filter, in the
// order of a sort key, of which the caller needs some fields (the Java Record Layer's
// RecordQuery; docs/query.md, "Queries").
//
//   rl::RecordQuery query{
//       .recordTypes = {"Order"},
//       .filter = rl::Query::field("price").greaterThanOrEquals(10),
//       .sort = rl::field("price"),
//   };
//   std::shared_ptr<const rl::RecordQueryPlan> plan = store.planQuery(query);
//   plan->explain();   // "Index(Order$price [[10],>)"
//
// Thread-safety: a value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rl/metadata/key_expression.h"
#include "rl/query/query_component.h"

namespace rl {

// Members have default initializers, so a query can name only what it sets
// (`{.recordTypes = {"Order"}, .sort = rl::field("price")}`).
struct RecordQuery {
  // The record types to return; empty: every record type of the metadata.
  std::vector<std::string> recordTypes = {};
  // The records to return; unset: all of them.
  std::optional<QueryComponent> filter = std::nullopt;
  // The order to return them in (a key expression over the records' fields, none of them
  // repeated); unset: any order the plan gives. Records with equal sort keys come in an order
  // the plan decides.
  std::optional<KeyExpression> sort = std::nullopt;
  bool sortReverse = false;
  // The fields the caller needs (key expressions of fields); set, the planner may answer
  // from index entries alone, without loading the records (a covering plan, whose records
  // hold only those fields and the primary key). Unset: whole records.
  std::optional<std::vector<KeyExpression>> requiredResults = std::nullopt;
  // The indexes the planner may use; unset: every readable index on the record types.
  std::optional<std::vector<std::string>> allowedIndexes = std::nullopt;
  // Whether a record that matches through several entries of an index on a repeated field
  // is returned once (true) or once per entry.
  bool removesDuplicates = true;
};

}  // namespace rl
