// Running an IN join: the child once per IN value, one run after the other, with
// continuations naming the value and the child's position in its run (FlatMapContinuation;
// docs/query.md, "Continuations").
#include <fmt/format.h>

#include "record_cursor.pb.h"
#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

using FlatMapProto = ::com::apple::foundationdb::record::FlatMapContinuation;

// The Java Record Layer's list cursor continuation: the position after the value, as a 4-byte
// big-endian integer.
fdb::Bytes encodePosition(size_t valueIndex) {
  const auto after = static_cast<uint32_t>(valueIndex + 1);
  fdb::Bytes bytes(4, '\0');
  for (int i = 0; i < 4; ++i)
    bytes[static_cast<size_t>(i)] = static_cast<char>(after >> (24 - 8 * i));
  return bytes;
}

std::optional<size_t> decodePosition(std::string_view bytes) {
  if (bytes.size() != 4) return std::nullopt;
  uint32_t after = 0;
  for (char c : bytes) after = (after << 8) | static_cast<uint8_t>(c);
  if (after == 0) return std::nullopt;
  return after - 1;
}

class InJoinCursor : public RecordCursor<QueriedRecord> {
 public:
  InJoinCursor(std::shared_ptr<const RecordQueryInJoinPlan> plan, const QueryExecution& execution,
               Bindings bindings, ExecuteProperties properties,
               std::vector<fdb::TupleElement> values, size_t start,
               std::optional<fdb::Bytes> innerContinuation)
      : plan_(std::move(plan)),
        execution_(execution),
        bindings_(std::move(bindings)),
        properties_(std::move(properties)),
        values_(std::move(values)),
        current_(start),
        startInnerAt_(std::move(innerContinuation)) {}

  CursorResult<QueriedRecord> next() override {
    if (stopped_) return *stopped_;
    while (current_ < values_.size()) {
      if (!inner_) {
        Bindings bound = bindings_;
        bound.set(plan_->source().bindingName, values_[current_]);
        inner_ = plan_->children()[0]->execute(execution_, bound, startInnerAt_, properties_);
        startInnerAt_.reset();
      }
      CursorResult<QueriedRecord> result = inner_->next();
      if (result.hasValue()) {
        Continuation at = continuationAt(result.continuation());
        return CursorResult<QueriedRecord>::withValue(std::move(result.value()), std::move(at));
      }
      if (!isSourceExhausted(result.noNextReason())) {
        stopped_ = CursorResult<QueriedRecord>::withoutValue(result.noNextReason(),
                                                             continuationAt(result.continuation()));
        return *stopped_;
      }
      inner_.reset();
      ++current_;
    }
    stopped_ = CursorResult<QueriedRecord>::exhausted();
    return *stopped_;
  }

 private:
  // Where the join stands when the current value's run stands at `inner`.
  Continuation continuationAt(const Continuation& inner) const {
    size_t position = current_;
    std::optional<fdb::Bytes> innerBytes = inner.toBytes();
    if (inner.isEnd()) {
      // That run is over: the next value's run from its start.
      ++position;
      if (position >= values_.size()) return Continuation::end();
    }
    FlatMapProto proto;
    proto.set_outer_continuation(encodePosition(position));
    if (innerBytes) proto.set_inner_continuation(*innerBytes);
    proto.set_check_value(fdb::Tuple{values_[position]}.pack());
    return Continuation::fromBytes(proto.SerializeAsString());
  }

  std::shared_ptr<const RecordQueryInJoinPlan> plan_;
  QueryExecution execution_;
  Bindings bindings_;
  ExecuteProperties properties_;
  std::vector<fdb::TupleElement> values_;
  size_t current_;
  std::optional<fdb::Bytes> startInnerAt_;
  CursorPtr<QueriedRecord> inner_;
  std::optional<CursorResult<QueriedRecord>> stopped_;
};

}  // namespace

CursorPtr<QueriedRecord> RecordQueryInJoinPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  std::vector<fdb::TupleElement> values = source_.valuesUnder(bindings);
  size_t start = 0;
  std::optional<fdb::Bytes> innerContinuation;
  if (continuation) {
    FlatMapProto proto;
    if (!proto.ParseFromString(*continuation) || !proto.has_outer_continuation()) {
      query::throwForeignContinuation(*this, "not an IN join continuation");
    }
    const std::optional<size_t> position = decodePosition(proto.outer_continuation());
    if (!position || *position >= values.size()) {
      query::throwForeignContinuation(*this, "its IN value position is not one of the values");
    }
    if (proto.has_check_value() && proto.check_value() != fdb::Tuple{values[*position]}.pack()) {
      query::throwForeignContinuation(
          *this, fmt::format("it stood at IN value {}, which is not the value at that position now",
                             fdb::printable(proto.check_value())));
    }
    start = *position;
    if (proto.has_inner_continuation()) innerContinuation = proto.inner_continuation();
  }
  return std::make_unique<InJoinCursor>(
      std::static_pointer_cast<const RecordQueryInJoinPlan>(shared_from_this()), execution,
      bindings, properties, std::move(values), start, std::move(innerContinuation));
}

}  // namespace rl
