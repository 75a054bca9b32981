#include "alloc_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

// glibc's own allocator entry points: the interposed functions forward to them.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void __libc_free(void* pointer);
}

namespace {

// Per-thread counters, so that counting adds no locked read-modify-write to the allocations
// it measures (an atomic counter shared by all threads added two locked instructions to
// every allocation, which weighed on the arms that allocate more). Each thread's block is
// registered once in a list that the reader sums; blocks are never freed, so the counts of
// threads that have exited stay in the total.
struct ThreadCounts {
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> bytes{0};
  ThreadCounts* next = nullptr;
};

std::atomic<ThreadCounts*> gThreads{nullptr};
thread_local ThreadCounts* tCounts = nullptr;

ThreadCounts* registerThread() {
  void* memory = __libc_malloc(sizeof(ThreadCounts));
  if (memory == nullptr) std::abort();
  auto* counts = new (memory) ThreadCounts();
  counts->next = gThreads.load(std::memory_order_relaxed);
  while (!gThreads.compare_exchange_weak(counts->next, counts, std::memory_order_release,
                                         std::memory_order_relaxed)) {
  }
  tCounts = counts;
  return counts;
}

void count(size_t size) {
  ThreadCounts* counts = tCounts;
  if (counts == nullptr) counts = registerThread();
  // Only this thread writes its block: a plain load and store, no lock prefix.
  counts->allocations.store(counts->allocations.load(std::memory_order_relaxed) + 1,
                            std::memory_order_relaxed);
  counts->bytes.store(counts->bytes.load(std::memory_order_relaxed) + size,
                      std::memory_order_relaxed);
}

}  // namespace

extern "C" {

void* malloc(size_t size) {
  count(size);
  return __libc_malloc(size);
}

void* calloc(size_t count_, size_t size) {
  count(count_ * size);
  return __libc_calloc(count_, size);
}

void* realloc(void* pointer, size_t size) {
  count(size);
  return __libc_realloc(pointer, size);
}

void free(void* pointer) { __libc_free(pointer); }

}  // extern "C"

// operator new in libstdc++ calls malloc, which counts it; these keep that true whatever
// the library does.
void* operator new(size_t size) {
  void* p = malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }

namespace rl::bench {

AllocationCounts allocationCounts() {
  AllocationCounts total;
  for (ThreadCounts* counts = gThreads.load(std::memory_order_acquire); counts != nullptr;
       counts = counts->next) {
    total.allocations += counts->allocations.load(std::memory_order_relaxed);
    total.bytes += counts->bytes.load(std::memory_order_relaxed);
  }
  return total;
}

}  // namespace rl::bench
