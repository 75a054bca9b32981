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

std::atomic<uint64_t> gAllocations{0};
std::atomic<uint64_t> gBytes{0};

void count(size_t size) {
  gAllocations.fetch_add(1, std::memory_order_relaxed);
  gBytes.fetch_add(size, std::memory_order_relaxed);
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
  return {gAllocations.load(std::memory_order_relaxed), gBytes.load(std::memory_order_relaxed)};
}

}  // namespace rl::bench
