// rl::RecordQueryPlan — how a query is answered: a tree of immutable plan nodes (index scans,
// primary-key scans, filters, unions, intersections, IN joins, sorts, ...) that the planner
// builds once and RecordStore::executeQuery runs any number of times, in any transaction,
// with bindings for its parameters and a continuation (docs/query.md, "Plans").
//
//   std::shared_ptr<const rl::RecordQueryPlan> plan = store.planQuery(query);
//   plan->explain();
//   // "Index(Order$customer_price [[c-3, 10],[c-3]]) | status EQUALS 1"
//   plan->usedIndexes();   // {"Order$customer_price"}
//
// explain() prints a plan in one line in the form the Java Record Layer prints its plans;
// docs/query.md ("Plans and explain") gives the grammar. The node types mirror the Java
// Record Layer's plan classes and keep their names.
//
// Plans are owned by std::shared_ptr (the planner makes them so; a plan built by hand must be
// too, with std::make_shared): the cursors of a running plan share its nodes.
//
// Thread-safety: plans are immutable; one plan may be executed by many threads at once.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/index/index_fetch_method.h"
#include "rl/metadata/key_expression.h"
#include "rl/query/bindings.h"
#include "rl/query/queried_record.h"
#include "rl/query/query_component.h"
#include "rl/query/scan_comparisons.h"

namespace rl {

struct QueryExecution;  // src/rl/query/query_execution.h: the store a plan runs against
class RecordQueryPlan;
using RecordQueryPlanPtr = std::shared_ptr<const RecordQueryPlan>;

class RecordQueryPlan : public std::enable_shared_from_this<RecordQueryPlan> {
 public:
  enum class Kind {
    kIndex,                        // RecordQueryIndexPlan
    kScan,                         // RecordQueryScanPlan
    kTypeFilter,                   // RecordQueryTypeFilterPlan
    kFilter,                       // RecordQueryFilterPlan
    kCoveringIndex,                // RecordQueryCoveringIndexPlan
    kFetchFromPartialRecord,       // RecordQueryFetchFromPartialRecordPlan
    kUnion,                        // RecordQueryUnionPlan
    kIntersection,                 // RecordQueryIntersectionPlan
    kInJoin,                       // RecordQueryInJoinPlan
    kInUnion,                      // RecordQueryInUnionPlan
    kUnorderedPrimaryKeyDistinct,  // RecordQueryUnorderedPrimaryKeyDistinctPlan
    kSort,                         // RecordQuerySortPlan
  };

  virtual ~RecordQueryPlan() = default;
  RecordQueryPlan(const RecordQueryPlan&) = delete;
  RecordQueryPlan& operator=(const RecordQueryPlan&) = delete;

  Kind kind() const { return kind_; }
  const std::vector<RecordQueryPlanPtr>& children() const { return children_; }
  // Whether the plan returns its rows in descending order of what orders them.
  virtual bool isReverse() const;

  // The plan in one line (docs/query.md, "Plans and explain").
  std::string explain() const;
  virtual void appendExplain(std::string& out) const = 0;

  // The indexes the plan scans, and whether it scans every record of the store.
  std::set<std::string> usedIndexes() const;
  bool hasFullRecordScan() const;

  // The rows of this plan under `bindings`, resuming after `continuation` (nullopt: from the
  // start), within `properties` (shared limiters, isolation; skip and returned-row limit
  // applied by the caller). Library code: RecordStore::executeQuery is the entry point.
  virtual CursorPtr<QueriedRecord> execute(const QueryExecution& execution,
                                           const Bindings& bindings,
                                           const std::optional<fdb::Bytes>& continuation,
                                           const ExecuteProperties& properties) const = 0;

 protected:
  explicit RecordQueryPlan(Kind kind, std::vector<RecordQueryPlanPtr> children = {})
      : kind_(kind), children_(std::move(children)) {}

 private:
  Kind kind_;
  std::vector<RecordQueryPlanPtr> children_;
};

// How an index plan scans its index: by its entries' values (every index), by group (an
// aggregate index, under a covering plan) or by rank (a rank index).
enum class IndexPlanScan { kByValue, kByGroup, kByRank };

// The records an index's entries in a range point to, fetched by the chosen method:
// "Index(Order$price [[10],>)", "Index(Order$price ([null],[100]) REVERSE)".
class RecordQueryIndexPlan : public RecordQueryPlan {
 public:
  // kByRank: a rank index scanned BY_RANK, its comparisons over (group..., rank):
  // "Index(Order$rank ([null],[10]) BY_RANK)".
  RecordQueryIndexPlan(std::string indexName, ScanComparisons comparisons, bool reverse,
                       IndexFetchMethod fetchMethod = IndexFetchMethod::kScanAndFetch,
                       size_t pipelineSize = 10, IndexPlanScan scan = IndexPlanScan::kByValue);
  const std::string& indexName() const { return indexName_; }
  // Whether the index is scanned BY_GROUP (an aggregate index, under a covering plan):
  // "Index(Order$customer$count [[alice],[alice]] BY_GROUP)".
  bool byGroup() const { return scan_ == IndexPlanScan::kByGroup; }
  const ScanComparisons& comparisons() const { return comparisons_; }
  bool isReverse() const override { return reverse_; }
  IndexFetchMethod fetchMethod() const { return fetchMethod_; }
  size_t pipelineSize() const { return pipelineSize_; }
  bool byRank() const { return scan_ == IndexPlanScan::kByRank; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  std::string indexName_;
  ScanComparisons comparisons_;
  bool reverse_;
  IndexFetchMethod fetchMethod_;
  size_t pipelineSize_;
  IndexPlanScan scan_;
};

// The records whose primary keys fall in a range, in primary-key order: "Scan(<,>)",
// "Scan([IS Order])", "Scan([[7],[7]])".
class RecordQueryScanPlan : public RecordQueryPlan {
 public:
  RecordQueryScanPlan(ScanComparisons comparisons, bool reverse);
  const ScanComparisons& comparisons() const { return comparisons_; }
  bool isReverse() const override { return reverse_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  ScanComparisons comparisons_;
  bool reverse_;
};

// The child's records of the given types: "Scan(<,>) | [Order]".
class RecordQueryTypeFilterPlan : public RecordQueryPlan {
 public:
  RecordQueryTypeFilterPlan(RecordQueryPlanPtr child, std::vector<std::string> recordTypes);
  const std::vector<std::string>& recordTypes() const { return recordTypes_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  std::vector<std::string> recordTypes_;
};

// The child's records that pass every filter: "Index(...) | price LESS_THAN 100",
// "Scan(<,>) | And([a, b])".
class RecordQueryFilterPlan : public RecordQueryPlan {
 public:
  RecordQueryFilterPlan(RecordQueryPlanPtr child, std::vector<QueryComponent> filters);
  const std::vector<QueryComponent>& filters() const { return filters_; }
  // The filters as one component (And of them when there are several).
  const QueryComponent& conjunctedFilter() const { return conjuncted_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  std::vector<QueryComponent> filters_;
  QueryComponent conjuncted_;
};

// One field of a covering plan's partial record, copied from the index entry: the field's
// path (a nested field's parents first) and where it is in the entry (the key tuple, or the
// value tuple of a key-with-value index).
struct CoveringField {
  std::vector<std::string> path;
  bool fromValue = false;
  int position = 0;
};

// Partial records built from an index's entries alone, without loading the records:
// "Covering(Index(Order$price [[10],>) -> [price: KEY[0], id: KEY[1]])". Over an aggregate
// index scanned BY_GROUP, one record a group, holding the group's fields; its indexEntry's
// value is the group's aggregate decoded ((n) for counts and sums).
class RecordQueryCoveringIndexPlan : public RecordQueryPlan {
 public:
  RecordQueryCoveringIndexPlan(std::shared_ptr<const RecordQueryIndexPlan> indexPlan,
                               std::string recordType, std::vector<CoveringField> fields);
  const RecordQueryIndexPlan& indexPlan() const { return *indexPlan_; }
  const std::string& recordType() const { return recordType_; }
  const std::vector<CoveringField>& fields() const { return fields_; }
  bool isReverse() const override { return indexPlan_->isReverse(); }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  std::shared_ptr<const RecordQueryIndexPlan> indexPlan_;
  std::string recordType_;
  std::vector<CoveringField> fields_;
};

// The whole records of the child's partial ones, loaded by primary key (several loads in
// flight): "Fetch(Covering(...) ∩ Covering(...))".
class RecordQueryFetchFromPartialRecordPlan : public RecordQueryPlan {
 public:
  explicit RecordQueryFetchFromPartialRecordPlan(RecordQueryPlanPtr child,
                                                 size_t pipelineSize = 10);
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  size_t pipelineSize_;
};

// The children's rows merged in the order of a comparison key (the primary key, or the
// sort then the primary key), each key once: "Index(A) ∪ Index(B)"; when the key is not the
// primary key it is shown: "Index(A) ∪[Field { 'price' None}, Field { 'id' None}] Index(B)".
class RecordQueryUnionPlan : public RecordQueryPlan {
 public:
  RecordQueryUnionPlan(std::vector<RecordQueryPlanPtr> children, KeyExpression comparisonKey,
                       bool showComparisonKey, bool reverse);
  const KeyExpression& comparisonKey() const { return comparisonKey_; }
  bool isReverse() const override { return reverse_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  KeyExpression comparisonKey_;
  bool showComparisonKey_;
  bool reverse_;
};

// The rows every child returns, merged on a comparison key: "Index(A) ∩ Index(B)".
class RecordQueryIntersectionPlan : public RecordQueryPlan {
 public:
  RecordQueryIntersectionPlan(std::vector<RecordQueryPlanPtr> children, KeyExpression comparisonKey,
                              bool reverse);
  const KeyExpression& comparisonKey() const { return comparisonKey_; }
  bool isReverse() const override { return reverse_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  KeyExpression comparisonKey_;
  bool reverse_;
};

// Where an IN comparison's values come from: a list of constants or a list parameter, bound
// one at a time to `bindingName` (the planner's "__in_<field>__<n>").
struct InSource {
  std::string bindingName;
  std::optional<std::vector<fdb::TupleElement>> values;  // unset: the list parameter
  std::string parameterName;
  // Values taken in ascending order (descending with sortReverse), so that the child's rows
  // come out in the order of the IN field.
  bool sorted = false;
  bool sortReverse = false;

  // The values under `bindings`, each once (sorted when `sorted`, else in the given order).
  std::vector<fdb::TupleElement> valuesUnder(const Bindings& bindings) const;
  // "__in_price__0 IN [10, 20]", "__in_price__0 IN $prices".
  std::string toString() const;
  friend bool operator==(const InSource&, const InSource&) = default;
};

// The child run once per value of an IN list, one after the other:
// "Index(Order$price [EQUALS $__in_price__0]) WHERE __in_price__0 IN [10, 20] SORTED".
class RecordQueryInJoinPlan : public RecordQueryPlan {
 public:
  RecordQueryInJoinPlan(RecordQueryPlanPtr child, InSource source);
  const InSource& source() const { return source_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  InSource source_;
};

// The child run once per combination of IN values, the runs merged on a comparison key (so
// the rows come in sort order when the IN field is not the sort):
// "∪(__in_a__0 IN [1, 2]) Index(T$a_b [EQUALS $__in_a__0])".
class RecordQueryInUnionPlan : public RecordQueryPlan {
 public:
  RecordQueryInUnionPlan(RecordQueryPlanPtr child, std::vector<InSource> sources,
                         KeyExpression comparisonKey, bool reverse, size_t maxBranches);
  const std::vector<InSource>& sources() const { return sources_; }
  const KeyExpression& comparisonKey() const { return comparisonKey_; }
  bool isReverse() const override { return reverse_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  std::vector<InSource> sources_;
  KeyExpression comparisonKey_;
  bool reverse_;
  size_t maxBranches_;
};

// The child's records, each once although an index on a repeated field has several entries
// for it: "Index(Order$tags ([m],>) | UnorderedPrimaryKeyDistinct()". A record is returned at
// the first of its entries the scan meets, so that resuming from any continuation neither
// repeats nor loses one (docs/query.md, "Duplicates").
class RecordQueryUnorderedPrimaryKeyDistinctPlan : public RecordQueryPlan {
 public:
  explicit RecordQueryUnorderedPrimaryKeyDistinctPlan(RecordQueryPlanPtr child);
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;
};

// The child's records sorted in memory (at most `maxRecords` of them; more is an error):
// "Scan(<,>) | [Order] ORDER BY Field { 'price' None}". Only when the planner is allowed
// (RecordQueryPlannerConfiguration::allowInMemorySort).
class RecordQuerySortPlan : public RecordQueryPlan {
 public:
  RecordQuerySortPlan(RecordQueryPlanPtr child, KeyExpression key, bool reverse, size_t maxRecords);
  const KeyExpression& key() const { return key_; }
  bool isReverse() const override { return reverse_; }
  size_t maxRecords() const { return maxRecords_; }
  void appendExplain(std::string& out) const override;
  CursorPtr<QueriedRecord> execute(const QueryExecution& execution, const Bindings& bindings,
                                   const std::optional<fdb::Bytes>& continuation,
                                   const ExecuteProperties& properties) const override;

 private:
  KeyExpression key_;
  bool reverse_;
  size_t maxRecords_;
};

}  // namespace rl
