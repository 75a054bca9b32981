#include "rl/query/query_execution.h"

#include <fmt/format.h>

#include "rl/record_core_exception.h"

namespace rl::query {

CursorPtr<QueriedRecord> emptyCursor() {
  return std::make_unique<ListCursor<QueriedRecord>>(std::vector<QueriedRecord>{});
}

RowKey::RowKey(const RecordMetaData& metaData, KeyExpression key)
    : key_(std::move(key)), isPrimaryKey_(true) {
  for (const auto& [name, type] : metaData.recordTypes()) {
    if (!(type.primaryKey() == key_)) isPrimaryKey_ = false;
  }
}

fdb::Tuple RowKey::of(const QueriedRecord& row) const {
  if (isPrimaryKey_) return row.primaryKey;
  if (!row.record || row.recordType == nullptr) {
    throw RecordCoreException("a row without a record cannot be merged on " + key_.toString());
  }
  return key_.evaluateSingleton(
      *row.record, row.recordType->evaluationContext(
                       row.version ? std::optional<fdb::Versionstamp>(row.version->toVersionstamp())
                                   : std::nullopt));
}

void throwForeignContinuation(const RecordQueryPlan& plan, std::string_view why) {
  throw RecordCoreArgumentException(
      fmt::format("continuation does not belong to plan {}: {}", plan.explain(), why));
}

}  // namespace rl::query
