// rl::CursorLimitManager — tracks the out-of-band limits (scanned records, scanned bytes,
// time) of one base cursor and says when it must stop, and why.
//
// Each base cursor gets one free initial pass: it may always scan one key-value before an
// out-of-band limit stops it, so that cursors with several children always make progress
// (unless failOnScanLimitReached, which throws at the record limit instead). The record and
// byte limiters may be shared by several cursors (ExecuteProperties::shareLimits).
//
//   rl::CursorLimitManager limits(context.createTime(), properties.execute);
//   if (limits.tryRecordScan()) { read one; limits.reportScannedBytes(k.size() + v.size()); }
//   else stop with *limits.stoppedReason();
//
// Thread-safety: one thread at a time (shared limiters are atomic).
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"

namespace rl {

class CursorLimitManager {
 public:
  // Limits from `properties` (their shared state, or limiters of this manager's own); the
  // time limit counts from `startTime`.
  CursorLimitManager(std::chrono::steady_clock::time_point startTime,
                     const ExecuteProperties& properties);
  // No limits at all.
  CursorLimitManager() = default;

  // Counts one more key-value. True when it may be scanned; false when a limit stops the
  // cursor (see stoppedReason()). Throws ScanLimitReachedException when the record limit is
  // hit and the properties say to fail.
  bool tryRecordScan();
  void reportScannedBytes(int64_t bytes);
  // The limit that stopped the cursor at the last tryRecordScan (records, then bytes, then
  // time), or nullopt.
  std::optional<NoNextReason> stoppedReason() const;
  bool isStopped() const { return stoppedReason().has_value(); }

 private:
  std::shared_ptr<RecordScanLimiter> records_;
  std::shared_ptr<ByteScanLimiter> bytes_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  bool failOnScanLimitReached_ = false;
  bool usedInitialPass_ = false;
  bool haltedByRecords_ = false;
  bool haltedByBytes_ = false;
  bool haltedByTime_ = false;
};

}  // namespace rl
