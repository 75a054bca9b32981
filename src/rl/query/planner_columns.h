// What the planner matches: a filter's comparisons as leaves (a field path and a comparison)
// and an index's (or the primary key's) columns as field paths, so that a comparison on
// customer.name meets the column field("customer").nest("name") and "one of tags" meets
// field("tags", FanType::kFanOut) (docs/query.md, "The planner"). Private to src/rl/query.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rl/metadata/key_expression.h"
#include "rl/query/query_component.h"

namespace rl::query {

// One step of a field path: a field, and whether it is read element by element (repeated).
struct PathStep {
  std::string name;
  bool repeated = false;
  friend bool operator==(const PathStep&, const PathStep&) = default;
};
using FieldPath = std::vector<PathStep>;

// A comparison on one field path: kField / kOneOfThem, under scalar nestings, or under one
// "one of" nesting whose child is a single comparison; or on the record's version (kVersion:
// an empty path, which meets the version() column).
struct Leaf {
  FieldPath path;
  Comparison comparison;
};

// The component as a leaf, or nullopt (AND, OR, NOT, deeper shapes).
std::optional<Leaf> asLeaf(const QueryComponent& component);
// The component rebuilt around another comparison (same path and shape).
QueryComponent withLeafComparison(const QueryComponent& component, Comparison comparison);

// A column's field path: nullopt for columns that are not fields (recordType(), version(),
// constants), for fields read as concatenated lists, and for fields whose unset value is read
// as a default (NullInterpretation::kNotNull), whose entries do not say "null" when the
// record does.
std::optional<FieldPath> columnPath(const KeyExpression& column);

// Whether two columns hold the same value for every record (field paths compared as paths,
// others as key expressions).
bool sameColumn(const KeyExpression& a, const KeyExpression& b);

// The conjuncts of a filter: the children of its ANDs, with the ANDs inside scalar nestings
// spread out (customer/{And([a, b])} is customer/{a} and customer/{b}).
std::vector<QueryComponent> conjunctsOf(const QueryComponent& filter);

// A column as a key expression with a field path.
KeyExpression columnOf(const FieldPath& path);

}  // namespace rl::query
