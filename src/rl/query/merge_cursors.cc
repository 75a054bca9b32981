#include "rl/query/merge_cursors.h"

#include "record_cursor.pb.h"
#include "rl/record_core_exception.h"

namespace rl::query {
namespace {

using UnionProto = ::com::apple::foundationdb::record::UnionContinuation;
using IntersectionProto = ::com::apple::foundationdb::record::IntersectionContinuation;

ChildPosition unionPosition(bool hasContinuation, const std::string& continuation, bool exhausted) {
  ChildPosition at;
  at.done = exhausted;
  if (!exhausted && hasContinuation) at.continuation = continuation;
  return at;
}

ChildPosition intersectionPosition(bool hasContinuation, const std::string& continuation,
                                   bool started) {
  ChildPosition at;
  if (hasContinuation) {
    at.continuation = continuation;
  } else if (started) {
    at.done = true;
  }
  return at;
}

}  // namespace

std::vector<ChildPosition> decodeUnionContinuation(const RecordQueryPlan& plan,
                                                   const std::optional<fdb::Bytes>& bytes,
                                                   size_t children) {
  std::vector<ChildPosition> positions(children);
  if (!bytes) return positions;
  UnionProto proto;
  if (!proto.ParseFromString(*bytes)) throwForeignContinuation(plan, "not a union continuation");
  const size_t have = 2 + static_cast<size_t>(proto.other_child_state_size());
  if (have != children) {
    throwForeignContinuation(plan, "a union continuation of " + std::to_string(have) +
                                       " children, not " + std::to_string(children));
  }
  positions[0] = unionPosition(proto.has_first_continuation(), proto.first_continuation(),
                               proto.first_exhausted());
  positions[1] = unionPosition(proto.has_second_continuation(), proto.second_continuation(),
                               proto.second_exhausted());
  for (int i = 0; i < proto.other_child_state_size(); ++i) {
    const auto& state = proto.other_child_state(i);
    positions[2 + static_cast<size_t>(i)] =
        unionPosition(state.has_continuation(), state.continuation(), state.exhausted());
  }
  return positions;
}

fdb::Bytes encodeUnionContinuation(const std::vector<ChildPosition>& positions) {
  UnionProto proto;
  for (size_t i = 0; i < positions.size(); ++i) {
    const ChildPosition& at = positions[i];
    if (i == 0) {
      if (at.continuation) proto.set_first_continuation(*at.continuation);
      if (at.done) proto.set_first_exhausted(true);
    } else if (i == 1) {
      if (at.continuation) proto.set_second_continuation(*at.continuation);
      if (at.done) proto.set_second_exhausted(true);
    } else {
      auto* state = proto.add_other_child_state();
      if (at.continuation) state->set_continuation(*at.continuation);
      if (at.done) state->set_exhausted(true);
    }
  }
  return proto.SerializeAsString();
}

std::vector<ChildPosition> decodeIntersectionContinuation(const RecordQueryPlan& plan,
                                                          const std::optional<fdb::Bytes>& bytes,
                                                          size_t children) {
  std::vector<ChildPosition> positions(children);
  if (!bytes) return positions;
  IntersectionProto proto;
  if (!proto.ParseFromString(*bytes)) {
    throwForeignContinuation(plan, "not an intersection continuation");
  }
  const size_t have = 2 + static_cast<size_t>(proto.other_child_state_size());
  if (have != children) {
    throwForeignContinuation(plan, "an intersection continuation of " + std::to_string(have) +
                                       " children, not " + std::to_string(children));
  }
  positions[0] = intersectionPosition(proto.has_first_continuation(), proto.first_continuation(),
                                      proto.first_started());
  positions[1] = intersectionPosition(proto.has_second_continuation(), proto.second_continuation(),
                                      proto.second_started());
  for (int i = 0; i < proto.other_child_state_size(); ++i) {
    const auto& state = proto.other_child_state(i);
    positions[2 + static_cast<size_t>(i)] =
        intersectionPosition(state.has_continuation(), state.continuation(), state.started());
  }
  return positions;
}

fdb::Bytes encodeIntersectionContinuation(const std::vector<ChildPosition>& positions) {
  IntersectionProto proto;
  for (size_t i = 0; i < positions.size(); ++i) {
    const ChildPosition& at = positions[i];
    const bool started = at.done || at.continuation.has_value();
    if (i == 0) {
      if (at.continuation) proto.set_first_continuation(*at.continuation);
      proto.set_first_started(started);
    } else if (i == 1) {
      if (at.continuation) proto.set_second_continuation(*at.continuation);
      proto.set_second_started(started);
    } else {
      auto* state = proto.add_other_child_state();
      if (at.continuation) state->set_continuation(*at.continuation);
      state->set_started(started);
    }
  }
  return proto.SerializeAsString();
}

MergeChild MergeChild::resumedAt(const ChildPosition& at, CursorPtr<QueriedRecord> cursor) {
  MergeChild child;
  if (at.done) {
    child.done = true;
    child.position = Continuation::end();
    return child;
  }
  child.cursor = std::move(cursor);
  if (at.continuation) child.position = Continuation::fromBytes(*at.continuation);
  return child;
}

std::optional<NoNextReason> MergeCursor::fillAhead() {
  std::optional<NoNextReason> stop;
  for (MergeChild& child : children_) {
    if (child.done || child.ahead) continue;
    CursorResult<QueriedRecord> result = child.cursor->next();
    if (result.hasValue()) {
      child.aheadKey = key_.of(result.value());
      child.aheadContinuation = result.continuation();
      child.ahead = std::move(result.value());
    } else if (isSourceExhausted(result.noNextReason())) {
      child.done = true;
      child.position = Continuation::end();
      child.cursor.reset();
    } else {
      // Nothing read ahead: everything it read is behind its stop's continuation.
      child.position = result.continuation();
      if (!stop) stop = result.noNextReason();
    }
  }
  return stop;
}

Continuation MergeCursor::continuation() const {
  std::vector<ChildPosition> positions;
  positions.reserve(children_.size());
  bool allDone = true;
  for (const MergeChild& child : children_) {
    ChildPosition at;
    at.done = child.done || child.position.isEnd();
    if (!at.done) at.continuation = child.position.toBytes();
    allDone = allDone && at.done;
    positions.push_back(std::move(at));
  }
  if (allDone) return Continuation::end();
  return Continuation::fromBytes(format_ == Format::kUnion
                                     ? encodeUnionContinuation(positions)
                                     : encodeIntersectionContinuation(positions));
}

QueriedRecord MergeCursor::take(size_t i) {
  MergeChild& child = children_[i];
  child.position = child.aheadContinuation;
  QueriedRecord row = std::move(*child.ahead);
  child.ahead.reset();
  return row;
}

CursorResult<QueriedRecord> UnionCursor::next() {
  if (stopped_) return *stopped_;
  if (std::optional<NoNextReason> stop = fillAhead()) {
    stopped_ = CursorResult<QueriedRecord>::withoutValue(*stop, continuation());
    return *stopped_;
  }
  std::optional<size_t> first;
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i].ahead) continue;
    if (!first || before(children_[i].aheadKey, children_[*first].aheadKey)) first = i;
  }
  if (!first) {
    stopped_ = CursorResult<QueriedRecord>::exhausted();
    return *stopped_;
  }
  const fdb::Tuple key = children_[*first].aheadKey;
  QueriedRecord row = take(*first);
  for (size_t i = *first + 1; i < children_.size(); ++i) {
    if (children_[i].ahead && children_[i].aheadKey == key) take(i);
  }
  return CursorResult<QueriedRecord>::withValue(std::move(row), continuation());
}

CursorResult<QueriedRecord> IntersectionCursor::next() {
  if (stopped_) return *stopped_;
  while (true) {
    const std::optional<NoNextReason> stop = fillAhead();
    for (const MergeChild& child : children_) {
      if (child.done) {
        stopped_ = CursorResult<QueriedRecord>::exhausted();
        return *stopped_;
      }
    }
    if (stop) {
      stopped_ = CursorResult<QueriedRecord>::withoutValue(*stop, continuation());
      return *stopped_;
    }
    // The last key in the merge's order among the rows ahead: every child must reach it.
    size_t last = 0;
    for (size_t i = 1; i < children_.size(); ++i) {
      if (before(children_[last].aheadKey, children_[i].aheadKey)) last = i;
    }
    const fdb::Tuple target = children_[last].aheadKey;
    bool allThere = true;
    for (size_t i = 0; i < children_.size(); ++i) {
      if (children_[i].aheadKey != target) {
        allThere = false;
        take(i);  // behind the target: it cannot be in the intersection
      }
    }
    if (allThere) {
      QueriedRecord row = take(0);
      for (size_t i = 1; i < children_.size(); ++i) take(i);
      return CursorResult<QueriedRecord>::withValue(std::move(row), continuation());
    }
  }
}

}  // namespace rl::query
