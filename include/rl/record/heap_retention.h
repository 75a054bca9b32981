// rl::retainFreedHeap — a process-wide allocator policy for programs that read large records
// (docs/benchmarks.md, "Large records and the allocator").
//
// A scan of many large records allocates their bytes (the payload strings of the parsed
// messages, the chunks read from the store) and frees them when the results go. glibc's
// malloc hands the freed top of its heap back to the kernel as soon as more than 128 kB of it
// is free, so the next scan takes a page fault for every 4 kB it allocates again: 1,000
// records of 100 kB take 250-330 ms instead of 16-21 ms. retainFreedHeap raises that trim
// threshold so up to `bytes` of freed heap stay with the process for the next scan, and has
// blocks up to 32 MiB served from the heap (glibc would otherwise map each block over 128 kB
// afresh, a page fault every 4 kB, until its own adaptation raised that limit).
//
// It changes malloc for the whole process, so the library never calls it on its own: a
// program opts in, once, at the start of main (the `rl` command line and this project's
// benchmarks do). Settings the environment already makes (MALLOC_TRIM_THRESHOLD_,
// MALLOC_TOP_PAD_, MALLOC_MMAP_THRESHOLD_, or GLIBC_TUNABLES with glibc.malloc.trim_threshold,
// top_pad or mmap_threshold) win: the call then changes nothing and says so. Without glibc,
// or under an allocator that refuses the settings (a sanitizer's), it changes nothing either.
//
//   int main() { rl::retainFreedHeap(); ... }
//
// Thread-safety: call it before starting threads.
#pragma once

#include <cstddef>
#include <string>

namespace rl {

// 256 MiB: more than a scan of 1,000 records of 100 kB keeps alive at once.
inline constexpr std::size_t kDefaultHeapRetentionBytes = std::size_t{256} << 20;
// Blocks up to this size come from the heap (glibc's largest mmap threshold on 64 bits).
inline constexpr std::size_t kHeapBlockLimitBytes = std::size_t{32} << 20;

// What retainFreedHeap did.
struct HeapRetention {
  bool applied = false;  // both thresholds are now set
  std::string detail;    // what was set, or why nothing was
};

HeapRetention retainFreedHeap(std::size_t bytes = kDefaultHeapRetentionBytes);

}  // namespace rl
