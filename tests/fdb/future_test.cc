// The future contract (docs/capi.md, "Futures") across threads: a callback runs exactly once —
// at once if the future is ready, otherwise on the completing thread; a future may be waited
// on from another thread; cancel() makes a pending future operation_cancelled (1101) and
// leaves a ready one alone; only the first completion counts.
#include "fdb/future.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace fdb {
namespace {

TEST(FutureContract, CallbackOnAReadyFutureRunsAtOnceOnTheCaller) {
  Future<int> f = Future<int>::ready(7);
  std::thread::id ranOn;
  int runs = 0;
  f.onReady([&] {
    ++runs;
    ranOn = std::this_thread::get_id();
  });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(ranOn, std::this_thread::get_id());
}

TEST(FutureContract, CallbacksRunExactlyOnceOnTheCompletingThread) {
  Promise<int> promise;
  Future<int> f = promise.future();
  std::atomic<int> runs{0};
  std::thread::id ranOn;
  for (int i = 0; i < 3; ++i) {
    f.onReady([&] {
      ++runs;
      ranOn = std::this_thread::get_id();
    });
  }
  EXPECT_EQ(runs.load(), 0);
  std::thread completer([&] {
    promise.setValue(42);
    promise.setValue(43);  // ignored: the first completion wins
    promise.setError(Error(1020));
  });
  std::thread::id completerId = completer.get_id();
  completer.join();
  EXPECT_EQ(runs.load(), 3);
  EXPECT_EQ(ranOn, completerId);
  EXPECT_EQ(f.get(), 42);
}

TEST(FutureContract, ManyThreadsWaitOnOneFuture) {
  Promise<std::string> promise;
  Future<std::string> f = promise.future();
  std::atomic<int> seen{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([f, &seen] {
      if (f.get() == "done") ++seen;
    });
  }
  promise.setValue("done");
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_EQ(seen.load(), 4);
}

TEST(FutureContract, ErrorsReachEveryWaiter) {
  Promise<void> promise;
  Future<void> f = promise.future();
  std::thread completer([&] { promise.setError(Error(errors::kNotCommitted)); });
  completer.join();
  try {
    f.get();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kNotCommitted);
  }
  ASSERT_TRUE(f.error().has_value());
  EXPECT_EQ(f.error()->code(), errors::kNotCommitted);
}

TEST(FutureContract, CancelAffectsOnlyPendingFutures) {
  Promise<int> promise;
  Future<int> pending = promise.future();
  int callbackRuns = 0;
  pending.onReady([&] { ++callbackRuns; });
  pending.cancel();
  EXPECT_EQ(callbackRuns, 1);  // callbacks fire with the cancellation
  ASSERT_TRUE(pending.error().has_value());
  EXPECT_EQ(pending.error()->code(), 1101);
  promise.setValue(1);  // too late
  EXPECT_EQ(pending.error()->code(), 1101);

  Future<int> ready = Future<int>::ready(5);
  ready.cancel();
  EXPECT_EQ(ready.get(), 5);
}

TEST(FutureContract, AWeakPromiseExpiresWhenNobodyHoldsTheFuture) {
  Promise<void> promise;
  WeakPromise<void> weak = promise.weaken();
  {
    Future<void> f = promise.future();
    EXPECT_FALSE(weak.expired());
  }
  promise = Promise<void>();  // the last owner of the old state goes away
  EXPECT_TRUE(weak.expired());
  weak.setValue();  // harmless
}

// A value that counts the copies made of it (moves are free).
struct Counted {
  explicit Counted(int* copies, std::string payload)
      : copies(copies), payload(std::move(payload)) {}
  Counted(const Counted& other) : copies(other.copies), payload(other.payload) { ++*copies; }
  Counted(Counted&&) = default;
  Counted& operator=(const Counted&) = delete;
  Counted& operator=(Counted&&) = default;
  int* copies;
  std::string payload;
};

TEST(FutureContract, GetOnAFutureNobodyElseHoldsMovesTheValueOut) {
  int copies = 0;
  EXPECT_EQ(Future<Counted>::ready(Counted(&copies, "rows")).get().payload, "rows");
  EXPECT_EQ(copies, 0);

  Promise<Counted> promise;
  Future<Counted> f = promise.future();
  promise.setValue(Counted(&copies, "later"));
  promise = Promise<Counted>();  // the producer is gone: f is the only holder
  EXPECT_EQ(std::move(f).get().payload, "later");
  EXPECT_EQ(copies, 0);
}

TEST(FutureContract, GetCopiesWhileTheResultIsShared) {
  int copies = 0;
  Future<Counted> f = Future<Counted>::ready(Counted(&copies, "shared"));
  EXPECT_EQ(f.get().payload, "shared");  // an lvalue: copied, and can be asked again
  EXPECT_EQ(f.get().payload, "shared");
  EXPECT_EQ(copies, 2);
  Future<Counted> other = f;
  EXPECT_EQ(std::move(f).get().payload, "shared");  // `other` still needs it
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(other.get().payload, "shared");
  EXPECT_EQ(copies, 4);

  Future<Counted> last = Future<Counted>::ready(Counted(&copies, "last"));
  {
    Future<Counted> copy = last;
    EXPECT_EQ(std::move(copy).get().payload, "last");
    EXPECT_EQ(copies, 5);
  }
  EXPECT_EQ(std::move(last).get().payload, "last");  // the copy is gone: moved out
  EXPECT_EQ(copies, 5);
}

// A value that counts its copies and its moves.
struct Tracked {
  Tracked(int* copies, int* moves, std::string payload)
      : copies(copies), moves(moves), payload(std::move(payload)) {}
  Tracked(const Tracked& other) : copies(other.copies), moves(other.moves), payload(other.payload) {
    ++*copies;
  }
  Tracked(Tracked&& other) noexcept
      : copies(other.copies), moves(other.moves), payload(std::move(other.payload)) {
    ++*moves;
  }
  Tracked& operator=(const Tracked&) = delete;
  Tracked& operator=(Tracked&&) = default;
  int* copies;
  int* moves;
  std::string payload;
};

TEST(FutureContract, ConsumeHandsTheValueItselfToTheSoleHolder) {
  int copies = 0;
  int moves = 0;
  Future<Tracked> f = Future<Tracked>::ready(Tracked(&copies, &moves, "rows"));
  const int movesBefore = moves;
  // The sole holder: `use` gets the stored value as an rvalue, neither copied nor moved out.
  size_t size = std::move(f).consume([](Tracked&& value) { return value.payload.size(); });
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(copies, 0);
  EXPECT_EQ(moves, movesBefore);

  // Shared: `use` gets a copy, and the other holder still reads the value.
  Future<Tracked> shared = Future<Tracked>::ready(Tracked(&copies, &moves, "shared"));
  Future<Tracked> other = shared;
  std::string taken =
      std::move(shared).consume([](Tracked&& value) { return std::move(value.payload); });
  EXPECT_EQ(taken, "shared");
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(other.get().payload, "shared");

  EXPECT_THROW(
      Future<Tracked>::failed(Error(errors::kNotCommitted)).consume([](Tracked&&) { return 0; }),
      Error);
}

TEST(FutureContract, GetOnATemporaryStillThrowsTheError) {
  try {
    Future<std::string>::failed(Error(errors::kNotCommitted)).get();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kNotCommitted);
  }
}

// A lazy future (Promise::setStarter): its starter runs once, on the first thread that asks.
TEST(FutureContract, ALazyFutureStartsOnceWhenFirstAsked) {
  Promise<int> promise;
  std::atomic<int> starts{0};
  promise.setStarter([&starts, done = promise.weaken()] {
    ++starts;
    done.setValue(5);
  });
  Future<int> f = promise.future();
  EXPECT_EQ(starts.load(), 0);
  EXPECT_TRUE(f.isReady());  // asking started it; it completed at once
  EXPECT_EQ(starts.load(), 1);
  EXPECT_EQ(f.get(), 5);
  EXPECT_EQ(starts.load(), 1);

  // Several threads asking at once: one starts it, the others wait for its outcome.
  Promise<int> later;
  std::atomic<int> laterStarts{0};
  std::thread completer;
  later.setStarter([&, done = later.weaken()] {
    ++laterStarts;
    completer = std::thread([done] { done.setValue(9); });
  });
  Future<int> shared = later.future();
  std::vector<std::thread> askers;
  std::atomic<int> sum{0};
  for (int i = 0; i < 4; ++i) askers.emplace_back([&] { sum += shared.get(); });
  for (std::thread& asker : askers) asker.join();
  completer.join();
  EXPECT_EQ(laterStarts.load(), 1);
  EXPECT_EQ(sum.load(), 36);
}

TEST(FutureContract, ACallbackAsksALazyFuture) {
  Promise<void> promise;
  promise.setStarter([done = promise.weaken()] { done.setValue(); });
  int runs = 0;
  promise.future().onReady([&] { ++runs; });
  EXPECT_EQ(runs, 1);  // registered, started, completed: all before onReady returned
}

TEST(FutureContract, ALazyFutureNeverStartsIfCompletedFirstOrDropped) {
  int starts = 0;
  Promise<int> cancelled;
  cancelled.setStarter([&] { ++starts; });
  Future<int> f = cancelled.future();
  f.cancel();
  EXPECT_EQ(f.error()->code(), 1101);
  {
    Promise<int> dropped;
    dropped.setStarter([&] { ++starts; });
    (void)dropped.future();
  }
  EXPECT_EQ(starts, 0);
}

// The allocation-free form: `target->start()` runs, and the future holds `target` only until
// it runs or the future completes (a producer may embed the future's state in the target).
struct CountingStarter {
  std::atomic<int>* starts;
  WeakPromise<int> done;
  void start() {
    ++*starts;
    done.setValue(7);
  }
};

TEST(FutureContract, ASharedStarterIsReleasedWhenItRunsOrTheFutureCompletes) {
  std::atomic<int> starts{0};
  Promise<int> asked;
  auto target = std::make_shared<CountingStarter>(CountingStarter{&starts, asked.weaken()});
  std::weak_ptr<CountingStarter> watch = target;
  asked.setStarter(std::move(target));
  Future<int> f = asked.future();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(f.get(), 7);
  EXPECT_EQ(starts.load(), 1);
  EXPECT_TRUE(watch.expired());

  Promise<int> completed;
  target = std::make_shared<CountingStarter>(CountingStarter{&starts, completed.weaken()});
  watch = target;
  completed.setStarter(std::move(target));
  Future<int> g = completed.future();
  completed.setValue(3);
  EXPECT_TRUE(watch.expired());  // released unrun
  EXPECT_EQ(g.get(), 3);
  EXPECT_EQ(starts.load(), 1);
}

// Asking and completing race: the starter runs at most once, and the outcome is one of the two.
TEST(FutureContract, AskingAndCompletingALazyFutureAtOnce) {
  for (int i = 0; i < 200; ++i) {
    std::atomic<int> starts{0};
    Promise<int> promise;
    promise.setStarter(
        std::make_shared<CountingStarter>(CountingStarter{&starts, promise.weaken()}));
    Future<int> f = promise.future();
    std::thread completer([promise]() mutable { promise.setValue(3); });
    int value = f.get();
    completer.join();
    EXPECT_LE(starts.load(), 1);
    if (value == 7) {
      EXPECT_EQ(starts.load(), 1);  // the starter won
    } else {
      EXPECT_EQ(value, 3);  // the completer won; the starter ran after it or never
    }
  }
}

}  // namespace
}  // namespace fdb
