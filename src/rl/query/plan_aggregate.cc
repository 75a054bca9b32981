// RecordQueryPlanner::planCoveringAggregateIndex (docs/query.md, "Aggregate indexes"): a
// query answered from an aggregate index's groups, as the Java Record Layer's
// planCoveringAggregateIndex answers it: the filter matched to the group columns
// (equalities on the leading ones, then a range on the next), nothing left over, and the
// records made of the group columns alone.
#include <algorithm>

#include "rl/index/aggregate_index.h"
#include "rl/query/planner_columns.h"
#include "rl/query/query_validation.h"
#include "rl/query/record_query_planner.h"

namespace rl {

std::shared_ptr<const RecordQueryCoveringIndexPlan> RecordQueryPlanner::planCoveringAggregateIndex(
    const RecordQuery& query, std::string_view indexName) const {
  using query::asLeaf;
  using query::columnPath;
  if (!metaData_.hasIndex(indexName)) return nullptr;
  const Index& index = metaData_.index(indexName);
  auto state = indexStates_.find(indexName);
  if (state != indexStates_.end() && state->second != IndexState::kReadable) return nullptr;
  const KeyExpression& root = index.rootExpression();
  if (!aggregateKindOfType(index.type()) || root.kind() != KeyExpression::Kind::kGrouping) {
    return nullptr;
  }
  // The partial records need one type: the index's, and the query's.
  const std::vector<const RecordType*> covered = metaData_.recordTypesForIndex(index);
  if (covered.size() != 1) return nullptr;
  const query::ValidatedQuery validated = query::validateQuery(metaData_, query);
  if (validated.types.size() != 1 || validated.types[0] != covered[0]) return nullptr;

  std::vector<KeyExpression> groupColumns = keyColumns(root.children()[0]);
  groupColumns.resize(std::min(groupColumns.size(), static_cast<size_t>(root.groupingCount())));

  // The filter against the group columns: every conjunct must be used.
  std::vector<QueryComponent> conjuncts;
  if (validated.filter) conjuncts = query::conjunctsOf(*validated.filter);
  std::vector<bool> used(conjuncts.size(), false);
  ScanComparisons comparisons;
  for (const KeyExpression& column : groupColumns) {
    const std::optional<query::FieldPath> path = columnPath(column);
    if (!path) break;
    bool equality = false;
    for (size_t i = 0; i < conjuncts.size() && !equality; ++i) {
      const std::optional<query::Leaf> leaf = asLeaf(conjuncts[i]);
      if (used[i] || !leaf || leaf->path != *path) continue;
      const ComparisonType type = leaf->comparison.type();
      if (type == ComparisonType::kEquals || type == ComparisonType::kIsNull) {
        comparisons.equalities.push_back(leaf->comparison);
        used[i] = true;
        equality = true;
      }
    }
    if (equality) continue;
    for (size_t i = 0; i < conjuncts.size(); ++i) {
      const std::optional<query::Leaf> leaf = asLeaf(conjuncts[i]);
      if (used[i] || !leaf || leaf->path != *path) continue;
      const ComparisonType type = leaf->comparison.type();
      if (type == ComparisonType::kLessThan || type == ComparisonType::kLessThanOrEquals ||
          type == ComparisonType::kGreaterThan || type == ComparisonType::kGreaterThanOrEquals ||
          type == ComparisonType::kNotNull) {
        comparisons.inequalities.push_back(leaf->comparison);
        used[i] = true;
      }
    }
    break;
  }
  if (std::find(used.begin(), used.end(), false) != used.end()) return nullptr;

  // The sort: the group columns after the equalities, in order.
  if (query.sort) {
    const std::vector<KeyExpression> sort = keyColumns(*query.sort);
    const size_t from = comparisons.equalities.size();
    if (sort.size() > groupColumns.size() - std::min(from, groupColumns.size())) return nullptr;
    for (size_t i = 0; i < sort.size(); ++i) {
      if (!query::sameColumn(sort[i], groupColumns[from + i])) return nullptr;
    }
  }

  // The records: the required group fields (every field group column when none is named).
  std::vector<CoveringField> fields;
  auto addField = [&](const KeyExpression& wanted) {
    for (size_t i = 0; i < groupColumns.size(); ++i) {
      if (!query::sameColumn(wanted, groupColumns[i])) continue;
      const std::optional<query::FieldPath> path = columnPath(groupColumns[i]);
      if (!path || std::any_of(path->begin(), path->end(),
                               [](const query::PathStep& step) { return step.repeated; })) {
        return false;
      }
      CoveringField field;
      for (const query::PathStep& step : *path) field.path.push_back(step.name);
      field.position = static_cast<int>(i);
      fields.push_back(std::move(field));
      return true;
    }
    return false;
  };
  if (query.requiredResults) {
    for (const KeyExpression& result : *query.requiredResults) {
      for (const KeyExpression& column : keyColumns(result)) {
        if (!addField(column)) return nullptr;
      }
    }
  } else {
    for (const KeyExpression& column : groupColumns) {
      if (columnPath(column)) addField(column);
    }
  }
  auto scan = std::make_shared<RecordQueryIndexPlan>(
      index.name(), std::move(comparisons), query.sortReverse, IndexFetchMethod::kScanAndFetch,
      configuration_.pipelineSize, IndexPlanScan::kByGroup);
  return std::make_shared<RecordQueryCoveringIndexPlan>(std::move(scan), covered[0]->name(),
                                                        std::move(fields));
}

}  // namespace rl
