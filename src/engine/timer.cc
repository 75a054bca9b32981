#include "engine/timer.h"

#include <sys/prctl.h>

#include <algorithm>

namespace fdb::engine {
namespace {

// How close to a deadline the timer stops sleeping and polls the clock instead.
constexpr int64_t kSpinMicros = 100;

}  // namespace

Timer::Timer(std::shared_ptr<VersionClock> clock)
    : clock_(std::move(clock)), wakeup_(std::make_shared<Wakeup>()) {
  std::weak_ptr<Wakeup> weak = wakeup_;
  clock_->onAdvance([weak] {
    if (auto wakeup = weak.lock()) {
      std::lock_guard lock(wakeup->mutex);
      wakeup->cv.notify_all();
    }
  });
  thread_ = std::thread([this] { run(); });
}

Timer::~Timer() {
  {
    std::lock_guard lock(wakeup_->mutex);
    stopping_ = true;
  }
  wakeup_->cv.notify_all();
  thread_.join();
}

void Timer::schedule(int64_t deadlineMicros, std::function<void()> callback) {
  {
    std::lock_guard lock(wakeup_->mutex);
    tasks_.push(Task{deadlineMicros, nextSequence_++, std::move(callback)});
  }
  wakeup_->cv.notify_all();
}

TimerStats Timer::stats() const {
  std::lock_guard lock(wakeup_->mutex);
  return stats_;
}

void Timer::run() {
  // Deadlines are microseconds apart; the default 50 us slack would blur them.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::unique_lock lock(wakeup_->mutex);
  while (true) {
    if (stopping_) {
      // The database is going away: deliver what is still pending now rather than leave
      // a future that never completes.
      while (!tasks_.empty()) {
        Task task = tasks_.top();
        tasks_.pop();
        lock.unlock();
        task.callback();
        lock.lock();
      }
      return;
    }
    if (tasks_.empty()) {
      wakeup_->cv.wait(lock);
      continue;
    }
    int64_t now = clock_->nowMicros();
    const Task& next = tasks_.top();
    if (next.deadline > now) {
      int64_t remaining = next.deadline - now;
      if (clock_->isManual()) {
        wakeup_->cv.wait(lock);  // woken by the clock's advance or a new task
      } else if (remaining > kSpinMicros) {
        // Sleep until shortly before the deadline: waking from a sleep takes tens of us.
        wakeup_->cv.wait_for(lock, std::chrono::microseconds(remaining - kSpinMicros));
      } else {
        lock.unlock();
        std::this_thread::yield();  // the last stretch: poll, so the delay is kept exactly
        lock.lock();
      }
      continue;
    }
    Task task = next;
    tasks_.pop();
    int64_t lateness = now - task.deadline;
    ++stats_.fired;
    stats_.totalLatenessMicros += lateness;
    stats_.maxLatenessMicros = std::max(stats_.maxLatenessMicros, lateness);
    lock.unlock();
    task.callback();
    lock.lock();
  }
}

}  // namespace fdb::engine
