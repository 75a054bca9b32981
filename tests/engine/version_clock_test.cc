// The version clocks (src/engine/version_clock.h): the steady clock's coarse reading, used for
// transaction timeouts, is never ahead of the precise one and never goes back.
#include "engine/version_clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace fdb::engine {
namespace {

TEST(SteadyVersionClock, CoarseReadingNeverLeadsThePreciseOneAndNeverGoesBack) {
  SteadyVersionClock clock;
  int64_t lastCoarse = clock.coarseMicros();
  for (int i = 0; i < 20000; ++i) {
    const int64_t coarse = clock.coarseMicros();
    const int64_t precise = clock.nowMicros();
    EXPECT_LE(coarse, precise);
    EXPECT_GE(coarse, lastCoarse);
    lastCoarse = coarse;
  }
}

TEST(SteadyVersionClock, CoarseReadingFollowsTime) {
  SteadyVersionClock clock;
  const int64_t before = clock.coarseMicros();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  // At least the sleep minus one tick of the coarse clock (a few ms; 20 ms is generous).
  EXPECT_GE(clock.coarseMicros() - before, 40000);
}

TEST(ManualVersionClock, CoarseReadingIsThePreciseOne) {
  ManualVersionClock clock;
  clock.advanceMicros(1234);
  EXPECT_EQ(clock.coarseMicros(), 1234);
  EXPECT_EQ(clock.coarseMicros(), clock.nowMicros());
}

}  // namespace
}  // namespace fdb::engine
