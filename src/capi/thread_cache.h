// ThreadCache<T> — memory of freed T objects kept per thread for the next T made on it.
//
// The C API makes and destroys a transaction and a future for nearly every operation; reusing
// their memory saves a malloc/free pair each. Give T class-level operator new/delete that call
// allocate()/deallocate(). Memory freed on a thread whose cache is already gone (at thread or
// process exit) goes straight back to the heap.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace fdb::capi {

template <typename T>
class ThreadCache {
 public:
  static void* allocate(size_t size) {
    if (size == sizeof(T) && !gone && !cache.blocks.empty()) {
      void* block = cache.blocks.back();
      cache.blocks.pop_back();
      return block;
    }
    return ::operator new(size);
  }

  static void deallocate(void* memory, size_t size) {
    if (size == sizeof(T) && !gone && cache.blocks.size() < kKept) {
      cache.blocks.push_back(memory);
      return;
    }
    ::operator delete(memory);
  }

 private:
  static constexpr size_t kKept = 64;
  struct Blocks {
    std::vector<void*> blocks;
    ~Blocks() {
      for (void* block : blocks) ::operator delete(block);
      gone = true;
    }
  };
  // (Not initial-exec: a library loaded with dlopen cannot count on static TLS space.)
  static inline thread_local bool gone = false;  // trivially destructible: valid to the end
  static inline thread_local Blocks cache;
};

}  // namespace fdb::capi
