// Timer — runs callbacks at given times of a VersionClock on its own thread: how the engine
// completes operations after a simulated network delay without sleeping on the caller's
// thread. With a manual clock it runs what falls due as the clock is advanced.
//
// The thread asks for 1 ns timer slack (prctl PR_SET_TIMERSLACK) and records how late each
// callback ran against its deadline.
//
// Thread-safety: schedule() may be called from any thread. A callback must not destroy the
// Timer.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "engine/version_clock.h"

namespace fdb::engine {

struct TimerStats {
  int64_t fired = 0;
  int64_t totalLatenessMicros = 0;  // how late callbacks ran, summed
  int64_t maxLatenessMicros = 0;
};

class Timer {
 public:
  explicit Timer(std::shared_ptr<VersionClock> clock);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Runs `callback` once the clock reaches `deadlineMicros` (at once if it has).
  void schedule(int64_t deadlineMicros, std::function<void()> callback);
  TimerStats stats() const;

 private:
  struct Task {
    int64_t deadline;
    uint64_t sequence;  // FIFO among equal deadlines
    std::function<void()> callback;
    bool operator>(const Task& other) const {
      return deadline != other.deadline ? deadline > other.deadline : sequence > other.sequence;
    }
  };

  void run();

  // Shared with the clock's advance listener, which may outlive the Timer.
  struct Wakeup {
    std::mutex mutex;
    std::condition_variable cv;
  };

  std::shared_ptr<VersionClock> clock_;
  std::shared_ptr<Wakeup> wakeup_;
  std::priority_queue<Task, std::vector<Task>, std::greater<>> tasks_;  // guarded by wakeup_->mutex
  uint64_t nextSequence_ = 0;
  bool stopping_ = false;
  TimerStats stats_;
  std::thread thread_;
};

}  // namespace fdb::engine
