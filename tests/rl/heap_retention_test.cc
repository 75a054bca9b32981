// retainFreedHeap keeps freed heap with the process and serves large blocks from it (glibc's
// trim and mmap thresholds raised), leaves the environment's own malloc settings alone, and
// says what it did. The heap is measured in a forked child (a death test), so neither the
// policy nor the allocations reach the other tests of the process.
#include "rl/record/heap_retention.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rl {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerAllocator = true;  // its mallopt refuses every setting
#else
constexpr bool kSanitizerAllocator = false;
#endif

#if defined(__GLIBC__)

constexpr std::size_t kBlock = 100'000;  // a split record's chunk: below the mmap threshold
// 100 MB of heap: more than glibc's own trim threshold can grow to (64 MB, after freed
// mmapped blocks raised it), so without the policy the freed heap is always trimmed.
constexpr int kBlocks = 1000;

// In a child: allocates and writes 100 MB in 100 kB blocks, frees them, and exits 0 if the
// heap glibc holds (mallinfo2().arena) shrank by less than half of it, 1 if it was trimmed.
[[noreturn]] void exitWithRetention(bool retain) {
  if (retain && !retainFreedHeap().applied) std::_Exit(2);
  std::vector<char*> blocks;
  blocks.reserve(kBlocks);
  unsigned checksum = 0;
  for (int i = 0; i < kBlocks; ++i) {
    auto* block = static_cast<char*>(std::malloc(kBlock));
    std::memset(block, i & 0xff, kBlock);
    checksum += static_cast<unsigned char>(block[kBlock - 1]);
    blocks.push_back(block);
  }
  const std::size_t peak = mallinfo2().arena;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) std::free(*it);
  const std::size_t after = mallinfo2().arena;
  if (checksum == 1) std::_Exit(3);  // never: keeps the writes observable
  std::_Exit(peak - after < kBlock * kBlocks / 2 ? 0 : 1);
}

bool environmentSetsTrimming() {
  return std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr ||
         std::getenv("MALLOC_TOP_PAD_") != nullptr ||
         std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr ||
         std::getenv("GLIBC_TUNABLES") != nullptr;
}

TEST(HeapRetention, KeepsFreedHeapForTheNextAllocations) {
  if (kSanitizerAllocator) GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
  if (environmentSetsTrimming()) GTEST_SKIP() << "the environment sets malloc's trimming";
  EXPECT_EXIT(exitWithRetention(/*retain=*/true), testing::ExitedWithCode(0), "");
}

// The control: without the policy glibc hands the freed 100 MB back to the kernel, which is
// what makes the next scan of large records fault its memory in again.
TEST(HeapRetention, WithoutItGlibcTrimsTheFreedHeap) {
  if (kSanitizerAllocator) GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
  if (environmentSetsTrimming()) GTEST_SKIP() << "the environment sets malloc's trimming";
  EXPECT_EXIT(exitWithRetention(/*retain=*/false), testing::ExitedWithCode(1), "");
}

char* volatile escapedBlock = nullptr;

// In a child: exits 0 if a 24 MB block comes from the heap, 1 if glibc maps it on its own (what
// it does with any block over its current mmap threshold, 128 kB at first and raised only to
// the size of a mapped block freed since: a page fault every 4 kB, every time).
[[noreturn]] void exitWithLargeBlockSource(bool retain) {
  if (retain && !retainFreedHeap().applied) std::_Exit(2);
  const std::size_t mappedBefore = mallinfo2().hblkhd;
  char* block = static_cast<char*>(std::malloc(24 << 20));
  escapedBlock = block;  // the compiler may not drop the allocation
  const std::size_t mappedAfter = mallinfo2().hblkhd;
  const bool fromHeap = mappedAfter == mappedBefore;
  std::free(escapedBlock);
  std::_Exit(fromHeap ? 0 : 1);
}

TEST(HeapRetention, ServesLargeBlocksFromTheHeap) {
  if (kSanitizerAllocator) GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
  if (environmentSetsTrimming()) GTEST_SKIP() << "the environment sets malloc's trimming";
  EXPECT_EXIT(exitWithLargeBlockSource(/*retain=*/true), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(exitWithLargeBlockSource(/*retain=*/false), testing::ExitedWithCode(1), "");
}

TEST(HeapRetention, SaysWhatItSet) {
  if (environmentSetsTrimming()) GTEST_SKIP() << "the environment sets malloc's trimming";
  EXPECT_EXIT(
      {
        const HeapRetention result = retainFreedHeap(64 << 20);
        const bool expected =
            kSanitizerAllocator
                ? !result.applied && result.detail.find("refused") != std::string::npos
                : result.applied && result.detail ==
                                        "glibc keeps up to 67108864 bytes of freed heap and "
                                        "serves blocks up to 33554432 bytes from it";
        std::_Exit(expected ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

// The environment's choice wins: nothing is set, and the detail names the setting.
TEST(HeapRetention, LeavesTheEnvironmentsSettingAlone) {
  if (environmentSetsTrimming()) GTEST_SKIP() << "the environment sets malloc's trimming";
  struct Case {
    const char* name;
    const char* value;
    const char* named;
  };
  for (const Case& c :
       {Case{"MALLOC_TRIM_THRESHOLD_", "1048576", "MALLOC_TRIM_THRESHOLD_"},
        Case{"MALLOC_TOP_PAD_", "0", "MALLOC_TOP_PAD_"},
        Case{"MALLOC_MMAP_THRESHOLD_", "131072", "MALLOC_MMAP_THRESHOLD_"},
        Case{"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=131072", "glibc.malloc.mmap_threshold"},
        Case{"GLIBC_TUNABLES", "glibc.malloc.trim_threshold=4096", "glibc.malloc.trim_threshold"},
        Case{"GLIBC_TUNABLES", "glibc.malloc.top_pad=0", "glibc.malloc.top_pad"}}) {
    // None of them is set (checked above), so each is removed again after its call.
    ASSERT_EQ(setenv(c.name, c.value, 1), 0);
    const HeapRetention result = retainFreedHeap();
    unsetenv(c.name);
    EXPECT_FALSE(result.applied) << c.name;
    EXPECT_NE(result.detail.find(c.named), std::string::npos) << result.detail;
  }
}

// Other tunables do not count as a trimming choice.
TEST(HeapRetention, OtherTunablesDoNotStopIt) {
  if (environmentSetsTrimming()) GTEST_SKIP() << "the environment sets malloc's trimming";
  EXPECT_EXIT(
      {
        setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
        const HeapRetention result = retainFreedHeap();
        std::_Exit(result.applied != kSanitizerAllocator ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

#else

TEST(HeapRetention, ChangesNothingWithoutGlibc) {
  const HeapRetention result = retainFreedHeap();
  EXPECT_FALSE(result.applied);
  EXPECT_NE(result.detail.find("not glibc"), std::string::npos);
}

#endif

}  // namespace
}  // namespace rl
