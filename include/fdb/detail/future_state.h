// Internal to the client library: the shared state behind fdb::Future, fdb::Promise and
// fdb::WeakPromise (fdb/future.h), made from the thread's block cache. Not part of the API:
// it may change at any time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fdb/detail/thread_block_cache.h"
#include "fdb/error.h"

namespace fdb {

namespace detail {

// What starts a lazy state (Promise::setStarter): `run(target)`, where `target` is kept alive
// by the starter until it runs or the state completes. Two words and a pointer: a starter
// holding an object it shares costs no allocation.
struct Starter {
  void (*run)(void*) = nullptr;
  std::shared_ptr<void> target;
};
// A state not ready yet: a lazy one's starter lives here, in room the variant has anyway (an
// Error is larger), until it runs or the state completes.
struct NotReady {
  Starter start;
};
struct Done {};  // the value of a completed Future<void>

template <typename T>
using StoredType = std::conditional_t<std::is_void_v<T>, Done, T>;

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
    Starter unstarted;  // released after the lock
    {
      std::lock_guard lock(mutex_);
      if (ready_.load(std::memory_order_relaxed)) return;  // the first completion wins
      // A starter that never ran is released; one being taken out is left to finish.
      uint8_t starter = kStarterSet;
      if (starter_.compare_exchange_strong(starter, kNoStarter, std::memory_order_acquire)) {
        unstarted = std::move(std::get<NotReady>(outcome_).start);
      } else {
        while (starter_.load(std::memory_order_acquire) == kStarterTaken) {
          std::this_thread::yield();
        }
      }
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

  // Makes the state lazy (fdb::Promise::setStarter): `start` runs once, on the first thread
  // that asks for the outcome, unless the state completes first. REQUIRES: nobody else sees
  // the state yet.
  void setStarter(Starter start) {
    std::get<NotReady>(outcome_).start = std::move(start);
    starter_.store(kStarterSet, std::memory_order_release);
  }

  // Asking starts a lazy operation.
  bool isReady() const {
    if (ready_.load(std::memory_order_acquire)) return true;
    startIfLazy();
    return ready_.load(std::memory_order_acquire);
  }

  // Once ready, the outcome never changes, so readers past this point take no lock.
  const std::variant<NotReady, Stored, Error>& wait() const {
    // Waiters sleep on the flag itself (C++20 atomic wait): no condition variable to build
    // and tear down with every future, most of which are born ready.
    if (!ready_.load(std::memory_order_acquire)) {
      startIfLazy();
      ready_.wait(false, std::memory_order_acquire);
    }
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
      bool registered = false;
      {
        std::lock_guard lock(mutex_);
        if (!ready_.load(std::memory_order_relaxed)) {
          callbacks_.push_back(std::move(callback));
          registered = true;
        }
      }
      if (registered) {
        startIfLazy();  // asking starts a lazy operation
        return;
      }
    }
    callback();
  }

 private:
  // Runs the starter, once, outside the lock (it may complete the state on this thread).
  // Taken with no lock: whoever moves starter_ out of kStarterSet owns the starter, and
  // complete() waits for a taker to finish before it overwrites outcome_.
  void startIfLazy() const {
    uint8_t starter = kStarterSet;
    if (starter_.load(std::memory_order_relaxed) != starter ||
        !starter_.compare_exchange_strong(starter, kStarterTaken, std::memory_order_acquire)) {
      return;
    }
    Starter start = std::move(std::get<NotReady>(outcome_).start);
    starter_.store(kNoStarter, std::memory_order_release);
    start.run(start.target.get());
  }

  mutable std::mutex mutex_;
  std::atomic<bool> ready_{false};  // set (release) after outcome_ is written
  // Whether outcome_ (NotReady) holds a lazy state's starter, or one is being taken out.
  // With the flag in ready_'s padding and the starter in the variant, lazy states cost no
  // bytes (every size of state is a thread-local block cache of its own) and no allocation.
  static constexpr uint8_t kNoStarter = 0, kStarterSet = 1, kStarterTaken = 2;
  mutable std::atomic<uint8_t> starter_{kNoStarter};
  mutable std::variant<NotReady, Stored, Error> outcome_;  // the starter: see startIfLazy
  std::vector<std::function<void()>> callbacks_;           // guarded by mutex_
};

}  // namespace detail

}  // namespace fdb
