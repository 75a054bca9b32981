#include "rl/cursor/execute_properties.h"

namespace rl {

ExecuteProperties ExecuteProperties::shareLimits() const {
  ExecuteProperties copy = *this;
  copy.state = std::make_shared<ExecuteState>(stateForCursor());
  return copy;
}

ExecuteState ExecuteProperties::stateForCursor() const {
  if (state) return *state;
  ExecuteState fresh;
  if (scannedRecordsLimit != kScannedRecordsUnlimited) {
    fresh.records = std::make_shared<RecordScanLimiter>(scannedRecordsLimit);
  }
  if (scannedBytesLimit != kScannedBytesUnlimited) {
    fresh.bytes = std::make_shared<ByteScanLimiter>(scannedBytesLimit);
  }
  return fresh;
}

ExecuteProperties ExecuteProperties::clearSkipAndLimit() const {
  ExecuteProperties copy = *this;
  copy.skip = 0;
  copy.returnedRowLimit = kRowLimitUnlimited;
  return copy;
}

ExecuteProperties ExecuteProperties::clearRowAndTimeLimits() const {
  ExecuteProperties copy = *this;
  copy.returnedRowLimit = kRowLimitUnlimited;
  copy.timeLimitMillis = kUnlimitedTime;
  return copy;
}

ExecuteProperties ExecuteProperties::clearState() const {
  ExecuteProperties copy = *this;
  copy.state.reset();
  copy.scannedRecordsLimit = kScannedRecordsUnlimited;
  copy.scannedBytesLimit = kScannedBytesUnlimited;
  return copy;
}

fdb::StreamingMode toFdbStreamingMode(CursorStreamingMode mode, int rowLimit) {
  switch (mode) {
    case CursorStreamingMode::kIterator: return fdb::StreamingMode::kIterator;
    case CursorStreamingMode::kSmall: return fdb::StreamingMode::kSmall;
    case CursorStreamingMode::kMedium: return fdb::StreamingMode::kMedium;
    case CursorStreamingMode::kLarge: return fdb::StreamingMode::kLarge;
    case CursorStreamingMode::kWantAll:
      return rowLimit == 0 ? fdb::StreamingMode::kWantAll : fdb::StreamingMode::kExact;
  }
  return fdb::StreamingMode::kIterator;
}

}  // namespace rl
