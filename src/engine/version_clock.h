// The source of wall time for versions: FoundationDB's versions advance about 1,000,000 a
// second. The engine reads microseconds from a VersionClock; tests substitute a manual one
// to move time without waiting.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace fdb::engine {

inline constexpr int64_t kVersionsPerSecond = 1000000;
// MAX_READ_TRANSACTION_LIFE_VERSIONS / MAX_WRITE_TRANSACTION_LIFE_VERSIONS.
inline constexpr int64_t kMvccWindowVersions = 5000000;
// How long a read at a future version waits for the database to reach it (FUTURE_VERSION_DELAY).
inline constexpr int64_t kFutureVersionWaitMicros = 1000000;

class VersionClock {
 public:
  virtual ~VersionClock() = default;
  // Microseconds since an arbitrary origin; never decreases.
  virtual int64_t nowMicros() const = 0;
  // The same time read cheaply at the cost of resolution (the steady clock's: the kernel's
  // tick, a few milliseconds): never ahead of nowMicros(), never decreasing. For checks
  // counted in milliseconds or seconds (timeouts, the MVCC window's age), not for versions.
  virtual int64_t coarseMicros() const { return nowMicros(); }
  // Waits `micros` of this clock's time (a manual clock just advances).
  virtual void sleepMicros(int64_t micros) = 0;
  // True when time moves only by advancing it (then onAdvance callbacks announce it).
  virtual bool isManual() const { return false; }
  // Calls `listener` after every advance of a manual clock (never for the steady clock).
  virtual void onAdvance(std::function<void()> /*listener*/) {}
};

class SteadyVersionClock final : public VersionClock {
 public:
  int64_t nowMicros() const override;
  // CLOCK_MONOTONIC_COARSE (a few ns to read; CLOCK_MONOTONIC costs ~20 ns in a VM).
  int64_t coarseMicros() const override;
  void sleepMicros(int64_t micros) override;

 private:
  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
};

// Time that moves only when told to (and by sleepMicros): for tests.
class ManualVersionClock final : public VersionClock {
 public:
  int64_t nowMicros() const override { return now_.load(); }
  void sleepMicros(int64_t micros) override { advanceMicros(micros); }
  bool isManual() const override { return true; }
  void onAdvance(std::function<void()> listener) override;
  void advanceMicros(int64_t micros);

 private:
  std::atomic<int64_t> now_{0};
  std::mutex listenersMutex_;
  std::vector<std::function<void()>> listeners_;
};

}  // namespace fdb::engine
