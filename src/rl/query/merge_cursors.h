// Cursors that merge several child cursors ordered on one comparison key: the union (each key
// once) and the intersection (keys every child has), with continuations that record where each
// child stands (docs/query.md, "Continuations"). Private to src/rl/query.
//
//   std::vector<query::ChildPosition> at = query::decodeUnionContinuation(plan, bytes, n);
//   ... make each child cursor from at[i] ...
//   query::UnionCursor cursor(std::move(children), rowKey, reverse);
//
// A child's position is the continuation of the last row taken from it, not of a row it has
// read ahead: when the merge stops (a child hit a scan limit), resuming reads that row again.
#pragma once

#include <optional>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/cursor/cursor.h"
#include "rl/query/query_execution.h"

namespace rl::query {

// Where one child of a merge stands.
struct ChildPosition {
  std::optional<fdb::Bytes> continuation;  // nullopt: at its start (or its end, when done)
  bool done = false;                       // read to its end
};

// A UnionContinuation for `children` children (none: all at their start). Throws
// RecordCoreArgumentException when it is not one or has another number of children.
std::vector<ChildPosition> decodeUnionContinuation(const RecordQueryPlan& plan,
                                                   const std::optional<fdb::Bytes>& bytes,
                                                   size_t children);
fdb::Bytes encodeUnionContinuation(const std::vector<ChildPosition>& positions);
// The same as IntersectionContinuation.
std::vector<ChildPosition> decodeIntersectionContinuation(const RecordQueryPlan& plan,
                                                          const std::optional<fdb::Bytes>& bytes,
                                                          size_t children);
fdb::Bytes encodeIntersectionContinuation(const std::vector<ChildPosition>& positions);

// One child of a merge: its cursor (null when it was already done) and the row read ahead.
struct MergeChild {
  CursorPtr<QueriedRecord> cursor;
  Continuation position = Continuation::start();
  bool done = false;
  std::optional<QueriedRecord> ahead;
  Continuation aheadContinuation = Continuation::start();
  fdb::Tuple aheadKey;

  // A child resuming at `at`, read by `cursor` (null when `at.done`).
  static MergeChild resumedAt(const ChildPosition& at, CursorPtr<QueriedRecord> cursor);
};

// Shared by the union and the intersection: reading ahead, stopping, continuations.
class MergeCursor : public RecordCursor<QueriedRecord> {
 public:
  enum class Format { kUnion, kIntersection };
  MergeCursor(std::vector<MergeChild> children, RowKey key, bool reverse, Format format)
      : children_(std::move(children)), key_(std::move(key)), reverse_(reverse), format_(format) {}

 protected:
  // Reads a row ahead in every child that has none; the first out-of-band stop, if any.
  std::optional<NoNextReason> fillAhead();
  // The continuation of the merge as it stands (each child at its position).
  Continuation continuation() const;
  // Takes child i's row ahead: its position moves past it.
  QueriedRecord take(size_t i);
  // a before b in the merge's order.
  bool before(const fdb::Tuple& a, const fdb::Tuple& b) const { return reverse_ ? b < a : a < b; }

  std::vector<MergeChild> children_;
  RowKey key_;
  bool reverse_;
  Format format_;
  std::optional<CursorResult<QueriedRecord>> stopped_;
};

// Every key any child has, once, in order; the row comes from the first child having it.
class UnionCursor : public MergeCursor {
 public:
  UnionCursor(std::vector<MergeChild> children, RowKey key, bool reverse)
      : MergeCursor(std::move(children), std::move(key), reverse, Format::kUnion) {}
  CursorResult<QueriedRecord> next() override;
};

// Every key all children have, in order; the row comes from the first child.
class IntersectionCursor : public MergeCursor {
 public:
  IntersectionCursor(std::vector<MergeChild> children, RowKey key, bool reverse)
      : MergeCursor(std::move(children), std::move(key), reverse, Format::kIntersection) {}
  CursorResult<QueriedRecord> next() override;
};

}  // namespace rl::query
