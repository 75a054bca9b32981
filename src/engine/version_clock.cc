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

}  // namespace fdb::engine
