// Counting allocations in a benchmark binary. Linking alloc_counter.cc into a binary
// interposes malloc, calloc, realloc, free and the global operator new/delete, so
// allocations by C libraries (RocksDB, libstdc++) are counted as well as our own.
//
//   AllocationCounts before = allocationCounts();
//   ... the measured work ...
//   AllocationCounts spent = allocationCounts() - before;
//
// Thread-safety: each thread counts into its own block; allocationCounts() sums every
// thread's, so counting is process-wide (a thread's latest allocations may be missed by a
// concurrent read).
#pragma once

#include <cstdint>

namespace rl::bench {

struct AllocationCounts {
  uint64_t allocations = 0;
  uint64_t bytes = 0;

  AllocationCounts operator-(const AllocationCounts& earlier) const {
    return {allocations - earlier.allocations, bytes - earlier.bytes};
  }
};

AllocationCounts allocationCounts();

}  // namespace rl::bench
