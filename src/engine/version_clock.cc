#include "engine/version_clock.h"

#include <time.h>

#include <thread>

namespace fdb::engine {

int64_t SteadyVersionClock::nowMicros() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               origin_)
      .count();
}

int64_t SteadyVersionClock::coarseMicros() const {
#ifdef CLOCK_MONOTONIC_COARSE
  // steady_clock is CLOCK_MONOTONIC, whose coarse reading shares its origin and lags it by
  // less than a tick.
  timespec now;
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &now) == 0) {
    const int64_t nanos = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
    const int64_t originNanos =
        std::chrono::duration_cast<std::chrono::nanoseconds>(origin_.time_since_epoch()).count();
    return (nanos - originNanos) / 1000;
  }
#endif
  return nowMicros();
}

void SteadyVersionClock::sleepMicros(int64_t micros) {
  if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
}

void ManualVersionClock::onAdvance(std::function<void()> listener) {
  std::lock_guard lock(listenersMutex_);
  listeners_.push_back(std::move(listener));
}

void ManualVersionClock::advanceMicros(int64_t micros) {
  now_.fetch_add(micros);
  std::vector<std::function<void()>> listeners;
  {
    std::lock_guard lock(listenersMutex_);
    listeners = listeners_;
  }
  for (auto& listener : listeners) listener();
}

}  // namespace fdb::engine
