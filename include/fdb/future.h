// fdb::Future<T> — the result of an operation that may complete later.
//
// Every read of the client API returns a Future. get() blocks until the result is there
// and returns it, or throws the operation's fdb::Error. Pipelining is issuing several
// operations before waiting on the first. On the in-memory engine a read completes on the
// caller's thread, so its future is born ready.
//
//   fdb::Future<std::optional<fdb::Bytes>> a = tr.get("a");
//   fdb::Future<std::optional<fdb::Bytes>> b = tr.get("b");   // issued before a is waited on
//   if (a.get() && b.get()) { ... }
//
// Thread-safety: a Future may be copied and its copies used from several threads; get()
// and isReady() may be called any number of times. Callbacks run exactly once: at once,
// on the calling thread, if the future is already ready, otherwise on the thread that
// completes it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fdb/error.h"

namespace fdb {

namespace detail {

struct NotReady {};
struct Done {};  // the value of a completed Future<void>

template <typename T>
using StoredType = std::conditional_t<std::is_void_v<T>, Done, T>;

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
    if (n == 1) return static_cast<T*>(BlockCache<sizeof(T)>::allocate());
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) {
      BlockCache<sizeof(T)>::deallocate(p);
    } else {
      std::allocator<T>().deallocate(p, n);
    }
  }
  friend bool operator==(const ThreadCachedAllocator&, const ThreadCachedAllocator&) {
    return true;
  }
};

template <typename T>
class FutureState;

template <typename T>
std::shared_ptr<FutureState<T>> makeState() {
  return std::allocate_shared<FutureState<T>>(ThreadCachedAllocator<FutureState<T>>());
}

template <typename T>
class FutureState {
 public:
  using Stored = StoredType<T>;

  void complete(std::variant<NotReady, Stored, Error> outcome) {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mutex_);
      if (ready_.load(std::memory_order_relaxed)) return;  // the first completion wins
      outcome_ = std::move(outcome);
      ready_.store(true, std::memory_order_release);
      callbacks.swap(callbacks_);
    }
    ready_.notify_all();
    for (auto& callback : callbacks) callback();
  }

  // A state made ready before anyone else can see it: no lock, nobody to wake. The value or
  // the error (alternative `Index`) is built in place from `args`.
  template <size_t Index, typename... Args>
  void completeUnshared(Args&&... args) {
    outcome_.template emplace<Index>(std::forward<Args>(args)...);
    ready_.store(true, std::memory_order_release);
  }

  bool isReady() const { return ready_.load(std::memory_order_acquire); }

  // Once ready, the outcome never changes, so readers past this point take no lock.
  const std::variant<NotReady, Stored, Error>& wait() const {
    // Waiters sleep on the flag itself (C++20 atomic wait): no condition variable to build
    // and tear down with every future, most of which are born ready.
    if (!ready_.load(std::memory_order_acquire)) ready_.wait(false, std::memory_order_acquire);
    return outcome_;
  }

  // Blocks until ready; a copy of the value, or throws the error. (takeValue() is only
  // called by the sole holder, so a copy never overlaps it.)
  Stored copyValue() const {
    const auto& outcome = wait();
    if (const Error* error = std::get_if<Error>(&outcome)) throw *error;
    return std::get<1>(outcome);
  }

  // The same, moving the value out. REQUIRES: no one else reads the value again (the
  // caller holds the only reference to this state).
  Stored takeValue() { return std::move(valueToTake()); }
  // The value itself, for the sole holder to move from where it lies.
  Stored& valueToTake() {
    wait();
    if (const Error* error = std::get_if<Error>(&outcome_)) throw *error;
    return std::get<1>(outcome_);
  }

  void onReady(std::function<void()> callback) {
    if (!ready_.load(std::memory_order_acquire)) {
      std::lock_guard lock(mutex_);
      if (!ready_.load(std::memory_order_relaxed)) {
        callbacks_.push_back(std::move(callback));
        return;
      }
    }
    callback();
  }

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> ready_{false};  // set (release) after outcome_ is written
  std::variant<NotReady, Stored, Error> outcome_;
  std::vector<std::function<void()>> callbacks_;
};

}  // namespace detail

template <typename T>
class Promise;

template <typename T>
class Future {
 public:
  // A future that is already ready with `value` (for Future<void>: ready()).
  template <typename U = T>
  requires(!std::is_void_v<U>) static Future ready(U value) {
    Future f;
    f.state_->template completeUnshared<1>(std::move(value));
    return f;
  }
  template <typename U = T>
  requires std::is_void_v<U>
  static Future ready() {
    Future f;
    f.state_->template completeUnshared<1>();
    return f;
  }
  // A future that is already ready with `error`.
  static Future failed(Error error) {
    Future f;
    f.state_->template completeUnshared<2>(std::move(error));
    return f;
  }

  // Blocks until ready; returns the value or throws the fdb::Error.
  T get() const& {
    if constexpr (std::is_void_v<T>) {
      state_->copyValue();
    } else {
      return state_->copyValue();
    }
  }
  // The same on a future that this call uses up (`tr.getRange(range).get()`, or
  // `std::move(future).get()`): when no copy of the future shares the result, the value is
  // moved out instead of copied (a range result's rows are not copied again), and this
  // future is left holding a moved-from value.
  T get() && {
    if constexpr (std::is_void_v<T>) {
      state_->copyValue();
    } else {
      // Only a Future or Promise can read the value; with no other one left, nobody can
      // come to share it (a WeakPromise only completes, which a ready state ignores).
      if (state_.use_count() == 1) return state_->takeValue();
      return state_->copyValue();
    }
  }

  // The same, handing the value to `use` and returning what `use` returns: `use` gets the
  // value itself as an rvalue when no copy of the future shares it (so what it builds can
  // take the value straight from the result, with no move out of it first), else a copy.
  template <typename Use>
  requires(!std::is_void_v<T>) decltype(auto) consume(Use&& use) && {
    if (state_.use_count() == 1) return use(std::move(state_->valueToTake()));
    return use(state_->copyValue());
  }

  bool isReady() const { return state_->isReady(); }

  // The error of a ready, failed future; nullopt while pending or on success.
  std::optional<Error> error() const {
    if (!isReady()) return std::nullopt;
    const auto& outcome = state_->wait();
    if (const Error* error = std::get_if<Error>(&outcome)) return *error;
    return std::nullopt;
  }

  // Runs `callback` once the future is ready (see the thread-safety note above).
  void onReady(std::function<void()> callback) const { state_->onReady(std::move(callback)); }

  // Cancels the operation: a pending future becomes ready with operation_cancelled (1101);
  // a ready one is unaffected. Dropping every copy of a pending watch cancels it too.
  void cancel() const { state_->complete(Error(1101)); }

 private:
  friend class Promise<T>;
  Future() : state_(detail::makeState<T>()) {}
  explicit Future(std::shared_ptr<detail::FutureState<T>> state) : state_(std::move(state)) {}

  std::shared_ptr<detail::FutureState<T>> state_;
};

// The producing side of a Future, for operations that complete later (timers, other
// threads). Completing twice keeps the first outcome.
template <typename T>
class WeakPromise;

template <typename T>
class Promise {
 public:
  Promise() : state_(detail::makeState<T>()) {}

  // A producer that does not keep the future alive: once every Future copy is gone, it
  // reports expired() (a watch nobody waits for).
  WeakPromise<T> weaken() const { return WeakPromise<T>(state_); }

  Future<T> future() const { return Future<T>(state_); }

  template <typename U = T>
  requires(!std::is_void_v<U>) void setValue(U value) {
    state_->complete(detail::StoredType<T>(std::move(value)));
  }
  template <typename U = T>
  requires std::is_void_v<U>
  void setValue() { state_->complete(detail::Done{}); }
  void setError(Error error) { state_->complete(std::move(error)); }

 private:
  std::shared_ptr<detail::FutureState<T>> state_;
};

template <typename T>
class WeakPromise {
 public:
  explicit WeakPromise(std::weak_ptr<detail::FutureState<T>> state) : state_(std::move(state)) {}

  // True when nobody holds the future any more, or it is already ready.
  bool expired() const {
    std::shared_ptr<detail::FutureState<T>> state = state_.lock();
    return !state || state->isReady();
  }
  template <typename U = T>
  requires std::is_void_v<U>
  void setValue() const {
    if (auto state = state_.lock()) state->complete(detail::Done{});
  }
  template <typename U = T>
  requires(!std::is_void_v<U>) void setValue(U value) const {
    if (auto state = state_.lock()) state->complete(detail::StoredType<T>(std::move(value)));
  }
  void setError(Error error) const {
    if (auto state = state_.lock()) state->complete(std::move(error));
  }

 private:
  std::weak_ptr<detail::FutureState<T>> state_;
};

}  // namespace fdb
