#include "rl/query/planner_columns.h"

namespace rl::query {
namespace {

using Kind = QueryComponent::Kind;

}  // namespace

std::optional<Leaf> asLeaf(const QueryComponent& component) {
  switch (component.kind()) {
    case Kind::kField:
      return Leaf{FieldPath{PathStep{component.fieldName(), false}}, component.comparison()};
    case Kind::kOneOfThem:
      return Leaf{FieldPath{PathStep{component.fieldName(), true}}, component.comparison()};
    case Kind::kVersion: return Leaf{FieldPath{}, component.comparison()};
    case Kind::kNested:
    case Kind::kOneOfThemNested: {
      const bool repeated = component.kind() == Kind::kOneOfThemNested;
      std::optional<Leaf> child = asLeaf(component.child());
      if (!child) return std::nullopt;
      // Under a repeated parent only a plain comparison: the same element must satisfy
      // everything below it.
      if (repeated && (child->path.size() != 1 || child->path[0].repeated)) return std::nullopt;
      child->path.insert(child->path.begin(), PathStep{component.fieldName(), repeated});
      return child;
    }
    default: return std::nullopt;
  }
}

QueryComponent withLeafComparison(const QueryComponent& component, Comparison comparison) {
  switch (component.kind()) {
    case Kind::kField:
    case Kind::kOneOfThem:
    case Kind::kVersion: return component.withComparison(std::move(comparison));
    case Kind::kNested:
    case Kind::kOneOfThemNested:
      return component.withChildren({withLeafComparison(component.child(), std::move(comparison))});
    default: return component;
  }
}

std::optional<FieldPath> columnPath(const KeyExpression& column) {
  switch (column.kind()) {
    case KeyExpression::Kind::kField:
      if (column.fanType() == FanType::kConcatenate ||
          column.nullInterpretation() == NullInterpretation::kNotNull) {
        return std::nullopt;
      }
      return FieldPath{PathStep{column.fieldName(), column.fanType() == FanType::kFanOut}};
    case KeyExpression::Kind::kNesting: {
      if (column.fanType() == FanType::kConcatenate ||
          column.nullInterpretation() == NullInterpretation::kNotNull) {
        return std::nullopt;
      }
      std::optional<FieldPath> child = columnPath(column.children()[0]);
      if (!child) return std::nullopt;
      child->insert(child->begin(),
                    PathStep{column.fieldName(), column.fanType() == FanType::kFanOut});
      return child;
    }
    default: return std::nullopt;
  }
}

bool sameColumn(const KeyExpression& a, const KeyExpression& b) {
  const std::optional<FieldPath> pa = columnPath(a);
  const std::optional<FieldPath> pb = columnPath(b);
  if (pa || pb) return pa && pb && *pa == *pb;
  return a.matchesColumn(b);
}

std::vector<QueryComponent> conjunctsOf(const QueryComponent& filter) {
  std::vector<QueryComponent> out;
  if (filter.kind() == Kind::kAnd) {
    for (const QueryComponent& child : filter.children()) {
      std::vector<QueryComponent> inner = conjunctsOf(child);
      out.insert(out.end(), inner.begin(), inner.end());
    }
    return out;
  }
  if (filter.kind() == Kind::kNested) {
    std::vector<QueryComponent> inner = conjunctsOf(filter.child());
    if (inner.size() > 1) {
      for (const QueryComponent& child : inner) out.push_back(filter.withChildren({child}));
      return out;
    }
  }
  out.push_back(filter);
  return out;
}

KeyExpression columnOf(const FieldPath& path) {
  KeyExpression column =
      field(path.back().name, path.back().repeated ? FanType::kFanOut : FanType::kScalar);
  for (size_t i = path.size() - 1; i-- > 0;) {
    column =
        field(path[i].name, path[i].repeated ? FanType::kFanOut : FanType::kScalar).nest(column);
  }
  return column;
}

}  // namespace rl::query
