// The future contract (spec §1.5, fact 18) across threads: a callback runs exactly once —
// at once if the future is ready, otherwise on the completing thread; a future may be waited
// on from another thread; cancel() makes a pending future operation_cancelled (1101) and
// leaves a ready one alone; only the first completion counts.
#include "fdb/future.h"

#include <atomic>
#include <thread>
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

}  // namespace
}  // namespace fdb
