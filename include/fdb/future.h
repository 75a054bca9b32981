// fdb::Future<T> — the result of an operation that may complete later.
//
// Every read of the client API returns a Future. get() blocks until the result is there
// and returns it, or throws the operation's fdb::Error. Pipelining is issuing several
// operations before waiting on the first. On the in-memory engine a read completes on the
// caller's thread, so its future is born ready. Some futures are lazy: their operation starts
// when their outcome is first asked for (get, isReady, error or onReady), as a commit that
// waits to be sent does (docs/semantics.md, "When a commit is sent").
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

#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "fdb/detail/future_state.h"
#include "fdb/error.h"

namespace fdb {

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

  // Makes the future lazy, for an operation that waits to be started: `start` runs once, on
  // the first thread that asks for the outcome (get, isReady, error, onReady), before that
  // thread looks, and is to complete this promise (then or later). It never runs if the
  // promise is completed first, or if every Future is dropped first. It must not hold this
  // Promise (hold a WeakPromise: the future's state owns `start`). Call before handing out
  // the future.
  void setStarter(std::function<void()> start) {
    setStarter(std::make_shared<FunctionStarter>(std::move(start)));
  }
  // The same, with no allocation: `target->start()` is the starter, and `target` is kept
  // until it runs or the future completes.
  template <typename Target>
  void setStarter(std::shared_ptr<Target> target) {
    state_->setStarter(
        detail::Starter{[](void* t) { static_cast<Target*>(t)->start(); }, std::move(target)});
  }

  // For a producer that embeds the future's state in an object of its own (one allocation
  // for both: an aliasing shared_ptr). Internal to the client library.
  static Promise adopt(std::shared_ptr<detail::FutureState<T>> state) {
    return Promise(std::move(state));
  }

  template <typename U = T>
  requires(!std::is_void_v<U>) void setValue(U value) {
    state_->complete(detail::StoredType<T>(std::move(value)));
  }
  template <typename U = T>
  requires std::is_void_v<U>
  void setValue() { state_->complete(detail::Done{}); }
  void setError(Error error) { state_->complete(std::move(error)); }

 private:
  struct FunctionStarter {
    explicit FunctionStarter(std::function<void()> f) : run(std::move(f)) {}
    void start() { run(); }
    std::function<void()> run;
  };
  explicit Promise(std::shared_ptr<detail::FutureState<T>> state) : state_(std::move(state)) {}

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
