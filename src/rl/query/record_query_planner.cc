// The planner (docs/query.md, "The planner"): the Java Record Layer's RecordQueryPlanner rules,
// in this project's words. For one filter it scores every candidate scan (the primary-key
// scan and each usable index), keeps the best, tries an intersection for what the best leaves
// to a filter, and puts the rest in a filter; an OR becomes a union of its branches' plans;
// an IN becomes a join over its values (or a union of runs merged in sort order); a sort is
// met by index order or refused (or sorted in memory, when allowed).
#include "rl/query/record_query_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "rl/index/index_maintainer_registry.h"
#include "rl/query/java_format.h"
#include "rl/query/plan_rank.h"
#include "rl/query/planner_columns.h"
#include "rl/query/query_validation.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace query {
namespace {

using Kind = QueryComponent::Kind;

// How a plan's rows are ordered: `bound` columns are equal in every row (equality-compared),
// `order` the columns the rows are sorted on, in that order.
struct Ordering {
  std::vector<KeyExpression> bound;
  std::vector<KeyExpression> order;
};

struct ScoredPlan {
  RecordQueryPlanPtr plan;
  int score = 0;                            // comparisons answered by the scan
  std::vector<QueryComponent> unsatisfied;  // conjuncts left to a filter
  bool createsDuplicates = false;           // a record may come more than once
  std::optional<Ordering> ordering;         // unset: no known order
  const Index* index = nullptr;             // the scanned index (null: the primary-key scan)
};

bool containsColumn(const std::vector<KeyExpression>& columns, const KeyExpression& column) {
  return std::any_of(columns.begin(), columns.end(),
                     [&](const KeyExpression& c) { return sameColumn(c, column); });
}

// Whether rows in `ordering` come in the order of `key` (its columns bound in the plan aside).
bool orderedBy(const std::optional<Ordering>& ordering, const std::vector<KeyExpression>& key) {
  if (!ordering) return false;
  std::vector<KeyExpression> unbound;
  for (const KeyExpression& column : key) {
    if (!containsColumn(ordering->bound, column)) unbound.push_back(column);
  }
  if (ordering->order.size() < unbound.size()) return false;
  for (size_t i = 0; i < unbound.size(); ++i) {
    if (!sameColumn(ordering->order[i], unbound[i])) return false;
  }
  return true;
}

KeyExpression keyOfColumns(const std::vector<KeyExpression>& columns) {
  if (columns.empty()) return empty();
  if (columns.size() == 1) return columns[0];
  return concatAll(columns);
}

bool hasFanOutStep(const KeyExpression& column) {
  std::optional<FieldPath> path = columnPath(column);
  if (!path) return column.createsDuplicates();
  return std::any_of(path->begin(), path->end(), [](const PathStep& s) { return s.repeated; });
}

// The planner's own parameters bound by IN joins and unions.
bool usesBinding(const RecordQueryPlan& plan, const std::string& binding) {
  auto inComparisons = [&](const ScanComparisons& comparisons) {
    for (const Comparison& c : comparisons.equalities) {
      if (c.hasParameter() && c.parameterName() == binding) return true;
    }
    for (const Comparison& c : comparisons.inequalities) {
      if (c.hasParameter() && c.parameterName() == binding) return true;
    }
    return false;
  };
  switch (plan.kind()) {
    case RecordQueryPlan::Kind::kIndex:
      if (inComparisons(static_cast<const RecordQueryIndexPlan&>(plan).comparisons())) return true;
      break;
    case RecordQueryPlan::Kind::kScan:
      if (inComparisons(static_cast<const RecordQueryScanPlan&>(plan).comparisons())) return true;
      break;
    case RecordQueryPlan::Kind::kCoveringIndex:
      if (inComparisons(
              static_cast<const RecordQueryCoveringIndexPlan&>(plan).indexPlan().comparisons())) {
        return true;
      }
      break;
    default: break;
  }
  return std::any_of(plan.children().begin(), plan.children().end(),
                     [&](const RecordQueryPlanPtr& child) { return usesBinding(*child, binding); });
}

// An IN comparison taken out of the filter: its values are bound one at a time to `binding`,
// which an EQUALS comparison in the filter now names.
struct InClause {
  std::string binding;
  std::optional<std::vector<fdb::TupleElement>> values;
  std::string parameter;
  KeyExpression orderingKey;  // the compared field as a column
  bool sorted = false;
  bool sortReverse = false;

  InSource source() const {
    InSource source;
    source.bindingName = binding;
    source.values = values;
    source.parameterName = parameter;
    source.sorted = sorted;
    source.sortReverse = sortReverse;
    return source;
  }
};

// Takes the IN comparisons on scalar fields out of a filter's conjuncts (Java's InExtractor).
// An IN under an OR or a NOT stays where it is: a join over its values would not mean the same.
class InExtractor {
 public:
  explicit InExtractor(const std::vector<QueryComponent>& conjuncts) {
    int counter = 0;
    for (const QueryComponent& conjunct : conjuncts) {
      std::optional<Leaf> leaf = asLeaf(conjunct);
      const bool scalarPath =
          leaf && std::none_of(leaf->path.begin(), leaf->path.end(),
                               [](const PathStep& step) { return step.repeated; });
      if (!scalarPath || leaf->comparison.type() != ComparisonType::kIn) {
        subFilter_.push_back(conjunct);
        continue;
      }
      const Comparison& in = leaf->comparison;
      if (!in.hasParameter() && in.values().size() == 1) {
        subFilter_.push_back(
            withLeafComparison(conjunct, Comparison::of(ComparisonType::kEquals, in.values()[0])
                                             .withComparandType(in.comparandType())));
        continue;
      }
      InClause clause;
      clause.binding = fmt::format("__in_{}__{}", leaf->path.back().name, counter++);
      if (in.hasParameter()) {
        clause.parameter = in.parameterName();
      } else {
        clause.values = in.values();
      }
      clause.orderingKey = columnOf(leaf->path);
      subFilter_.push_back(
          withLeafComparison(conjunct, in.withParameter(ComparisonType::kEquals, clause.binding)));
      clauses_.push_back(std::move(clause));
    }
  }

  bool empty() const { return clauses_.empty(); }
  const std::vector<QueryComponent>& subFilter() const { return subFilter_; }
  const std::vector<InClause>& clauses() const { return clauses_; }

  // Puts the clauses in the order of the sort's columns, their values sorted, so that joining
  // them in turn gives rows in sort order. False (and no clauses) when the sort does not start
  // with the IN fields.
  bool setSort(const std::vector<KeyExpression>& sortColumns, bool reverse) {
    for (size_t i = 0; i < sortColumns.size() && i < clauses_.size(); ++i) {
      bool found = false;
      for (size_t j = i; j < clauses_.size(); ++j) {
        if (sameColumn(clauses_[j].orderingKey, sortColumns[i])) {
          std::swap(clauses_[i], clauses_[j]);
          clauses_[i].sorted = true;
          clauses_[i].sortReverse = reverse;
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }

  // The in-joins around `plan`, the first clause outermost.
  RecordQueryPlanPtr wrap(RecordQueryPlanPtr plan) const {
    for (size_t i = clauses_.size(); i-- > 0;) {
      plan = std::make_shared<RecordQueryInJoinPlan>(std::move(plan), clauses_[i].source());
    }
    return plan;
  }

  bool allUsedBy(const RecordQueryPlan& plan) const {
    return std::all_of(clauses_.begin(), clauses_.end(),
                       [&](const InClause& clause) { return usesBinding(plan, clause.binding); });
  }

 private:
  std::vector<QueryComponent> subFilter_;
  std::vector<InClause> clauses_;
};

class Planner {
 public:
  Planner(const RecordMetaData& metaData, const RecordQueryPlanner::IndexStates& states,
          const RecordQueryPlannerConfiguration& config, const RecordQuery& query)
      : metaData_(metaData), config_(config), query_(query) {
    validated_ = validateQuery(metaData, query);
    commonPrimaryKey_ = RecordMetaData::commonPrimaryKey(validated_.types);
    if (commonPrimaryKey_) primaryKeyColumns_ = commonPrimaryKey_->normalizeKeyForPositions();
    if (query.sort) sortColumns_ = query.sort->normalizeKeyForPositions();
    reverse_ = query.sortReverse;
    collectIndexes(states);
  }

  RecordQueryPlanPtr plan() {
    std::optional<ScoredPlan> best = planWithSort();
    RecordQueryPlanPtr plan;
    if (best) {
      plan = best->plan;
    } else if (!query_.sort) {
      plan = fullScan(conjuncts());
    } else if (config_.allowInMemorySort) {
      // The best plan without the sort, sorted in memory.
      sortColumns_.clear();
      reverse_ = false;
      std::optional<ScoredPlan> unsorted = planWithSort();
      plan = unsorted ? unsorted->plan : fullScan(conjuncts());
      plan = std::make_shared<RecordQuerySortPlan>(std::move(plan), *query_.sort,
                                                   query_.sortReverse, config_.inMemorySortLimit);
    } else {
      throw UnplannableQueryException(fmt::format(
          "Cannot sort without appropriate index: {} (no readable index on {} gives that order; "
          "add one, or allow an in-memory sort)",
          query_.sort->toString(), typeList()));
    }
    if (query_.requiredResults) plan = tryCovering(plan);
    return plan;
  }

 private:
  // --- Candidates ---

  void collectIndexes(const RecordQueryPlanner::IndexStates& states) {
    for (const std::shared_ptr<const Index>& index : metaData_.allIndexes()) {
      if (query_.allowedIndexes &&
          std::find(query_.allowedIndexes->begin(), query_.allowedIndexes->end(), index->name()) ==
              query_.allowedIndexes->end()) {
        continue;
      }
      auto state = states.find(index->name());
      if (state != states.end() && !isScannable(state->second)) continue;
      std::shared_ptr<const IndexMaintainerFactory> factory =
          IndexMaintainerRegistry::instance().find(index->type());
      if (!factory || !factory->plannableAsValueScan()) continue;
      const std::vector<const RecordType*> covered = metaData_.recordTypesForIndex(*index);
      const bool coversQuery = std::all_of(
          validated_.types.begin(), validated_.types.end(), [&](const RecordType* type) {
            return std::find(covered.begin(), covered.end(), type) != covered.end();
          });
      if (coversQuery) indexes_.push_back(index);
    }
  }

  std::vector<QueryComponent> conjuncts() const {
    if (!validated_.filter) return {};
    return conjunctsOf(*validated_.filter);
  }

  std::string typeList() const {
    std::string out;
    for (const RecordType* type : validated_.types) {
      if (!out.empty()) out += ", ";
      out += type->name();
    }
    return out;
  }

  // The columns an index's entries are ordered by: its key columns, then the primary-key
  // columns its key does not hold.
  std::vector<KeyExpression> indexColumns(const Index& index) const {
    std::vector<KeyExpression> columns = index.rootExpression().normalizeKeyForPositions();
    const size_t keyColumns = static_cast<size_t>(index.columnSize());
    if (columns.size() > keyColumns) columns.resize(keyColumns);
    if (!commonPrimaryKey_) return columns;
    const auto& positions = index.primaryKeyComponentPositions();
    for (size_t i = 0; i < primaryKeyColumns_.size(); ++i) {
      if (!positions || i >= positions->size() || (*positions)[i] < 0) {
        columns.push_back(primaryKeyColumns_[i]);
      }
    }
    return columns;
  }

  // The record types a scan of `index` (null: the records) may return; the query's when it
  // covers them all.
  bool needsTypeFilter(const Index* index, const ScanComparisons& comparisons) const {
    if (validated_.allTypes) return false;
    if (index == nullptr) {
      for (const Comparison& c : comparisons.equalities) {
        if (c.isRecordTypeComparison()) return false;  // the scan reads one type's records
      }
      return true;
    }
    return metaData_.recordTypesForIndex(*index).size() > validated_.types.size();
  }

  std::vector<std::string> queryTypeNames() const {
    std::vector<std::string> names;
    if (!query_.recordTypes.empty()) {
      for (const std::string& name : query_.recordTypes) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    } else {
      for (const RecordType* type : validated_.types) names.push_back(type->name());
    }
    return names;
  }

  RecordQueryPlanPtr scanPlan(const Index* index, ScanComparisons comparisons, bool reverse) const {
    const bool typeFilter = needsTypeFilter(index, comparisons);
    RecordQueryPlanPtr plan;
    if (index == nullptr) {
      plan = std::make_shared<RecordQueryScanPlan>(std::move(comparisons), reverse);
    } else {
      plan = std::make_shared<RecordQueryIndexPlan>(index->name(), std::move(comparisons), reverse,
                                                    config_.indexFetchMethod, config_.pipelineSize);
    }
    if (typeFilter) plan = std::make_shared<RecordQueryTypeFilterPlan>(plan, queryTypeNames());
    return plan;
  }

  // The primary-key scan's comparison on the record type, when the primary key starts with
  // recordType() and the query is on one type.
  std::optional<Comparison> recordTypeComparison() const {
    if (validated_.types.size() != 1 || validated_.allTypes) return std::nullopt;
    const RecordType& type = *validated_.types[0];
    return Comparison::recordTypeIs(type.name(), type.recordTypeKey());
  }

  // Every record, filtered: the plan when nothing better answers the query.
  RecordQueryPlanPtr fullScan(const std::vector<QueryComponent>& filters) const {
    ScanComparisons comparisons;
    if (!primaryKeyColumns_.empty() &&
        primaryKeyColumns_[0].kind() == KeyExpression::Kind::kRecordTypeKey) {
      if (std::optional<Comparison> type = recordTypeComparison()) {
        comparisons.equalities.push_back(*type);
      }
    }
    RecordQueryPlanPtr plan = scanPlan(nullptr, std::move(comparisons), false);
    if (!filters.empty()) plan = std::make_shared<RecordQueryFilterPlan>(plan, filters);
    return plan;
  }

  // Matches the conjuncts to the leading columns of one candidate scan (Java's
  // AndWithThenPlanner): equalities on as many leading columns as have one, then the
  // inequalities (or a starts-with) on the next; the sort must follow the columns after the
  // equalities. nullopt when the candidate answers nothing or cannot give the sort.
  std::optional<ScoredPlan> planCandidate(const Index* index,
                                          const std::vector<QueryComponent>& conjuncts) const {
    const std::vector<KeyExpression> columns =
        index != nullptr ? indexColumns(*index) : primaryKeyColumns_;
    if (columns.empty()) return std::nullopt;
    const size_t keyColumns =
        index != nullptr ? std::min(columns.size(), static_cast<size_t>(index->columnSize()))
                         : columns.size();
    std::vector<std::optional<Leaf>> leaves;
    for (const QueryComponent& conjunct : conjuncts) leaves.push_back(asLeaf(conjunct));
    std::vector<bool> used(conjuncts.size(), false);

    ScanComparisons comparisons;
    size_t sortAt = 0;
    bool comparing = true;
    size_t compared = 0;  // columns with a comparison
    bool inequalityOnFanOut = false;
    for (const KeyExpression& column : columns) {
      if (comparing) {
        bool equality = false;
        if (column.kind() == KeyExpression::Kind::kRecordTypeKey) {
          if (std::optional<Comparison> type = recordTypeComparison()) {
            comparisons.equalities.push_back(*type);
            equality = true;
          }
        } else if (std::optional<FieldPath> path = versionOrColumnPath(column)) {
          if (path->empty() || !repeatedGroupShared(*path, columns)) {
            for (size_t i = 0; i < conjuncts.size() && !equality; ++i) {
              if (used[i] || !leaves[i] || leaves[i]->path != *path) continue;
              const ComparisonType type = leaves[i]->comparison.type();
              if (type == ComparisonType::kEquals || type == ComparisonType::kIsNull) {
                comparisons.equalities.push_back(leaves[i]->comparison);
                used[i] = true;
                equality = true;
              }
            }
            if (!equality) {
              bool startsWith = false;
              for (size_t i = 0; i < conjuncts.size(); ++i) {
                if (used[i] || !leaves[i] || leaves[i]->path != *path) continue;
                const ComparisonType type = leaves[i]->comparison.type();
                const bool range = type == ComparisonType::kLessThan ||
                                   type == ComparisonType::kLessThanOrEquals ||
                                   type == ComparisonType::kGreaterThan ||
                                   type == ComparisonType::kGreaterThanOrEquals ||
                                   type == ComparisonType::kNotNull;
                if (type == ComparisonType::kStartsWith && comparisons.inequalities.empty()) {
                  comparisons.inequalities.push_back(leaves[i]->comparison);
                  used[i] = true;
                  startsWith = true;
                  break;
                }
                if (range && !startsWith) {
                  comparisons.inequalities.push_back(leaves[i]->comparison);
                  used[i] = true;
                  // Two "one of" comparisons may hold on different elements: only one
                  // narrows the scan of a repeated field.
                  if (hasFanOutStep(column)) break;
                }
              }
              if (!comparisons.inequalities.empty()) {
                ++compared;
                inequalityOnFanOut = hasFanOutStep(column);
              }
            }
          }
        }
        if (equality) {
          ++compared;
          if (sortAt < sortColumns_.size() && sameColumn(sortColumns_[sortAt], column)) ++sortAt;
          continue;
        }
        comparing = false;
      }
      // Past the equalities the rows are in this column's order: the sort must follow it.
      if (sortAt == sortColumns_.size()) break;
      if (!sameColumn(sortColumns_[sortAt], column)) break;
      ++sortAt;
    }
    if (sortAt < sortColumns_.size()) return std::nullopt;
    const bool sortOnly = comparisons.empty();
    if (sortOnly && sortColumns_.empty()) return std::nullopt;
    if (sortOnly) std::fill(used.begin(), used.end(), false);
    // A repeated field after the compared columns: a record with no element has no entry, and
    // a scan of the compared prefix would miss it.
    for (size_t i = compared; i < keyColumns; ++i) {
      if (hasFanOutStep(columns[i])) return std::nullopt;
    }
    ScoredPlan scored;
    scored.index = index;
    scored.score = sortOnly ? 0 : static_cast<int>(comparisons.size());
    for (size_t i = 0; i < conjuncts.size(); ++i) {
      if (!used[i]) scored.unsatisfied.push_back(conjuncts[i]);
    }
    Ordering ordering;
    const size_t bound = comparisons.equalities.size();
    ordering.bound.assign(columns.begin(), columns.begin() + static_cast<long>(bound));
    ordering.order.assign(columns.begin() + static_cast<long>(bound), columns.end());
    scored.ordering = std::move(ordering);
    scored.createsDuplicates = inequalityOnFanOut;
    scored.plan = scanPlan(index, std::move(comparisons), reverse_);
    if (scored.createsDuplicates && query_.removesDuplicates) {
      scored.plan = std::make_shared<RecordQueryUnorderedPrimaryKeyDistinctPlan>(scored.plan);
      scored.createsDuplicates = false;
    }
    return scored;
  }

  // The path comparisons on `column` are on: a field's path, or the empty path of the record's
  // version (a VERSION index's version() column, met by Query::version() comparisons).
  static std::optional<FieldPath> versionOrColumnPath(const KeyExpression& column) {
    if (column.kind() == KeyExpression::Kind::kVersion) return FieldPath{};
    return columnPath(column);
  }

  // Whether `path` goes through a repeated message that other columns of the index also read:
  // separate "one of" comparisons may hold on different elements, one entry holds one element.
  static bool repeatedGroupShared(const FieldPath& path,
                                  const std::vector<KeyExpression>& columns) {
    if (path.size() < 2) return false;
    for (size_t depth = 0; depth + 1 < path.size(); ++depth) {
      if (!path[depth].repeated) continue;
      int sharing = 0;
      for (const KeyExpression& column : columns) {
        std::optional<FieldPath> other = columnPath(column);
        if (other && other->size() > depth &&
            std::equal(path.begin(), path.begin() + static_cast<long>(depth) + 1, other->begin())) {
          ++sharing;
        }
      }
      if (sharing > 1) return true;
    }
    return false;
  }

  // Java's preference among scans answering equally much: the primary-key scan over an index
  // unless the index is on exactly the primary key; then the index with smaller entries.
  int compareScans(const Index* a, const Index* b) const {
    auto entryColumns = [&](const Index& index) {
      return static_cast<int>(indexColumns(index).size());
    };
    auto onPrimaryKey = [&](const Index& index) {
      return commonPrimaryKey_ && index.rootExpression() == *commonPrimaryKey_;
    };
    if (a == nullptr && b == nullptr) return 0;
    if (a == nullptr) return onPrimaryKey(*b) ? -1 : 1;
    if (b == nullptr) return onPrimaryKey(*a) ? 1 : -1;
    return entryColumns(*b) - entryColumns(*a);
  }

  bool better(const ScoredPlan& p, const ScoredPlan& q) const {
    if (p.score != q.score) return p.score > q.score;
    if (p.unsatisfied.size() != q.unsatisfied.size()) {
      return p.unsatisfied.size() < q.unsatisfied.size();
    }
    return compareScans(p.index, q.index) > 0;
  }

  // --- Trace (RecordQueryPlannerConfiguration::trace) ---

  void trace(const std::string& line) const {
    if (config_.trace) config_.trace(line);
  }

  static std::string scanName(const Index* index) {
    return index == nullptr ? "the primary-key scan" : "index " + index->name();
  }

  // Why `loser` lost to `winner`: the first rule of the scoring that tells them apart.
  std::string whyLost(const ScoredPlan& loser, const ScoredPlan& winner) const {
    if (loser.score != winner.score) {
      return fmt::format("answers {} comparison(s), the chosen scan {}", loser.score, winner.score);
    }
    if (loser.unsatisfied.size() != winner.unsatisfied.size()) {
      return fmt::format("leaves {} conjunct(s) to a filter, the chosen scan {}",
                         loser.unsatisfied.size(), winner.unsatisfied.size());
    }
    if ((loser.index == nullptr) != (winner.index == nullptr)) {
      return loser.index == nullptr ? "an index on exactly the primary key is preferred to it"
                                    : "the primary-key scan is preferred to an index not on "
                                      "exactly the primary key";
    }
    if (loser.index != nullptr && winner.index != nullptr &&
        indexColumns(*loser.index).size() != indexColumns(*winner.index).size()) {
      return fmt::format("its entries have {} columns, the chosen index's {}",
                         indexColumns(*loser.index).size(), indexColumns(*winner.index).size());
    }
    return "it ties with the chosen scan, which comes first";
  }

  void traceChoice(const std::vector<ScoredPlan>& considered, const ScoredPlan& best) const {
    for (const ScoredPlan& candidate : considered) {
      const std::string plan = candidate.plan->explain();
      if (candidate.index == best.index) {
        trace(fmt::format("  {}: chosen ({} comparison(s), {} left to a filter): {}",
                          scanName(candidate.index), candidate.score, candidate.unsatisfied.size(),
                          plan));
      } else {
        trace(fmt::format("  {}: lost, {}: {}", scanName(candidate.index), whyLost(candidate, best),
                          plan));
      }
    }
  }

  // --- Filters ---

  std::optional<ScoredPlan> planWithSort() {
    if (!validated_.filter) return planConjuncts({});
    return planFilter(*validated_.filter);
  }

  std::optional<ScoredPlan> planFilter(const QueryComponent& filter) {
    if (filter.kind() == Kind::kAnd) {
      if (std::optional<QueryComponent> asOr = distributeOverOr(filter)) {
        if (std::optional<ScoredPlan> orPlan = planOr(*asOr)) return orPlan;
      }
    }
    if (filter.kind() == Kind::kOr) {
      if (std::optional<ScoredPlan> orPlan = planOr(filter)) return orPlan;
    }
    return planWithIns(conjunctsOf(filter), /*needOrdering=*/false);
  }

  // A AND (B OR C), A one comparison, as (A AND B) OR (A AND C): a union may then answer it.
  static std::optional<QueryComponent> distributeOverOr(const QueryComponent& filter) {
    const auto& children = filter.children();
    if (children.size() != 2) return std::nullopt;
    for (size_t i = 0; i < 2; ++i) {
      const QueryComponent& maybeOr = children[i];
      const QueryComponent& other = children[1 - i];
      if (maybeOr.kind() != Kind::kOr || !asLeaf(other)) continue;
      std::vector<QueryComponent> branches;
      for (const QueryComponent& branch : maybeOr.children()) {
        std::vector<QueryComponent> conjuncts{other};
        if (branch.kind() == Kind::kAnd) {
          conjuncts.insert(conjuncts.end(), branch.children().begin(), branch.children().end());
        } else {
          conjuncts.push_back(branch);
        }
        branches.push_back(Query::allOf(std::move(conjuncts)));
      }
      return Query::anyOf(std::move(branches));
    }
    return std::nullopt;
  }

  std::optional<ScoredPlan> planWithIns(const std::vector<QueryComponent>& conjuncts,
                                        bool needOrdering) {
    InExtractor extractor(conjuncts);
    if (extractor.empty()) return planConjuncts(extractor.subFilter());
    std::optional<ScoredPlan> inUnion;
    bool joinable = true;
    if (!sortColumns_.empty() || needOrdering) {
      InExtractor forUnion = extractor;
      if (needOrdering || !extractor.setSort(sortColumns_, reverse_)) {
        joinable = false;
        inUnion = planInUnion(forUnion);
      }
    }
    std::optional<ScoredPlan> withJoin;
    if (joinable) {
      std::optional<ScoredPlan> inner = planConjuncts(extractor.subFilter());
      if (inner && extractor.allUsedBy(*inner->plan)) {
        withJoin = std::move(inner);
        withJoin->plan = extractor.wrap(withJoin->plan);
        withJoin->ordering.reset();
      }
    }
    if (!withJoin) {
      // The IN as a filter on a plan for the rest.
      withJoin = planConjuncts(conjuncts);
    }
    if (inUnion && (!withJoin || inUnion->score > withJoin->score)) return inUnion;
    return withJoin;
  }

  std::optional<ScoredPlan> planInUnion(const InExtractor& extractor) {
    if (config_.inUnionMaxBranches == 0 || !commonPrimaryKey_) return std::nullopt;
    size_t branches = 1;
    for (const InClause& clause : extractor.clauses()) {
      if (clause.values) branches *= std::max<size_t>(clause.values->size(), 1);
    }
    if (branches > config_.inUnionMaxBranches) return std::nullopt;
    std::optional<ScoredPlan> inner = planConjuncts(extractor.subFilter());
    if (!inner || !extractor.allUsedBy(*inner->plan) || inner->createsDuplicates) {
      return std::nullopt;
    }
    const std::vector<KeyExpression> key = mergeKey();
    if (!orderedBy(inner->ordering, key)) return std::nullopt;
    std::vector<InSource> sources;
    for (const InClause& clause : extractor.clauses()) sources.push_back(clause.source());
    ScoredPlan scored = *inner;
    scored.plan = std::make_shared<RecordQueryInUnionPlan>(
        inner->plan, std::move(sources), keyOfColumns(key), reverse_, config_.inUnionMaxBranches);
    scored.ordering = Ordering{{}, key};
    return scored;
  }

  // The best plan for a conjunction (no IN extraction): the best candidate scan, an
  // intersection for what it leaves, a filter for the rest.
  std::optional<ScoredPlan> planConjuncts(const std::vector<QueryComponent>& conjuncts) {
    std::optional<ScoredPlan> best;
    std::vector<ScoredPlan> intersectionCandidates;
    std::vector<ScoredPlan> considered;  // for the trace
    auto consider = [&](const Index* index) {
      std::optional<ScoredPlan> candidate = planCandidate(index, conjuncts);
      if (!candidate) {
        trace(fmt::format("  {}: answers no comparison{}", scanName(index),
                          sortColumns_.empty() ? "" : " and does not give the sort"));
        return;
      }
      if (candidate->score > 0 && !candidate->unsatisfied.empty() &&
          !candidate->createsDuplicates) {
        intersectionCandidates.push_back(*candidate);
      }
      if (config_.trace) considered.push_back(*candidate);
      if (!best || better(*candidate, *best)) best = std::move(candidate);
    };
    if (config_.trace) {
      std::string filter;
      for (const QueryComponent& c : conjuncts)
        filter += (filter.empty() ? "" : ", ") + c.toString();
      trace("candidates for [" + filter + "]:");
    }
    if (commonPrimaryKey_) consider(nullptr);
    for (const std::shared_ptr<const Index>& index : indexes_) consider(index.get());
    if (!best) return std::nullopt;
    if (config_.trace) traceChoice(considered, *best);
    if (!best->unsatisfied.empty()) {
      if (std::optional<ScoredPlan> intersection = planIntersection(intersectionCandidates)) {
        if (intersection->unsatisfied.size() < best->unsatisfied.size()) {
          trace(fmt::format("  an intersection leaves {} to a filter, fewer than {}: {}",
                            intersection->unsatisfied.size(), best->unsatisfied.size(),
                            intersection->plan->explain()));
          best = intersection;
        }
      }
    }
    if (!best->unsatisfied.empty()) {
      best->plan = std::make_shared<RecordQueryFilterPlan>(best->plan, best->unsatisfied);
      best->unsatisfied.clear();
    }
    return best;
  }

  // The key a merge compares rows on: the sort, then the primary-key columns it lacks.
  std::vector<KeyExpression> mergeKey() const {
    std::vector<KeyExpression> key = sortColumns_;
    for (const KeyExpression& column : primaryKeyColumns_) {
      if (!containsColumn(key, column)) key.push_back(column);
    }
    return key;
  }

  std::optional<ScoredPlan> planIntersection(std::vector<ScoredPlan> candidates) {
    if (!commonPrimaryKey_ || candidates.size() < 2) return std::nullopt;
    const std::vector<KeyExpression> key = mergeKey();
    std::erase_if(candidates, [&](const ScoredPlan& c) { return !orderedBy(c.ordering, key); });
    if (candidates.size() < 2) return std::nullopt;
    // Fewest conjuncts left first; equal ones in candidate order.
    std::vector<size_t> order(candidates.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const size_t left = candidates[a].unsatisfied.size();
      const size_t right = candidates[b].unsatisfied.size();
      return left != right ? left < right : a < b;
    });
    std::vector<ScoredPlan> sorted;
    for (size_t i : order) sorted.push_back(std::move(candidates[i]));
    candidates = std::move(sorted);
    std::vector<QueryComponent> left = candidates[0].unsatisfied;
    std::vector<RecordQueryPlanPtr> included{candidates[0].plan};
    for (size_t i = 1; i < candidates.size(); ++i) {
      std::vector<QueryComponent> kept;
      for (const QueryComponent& c : left) {
        if (std::find(candidates[i].unsatisfied.begin(), candidates[i].unsatisfied.end(), c) !=
            candidates[i].unsatisfied.end()) {
          kept.push_back(c);
        }
      }
      if (kept.size() < left.size()) {
        included.push_back(candidates[i].plan);
        left = std::move(kept);
      }
    }
    if (included.size() < 2) return std::nullopt;
    ScoredPlan scored = candidates[0];
    const bool deferred = deferFetch(included);
    scored.plan = std::make_shared<RecordQueryIntersectionPlan>(std::move(included),
                                                                keyOfColumns(key), reverse_);
    if (deferred) {
      scored.plan = std::make_shared<RecordQueryFetchFromPartialRecordPlan>(scored.plan,
                                                                            config_.pipelineSize);
    }
    scored.unsatisfied = std::move(left);
    scored.ordering = Ordering{{}, key};
    return scored;
  }

  // With the merge on the primary key and every child a plain index scan on one record type,
  // the children read only their entries and the merged rows' records are fetched after
  // (Java's deferred fetch). Rewrites `children` and says whether it did.
  bool deferFetch(std::vector<RecordQueryPlanPtr>& children) const {
    if (!config_.deferFetchAfterUnionAndIntersection || !sortColumns_.empty()) return false;
    for (const RecordQueryPlanPtr& child : children) {
      if (child->kind() != RecordQueryPlan::Kind::kIndex) return false;
      const auto& scan = static_cast<const RecordQueryIndexPlan&>(*child);
      if (metaData_.recordTypesForIndex(metaData_.index(scan.indexName())).size() != 1) {
        return false;
      }
    }
    for (RecordQueryPlanPtr& child : children) {
      auto scan = std::static_pointer_cast<const RecordQueryIndexPlan>(child);
      const Index& index = metaData_.index(scan->indexName());
      const RecordType& type = *metaData_.recordTypesForIndex(index)[0];
      child = std::make_shared<RecordQueryCoveringIndexPlan>(scan, type.name(),
                                                             primaryKeyFields(index));
    }
    return true;
  }

  // Where each primary-key field sits in `index`'s entries.
  std::vector<CoveringField> primaryKeyFields(const Index& index) const {
    std::vector<CoveringField> fields;
    const auto& positions = index.primaryKeyComponentPositions();
    int after = index.columnSize();
    for (size_t i = 0; i < primaryKeyColumns_.size(); ++i) {
      const int position =
          positions && i < positions->size() && (*positions)[i] >= 0 ? (*positions)[i] : after++;
      std::optional<FieldPath> path = columnPath(primaryKeyColumns_[i]);
      if (!path) continue;
      CoveringField field;
      for (const PathStep& step : *path) field.path.push_back(step.name);
      field.position = position;
      fields.push_back(std::move(field));
    }
    return fields;
  }

  // --- OR ---

  std::optional<ScoredPlan> planOr(const QueryComponent& filter) {
    std::vector<ScoredPlan> branches;
    for (const QueryComponent& branch : filter.children()) {
      std::optional<ScoredPlan> plan = planWithIns(conjunctsOf(branch), /*needOrdering=*/true);
      // A branch no scan narrows (a whole index read for its order) makes a union no better
      // than one scan with the OR as its filter.
      if (!plan || plan->score == 0) return std::nullopt;
      branches.push_back(std::move(*plan));
    }
    // Branches that differ only in their filters: one scan with the OR of the filters.
    if (std::all_of(branches.begin(), branches.end(), [&](const ScoredPlan& branch) {
          return branch.plan->kind() == RecordQueryPlan::Kind::kFilter &&
                 branch.plan->children()[0]->explain() ==
                     branches[0].plan->children()[0]->explain();
        })) {
      std::vector<QueryComponent> filters;
      for (const ScoredPlan& branch : branches) {
        filters.push_back(
            static_cast<const RecordQueryFilterPlan&>(*branch.plan).conjunctedFilter());
      }
      ScoredPlan scored = branches[0];
      scored.plan = std::make_shared<RecordQueryFilterPlan>(
          branches[0].plan->children()[0],
          std::vector<QueryComponent>{Query::anyOf(std::move(filters))});
      return scored;
    }
    if (!commonPrimaryKey_) return std::nullopt;
    const std::vector<KeyExpression> key = mergeKey();
    std::vector<RecordQueryPlanPtr> children;
    for (const ScoredPlan& branch : branches) {
      if (!orderedBy(branch.ordering, key) || branch.createsDuplicates ||
          branch.plan->isReverse() != reverse_) {
        return std::nullopt;
      }
      children.push_back(branch.plan);
    }
    const bool deferred = deferFetch(children);
    const KeyExpression comparisonKey = keyOfColumns(key);
    ScoredPlan scored;
    scored.score = 1;
    scored.plan = std::make_shared<RecordQueryUnionPlan>(
        std::move(children), comparisonKey, !(comparisonKey == *commonPrimaryKey_), reverse_);
    if (deferred) {
      scored.plan = std::make_shared<RecordQueryFetchFromPartialRecordPlan>(scored.plan,
                                                                            config_.pipelineSize);
    }
    scored.ordering = Ordering{{}, key};
    return scored;
  }

  // --- Covering ---

  // The plan without record fetches when the required results, the filters' fields and the
  // primary key are all in the entries of the one index it scans.
  RecordQueryPlanPtr tryCovering(const RecordQueryPlanPtr& plan) const {
    const RecordQueryPlan* scanNode = plan.get();
    std::vector<QueryComponent> filters;
    if (scanNode->kind() == RecordQueryPlan::Kind::kFilter) {
      filters = static_cast<const RecordQueryFilterPlan&>(*scanNode).filters();
      scanNode = scanNode->children()[0].get();
    }
    if (scanNode->kind() != RecordQueryPlan::Kind::kIndex) return plan;
    auto scan = std::static_pointer_cast<const RecordQueryIndexPlan>(
        scanNode == plan.get() ? plan : plan->children()[0]);
    const Index& index = metaData_.index(scan->indexName());
    const std::vector<const RecordType*> types = metaData_.recordTypesForIndex(index);
    if (types.size() != 1 || index.rootExpression().createsDuplicates()) return plan;

    // What the entries hold: key columns, value columns, primary-key fields.
    struct Available {
      FieldPath path;
      bool fromValue;
      int position;
    };
    std::vector<Available> available;
    const std::vector<KeyExpression> all = index.rootExpression().normalizeKeyForPositions();
    const int keyColumns = index.columnSize();
    for (size_t i = 0; i < all.size(); ++i) {
      std::optional<FieldPath> path = columnPath(all[i]);
      if (!path) continue;
      const bool fromValue = static_cast<int>(i) >= keyColumns;
      available.push_back(Available{
          *path, fromValue, fromValue ? static_cast<int>(i) - keyColumns : static_cast<int>(i)});
    }
    for (const CoveringField& field : primaryKeyFields(index)) {
      FieldPath path;
      for (const std::string& name : field.path) path.push_back(PathStep{name, false});
      available.push_back(Available{path, false, field.position});
    }
    auto find = [&](const FieldPath& path) -> const Available* {
      for (const Available& a : available) {
        if (a.path == path) return &a;
      }
      return nullptr;
    };

    std::vector<FieldPath> needed;
    auto need = [&](const FieldPath& path) {
      if (std::find(needed.begin(), needed.end(), path) == needed.end()) needed.push_back(path);
    };
    for (const KeyExpression& required : *query_.requiredResults) {
      for (const KeyExpression& column : required.normalizeKeyForPositions()) {
        std::optional<FieldPath> path = columnPath(column);
        if (!path) return plan;
        need(*path);
      }
    }
    // The sort's fields too, so that the rows' sort keys can be read off them.
    for (const KeyExpression& column : sortColumns_) {
      std::optional<FieldPath> path = columnPath(column);
      if (!path) return plan;
      need(*path);
    }
    std::function<bool(const QueryComponent&)> collect = [&](const QueryComponent& c) {
      switch (c.kind()) {
        case Kind::kAnd:
        case Kind::kOr: return std::all_of(c.children().begin(), c.children().end(), collect);
        case Kind::kNot: return collect(c.child());
        default: {
          std::optional<Leaf> leaf = asLeaf(c);
          if (!leaf) return false;
          need(leaf->path);
          return true;
        }
      }
    };
    for (const QueryComponent& filter : filters) {
      if (!collect(filter)) return plan;
    }
    for (const CoveringField& field : primaryKeyFields(index)) {
      FieldPath path;
      for (const std::string& name : field.path) path.push_back(PathStep{name, false});
      need(path);
    }
    // Every field the entries hold is copied (the needed ones among them).
    std::vector<CoveringField> fields;
    for (const Available& a : available) {
      if (std::any_of(fields.begin(), fields.end(), [&](const CoveringField& f) {
            return f.path.size() == a.path.size() &&
                   std::equal(f.path.begin(), f.path.end(), a.path.begin(),
                              [](const std::string& n, const PathStep& s) { return n == s.name; });
          })) {
        continue;
      }
      if (std::any_of(a.path.begin(), a.path.end(), [](const PathStep& s) { return s.repeated; })) {
        continue;
      }
      CoveringField field;
      for (const PathStep& step : a.path) field.path.push_back(step.name);
      field.fromValue = a.fromValue;
      field.position = a.position;
      fields.push_back(std::move(field));
    }
    for (const FieldPath& path : needed) {
      const Available* a = find(path);
      if (a == nullptr ||
          std::any_of(path.begin(), path.end(), [](const PathStep& s) { return s.repeated; })) {
        return plan;
      }
    }
    RecordQueryPlanPtr covering =
        std::make_shared<RecordQueryCoveringIndexPlan>(scan, types[0]->name(), std::move(fields));
    if (!filters.empty()) covering = std::make_shared<RecordQueryFilterPlan>(covering, filters);
    return covering;
  }

  const RecordMetaData& metaData_;
  const RecordQueryPlannerConfiguration& config_;
  const RecordQuery& query_;
  ValidatedQuery validated_;
  std::optional<KeyExpression> commonPrimaryKey_;
  std::vector<KeyExpression> primaryKeyColumns_;
  std::vector<KeyExpression> sortColumns_;
  bool reverse_ = false;
  std::vector<std::shared_ptr<const Index>> indexes_;
};

}  // namespace
}  // namespace query

RecordQueryPlanner::RecordQueryPlanner(RecordMetaData metaData, IndexStates indexStates,
                                       RecordQueryPlannerConfiguration configuration)
    : metaData_(std::move(metaData)),
      indexStates_(std::move(indexStates)),
      configuration_(configuration) {}

RecordQueryPlanner::RecordQueryPlanner(const RecordStore& store,
                                       RecordQueryPlannerConfiguration configuration)
    : metaData_(store.metaData()), configuration_(configuration) {
  for (const StoreIndex& index : RecordStoreAccess::state(store).indexes) {
    if (index.state != IndexState::kReadable)
      indexStates_.emplace(index.index->name(), index.state);
  }
}

RecordQueryPlanPtr RecordQueryPlanner::plan(const RecordQuery& query) const {
  if (std::optional<RecordQueryPlanPtr> byRank =
          query::planRankQuery(metaData_, indexStates_, configuration_, query)) {
    return *byRank;
  }
  return query::Planner(metaData_, indexStates_, configuration_, query).plan();
}

}  // namespace rl
