#include "rl/cursor/cursor.h"

#include "rl/cursor/key_value_continuation.h"

namespace rl {

std::string_view noNextReasonName(NoNextReason reason) {
  switch (reason) {
    case NoNextReason::kSourceExhausted: return "SOURCE_EXHAUSTED";
    case NoNextReason::kReturnLimitReached: return "RETURN_LIMIT_REACHED";
    case NoNextReason::kTimeLimitReached: return "TIME_LIMIT_REACHED";
    case NoNextReason::kScanLimitReached: return "SCAN_LIMIT_REACHED";
    case NoNextReason::kByteLimitReached: return "BYTE_LIMIT_REACHED";
  }
  return "UNKNOWN";
}

std::optional<fdb::Bytes> Continuation::toBytes() const {
  switch (kind_) {
    case Kind::kStart:
    case Kind::kEnd: return std::nullopt;
    case Kind::kBytes:
    case Kind::kRawKeySuffix: return bytes_;
    case Kind::kWrappedKeySuffix: return wrapKeyValueContinuation(bytes_);
  }
  return std::nullopt;
}

}  // namespace rl
