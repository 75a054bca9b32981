// Internal to the client library: blocks kept for reuse by the thread that freed them, the
// allocator built on them, and its thread-exit drain (src/fdb/thread_block_cache.cc). Future
// states (fdb/detail/future_state.h), engine transactions, small range-result blocks and the
// C library's handles come from here. Not part of the API: it may change at any time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace fdb {

namespace detail {

// This thread's list of blocks of one size, kept for reuse (BlockCache). Trivially
// destructible and zero-initialized, so a thread reaches it with one TLS access and no
// initialization guard; the thread's exit drains it (registerThreadBlockList).
struct ThreadBlockList {
  struct Node {
    Node* next;
    size_t depth;  // blocks in the list from this one on
  };
  Node* head = nullptr;
  // The next list this thread registered (end() for the last); null until registered,
  // closed() once this thread's lists were drained.
  ThreadBlockList* nextRegistered = nullptr;

  static ThreadBlockList* end() { return reinterpret_cast<ThreadBlockList*>(uintptr_t{1}); }
  static ThreadBlockList* closed() { return reinterpret_cast<ThreadBlockList*>(uintptr_t{2}); }
};

// Puts `list` on the lists this thread drains at its exit, or marks it closed() when that
// already happened (a block freed during the thread's exit then goes back to the heap).
// REQUIRES: list->nextRegistered == nullptr; `list` is this thread's.
void registerThreadBlockList(ThreadBlockList* list);

// Blocks of `Size` bytes kept for reuse by the thread that freed them (up to kKept: 64, or
// 64 kB of blocks when they are larger than 1 kB): the shared states of futures, which are
// made and dropped with every read, most of them on one thread, cost no allocation once a
// few have been freed.
//
// The per-thread state is 16 bytes with no guard: libfdb_c.so keeps all its thread-locals
// small enough for glibc's static TLS reserve for dlopen (512 bytes), where reaching them
// costs a couple of instructions instead of a call into the dynamic TLS resolver.
template <size_t Size>
class BlockCache {
 public:
  static constexpr size_t kKept = Size <= 1024 ? 64 : 65536 / Size;

  static void* allocate() {
    ThreadBlockList& list = list_;
    if (ThreadBlockList::Node* node = list.head) {
      list.head = node->next;
      return node;
    }
    return ::operator new(Size);
  }
  static void deallocate(void* block) {
    ThreadBlockList& list = list_;
    ThreadBlockList::Node* head = list.head;
    size_t depth = head != nullptr ? head->depth : 0;
    if (depth < kKept) {
      if (list.nextRegistered == nullptr) registerThreadBlockList(&list);
      if (list.nextRegistered != ThreadBlockList::closed()) {
        list.head = new (block) ThreadBlockList::Node{head, depth + 1};
        return;
      }
    }
    ::operator delete(block);
  }

 private:
  static_assert(Size >= sizeof(ThreadBlockList::Node));
  static inline thread_local constinit ThreadBlockList list_{};
};

// Objects share the cache of their size rounded up to 64 bytes: fewer caches, so fewer
// thread-locals (see above), for at most 63 bytes a block.
constexpr size_t blockSizeClass(size_t bytes) { return (bytes + 63) / 64 * 64; }
template <typename T>
using BlockCacheOf = BlockCache<blockSizeClass(sizeof(T))>;

// The allocator of objects made and dropped by the thousand, one after another (future
// states, transactions; for std::allocate_shared): single objects come from a BlockCache of
// their size.
template <typename T>
struct ThreadCachedAllocator {
  using value_type = T;
  ThreadCachedAllocator() = default;
  template <typename U>
  ThreadCachedAllocator(const ThreadCachedAllocator<U>&) {}

  T* allocate(size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n == 1) return static_cast<T*>(BlockCacheOf<T>::allocate());
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) {
      BlockCacheOf<T>::deallocate(p);
    } else {
      std::allocator<T>().deallocate(p, n);
    }
  }
  friend bool operator==(const ThreadCachedAllocator&, const ThreadCachedAllocator&) {
    return true;
  }
};

}  // namespace detail

}  // namespace fdb
