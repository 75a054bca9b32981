// Counting allocations in a benchmark binary. Linking alloc_counter.cc into a binary
// interposes malloc, calloc, realloc, free and the global operator new/delete, so
// allocations by C libraries (RocksDB, libstdc++) are counted as well as our own.
//
//   AllocationCounts before = allocationCounts();
//   ... the measured work ...
//   AllocationCounts spent = allocationCounts() - before;
//
// Thread-safety: counters are atomic; counting is process-wide.
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
