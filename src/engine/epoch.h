// EpochDomain — safe memory reclamation for one writer and many lock-free readers.
//
// Readers bracket every access to shared nodes with a Guard; the writer unlinks nodes and
// retires them at the current epoch, and frees them once the epoch has advanced twice past
// it: the epoch only advances when no reader remains from the epoch before the current one,
// so by then every reader that could have seen a retired node has left.
//
// Readers count themselves in one of two counter sets (by the epoch's parity), striped over
// cache lines so threads rarely share one. Entering costs one atomic add and one load;
// leaving, one atomic subtract. The writer never waits for readers: tryAdvance just reports
// whether the epoch could move.
//
//   EpochDomain::Guard guard = domain.enter();   // any thread
//   ... follow pointers published with release stores ...
//
// Thread-safety: enter() from any thread; epoch() and tryAdvance() from the writer only
// (one thread at a time, e.g. under the writer's lock).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace fdb::engine {

class EpochDomain {
 public:
  class Guard {
   public:
    Guard() = default;
    Guard(Guard&& other) noexcept : counter_(other.counter_) { other.counter_ = nullptr; }
    Guard& operator=(Guard&& other) noexcept;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { release(); }

   private:
    friend class EpochDomain;
    explicit Guard(std::atomic<int64_t>* counter) : counter_(counter) {}
    void release();
    std::atomic<int64_t>* counter_ = nullptr;
  };

  // Enters a read-side critical section that lasts as long as the returned guard.
  Guard enter() const;

  // The current epoch (writer).
  uint64_t epoch() const { return epoch_.load(std::memory_order_relaxed); }
  // Moves to the next epoch if no reader that entered before the current epoch is left.
  // Returns whether it moved (writer).
  bool tryAdvance();
  // Whether something retired at `retiredAt` can no longer be seen by any reader (writer).
  bool isSafeToFree(uint64_t retiredAt) const { return epoch() >= retiredAt + 2; }

 private:
  static constexpr size_t kStripes = 16;
  struct alignas(64) Counter {
    std::atomic<int64_t> readers{0};
  };

  // Starts at 2 so that "retired at e, free at e + 2" needs no special case.
  std::atomic<uint64_t> epoch_{2};
  mutable std::array<std::array<Counter, kStripes>, 2> counters_{};  // [parity][stripe]
};

}  // namespace fdb::engine
