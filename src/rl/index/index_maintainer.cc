#include "rl/index/index_maintainer.h"

#include <fmt/format.h>

#include "rl/index/index_check.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {

std::string_view indexScanTypeName(IndexScanType type) {
  switch (type) {
    case IndexScanType::kByValue: return "BY_VALUE";
    case IndexScanType::kByGroup: return "BY_GROUP";
    case IndexScanType::kByRank: return "BY_RANK";
    case IndexScanType::kByTimeWindow: return "BY_TIME_WINDOW";
  }
  return "UNKNOWN";
}

const Index& IndexMaintainer::index() const { return *storeIndex_.index; }

CursorPtr<IndexedRawRecord> IndexMaintainer::scanRecords(const TupleRange&,
                                                         const std::optional<fdb::Bytes>&,
                                                         const ScanProperties&, IndexFetchMethod,
                                                         IndexOrphanBehavior, size_t) {
  throw RecordCoreArgumentException(
      fmt::format("index {} has type {}, whose entries do not point at records to fetch",
                  index().name(), index().type()));
}

std::optional<std::string> IndexMaintainer::cannotDeleteWhere(const fdb::Tuple&) const {
  return fmt::format("has type {}, whose entries cannot be deleted by primary-key range",
                     index().type());
}

void IndexMaintainer::deleteWhere(const fdb::Tuple& prefix) {
  throw RecordCoreArgumentException(
      fmt::format("index {} {}", index().name(), cannotDeleteWhere(prefix).value_or("")));
}

bool IndexMaintainer::canEvaluateAggregate(const IndexAggregateFunction&) const { return false; }

fdb::Tuple IndexMaintainer::evaluateAggregate(const IndexAggregateFunction& function,
                                              const TupleRange&, IsolationLevel) {
  throw RecordCoreArgumentException(
      fmt::format("aggregate function {} is unsupported by index type {} (index {})", function.name,
                  index().type(), index().name()));
}

std::unique_ptr<IndexCheck> IndexMaintainerFactory::createCheck(const IndexCheckTarget&) const {
  return nullptr;
}

}  // namespace rl
