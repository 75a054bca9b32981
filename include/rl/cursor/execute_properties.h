// rl::ExecuteProperties and rl::ScanProperties — how far and how a scan may go.
//
// ExecuteProperties say what a query or scan may return and read: values to skip, a
// returned-row limit, out-of-band limits on records scanned, bytes scanned and time, the
// isolation of its reads, and whether hitting a scan limit fails instead of stopping.
// ScanProperties add the direction and the streaming mode of the range reads.
//
//   rl::ExecuteProperties execute;
//   execute.returnedRowLimit = 100;
//   execute.scannedRecordsLimit = 1000;
//   execute.isolation = rl::IsolationLevel::kSnapshot;
//   rl::ScanProperties scan(execute, /*reverse=*/true);
//
// Scan limits are counted by limiters. Cursors built from properties with no shared state
// count on their own; properties.shareLimits() gives every cursor built from the result (and
// its copies) one record limiter and one byte limiter, as the Java Record Layer's
// ExecuteState does for a union of several scans.
//
// Thread-safety: the properties are values; shared limiters are atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "fdb/types.h"

namespace rl {

enum class IsolationLevel {
  kSerializable,  // reads add read conflict ranges
  kSnapshot,      // reads add none
};

// How many rows each range read asks for (docs/format.md, "Cursors"); kWantAll becomes
// FoundationDB's EXACT mode when there is a row limit.
enum class CursorStreamingMode { kIterator, kWantAll, kSmall, kMedium, kLarge };

// Counts records scanned against a limit; may be shared by several cursors.
class RecordScanLimiter {
 public:
  explicit RecordScanLimiter(int64_t limit) : remaining_(limit) {}
  // Counts one more record; false when that is over the limit.
  bool tryRecordScan() { return remaining_.fetch_sub(1, std::memory_order_relaxed) > 0; }
  int64_t remaining() const { return remaining_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> remaining_;
};

// Counts bytes scanned against a limit; may be shared by several cursors.
class ByteScanLimiter {
 public:
  explicit ByteScanLimiter(int64_t limit) : remaining_(limit) {}
  void registerScannedBytes(int64_t bytes) {
    remaining_.fetch_sub(bytes, std::memory_order_relaxed);
  }
  bool hasBytesRemaining() const { return remaining_.load(std::memory_order_relaxed) > 0; }

 private:
  std::atomic<int64_t> remaining_;
};

// Limiters shared by every cursor of one execution.
struct ExecuteState {
  std::shared_ptr<RecordScanLimiter> records;  // null: no record limit
  std::shared_ptr<ByteScanLimiter> bytes;      // null: no byte limit
};

struct ExecuteProperties {
  static constexpr int kRowLimitUnlimited = 0;
  static constexpr int64_t kUnlimitedTime = 0;
  static constexpr int kScannedRecordsUnlimited = std::numeric_limits<int>::max();
  static constexpr int64_t kScannedBytesUnlimited = std::numeric_limits<int64_t>::max();

  // Values to skip before the first one returned.
  int skip = 0;
  // Values to return at most; 0 (or INT_MAX) = no limit. A stop here is RETURN_LIMIT_REACHED.
  int returnedRowLimit = kRowLimitUnlimited;
  // Milliseconds since the record context began; 0 = none. A stop here is TIME_LIMIT_REACHED.
  int64_t timeLimitMillis = kUnlimitedTime;
  // Key-values read at most (SCAN_LIMIT_REACHED) and their bytes (BYTE_LIMIT_REACHED). Each
  // cursor may still return one value before such a stop (the free initial pass).
  int scannedRecordsLimit = kScannedRecordsUnlimited;
  int64_t scannedBytesLimit = kScannedBytesUnlimited;
  IsolationLevel isolation = IsolationLevel::kSerializable;
  // Throw ScanLimitReachedException instead of stopping at a scan limit (and no free pass).
  bool failOnScanLimitReached = false;
  CursorStreamingMode defaultStreamingMode = CursorStreamingMode::kIterator;
  // Limiters shared by several cursors; null: each cursor counts on its own.
  std::shared_ptr<ExecuteState> state;

  // The row limit with 0 / INT_MAX as "no limit" (0).
  int normalizedRowLimit() const {
    return returnedRowLimit == std::numeric_limits<int>::max() ? 0 : returnedRowLimit;
  }
  // A copy whose cursors share one set of limiters built from the scan limits.
  ExecuteProperties shareLimits() const;
  // The limiters a cursor built from these properties counts with.
  ExecuteState stateForCursor() const;
  // A copy without skip and returned-row limit.
  ExecuteProperties clearSkipAndLimit() const;
  // A copy without returned-row and time limits (skip kept).
  ExecuteProperties clearRowAndTimeLimits() const;
  // A copy with no scan limits at all (no limiters, no scanned-records/bytes limits).
  ExecuteProperties clearState() const;
};

struct ScanProperties {
  ScanProperties() = default;
  explicit ScanProperties(ExecuteProperties execute, bool reverse = false)
      : execute(std::move(execute)),
        reverse(reverse),
        streamingMode(this->execute.defaultStreamingMode) {}
  ScanProperties(ExecuteProperties execute, bool reverse, CursorStreamingMode mode)
      : execute(std::move(execute)), reverse(reverse), streamingMode(mode) {}

  static ScanProperties forwardScan() { return ScanProperties(); }
  static ScanProperties reverseScan() { return ScanProperties(ExecuteProperties{}, true); }

  ExecuteProperties execute;
  bool reverse = false;
  CursorStreamingMode streamingMode = CursorStreamingMode::kIterator;
};

// FoundationDB's streaming mode for a cursor mode and row limit (0 = none).
fdb::StreamingMode toFdbStreamingMode(CursorStreamingMode mode, int rowLimit);

}  // namespace rl
