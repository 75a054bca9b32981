// The plan nodes: construction and explain (docs/query.md, "Plans and explain"). Execution is
// in the files named for what runs: plan_scans.cc, plan_filters.cc, plan_merges.cc,
// plan_in_joins.cc, plan_sort.cc.
#include "rl/query/record_query_plan.h"

#include <algorithm>

#include "rl/query/java_format.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

void collectIndexes(const RecordQueryPlan& plan, std::set<std::string>& out) {
  if (plan.kind() == RecordQueryPlan::Kind::kIndex) {
    out.insert(static_cast<const RecordQueryIndexPlan&>(plan).indexName());
  } else if (plan.kind() == RecordQueryPlan::Kind::kCoveringIndex) {
    out.insert(static_cast<const RecordQueryCoveringIndexPlan&>(plan).indexPlan().indexName());
  }
  for (const RecordQueryPlanPtr& child : plan.children()) collectIndexes(*child, out);
}

bool anyFullScan(const RecordQueryPlan& plan) {
  if (plan.kind() == RecordQueryPlan::Kind::kScan &&
      static_cast<const RecordQueryScanPlan&>(plan).comparisons().empty()) {
    return true;
  }
  return std::any_of(plan.children().begin(), plan.children().end(),
                     [](const RecordQueryPlanPtr& child) { return anyFullScan(*child); });
}

void appendJoined(std::string& out, const std::vector<RecordQueryPlanPtr>& children,
                  std::string_view delimiter) {
  for (size_t i = 0; i < children.size(); ++i) {
    if (i > 0) out += delimiter;
    children[i]->appendExplain(out);
  }
}

std::string namesList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out + "]";
}

void requireChildren(const std::vector<RecordQueryPlanPtr>& children, size_t atLeast,
                     std::string_view what) {
  if (children.size() < atLeast) {
    throw RecordCoreArgumentException(std::string(what) + " needs at least " +
                                      std::to_string(atLeast) + " child plan(s)");
  }
  for (const RecordQueryPlanPtr& child : children) {
    if (!child) throw RecordCoreArgumentException(std::string(what) + " given a null child plan");
  }
}

QueryComponent conjunction(const std::vector<QueryComponent>& filters) {
  if (filters.empty()) throw RecordCoreArgumentException("a filter plan needs a filter");
  return filters.size() == 1 ? filters[0] : Query::allOf(filters);
}

}  // namespace

bool RecordQueryPlan::isReverse() const { return !children_.empty() && children_[0]->isReverse(); }

std::string RecordQueryPlan::explain() const {
  std::string out;
  appendExplain(out);
  return out;
}

std::set<std::string> RecordQueryPlan::usedIndexes() const {
  std::set<std::string> out;
  collectIndexes(*this, out);
  return out;
}

bool RecordQueryPlan::hasFullRecordScan() const { return anyFullScan(*this); }

// --- Index and primary-key scans ---

RecordQueryIndexPlan::RecordQueryIndexPlan(std::string indexName, ScanComparisons comparisons,
                                           bool reverse, IndexFetchMethod fetchMethod,
                                           size_t pipelineSize, IndexPlanScan scan)
    : RecordQueryPlan(Kind::kIndex),
      indexName_(std::move(indexName)),
      comparisons_(std::move(comparisons)),
      reverse_(reverse),
      fetchMethod_(fetchMethod),
      pipelineSize_(pipelineSize),
      scan_(scan) {}

void RecordQueryIndexPlan::appendExplain(std::string& out) const {
  out += "Index(";
  out += indexName_;
  out += ' ';
  out += comparisons_.toString();
  if (byGroup()) out += " BY_GROUP";
  if (byRank()) out += " BY_RANK";
  if (reverse_) out += " REVERSE";
  out += ')';
}

RecordQueryScanPlan::RecordQueryScanPlan(ScanComparisons comparisons, bool reverse)
    : RecordQueryPlan(Kind::kScan), comparisons_(std::move(comparisons)), reverse_(reverse) {}

void RecordQueryScanPlan::appendExplain(std::string& out) const {
  out += "Scan(";
  out += comparisons_.toString();
  if (reverse_) out += " REVERSE";
  out += ')';
}

RecordQueryTypeFilterPlan::RecordQueryTypeFilterPlan(RecordQueryPlanPtr child,
                                                     std::vector<std::string> recordTypes)
    : RecordQueryPlan(Kind::kTypeFilter, {std::move(child)}), recordTypes_(std::move(recordTypes)) {
  requireChildren(children(), 1, "a type filter");
}

void RecordQueryTypeFilterPlan::appendExplain(std::string& out) const {
  children()[0]->appendExplain(out);
  out += " | ";
  out += namesList(recordTypes_);
}

RecordQueryFilterPlan::RecordQueryFilterPlan(RecordQueryPlanPtr child,
                                             std::vector<QueryComponent> filters)
    : RecordQueryPlan(Kind::kFilter, {std::move(child)}),
      filters_(std::move(filters)),
      conjuncted_(conjunction(filters_)) {
  requireChildren(children(), 1, "a filter");
}

void RecordQueryFilterPlan::appendExplain(std::string& out) const {
  children()[0]->appendExplain(out);
  out += " | ";
  out += conjuncted_.toString();
}

RecordQueryCoveringIndexPlan::RecordQueryCoveringIndexPlan(
    std::shared_ptr<const RecordQueryIndexPlan> indexPlan, std::string recordType,
    std::vector<CoveringField> fields)
    : RecordQueryPlan(Kind::kCoveringIndex),
      indexPlan_(std::move(indexPlan)),
      recordType_(std::move(recordType)),
      fields_(std::move(fields)) {
  if (!indexPlan_) throw RecordCoreArgumentException("a covering plan needs an index plan");
}

void RecordQueryCoveringIndexPlan::appendExplain(std::string& out) const {
  out += "Covering(";
  indexPlan_->appendExplain(out);
  out += " -> [";
  // Nested fields print as their parent with the nested fields inside: "a: [b: KEY[0]]".
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out += ", ";
    const CoveringField& field = fields_[i];
    for (size_t p = 0; p < field.path.size(); ++p) {
      out += field.path[p];
      out += ": ";
      if (p + 1 < field.path.size()) out += '[';
    }
    out += field.fromValue ? "VALUE[" : "KEY[";
    out += std::to_string(field.position);
    out += ']';
    for (size_t p = 1; p < field.path.size(); ++p) out += ']';
  }
  out += "])";
}

RecordQueryFetchFromPartialRecordPlan::RecordQueryFetchFromPartialRecordPlan(
    RecordQueryPlanPtr child, size_t pipelineSize)
    : RecordQueryPlan(Kind::kFetchFromPartialRecord, {std::move(child)}),
      pipelineSize_(pipelineSize) {
  requireChildren(children(), 1, "a fetch");
}

void RecordQueryFetchFromPartialRecordPlan::appendExplain(std::string& out) const {
  out += "Fetch(";
  children()[0]->appendExplain(out);
  out += ')';
}

// --- Merges ---

RecordQueryUnionPlan::RecordQueryUnionPlan(std::vector<RecordQueryPlanPtr> children,
                                           KeyExpression comparisonKey, bool showComparisonKey,
                                           bool reverse)
    : RecordQueryPlan(Kind::kUnion, std::move(children)),
      comparisonKey_(std::move(comparisonKey)),
      showComparisonKey_(showComparisonKey),
      reverse_(reverse) {
  requireChildren(this->children(), 2, "a union");
}

void RecordQueryUnionPlan::appendExplain(std::string& out) const {
  std::string delimiter = " \u222a";
  if (showComparisonKey_) delimiter += query::javaKeyExpressionString(comparisonKey_);
  delimiter += ' ';
  appendJoined(out, children(), delimiter);
}

RecordQueryIntersectionPlan::RecordQueryIntersectionPlan(std::vector<RecordQueryPlanPtr> children,
                                                         KeyExpression comparisonKey, bool reverse)
    : RecordQueryPlan(Kind::kIntersection, std::move(children)),
      comparisonKey_(std::move(comparisonKey)),
      reverse_(reverse) {
  requireChildren(this->children(), 2, "an intersection");
}

void RecordQueryIntersectionPlan::appendExplain(std::string& out) const {
  appendJoined(out, children(), " \u2229 ");
}

// --- IN ---

std::vector<fdb::TupleElement> InSource::valuesUnder(const Bindings& bindings) const {
  std::vector<fdb::TupleElement> out;
  const std::vector<fdb::TupleElement>& given = values ? *values : bindings.list(parameterName);
  for (const fdb::TupleElement& value : given) {
    if (value.isNull()) {
      throw RecordCoreArgumentException("a value of IN list " +
                                        (values ? bindingName : "$" + parameterName) + " is null");
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  if (sorted) {
    std::sort(out.begin(), out.end());
    if (sortReverse) std::reverse(out.begin(), out.end());
  }
  return out;
}

std::string InSource::toString() const {
  if (values) return bindingName + " IN " + query::javaListString(*values);
  return bindingName + " IN $" + parameterName;
}

RecordQueryInJoinPlan::RecordQueryInJoinPlan(RecordQueryPlanPtr child, InSource source)
    : RecordQueryPlan(Kind::kInJoin, {std::move(child)}), source_(std::move(source)) {
  requireChildren(children(), 1, "an IN join");
}

void RecordQueryInJoinPlan::appendExplain(std::string& out) const {
  children()[0]->appendExplain(out);
  out += " WHERE ";
  out += source_.toString();
  if (source_.sorted) {
    out += " SORTED";
    if (source_.sortReverse) out += " DESC";
  }
}

RecordQueryInUnionPlan::RecordQueryInUnionPlan(RecordQueryPlanPtr child,
                                               std::vector<InSource> sources,
                                               KeyExpression comparisonKey, bool reverse,
                                               size_t maxBranches)
    : RecordQueryPlan(Kind::kInUnion, {std::move(child)}),
      sources_(std::move(sources)),
      comparisonKey_(std::move(comparisonKey)),
      reverse_(reverse),
      maxBranches_(maxBranches) {
  requireChildren(children(), 1, "an IN union");
  if (sources_.empty()) throw RecordCoreArgumentException("an IN union needs an IN source");
}

void RecordQueryInUnionPlan::appendExplain(std::string& out) const {
  out += "\u222a(";
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (i > 0) out += ", ";
    out += sources_[i].toString();
  }
  out += ") ";
  children()[0]->appendExplain(out);
}

// --- Distinct and sort ---

RecordQueryUnorderedPrimaryKeyDistinctPlan::RecordQueryUnorderedPrimaryKeyDistinctPlan(
    RecordQueryPlanPtr child)
    : RecordQueryPlan(Kind::kUnorderedPrimaryKeyDistinct, {std::move(child)}) {
  requireChildren(children(), 1, "a distinct");
}

void RecordQueryUnorderedPrimaryKeyDistinctPlan::appendExplain(std::string& out) const {
  children()[0]->appendExplain(out);
  out += " | UnorderedPrimaryKeyDistinct()";
}

RecordQuerySortPlan::RecordQuerySortPlan(RecordQueryPlanPtr child, KeyExpression key, bool reverse,
                                         size_t maxRecords)
    : RecordQueryPlan(Kind::kSort, {std::move(child)}),
      key_(std::move(key)),
      reverse_(reverse),
      maxRecords_(maxRecords) {
  requireChildren(children(), 1, "a sort");
}

void RecordQuerySortPlan::appendExplain(std::string& out) const {
  children()[0]->appendExplain(out);
  out += " ORDER BY ";
  out += query::javaKeyExpressionString(key_);
  if (reverse_) out += " DESC";
}

}  // namespace rl
