// Planning a query that compares a rank (Query::rank; docs/query.md, "Rank comparisons"): the
// rank comparisons, ANDed with the rest of the filter, become a BY_RANK scan of the readable
// rank index whose root is the rank's operand, bounded by the equalities on its group fields
// and the rank comparison; the rest of the filter is a filter over that scan. The records come
// in score order within the group.
#include "rl/query/plan_rank.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rl/index/rank_index.h"
#include "rl/query/query_validation.h"

namespace rl::query {
namespace {

using Kind = QueryComponent::Kind;

bool containsRank(const QueryComponent& component) {
  switch (component.kind()) {
    case Kind::kRank: return true;
    case Kind::kAnd:
    case Kind::kOr:
      return std::any_of(component.children().begin(), component.children().end(), containsRank);
    case Kind::kNot:
    case Kind::kNested:
    case Kind::kOneOfThemNested: return containsRank(component.child());
    default: return false;
  }
}

// A rank index root or rank operand as its columns and how many lead as the group.
struct RankedColumns {
  std::vector<KeyExpression> columns;
  int groupCount = 0;

  static RankedColumns of(const KeyExpression& root) {
    RankedColumns ranked{root.normalizeKeyForPositions(), 0};
    ranked.groupCount = root.kind() == KeyExpression::Kind::kGrouping
                            ? root.groupingCount()
                            : std::max(static_cast<int>(ranked.columns.size()) - 1, 0);
    return ranked;
  }
  bool operator==(const RankedColumns& other) const {
    return groupCount == other.groupCount && columns.size() == other.columns.size() &&
           std::equal(
               columns.begin(), columns.end(), other.columns.begin(),
               [](const KeyExpression& a, const KeyExpression& b) { return a.matchesColumn(b); });
  }
};

std::string typeNames(const std::vector<const RecordType*>& types) {
  std::string names;
  for (const RecordType* type : types) names += (names.empty() ? "" : ", ") + type->name();
  return names;
}

}  // namespace

std::optional<RecordQueryPlanPtr> planRankQuery(
    const RecordMetaData& metaData, const RecordQueryPlanner::IndexStates& indexStates,
    const RecordQueryPlannerConfiguration& configuration, const RecordQuery& query) {
  if (!query.filter || !containsRank(*query.filter)) return std::nullopt;
  const ValidatedQuery validated = validateQuery(metaData, query);
  const QueryComponent& filter = *validated.filter;
  std::vector<QueryComponent> rest =
      filter.kind() == Kind::kAnd ? filter.children() : std::vector<QueryComponent>{filter};
  // The rank comparisons of one operand bound one scan (rank >= 2 AND rank < 5).
  std::vector<QueryComponent> ranks;
  for (auto it = rest.begin(); it != rest.end();) {
    if (it->kind() == Kind::kRank) {
      if (!ranks.empty() && !(it->rankOperand() == ranks.front().rankOperand())) {
        throw UnplannableQueryException(
            fmt::format("the filter {} compares ranks of two operands; the ranks of one are "
                        "planned",
                        filter.toString()));
      }
      ranks.push_back(*it);
      it = rest.erase(it);
    } else if (containsRank(*it)) {
      throw UnplannableQueryException(
          fmt::format("{} compares a rank under an OR, a NOT or a nested match; a rank "
                      "comparison is planned only ANDed with the rest of the filter",
                      it->toString()));
    } else {
      ++it;
    }
  }
  const QueryComponent* rank = &ranks.front();
  size_t equalities = 0;
  for (const QueryComponent& r : ranks) {
    const ComparisonType type = r.comparison().type();
    if (type != ComparisonType::kEquals && type != ComparisonType::kLessThan &&
        type != ComparisonType::kLessThanOrEquals && type != ComparisonType::kGreaterThan &&
        type != ComparisonType::kGreaterThanOrEquals) {
      throw UnplannableQueryException(fmt::format(
          "{}: a rank is compared by EQUALS, LESS_THAN(_OR_EQUALS) or GREATER_THAN(_OR_EQUALS)",
          r.toString()));
    }
    if (type == ComparisonType::kEquals) ++equalities;
  }
  if (equalities > 0 && ranks.size() > 1) {
    throw UnplannableQueryException(
        fmt::format("the filter {} compares a rank for equality and more; one equality, or "
                    "bounds, are planned",
                    filter.toString()));
  }

  // The readable rank index ranking the operand over every queried type.
  const RankedColumns wanted = RankedColumns::of(rank->rankOperand());
  std::shared_ptr<const Index> index;
  for (const std::shared_ptr<const Index>& candidate : metaData.allIndexes()) {
    if (candidate->type() != Index::kRank) continue;
    if (query.allowedIndexes &&
        std::find(query.allowedIndexes->begin(), query.allowedIndexes->end(), candidate->name()) ==
            query.allowedIndexes->end()) {
      continue;
    }
    auto state = indexStates.find(candidate->name());
    if (state != indexStates.end() && state->second != IndexState::kReadable) continue;
    const std::vector<const RecordType*> covered = metaData.recordTypesForIndex(*candidate);
    if (!std::all_of(validated.types.begin(), validated.types.end(), [&](const RecordType* type) {
          return std::find(covered.begin(), covered.end(), type) != covered.end();
        })) {
      continue;
    }
    if (RankedColumns::of(candidate->rootExpression()) == wanted) {
      index = candidate;
      break;
    }
  }
  if (index == nullptr) {
    throw UnplannableQueryException(fmt::format("{}: no readable rank index ranks {} for {}",
                                                rank->toString(), rank->rankOperand().toString(),
                                                typeNames(validated.types)));
  }

  // The group's values, from equalities of the filter on the group fields.
  ScanComparisons comparisons;
  for (int i = 0; i < wanted.groupCount; ++i) {
    const KeyExpression& column = wanted.columns[static_cast<size_t>(i)];
    auto equality = std::find_if(rest.begin(), rest.end(), [&](const QueryComponent& c) {
      return c.kind() == Kind::kField && column.kind() == KeyExpression::Kind::kField &&
             c.fieldName() == column.fieldName() &&
             c.comparison().type() == ComparisonType::kEquals;
    });
    if (equality == rest.end()) {
      throw UnplannableQueryException(fmt::format(
          "{} ranks within groups: the filter needs an EQUALS comparison on {} to name the group",
          rank->toString(), column.toString()));
    }
    comparisons.equalities.push_back(equality->comparison());
    rest.erase(equality);
  }
  if (equalities > 0) {
    comparisons.equalities.push_back(rank->comparison());
  } else {
    for (const QueryComponent& r : ranks) comparisons.inequalities.push_back(r.comparison());
  }

  // Score order within the group: a sort by the scores (or the whole key) is given.
  bool reverse = false;
  if (query.sort) {
    const std::vector<KeyExpression> sortColumns = query.sort->normalizeKeyForPositions();
    auto matchesFrom = [&](size_t first) {
      return sortColumns.size() == wanted.columns.size() - first &&
             std::equal(
                 sortColumns.begin(), sortColumns.end(), wanted.columns.begin() + first,
                 [](const KeyExpression& a, const KeyExpression& b) { return a.matchesColumn(b); });
    };
    if (!matchesFrom(static_cast<size_t>(wanted.groupCount)) && !matchesFrom(0)) {
      throw UnplannableQueryException(
          fmt::format("a rank scan of {} returns records by score; it cannot sort by {}",
                      index->name(), query.sort->toString()));
    }
    reverse = query.sortReverse;
  }

  RecordQueryPlanPtr plan = std::make_shared<RecordQueryIndexPlan>(
      index->name(), std::move(comparisons), reverse, configuration.indexFetchMethod,
      configuration.pipelineSize, IndexPlanScan::kByRank);
  if (metaData.recordTypesForIndex(*index).size() != validated.types.size()) {
    std::vector<std::string> names;
    for (const RecordType* type : validated.types) names.push_back(type->name());
    plan = std::make_shared<RecordQueryTypeFilterPlan>(plan, std::move(names));
  }
  if (!rest.empty()) plan = std::make_shared<RecordQueryFilterPlan>(plan, std::move(rest));
  return plan;
}

}  // namespace rl::query
