// RecordStore::evaluateAggregateFunction: an aggregate answered from the index that can
// evaluate it (docs/indexes.md, "Aggregate functions"), as the Java Record Layer's
// IndexFunctionHelper picks one: a readable index over exactly the named record types whose
// maintainer can evaluate the function, the one with the fewest columns first.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <set>

#include "rl/record_core_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {

fdb::Tuple RecordStore::evaluateAggregateFunction(const std::vector<std::string>& recordTypeNames,
                                                  const IndexAggregateFunction& function,
                                                  const fdb::Tuple& group,
                                                  IsolationLevel isolation) {
  State& state = *state_;
  std::set<std::string, std::less<>> wanted(recordTypeNames.begin(), recordTypeNames.end());
  for (const std::string& name : wanted) state.metaData.recordType(name);  // known types only
  if (wanted.empty()) {
    for (const auto& [name, type] : state.metaData.recordTypes()) wanted.insert(name);
  }
  StoreIndex* best = nullptr;
  for (StoreIndex& storeIndex : state.indexes) {
    if (storeIndex.state != IndexState::kReadable) continue;
    std::set<std::string, std::less<>> covered;
    for (const RecordType* type : state.metaData.recordTypesForIndex(*storeIndex.index)) {
      covered.insert(type->name());
    }
    if (covered != wanted) continue;
    if (!state.maintainer(storeIndex).canEvaluateAggregate(function)) continue;
    if (best == nullptr || storeIndex.index->columnSize() < best->index->columnSize()) {
      best = &storeIndex;
    }
  }
  if (best == nullptr) {
    throw RecordCoreArgumentException(
        fmt::format("no readable index can evaluate aggregate function {}({}) over record types {}",
                    function.name, function.operand.toString(),
                    recordTypeNames.empty() ? std::string("(all)")
                                            : fmt::format("{}", fmt::join(wanted, ", "))));
  }
  return state.maintainer(*best).evaluateAggregate(function, TupleRange::allOf(group), isolation);
}

}  // namespace rl
