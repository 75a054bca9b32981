// Running an in-memory sort: the child's rows read whole, sorted on (sort key, primary key),
// and returned from just after the last row a continuation names (InMemorySortContinuation;
// docs/query.md, "Continuations").
#include <fmt/format.h>

#include <algorithm>

#include "query_continuation.pb.h"
#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

using SortProto = ::rl::query::InMemorySortContinuation;

struct SortedRow {
  fdb::Tuple key;  // (sort key tuple, primary key tuple)
  QueriedRecord row;
};

class InMemorySortCursor : public RecordCursor<QueriedRecord> {
 public:
  InMemorySortCursor(std::shared_ptr<const RecordQuerySortPlan> plan,
                     CursorPtr<QueriedRecord> input, std::optional<fdb::Tuple> after)
      : plan_(std::move(plan)), input_(std::move(input)), after_(std::move(after)) {}

  CursorResult<QueriedRecord> next() override {
    if (stopped_) return *stopped_;
    if (!sorted_) {
      if (std::optional<CursorResult<QueriedRecord>> stop = readInput()) {
        stopped_ = std::move(stop);
        return *stopped_;
      }
    }
    if (position_ >= rows_.size()) {
      stopped_ = CursorResult<QueriedRecord>::exhausted();
      return *stopped_;
    }
    SortedRow& next = rows_[position_++];
    SortProto proto;
    proto.set_last_key(next.key.pack());
    return CursorResult<QueriedRecord>::withValue(
        std::move(next.row), Continuation::fromBytes(proto.SerializeAsString()));
  }

 private:
  bool before(const fdb::Tuple& a, const fdb::Tuple& b) const {
    return plan_->isReverse() ? b < a : a < b;
  }

  // Reads every row of the input. A stop other than its end stops the sort where it began.
  std::optional<CursorResult<QueriedRecord>> readInput() {
    while (true) {
      CursorResult<QueriedRecord> result = input_->next();
      if (!result.hasValue()) {
        if (!isSourceExhausted(result.noNextReason())) {
          SortProto proto;
          if (after_) proto.set_last_key(after_->pack());
          return CursorResult<QueriedRecord>::withoutValue(
              result.noNextReason(),
              after_ ? Continuation::fromBytes(proto.SerializeAsString()) : Continuation::start());
        }
        break;
      }
      QueriedRecord& row = result.value();
      const fdb::Tuple sortKey =
          plan_->key().evaluateSingleton(*row.record, row.recordType->evaluationContext());
      fdb::Tuple key{sortKey, row.primaryKey};
      if (after_ && !before(*after_, key)) continue;
      if (rows_.size() >= plan_->maxRecords()) {
        throw RecordCoreException(fmt::format(
            "in-memory sort of more than {} records ({}); narrow the query or give it an index",
            plan_->maxRecords(), plan_->explain()));
      }
      rows_.push_back(SortedRow{std::move(key), std::move(row)});
    }
    // Keys hold the primary key, so no two are equal and the order is total.
    std::sort(rows_.begin(), rows_.end(),
              [&](const SortedRow& a, const SortedRow& b) { return before(a.key, b.key); });
    sorted_ = true;
    return std::nullopt;
  }

  std::shared_ptr<const RecordQuerySortPlan> plan_;
  CursorPtr<QueriedRecord> input_;
  std::optional<fdb::Tuple> after_;
  std::vector<SortedRow> rows_;
  size_t position_ = 0;
  bool sorted_ = false;
  std::optional<CursorResult<QueriedRecord>> stopped_;
};

}  // namespace

CursorPtr<QueriedRecord> RecordQuerySortPlan::execute(const QueryExecution& execution,
                                                      const Bindings& bindings,
                                                      const std::optional<fdb::Bytes>& continuation,
                                                      const ExecuteProperties& properties) const {
  std::optional<fdb::Tuple> after;
  if (continuation) {
    SortProto proto;
    if (!proto.ParseFromString(*continuation) || !proto.has_last_key()) {
      query::throwForeignContinuation(*this, "not an in-memory sort continuation");
    }
    after = fdb::Tuple::unpack(proto.last_key());
  }
  return std::make_unique<InMemorySortCursor>(
      std::static_pointer_cast<const RecordQuerySortPlan>(shared_from_this()),
      children()[0]->execute(execution, bindings, std::nullopt, properties), std::move(after));
}

}  // namespace rl
