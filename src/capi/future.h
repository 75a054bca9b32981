// FDB_future — what an FDBFuture* points at: a reference-counted, single-assignment cell
// holding a C-shaped result (docs/capi.md, "Futures", "Memory ownership").
//
// A future is created for one operation. If the operation's fdb::Future is already ready
// (the in-memory engine without simulated delay), the cell is filled at once on the
// caller's thread; otherwise it is filled on the network thread when the operation
// completes, and the callbacks registered meanwhile run there. Results are converted once
// into the C layout (FDBKeyValue arrays pointing into memory the cell owns) and stay valid
// until fdb_future_destroy or as many fdb_future_release_memory calls as gets.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "capi/fdb_c_api.h"
#include "fdb/bytes.h"
#include "fdb/detail/thread_block_cache.h"
#include "fdb/error.h"
#include "fdb/future.h"
#include "fdb/types.h"

namespace fdb::capi {

// The C shapes of results.
struct ValueResult {
  std::optional<Bytes> value;  // nullopt: not present
};
struct KeyResult {
  Bytes key;
};
struct KeyValueArrayResult {
  RowArray<FDBKeyValue> array;  // built in the range result's block, viewing its bytes
  bool more = false;
};
struct MappedKeyValueArrayResult {
  MappedRangeResult rows;
  std::vector<FDBMappedKeyValue> array;
  std::vector<std::vector<FDBKeyValue>> rangeRows;  // one array per entry
  bool more = false;
};
struct KeyArrayResult {
  std::vector<Bytes> keys;
  std::vector<FDBKey> array;
};
struct StringArrayResult {
  std::vector<std::string> strings;
  std::vector<const char*> array;
};
using Result =
    std::variant<std::monostate, int64_t, uint64_t, double, bool, ValueResult, KeyResult,
                 KeyValueArrayResult, MappedKeyValueArrayResult, KeyArrayResult, StringArrayResult>;

}  // namespace fdb::capi

struct FDB_future {
 public:
  using Result = fdb::capi::Result;

  // A future filled before it is handed out (completeUnshared/failUnshared), or, once
  // makePending() was called, one that completes later through complete()/fail(); the
  // caller holds the handle. (User-provided so that `new FDB_future()` initializes the
  // members only, instead of zero-filling the whole object first.)
  FDB_future() {}

  // Cells come from the freeing thread's block cache (fdb/future.h): most futures are made
  // and dropped on one thread, one after another, and then cost no allocation.
  static void* operator new(size_t size) {
    if (size != sizeof(FDB_future)) return ::operator new(size);
    return fdb::detail::BlockCacheOf<FDB_future>::allocate();
  }
  static void operator delete(void* block, size_t size) {
    if (size != sizeof(FDB_future)) return ::operator delete(block);
    fdb::detail::BlockCacheOf<FDB_future>::deallocate(block);
  }

  // Gives the future what one completed later needs (a lock, registered callbacks, a
  // canceller). Born-ready futures, most of them, go without: they are ready before anyone
  // else can see them, so nothing waits, registers or cancels under a lock.
  // REQUIRES: called before the future is handed out.
  void makePending() { pending_ = std::make_unique<Pending>(); }

  // One more owner (the handle, or a pending completion).
  void ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Drops an owner; the last one deletes the future.
  void unref();

  // Fills the cell (first call wins), wakes waiters and runs the callbacks on this thread.
  // REQUIRES: makePending() was called.
  void complete(Result result);
  void fail(fdb_error_t error);
  // The same for a cell nobody else can see yet (born ready): no lock, nobody to call.
  // `value` is a Result or one of its alternatives (built in place then).
  template <typename Value>
  void completeUnshared(Value&& value) {
    if constexpr (std::is_same_v<std::decay_t<Value>, Result>) {
      result_ = std::forward<Value>(value);
    } else {
      result_.template emplace<std::decay_t<Value>>(std::forward<Value>(value));
    }
    ready_.store(true, std::memory_order_release);
  }
  // The same with the result `make()` returns, built directly in the cell (no moves).
  template <typename Make>
  void completeUnsharedWith(Make&& make) {
    using Value = std::invoke_result_t<Make&>;
    if constexpr (std::is_same_v<Value, Result>) {
      result_ = make();
    } else {
      result_.template emplace<Value>(Deferred<Make&>{make});
    }
    ready_.store(true, std::memory_order_release);
  }
  void failUnshared(fdb_error_t error);

  // fdb_future_* behaviour. Each of isReady, blockUntilReady, setCallback, error and get
  // asks for the outcome (starting a lazy future's operation).
  bool isReady();
  // 0 when ready; blocked_from_network_thread (2026) when called on the network thread for
  // a future that is not ready.
  fdb_error_t blockUntilReady();
  // Runs `callback` now if ready, else once on completion.
  fdb_error_t setCallback(FDBCallback callback, void* parameter);
  // 0, the stored error, or future_not_set (2015).
  fdb_error_t error();
  // Cancels a pending operation: the future becomes operation_cancelled (1101).
  void cancel();
  void releaseMemory();

  // For the getters: checks readiness, errors and release; on success `read` gets the
  // result of type T (the wrong getter for the result is the caller's error: 2000 here).
  // Once ready, the result never changes (until released), so getters take no lock; a
  // get racing fdb_future_release_memory is the caller's error, as in FoundationDB.
  template <typename T, typename Read>
  fdb_error_t get(Read read) {
    if (!ready_.load(std::memory_order_acquire)) {
      startIfLazy();
      if (!ready_.load(std::memory_order_acquire)) return 2015;  // future_not_set
    }
    if (error_ != 0) return error_;
    if (released_.load(std::memory_order_relaxed)) return 1102;  // future_released
    T* value = std::get_if<T>(&result_);
    if (value == nullptr) return 2000;
    // Counted without a read-modify-write: gets of one future from two threads at once may
    // count once (a later fdb_future_release_memory then frees sooner; callers do not race
    // gets with releases, as FoundationDB requires).
    gets_.store(gets_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    read(*value);
    return 0;
  }

  // What cancels the underlying operation (set before the future is handed out).
  // REQUIRES: makePending() was called.
  void setCanceller(std::function<void()> canceller) { pending_->canceller = std::move(canceller); }
  // Makes the future lazy, for an operation that waits to be started (a commit not sent yet:
  // docs/capi.md, "Futures"): `start` runs once, on the first thread that asks for the outcome
  // (fdb_future_is_ready, _block_until_ready, _set_callback, _get_error or a getter), before
  // that thread looks; never if the future is cancelled or destroyed first.
  // REQUIRES: makePending() was called, before the future is handed out.
  // The starter is kept in the cell's pending part, with no allocation.
  template <typename Start>
  void setStarter(Start start) {
    static_assert(sizeof(Start) <= sizeof(Pending::starter) &&
                  alignof(Start) <= alignof(std::max_align_t));
    new (pending_->starter) Start(std::move(start));
    pending_->runStarter = [](Pending& pending) {
      Start* slot = std::launder(reinterpret_cast<Start*>(pending.starter));
      Start taken(std::move(*slot));
      slot->~Start();
      pending.starterState.store(kNoStarter, std::memory_order_release);
      taken();
    };
    pending_->dropStarter = [](Pending& pending) {
      std::launder(reinterpret_cast<Start*>(pending.starter))->~Start();
    };
    pending_->starterState.store(kStarterSet, std::memory_order_release);
  }

 private:
  ~FDB_future() = default;

  // What a future completed later needs besides the cell itself.
  static constexpr uint8_t kNoStarter = 0, kStarterSet = 1, kStarterTaken = 2;
  struct Pending {
    Pending() {}
    Pending(const Pending&) = delete;
    Pending& operator=(const Pending&) = delete;
    ~Pending() {
      if (starterState.load(std::memory_order_acquire) == kStarterSet) dropStarter(*this);
    }
    // From the block cache, like the cells.
    static void* operator new(size_t size) {
      if (size != sizeof(Pending)) return ::operator new(size);
      return fdb::detail::BlockCacheOf<Pending>::allocate();
    }
    static void operator delete(void* block, size_t size) {
      if (size != sizeof(Pending)) return ::operator delete(block);
      fdb::detail::BlockCacheOf<Pending>::deallocate(block);
    }

    std::mutex mutex;
    std::vector<std::pair<FDBCallback, void*>> callbacks;  // guarded by mutex
    std::function<void()> canceller;
    // A lazy future's starter lives in `starter` while starterState is kStarterSet; whoever
    // moves starterState out of kStarterSet (startIfLazy: to kStarterTaken, then kNoStarter
    // once it is out; settle: to kNoStarter) owns it and runs or drops it.
    std::atomic<uint8_t> starterState{kNoStarter};
    void (*runStarter)(Pending&) = nullptr;   // takes it out, marks it taken, runs it
    void (*dropStarter)(Pending&) = nullptr;  // destroys it unrun
    alignas(std::max_align_t) unsigned char starter[48];
  };

  // Runs a lazy future's starter, once, outside the lock.
  void startIfLazy();

  // Converts to the value `make()` returns, so that emplacing it builds the value in place.
  template <typename Make>
  struct Deferred {
    Make make;
    operator std::invoke_result_t<Make>() { return make(); }
  };

  // Fills the cell under the lock and publishes it; returns the callbacks to run.
  bool settle(fdb_error_t error, Result* result,
              std::vector<std::pair<FDBCallback, void*>>* callbacks);

  std::atomic<int> refs_{1};
  // Set (release) after error_ and result_ are written; waited on with atomic wait.
  std::atomic<bool> ready_{false};
  std::atomic<bool> released_{false};
  fdb_error_t error_ = 0;
  std::atomic<int> gets_{0};
  std::atomic<int> releases_{0};
  std::unique_ptr<Pending> pending_;  // null while the future is born ready
  Result result_;
};

namespace fdb::capi {

// Wraps the fdb::Future of an operation: `convert(T)` builds the C result. Ready
// futures complete at once; pending ones complete on the network thread. (Defined below.)
template <typename T, typename Convert>
FDBFuture* wrap(fdb::Future<T> future, Convert convert);
// Completes `cell`, not handed out yet, from a pending `future`: on the network thread,
// with convert(T).
template <typename T, typename Convert>
void completeLater(FDB_future* cell, fdb::Future<T> future, Convert convert);
// The same for a lazy `future` (fdb::Promise::setStarter): `cell` is lazy too, and asking it
// asks `future`; an outcome there at once fills the cell at once, on the asking thread.
template <typename T, typename Convert>
void completeWhenAsked(FDB_future* cell, fdb::Future<T> future, Convert convert);

// A future that is already failed with `error`.
FDBFuture* failedFuture(fdb_error_t error);
// A future that is already ready with `result`.
FDBFuture* readyFuture(Result result);

// The error code of the exception being handled (fdb::Error's code, 4100 internal_error for
// anything else). Call from a catch block.
fdb_error_t currentErrorCode();

}  // namespace fdb::capi

namespace fdb::capi {

void postToNetwork(std::function<void()> task, std::function<void()> drop);  // network.h

namespace detail {

// Fills the shared `cell` from the ready `done`: convert(T), or its error. Takes the value
// (moved out when nothing else holds the operation's future).
template <typename T, typename Convert>
void fill(FDB_future* cell, fdb::Future<T> done, const Convert& convert) {
  try {
    if constexpr (std::is_void_v<T>) {
      done.get();
      cell->complete(Result{});
    } else {
      cell->complete(convert(std::move(done).get()));
    }
  } catch (...) {
    cell->fail(currentErrorCode());
  }
}

// Fills `cell` once `future` is ready, on the network thread, where FoundationDB's clients
// expect completions. REQUIRES: makePending() was called.
template <typename T, typename Convert>
void fillOnNetworkThread(FDB_future* cell, fdb::Future<T> future, Convert convert) {
  cell->ref();  // owned by the pending completion too
  future.onReady([cell, future, convert] {
    postToNetwork(
        [cell, future, convert]() mutable {
          fill(cell, std::move(future), convert);
          cell->unref();
        },
        [cell] { cell->unref(); });
  });
}

}  // namespace detail

template <typename T, typename Convert>
void completeLater(FDB_future* cell, fdb::Future<T> future, Convert convert) {
  cell->makePending();
  cell->setCanceller([future] { future.cancel(); });
  detail::fillOnNetworkThread(cell, std::move(future), std::move(convert));
}

template <typename T, typename Convert>
void completeWhenAsked(FDB_future* cell, fdb::Future<T> future, Convert convert) {
  cell->makePending();
  // No canceller: cancelling the cell first drops the starter, the only holder of `future`,
  // and an operation whose future nobody holds is never started. (Once started, the cell
  // fails with 1101 at once all the same.) The starter lives in the cell, so it holds no
  // reference to it: whoever asks holds one.
  cell->setStarter([cell, future, convert] {
    if (future.isReady()) {  // asking started the operation, and it completed at once
      detail::fill(cell, future, convert);
    } else {
      detail::fillOnNetworkThread(cell, future, convert);
    }
  });
}

template <typename T, typename Convert>
FDBFuture* wrap(fdb::Future<T> future, Convert convert) {
  FDB_future* cell = new FDB_future();
  if (future.isReady()) {  // born ready: the cell is not handed out yet
    try {
      if constexpr (std::is_void_v<T>) {
        future.get();
        cell->completeUnshared(Result{});
      } else {
        cell->completeUnsharedWith([&] { return std::move(future).consume(convert); });
      }
    } catch (...) {
      cell->failUnshared(currentErrorCode());
    }
    return cell;
  }
  completeLater(cell, std::move(future), std::move(convert));
  return cell;
}

}  // namespace fdb::capi
