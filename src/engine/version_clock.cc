#include "engine/version_clock.h"

#include <thread>

namespace fdb::engine {

int64_t SteadyVersionClock::nowMicros() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               origin_)
      .count();
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
