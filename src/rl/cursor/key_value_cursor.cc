#include "rl/cursor/key_value_cursor.h"

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
    // A continuation names a position inside the range; one outside it (another scan's, or
    // arbitrary bytes) resumes at the range's edge, so a scan never reads outside its range.
    const fdb::KeyRange whole = TupleRange::toRange(low, high, lowType, highType);
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
    bounds.byteRange = TupleRange::toRange(low, high, lowType, highType);
    fdb::KeyRange& range = bounds.byteRange;
    if (range.begin < whole.begin) range.begin = whole.begin;
    if (range.end > whole.end) range.end = whole.end;
    if (range.begin > range.end) range.begin = range.end;
  } else {
    bounds.byteRange = TupleRange::toRange(low, high, lowType, highType);
  }

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
    : format_(format), limits_(context.createTime(), properties.execute) {
  KeyValueScanBounds bounds = KeyValueScanBounds::of(subspace, endpoints, properties, continuation);
  prefixLength_ = bounds.prefixLength;
  byteRange_ = std::move(bounds.byteRange);
  lastSuffix_ = std::move(bounds.resumedSuffix);
  rowLimit_ = properties.execute.normalizedRowLimit();
  rows_.emplace(RangeSource{&context, properties.execute.isolation == IsolationLevel::kSnapshot},
                std::move(bounds.begin), std::move(bounds.end), rowLimit_,
                toFdbStreamingMode(properties.streamingMode, rowLimit_), properties.reverse);
}

fdb::Future<fdb::RangeResult> KeyValueCursor::RangeSource::read(
    const fdb::KeySelector& begin, const fdb::KeySelector& end,
    const fdb::RangeOptions& options) const {
  fdb::Transaction& tr = context->transaction();
  return snapshot ? tr.snapshot().getRange(begin, end, options) : tr.getRange(begin, end, options);
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
  const fdb::KeyValueRef* row = rows_->next();
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
