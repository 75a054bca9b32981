#include "fdb/high_contention_allocator.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "fdb/error.h"
#include "fdb/types.h"

namespace fdb {
namespace {

// The ADD operand that counts one allocation: 1 as 8 bytes little-endian.
constexpr std::string_view kLittleEndianOne{"\x01\x00\x00\x00\x00\x00\x00\x00", 8};

int64_t decodeCount(const Bytes& value) {
  if (value.size() != 8) {
    throw Error(errors::kInvalidDirectoryLayerMetadata,
                fmt::format("allocator counter of {} bytes, expected 8", value.size()));
  }
  uint64_t count = 0;
  for (int i = 7; i >= 0; --i) count = (count << 8) | static_cast<uint8_t>(value[i]);
  return static_cast<int64_t>(count);
}

}  // namespace

HighContentionAllocator::HighContentionAllocator(const Subspace& hcaSubspace,
                                                 DirectoryLayer::RandomSource random)
    : counters_(hcaSubspace.subspace(Tuple{0})),
      recent_(hcaSubspace.subspace(Tuple{1})),
      random_(std::move(random)) {}

int64_t HighContentionAllocator::windowSize(int64_t start) {
  if (start < 255) return 64;
  if (start < 65535) return 1024;
  return 8192;
}

int64_t HighContentionAllocator::latestWindowStart(Transaction& tr) const {
  std::vector<KeyValue> latest = tr.snapshot().getRangeAll(counters_.range(), 1, /*reverse=*/true);
  if (latest.empty()) return 0;
  return counters_.unpack(latest.front().key).getInt(0);
}

Bytes HighContentionAllocator::allocate(Transaction& tr) const {
  while (true) {
    int64_t start = latestWindowStart(tr);
    int64_t window = windowSize(start);
    bool windowAdvanced = false;
    while (true) {
      if (windowAdvanced) {
        // The old windows' bookkeeping is garbage now. Clearing the recent candidates must not
        // conflict with allocators still choosing in them.
        tr.clearRange(counters_.key(), counters_.pack(Tuple{start}));
        tr.setOption(TransactionOption::kNextWriteNoWriteConflictRange);
        tr.clearRange(recent_.key(), recent_.pack(Tuple{start}));
      }
      Bytes counterKey = counters_.pack(Tuple{start});
      tr.atomicOp(counterKey, kLittleEndianOne, MutationType::kAdd);
      std::optional<Bytes> countValue = tr.snapshot().get(counterKey).get();
      int64_t count = countValue ? decodeCount(*countValue) : 0;
      window = windowSize(start);
      if (count * 2 < window) break;
      start += window;
      windowAdvanced = true;
    }

    while (true) {
      int64_t candidate = random_(start, start + window);
      if (candidate < start || candidate >= start + window) {
        throw Error(errors::kClientInvalidOperation,
                    fmt::format("directory random source returned {} outside [{}, {})", candidate,
                                start, start + window));
      }
      Bytes recentKey = recent_.pack(Tuple{candidate});
      // Issue both reads before waiting on either, as the bindings do.
      Future<RangeResult> latestCounter =
          tr.snapshot().getRange(counters_.range(), RangeOptions{.limit = 1, .reverse = true});
      Future<std::optional<Bytes>> candidateValue = tr.get(recentKey);
      tr.setOption(TransactionOption::kNextWriteNoWriteConflictRange);
      tr.set(recentKey, "");

      const RangeResult& latest = latestCounter.get();
      int64_t currentStart =
          latest.rows.empty() ? 0 : counters_.unpack(latest.rows.front().key).getInt(0);
      if (currentStart > start) break;  // another transaction moved the window: start over

      if (!candidateValue.get()) {
        tr.addWriteConflictKey(recentKey);
        return Tuple{candidate}.pack();
      }
    }
  }
}

}  // namespace fdb
