#include "rl/key_value_cursor.h"

#include <limits>

#include "rl/cursor/key_value_continuation.h"

namespace rl {

KeyEndpoints KeyEndpoints::of(const fdb::Subspace& subspace, const TupleRange& range) {
  KeyEndpoints endpoints;
  if (range.low) endpoints.low = subspace.pack(*range.low);
  if (range.high) endpoints.high = subspace.pack(*range.high);
  endpoints.lowEndpoint = range.lowEndpoint;
  endpoints.highEndpoint = range.highEndpoint;
  return endpoints;
}

KeyValueCursor::KeyValueCursor(RecordContext& context, const fdb::Subspace& subspace,
                               const TupleRange& range, const ScanProperties& properties,
                               const std::optional<fdb::Bytes>& continuation,
                               ContinuationFormat format)
    : KeyValueCursor(context, subspace, KeyEndpoints::of(subspace, range), properties, continuation,
                     format) {}

KeyValueScanBounds KeyValueScanBounds::of(const fdb::Subspace& subspace,
                                          const KeyEndpoints& endpoints,
                                          const ScanProperties& properties,
                                          const std::optional<fdb::Bytes>& continuation) {
  KeyValueScanBounds bounds;
  fdb::Bytes low = endpoints.low.value_or(subspace.key());
  fdb::Bytes high = endpoints.high.value_or(subspace.key());
  EndpointType lowType = endpoints.lowEndpoint;
  EndpointType highType = endpoints.highEndpoint;

  // Continuations leave out what every key of the range shares: at least the subspace.
  size_t prefix = subspace.key().size();
  while (prefix < low.size() && prefix < high.size() && low[prefix] == high[prefix]) ++prefix;
  if (lowType == EndpointType::kPrefixString && highType == EndpointType::kPrefixString) {
    --prefix;  // keys extend the string itself, past its terminating 0x00
  }
  bounds.prefixLength = prefix;

  if (continuation) {
    fdb::Bytes suffix = unwrapKeyValueContinuation(*continuation);
    fdb::Bytes resumeKey = low.substr(0, prefix) + suffix;
    bounds.resumedSuffix = std::move(suffix);
    if (properties.reverse) {
      high = std::move(resumeKey);
      highType = EndpointType::kContinuation;
    } else {
      low = std::move(resumeKey);
      lowType = EndpointType::kContinuation;
    }
  }
  bounds.byteRange = TupleRange::toRange(low, high, lowType, highType);

  bounds.begin = fdb::KeySelector::firstGreaterOrEqual(bounds.byteRange.begin);
  bounds.end = fdb::KeySelector::firstGreaterOrEqual(bounds.byteRange.end);
  const int skip = properties.execute.skip;
  if (skip > 0) {
    if (properties.reverse) {
      bounds.end = bounds.end - skip;
    } else {
      bounds.begin = bounds.begin + skip;
    }
  }
  return bounds;
}

KeyValueCursor::KeyValueCursor(RecordContext& context, const fdb::Subspace& subspace,
                               const KeyEndpoints& endpoints, const ScanProperties& properties,
                               const std::optional<fdb::Bytes>& continuation,
                               ContinuationFormat format)
    : context_(&context),
      format_(format),
      reverse_(properties.reverse),
      snapshot_(properties.execute.isolation == IsolationLevel::kSnapshot),
      limits_(context.createTime(), properties.execute) {
  KeyValueScanBounds bounds = KeyValueScanBounds::of(subspace, endpoints, properties, continuation);
  prefixLength_ = bounds.prefixLength;
  byteRange_ = std::move(bounds.byteRange);
  begin_ = std::move(bounds.begin);
  end_ = std::move(bounds.end);
  lastSuffix_ = std::move(bounds.resumedSuffix);
  rowLimit_ = properties.execute.normalizedRowLimit();
  rowsLeftToAsk_ = rowLimit_;
  mode_ = toFdbStreamingMode(properties.streamingMode, rowLimit_);
  requestBatch();
}

void KeyValueCursor::requestBatch() {
  fdb::RangeOptions options;
  options.limit = rowLimit_ == 0 ? 0 : rowsLeftToAsk_;
  options.mode = mode_;
  options.iteration = iteration_++;
  options.reverse = reverse_;
  fdb::Transaction& tr = context_->transaction();
  pending_ = snapshot_ ? tr.snapshot().getRange(begin_, end_, options)
                       : tr.getRange(begin_, end_, options);
  ++batchesRequested_;
}

const fdb::KeyValueRef* KeyValueCursor::nextRow() {
  while (true) {
    if (batch_ && batchIndex_ < batch_->rows.size()) return &batch_->rows[batchIndex_++];
    if (!pending_) return nullptr;
    batch_ = std::make_shared<const fdb::RangeResult>(std::move(*pending_).get());
    pending_.reset();
    batchIndex_ = 0;
    const fdb::RangeResult& batch = *batch_;
    if (rowLimit_ != 0) rowsLeftToAsk_ -= static_cast<int>(batch.rows.size());
    if (batch.more && !batch.rows.empty() && (rowLimit_ == 0 || rowsLeftToAsk_ > 0)) {
      // Ask for the next batch now, so that it arrives while this one is consumed.
      const fdb::Bytes lastKey(batch.rows.back().key);
      if (reverse_) {
        end_ = fdb::KeySelector::firstGreaterOrEqual(lastKey);
      } else {
        begin_ = fdb::KeySelector::firstGreaterThan(lastKey);
      }
      requestBatch();
    }
  }
}

Continuation KeyValueCursor::continuationHere() const {
  if (!lastSuffix_) return Continuation::start();
  return Continuation::afterKeySuffix(*lastSuffix_, format_);
}

CursorResult<fdb::KeyValueRef> KeyValueCursor::next() {
  if (stopped_) return *stopped_;
  if (!limits_.tryRecordScan()) {
    stopped_ =
        CursorResult<fdb::KeyValueRef>::withoutValue(*limits_.stoppedReason(), continuationHere());
    return *stopped_;
  }
  const fdb::KeyValueRef* row = nextRow();
  if (row != nullptr) {
    limits_.reportScannedBytes(static_cast<int64_t>(row->key.size() + row->value.size()));
    ++valuesSeen_;
    if (!lastSuffix_) lastSuffix_.emplace();
    lastSuffix_->assign(row->key.substr(std::min(prefixLength_, row->key.size())));
    return CursorResult<fdb::KeyValueRef>::withValue(*row, continuationHere());
  }
  if (rowLimit_ != 0 && valuesSeen_ >= rowLimit_) {
    stopped_ = CursorResult<fdb::KeyValueRef>::withoutValue(NoNextReason::kReturnLimitReached,
                                                            continuationHere());
  } else {
    stopped_ = CursorResult<fdb::KeyValueRef>::exhausted();
  }
  return *stopped_;
}

}  // namespace rl
