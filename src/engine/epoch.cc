#include "engine/epoch.h"

namespace fdb::engine {
namespace {

// Each thread keeps to one stripe, handed out round-robin as threads first read.
size_t threadStripe(size_t stripes) {
  static std::atomic<size_t> next{0};
  // Zero until the thread's first read (a trivial thread-local: no initialization guard).
  thread_local size_t stripePlusOne = 0;
  if (stripePlusOne == 0) stripePlusOne = next.fetch_add(1, std::memory_order_relaxed) + 1;
  return (stripePlusOne - 1) % stripes;
}

}  // namespace

EpochDomain::Guard& EpochDomain::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    release();
    counter_ = other.counter_;
    other.counter_ = nullptr;
  }
  return *this;
}

void EpochDomain::Guard::release() {
  if (counter_ != nullptr) {
    // Release: the reader's accesses happen before the writer's check that sees it gone.
    counter_->fetch_sub(1, std::memory_order_release);
    counter_ = nullptr;
  }
}

EpochDomain::Guard EpochDomain::enter() const {
  const size_t stripe = threadStripe(kStripes);
  while (true) {
    uint64_t epoch = epoch_.load(std::memory_order_seq_cst);
    std::atomic<int64_t>& counter = counters_[epoch & 1][stripe].readers;
    counter.fetch_add(1, std::memory_order_seq_cst);
    // If the epoch moved meanwhile, the writer may already have checked this parity's
    // counters and missed us: count ourselves under the new epoch instead.
    if (epoch_.load(std::memory_order_seq_cst) == epoch) return Guard(&counter);
    counter.fetch_sub(1, std::memory_order_release);
  }
}

bool EpochDomain::tryAdvance() {
  uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  // Readers of the previous epoch share the parity of the next one: it must be empty.
  for (const Counter& counter : counters_[(epoch + 1) & 1]) {
    if (counter.readers.load(std::memory_order_seq_cst) != 0) return false;
  }
  epoch_.store(epoch + 1, std::memory_order_seq_cst);
  return true;
}

}  // namespace fdb::engine
