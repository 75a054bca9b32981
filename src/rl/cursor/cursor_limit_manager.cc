#include "rl/cursor/cursor_limit_manager.h"

#include "rl/record_core_exception.h"

namespace rl {

CursorLimitManager::CursorLimitManager(std::chrono::steady_clock::time_point startTime,
                                       const ExecuteProperties& properties)
    : failOnScanLimitReached_(properties.failOnScanLimitReached) {
  ExecuteState state = properties.stateForCursor();
  records_ = std::move(state.records);
  bytes_ = std::move(state.bytes);
  if (properties.timeLimitMillis != ExecuteProperties::kUnlimitedTime) {
    deadline_ = startTime + std::chrono::milliseconds(properties.timeLimitMillis);
  }
}

bool CursorLimitManager::tryRecordScan() {
  // The record limiter counts every attempt, the free pass included.
  const bool recordsLeft = !records_ || records_->tryRecordScan();
  haltedByRecords_ = !recordsLeft && (usedInitialPass_ || failOnScanLimitReached_);
  haltedByBytes_ = bytes_ && !bytes_->hasBytesRemaining() && usedInitialPass_;
  haltedByTime_ = deadline_ && std::chrono::steady_clock::now() >= *deadline_ && usedInitialPass_;
  const bool halted = haltedByRecords_ || haltedByBytes_ || haltedByTime_;
  if (!halted) {
    usedInitialPass_ = true;
  } else if (failOnScanLimitReached_) {
    throw ScanLimitReachedException("limit on the number of key-values scanned reached");
  }
  return !halted;
}

void CursorLimitManager::reportScannedBytes(int64_t bytes) {
  if (bytes_) bytes_->registerScannedBytes(bytes);
}

std::optional<NoNextReason> CursorLimitManager::stoppedReason() const {
  if (haltedByRecords_) return NoNextReason::kScanLimitReached;
  if (haltedByBytes_) return NoNextReason::kByteLimitReached;
  if (haltedByTime_) return NoNextReason::kTimeLimitReached;
  return std::nullopt;
}

}  // namespace rl
