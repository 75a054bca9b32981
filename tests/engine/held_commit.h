// HeldCommit — a commit stopped between its first and second mutation, with the engine's
// commit lock held (Engine::setApplyHookForTesting), on a thread of its own: what the engine's
// tests use to see what reads and other commits do while a commit is being applied.
//
//   HeldCommit held(engine, {{Mutation::Kind::kSet, "a", "new"}, {Mutation::Kind::kSet, "b",
//   "new"}});
//   ASSERT_TRUE(held.isHeld());
//   ... reads at engine.getReadVersion() see neither write ...
//   held.release();  // the commit finishes; release() waits for it
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace fdb::engine::test_support {

class HeldCommit {
 public:
  // Starts committing `mutations` (at least two; no read conflicts) and returns once the first
  // is applied, or after 30 seconds (then isHeld() is false).
  HeldCommit(Engine& engine, std::vector<Mutation> mutations)
      : engine_(engine), mutations_(std::move(mutations)) {
    engine_.setApplyHookForTesting([this](size_t index) {
      if (index != 0) return;
      std::unique_lock lock(mutex_);
      applying_ = true;
      changed_.notify_all();
      // Bounded, so a regression fails the test instead of hanging it.
      changed_.wait_for(lock, std::chrono::seconds(30), [&] { return released_; });
    });
    committer_ = std::thread([this] {
      try {
        CommitRequest request;
        request.readVersion = engine_.getReadVersion();
        request.selfConflict = false;
        request.mutations = mutations_;
        engine_.commit(request);
      } catch (...) {
        failure_ = std::current_exception();
      }
    });
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(30), [&] { return applying_; });
  }
  HeldCommit(const HeldCommit&) = delete;
  HeldCommit& operator=(const HeldCommit&) = delete;
  ~HeldCommit() { finish(); }

  bool isHeld() {
    std::lock_guard lock(mutex_);
    return applying_ && !released_;
  }

  // Lets the commit finish, waits for it and rethrows what it threw. Idempotent.
  void release() {
    if (std::exception_ptr failure = finish()) std::rethrow_exception(failure);
  }

 private:
  std::exception_ptr finish() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    changed_.notify_all();
    if (!committer_.joinable()) return nullptr;
    committer_.join();
    engine_.setApplyHookForTesting(nullptr);
    return std::exchange(failure_, nullptr);
  }

  Engine& engine_;
  const std::vector<Mutation> mutations_;  // the commit's views point into these
  std::mutex mutex_;
  std::condition_variable changed_;
  bool applying_ = false;
  bool released_ = false;
  std::exception_ptr failure_;
  std::thread committer_;
};

}  // namespace fdb::engine::test_support
