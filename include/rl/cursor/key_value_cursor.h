// rl::KeyValueCursor — the key-values of a range of a subspace, as a RecordCursor: the base
// of record and index scans.
//
// The range is a TupleRange (or packed endpoints) under the subspace; ScanProperties give
// direction, skip (done by the key selectors), the returned-row limit (passed to the range
// reads), out-of-band limits (CursorLimitManager, with one free initial pass), isolation and
// streaming mode. Continuations are the last key read minus the common prefix of the packed
// range ends, serialized as the Java Record Layer's KeyValueCursorContinuation (or raw); a
// cursor built with one in a new transaction returns exactly the key-values after that key,
// forward or reverse.
//
//   rl::ExecuteProperties execute;
//   execute.returnedRowLimit = 10;
//   rl::KeyValueCursor cursor(context, records, rl::TupleRange::all(),
//                             rl::ScanProperties(execute));
//   rl::CursorResult<fdb::KeyValueRef> r = cursor.next();
//   for (; r.hasValue(); r = cursor.next()) copy(r.value().key);
//   std::optional<fdb::Bytes> resume = r.continuation().toBytes();
//   // later, in another transaction:
//   rl::KeyValueCursor rest(context2, records, rl::TupleRange::all(),
//                           rl::ScanProperties(execute), resume);
//
// Speed: rows come from range reads in batches; the next batch is requested as soon as the
// current one arrives (while it is being consumed), and values are views into the batch,
// not copies. A value (its key and value views) stays valid until the next call to next().
// Serializable scans may therefore add read conflict ranges up to one batch beyond the last
// row returned, as FoundationDB's own iterators do.
//
// Thread-safety: one thread at a time; the cursor must not outlive its RecordContext.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "fdb/key_selector.h"
#include "fdb/subspace.h"
#include "fdb/types.h"
#include "rl/context/record_context.h"
#include "rl/cursor/batched_range_reader.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/cursor_limit_manager.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/tuple_range.h"

namespace rl {

// A range given by packed keys (each defaulting to the subspace's prefix) and endpoint types.
struct KeyEndpoints {
  std::optional<fdb::Bytes> low;
  std::optional<fdb::Bytes> high;
  EndpointType lowEndpoint = EndpointType::kTreeStart;
  EndpointType highEndpoint = EndpointType::kTreeEnd;

  static KeyEndpoints of(const fdb::Subspace& subspace, const TupleRange& range);
};

// Where a key-value scan reads, from its endpoints, properties and continuation: the common
// prefix its continuations leave out, the byte range, and the selectors of the first read
// (skip applied). KeyValueCursor reads with these; so does any cursor that reads the same
// range another way (remote fetch's mapped range reads), so that their continuations are
// interchangeable byte for byte.
struct KeyValueScanBounds {
  size_t prefixLength = 0;
  fdb::KeyRange byteRange;
  fdb::KeySelector begin;
  fdb::KeySelector end;
  // The suffix of the key resumed after (the continuation's), or nullopt at the start.
  std::optional<fdb::Bytes> resumedSuffix;

  static KeyValueScanBounds of(const fdb::Subspace& subspace, const KeyEndpoints& endpoints,
                               const ScanProperties& properties,
                               const std::optional<fdb::Bytes>& continuation);
};

class KeyValueCursor : public RecordCursor<fdb::KeyValueRef> {
 public:
  // `continuation`: bytes a cursor over the same subspace and range handed out (wrapped or
  // raw), or nullopt to start at the beginning (the end, for reverse scans).
  KeyValueCursor(RecordContext& context, const fdb::Subspace& subspace, const TupleRange& range,
                 const ScanProperties& properties,
                 const std::optional<fdb::Bytes>& continuation = std::nullopt,
                 ContinuationFormat format = ContinuationFormat::kWrapped);
  KeyValueCursor(RecordContext& context, const fdb::Subspace& subspace,
                 const KeyEndpoints& endpoints, const ScanProperties& properties,
                 const std::optional<fdb::Bytes>& continuation = std::nullopt,
                 ContinuationFormat format = ContinuationFormat::kWrapped);

  CursorResult<fdb::KeyValueRef> next() override;

  // How many leading bytes every key of the range shares (and continuations leave out).
  size_t prefixLength() const { return prefixLength_; }
  // The byte range read, after endpoints and continuation (before skip).
  const fdb::KeyRange& byteRange() const { return byteRange_; }
  // Range reads issued so far (the first one is issued at construction).
  int batchesRequested() const { return rows_->batchesRequested(); }
  // The batch the last value's views point into. Holding it keeps those views valid after
  // the cursor moves on (values without it are valid until the next call to next()).
  const std::shared_ptr<const fdb::RangeResult>& currentBatch() const { return rows_->batch(); }

 private:
  // Issues the cursor's range reads (serializable or snapshot).
  struct RangeSource {
    RecordContext* context;
    bool snapshot;
    fdb::Future<fdb::RangeResult> read(const fdb::KeySelector& begin, const fdb::KeySelector& end,
                                       const fdb::RangeOptions& options) const;
  };

  Continuation continuationHere() const;

  ContinuationFormat format_;
  size_t prefixLength_ = 0;
  fdb::KeyRange byteRange_;
  int rowLimit_ = 0;  // 0: none
  int valuesSeen_ = 0;
  CursorLimitManager limits_;
  std::optional<BatchedRangeReader<fdb::RangeResult, RangeSource>> rows_;

  // The last key's suffix after the prefix (or the resumed-from one); nullopt at the start.
  std::optional<fdb::Bytes> lastSuffix_;
  std::optional<CursorResult<fdb::KeyValueRef>> stopped_;
};

}  // namespace rl
