// Running the plans that merge children on a comparison key: unions, intersections, and IN
// unions (one child run per combination of IN values).
#include <fmt/format.h>

#include "rl/query/merge_cursors.h"
#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

std::vector<query::MergeChild> resumeChildren(
    const std::vector<query::ChildPosition>& positions,
    const std::function<CursorPtr<QueriedRecord>(size_t, const std::optional<fdb::Bytes>&)>& run) {
  std::vector<query::MergeChild> children;
  children.reserve(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    const query::ChildPosition& at = positions[i];
    children.push_back(
        query::MergeChild::resumedAt(at, at.done ? nullptr : run(i, at.continuation)));
  }
  return children;
}

// Every combination of the sources' values, the first source varying slowest.
std::vector<Bindings> combinations(const std::vector<InSource>& sources, const Bindings& bindings,
                                   size_t maxBranches, const RecordQueryPlan& plan) {
  std::vector<Bindings> out{bindings};
  for (const InSource& source : sources) {
    const std::vector<fdb::TupleElement> values = source.valuesUnder(bindings);
    std::vector<Bindings> next;
    for (const Bindings& partial : out) {
      for (const fdb::TupleElement& value : values) {
        Bindings combined = partial;
        combined.set(source.bindingName, value);
        next.push_back(std::move(combined));
      }
    }
    out = std::move(next);
    if (out.size() > maxBranches) {
      throw RecordCoreArgumentException(
          fmt::format("IN union of {} runs, more than the {} allowed: {}", out.size(), maxBranches,
                      plan.explain()));
    }
  }
  return out;
}

}  // namespace

CursorPtr<QueriedRecord> RecordQueryUnionPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  const auto positions = query::decodeUnionContinuation(*this, continuation, children().size());
  auto children = resumeChildren(positions, [&](size_t i, const std::optional<fdb::Bytes>& at) {
    return this->children()[i]->execute(execution, bindings, at, properties);
  });
  return std::make_unique<query::UnionCursor>(
      std::move(children), query::RowKey(execution.store->metaData, comparisonKey_), reverse_);
}

CursorPtr<QueriedRecord> RecordQueryIntersectionPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  const auto positions =
      query::decodeIntersectionContinuation(*this, continuation, children().size());
  for (const query::ChildPosition& at : positions) {
    if (at.done) return query::emptyCursor();  // a child at its end: nothing more in common
  }
  auto children = resumeChildren(positions, [&](size_t i, const std::optional<fdb::Bytes>& at) {
    return this->children()[i]->execute(execution, bindings, at, properties);
  });
  return std::make_unique<query::IntersectionCursor>(
      std::move(children), query::RowKey(execution.store->metaData, comparisonKey_), reverse_);
}

CursorPtr<QueriedRecord> RecordQueryInUnionPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  const std::vector<Bindings> runs = combinations(sources_, bindings, maxBranches_, *this);
  if (runs.empty()) return query::emptyCursor();
  if (runs.size() == 1) {
    // A union continuation has room for two children at least: the one run is the first,
    // the second is an empty one.
    const auto positions = query::decodeUnionContinuation(*this, continuation, 2);
    if (positions[0].done) return query::emptyCursor();
    auto children = resumeChildren({positions[0]}, [&](size_t, const auto& at) {
      return this->children()[0]->execute(execution, runs[0], at, properties);
    });
    children.push_back(
        query::MergeChild::resumedAt(query::ChildPosition{std::nullopt, true}, nullptr));
    return std::make_unique<query::UnionCursor>(
        std::move(children), query::RowKey(execution.store->metaData, comparisonKey_), reverse_);
  }
  const auto positions = query::decodeUnionContinuation(*this, continuation, runs.size());
  auto children = resumeChildren(positions, [&](size_t i, const std::optional<fdb::Bytes>& at) {
    return this->children()[0]->execute(execution, runs[i], at, properties);
  });
  return std::make_unique<query::UnionCursor>(
      std::move(children), query::RowKey(execution.store->metaData, comparisonKey_), reverse_);
}

}  // namespace rl
