// The High Contention Allocator (docs/directory.md, "3. Prefix allocation"): hands out short, never
// reused integers packed as one-element tuples, for the directory layer's prefixes. It keeps a
// window of candidates [start, start + window) and picks at random inside it, so that concurrent
// allocations rarely collide; the window moves on once half of it has been handed out.
//
// Layout under `hcaSubspace` (the directory layer's root_node[b"hca"]):
//   hcaSubspace[0][start]     = 8-byte little-endian count of allocations in the window
//   hcaSubspace[1][candidate] = b"" for every candidate handed out in the window
//
// Private to the directory layer.
#pragma once

#include <cstdint>

#include "fdb/directory.h"
#include "fdb/subspace.h"
#include "fdb/transaction.h"

namespace fdb {

class HighContentionAllocator {
 public:
  // REQUIRES: `random` returns an integer in [lo, hi) and is safe to call concurrently.
  HighContentionAllocator(const Subspace& hcaSubspace, DirectoryLayer::RandomSource random);

  // Returns Tuple{candidate}.pack() for a candidate no other allocate() on this subspace has
  // returned or will return once `tr` commits. Reads the counters at snapshot isolation,
  // writes them with ADD, and conflicts only on the chosen candidate.
  Bytes allocate(Transaction& tr) const;

  // 64 while start < 255, 1024 while start < 65535, else 8192.
  static int64_t windowSize(int64_t start);

 private:
  // The start of the latest window (0 when there is none), read at snapshot isolation.
  int64_t latestWindowStart(Transaction& tr) const;

  Subspace counters_;
  Subspace recent_;
  DirectoryLayer::RandomSource random_;
};

}  // namespace fdb
