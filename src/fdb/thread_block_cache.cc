// The thread-exit side of detail::BlockCache (fdb/detail/thread_block_cache.h): every list a thread
// put blocks in is drained when the thread ends, and stays closed after.
#include <new>

#include "fdb/detail/thread_block_cache.h"

namespace fdb::detail {

namespace {

// Trivial and zero-initialized: reachable during the thread's exit after the drain too.
struct ThreadRegistry {
  ThreadBlockList* first = nullptr;  // null: nothing registered yet
  bool drained = false;
};
thread_local constinit ThreadRegistry registry{};

// Its destructor, registered with the thread's exit by the first registration, drains.
struct Drain {
  ~Drain() {
    registry.drained = true;
    ThreadBlockList* list = registry.first;
    while (list != nullptr && list != ThreadBlockList::end()) {
      ThreadBlockList* next = list->nextRegistered;
      while (ThreadBlockList::Node* node = list->head) {
        list->head = node->next;
        ::operator delete(node);
      }
      list->nextRegistered = ThreadBlockList::closed();
      list = next;
    }
  }
};

}  // namespace

void registerThreadBlockList(ThreadBlockList* list) {
  if (registry.drained) {
    list->nextRegistered = ThreadBlockList::closed();
    return;
  }
  thread_local Drain drain;  // constructed (and its exit registered) on the first call
  (void)drain;
  list->nextRegistered = registry.first != nullptr ? registry.first : ThreadBlockList::end();
  registry.first = list;
}

}  // namespace fdb::detail
