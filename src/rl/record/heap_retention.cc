// retainFreedHeap: raise glibc's trim and mmap thresholds unless the environment already chose.
#include "rl/record/heap_retention.h"

#include <climits>
#include <cstdlib>
#include <string_view>

#include <fmt/core.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rl {
namespace {

// The environment's own malloc settings that decide trimming, if any.
std::string environmentTrimSetting() {
  for (const char* name : {"MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_"}) {
    if (std::getenv(name) != nullptr) return name;
  }
  if (const char* tunables = std::getenv("GLIBC_TUNABLES")) {
    const std::string_view text(tunables);
    for (std::string_view key :
         {"glibc.malloc.trim_threshold", "glibc.malloc.top_pad", "glibc.malloc.mmap_threshold"}) {
      if (text.find(key) != std::string_view::npos) return fmt::format("GLIBC_TUNABLES ({})", key);
    }
  }
  return {};
}

}  // namespace

HeapRetention retainFreedHeap(std::size_t bytes) {
#if defined(__GLIBC__)
  if (std::string setting = environmentTrimSetting(); !setting.empty()) {
    return {false, fmt::format("unchanged: the environment sets {}", setting)};
  }
  // mallopt takes an int; a larger request keeps the largest it can express.
  const int threshold =
      bytes > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(bytes);
  // Setting either threshold stops glibc from adapting them, so both are set: the mmap
  // threshold where glibc's adaptation would end (blocks up to it come from the heap and are
  // reused, as a record's 250 kB serialization is save after save), the trim threshold as
  // asked. The mmap threshold first: if it is refused, nothing has changed.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapBlockLimitBytes)) != 1) {
    return {false, "unchanged: the allocator refused M_MMAP_THRESHOLD"};
  }
  if (mallopt(M_TRIM_THRESHOLD, threshold) != 1) {
    return {false, "the allocator refused M_TRIM_THRESHOLD (M_MMAP_THRESHOLD was set)"};
  }
  return {true, fmt::format("glibc keeps up to {} bytes of freed heap and serves blocks up to {} "
                            "bytes from it",
                            threshold, kHeapBlockLimitBytes)};
#else
  (void)bytes;
  return {false, "unchanged: not glibc's malloc"};
#endif
}

}  // namespace rl
