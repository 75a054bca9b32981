// Constants and helpers shared by engine_transaction.cc and transaction_reads.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/future.h"
#include "fdb/key_selector.h"
#include "fdb/types.h"

namespace fdb::engine::internal {

// The ends of the readable key space without and with system-key access.
inline const Bytes kNormalKeysEnd = "\xff";
inline const Bytes kSystemKeysEnd = "\xff\xff";
// [\xff\xff, \xff\xff\xff): FoundationDB's client-side special key space.
inline const Bytes kSpecialKeysEnd = "\xff\xff\xff";
inline const Bytes kMetadataVersionKey = "\xff/metadataVersion";

constexpr size_t kKeySizeLimit = 10000;
constexpr size_t kSystemKeySizeLimit = 30000;
// Longer keys cannot exist: reading one gives absent (10,000 plus the 8-byte tenant
// prefix allowance, getMaxReadKeySize).
constexpr size_t kReadKeySizeLimit = 10008;
// sizeof(MutationRef) and sizeof(KeyRangeRef) in FoundationDB's size accounting.
constexpr int64_t kMutationOverhead = 40;
constexpr int64_t kConflictRangeOverhead = 32;

constexpr int kAccessedUnreadable = 1036;
constexpr int kTooManyWatches = 1032;
constexpr int kWatchesDisabled = 1034;
constexpr int kTransactionInvalidVersion = 2020;
constexpr int kNoCommitVersion = 2021;
constexpr int kMappedRangeReadsYourWrites = 2039;
constexpr int kUnsupportedOperation = 2108;
constexpr int kSpecialKeysWriteDisabled = 2114;

// key + '\0', sized once (Bytes(key) + '\0' allocates twice for a key past the inline size).
inline Bytes keyAfter(std::string_view key) {
  Bytes after;
  after.reserve(key.size() + 1);
  after.append(key).push_back('\0');
  return after;
}

[[noreturn]] inline void throwUnreadable(std::string_view key) {
  throw Error(kAccessedUnreadable,
              fmt::format("'{}' depends on this transaction's versionstamp", printable(key)));
}

// A range read's selectors and limits as every kind of range read (plain or mapped) uses
// them: the row limit, the byte limit (from EngineTransaction::validateRange), and the
// selectors' keys with orEqual folded in. The keys are views of the selectors', copied only
// when orEqual makes a new key, so a request is neither copied nor moved.
class RangeRequest {
 public:
  RangeRequest(KeySelectorRef begin, KeySelectorRef end, const RangeOptions& options,
               int64_t byteLimit)
      : byteLimit(byteLimit),
        rowLimit(options.limit > 0 ? static_cast<size_t>(options.limit) : SIZE_MAX),
        beginKey(begin.orEqual ? std::string_view(beginAfter_ = keyAfter(begin.key)) : begin.key),
        endKey(end.orEqual ? std::string_view(endAfter_ = keyAfter(end.key)) : end.key),
        // An inverted range is empty, not an error, and reads nothing.
        empty(begin.offset >= end.offset && beginKey >= endKey) {}
  RangeRequest(const RangeRequest&) = delete;
  RangeRequest& operator=(const RangeRequest&) = delete;

 private:
  Bytes beginAfter_, endAfter_;  // declared first: the keys below may view them

 public:
  const int64_t byteLimit;  // -1: unlimited
  const size_t rowLimit;    // SIZE_MAX: unlimited
  const std::string_view beginKey;
  const std::string_view endKey;
  const bool empty;
};

// Bytes a range read returns per batch by streaming mode (docs/semantics.md, "Range reads"); -1 =
// unlimited.
int64_t modeByteLimit(StreamingMode mode, int iteration);

}  // namespace fdb::engine::internal
