#include "engine/engine.h"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "engine/atomic.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

// The first version a new database reports (FoundationDB's are large too; any positive
// start works).
constexpr int64_t kInitialVersion = 100 * kVersionsPerSecond;
// How often (in commits) the resolver's history drops versions past the window.
constexpr int64_t kHistoryCleanupInterval = 1024;

// The operand of a versionstamped operation with the 10-byte versionstamp of `version` put
// at the offset its last four bytes name (little-endian), and those four bytes dropped.
// The transaction validated the offset.
Bytes placeVersionstamp(std::string_view operand, int64_t version) {
  size_t offset = 0;
  for (int i = 3; i >= 0; --i) {
    offset =
        offset << 8 | static_cast<uint8_t>(operand[operand.size() - 4 + static_cast<size_t>(i)]);
  }
  Bytes out(operand.substr(0, operand.size() - 4));
  for (int i = 0; i < 8; ++i) {  // commit version, big-endian
    out[offset + static_cast<size_t>(i)] = static_cast<char>((version >> (56 - 8 * i)) & 0xff);
  }
  out[offset + 8] = 0;  // batch order, big-endian: one transaction per commit batch here
  out[offset + 9] = 0;
  return out;
}

}  // namespace

Engine::Engine(std::shared_ptr<VersionClock> clock, const EngineOptions& options)
    : clock_(std::move(clock)),
      options_(options),
      faults_(options.faults),
      delayRandom_(options.faults.seed + 1),
      latestCommitted_(0),
      minNextCommit_(0) {
  latestCommitted_ = wallVersion();
  minNextCommit_ = latestCommitted_ + 1;
}

int64_t Engine::wallVersion() const { return kInitialVersion + clock_->nowMicros(); }

int64_t Engine::currentVersionLocked() const {
  return std::max(latestCommitted_.load(), wallVersion());
}

void Engine::raiseMinNextCommit(int64_t version) {
  int64_t next = version + 1;
  int64_t seen = minNextCommit_.load();
  while (seen < next && !minNextCommit_.compare_exchange_weak(seen, next)) {
  }
}

int64_t Engine::getReadVersion() {
  // Lock-free: every acknowledged commit is <= latestCommitted_, and every commit that
  // picks its version from now on picks one >= the wall version now (> this one), so no
  // commit can land at or below the returned version unseen. Reads at it take the shared
  // lock and so wait for any commit still being applied.
  return std::max(latestCommitted_.load(std::memory_order_acquire), wallVersion() - 1);
}

Engine::Reader Engine::read(int64_t version) {
  if (version <= 0) {
    throw Error(errors::kTransactionTooOld,
                fmt::format("read version {} is not positive", version));
  }
  int64_t waitedMicros = 0;
  while (true) {
    std::shared_lock lock(mutex_);
    int64_t current = currentVersionLocked();
    if (version <= current) {
      if (version < current - kMvccWindowVersions) {
        throw Error(errors::kTransactionTooOld,
                    fmt::format("read version {} is older than the MVCC window (current {})",
                                version, current));
      }
      raiseMinNextCommit(version);
      ++readOperations_;
      return Reader(std::move(lock), &store_, version);
    }
    // Versions advance with wall time: wait for this one, as a storage server would.
    if (waitedMicros >= kFutureVersionWaitMicros) {
      throw Error(
          errors::kFutureVersion,
          fmt::format("read version {} is ahead of the database (current {})", version, current));
    }
    lock.unlock();
    int64_t step = std::min(version - current, kFutureVersionWaitMicros - waitedMicros);
    clock_->sleepMicros(step);
    waitedMicros += step;
  }
}

void Engine::apply(const Mutation& mutation, int64_t version) {
  switch (mutation.kind) {
    case Mutation::Kind::kSet: store_.set(mutation.key, mutation.param, version); break;
    case Mutation::Kind::kClearRange:
      store_.clearRange(mutation.key, mutation.param, version);
      break;
    case Mutation::Kind::kAtomic: {
      if (mutation.atomicType == MutationType::kSetVersionstampedKey) {
        store_.set(placeVersionstamp(mutation.key, version), mutation.param, version);
        break;
      }
      if (mutation.atomicType == MutationType::kSetVersionstampedValue) {
        store_.set(mutation.key, placeVersionstamp(mutation.param, version), version);
        break;
      }
      // Evaluated against the value as of this commit, earlier mutations included.
      std::optional<Bytes> result =
          applyAtomicOp(mutation.atomicType, store_.get(mutation.key, version), mutation.param);
      if (result) {
        store_.set(mutation.key, *result, version);
      } else {
        store_.clear(mutation.key, version);
      }
      break;
    }
  }
}

int64_t Engine::commit(const CommitRequest& request) {
  std::unique_lock lock(mutex_);
  int64_t version = std::max({minNextCommit_.load(), latestCommitted_.load() + 1, wallVersion()});
  // The age rule applies to transactions with read conflict ranges, the client's
  // self-conflict key included (spec §2.6 step 4).
  bool hasReadConflicts = request.selfConflict || !request.readConflicts.empty();
  if (hasReadConflicts && request.readVersion < version - kMvccWindowVersions) {
    throw Error(errors::kTransactionTooOld,
                fmt::format("read version {} is more than {} versions older than commit version {}",
                            request.readVersion, kMvccWindowVersions, version));
  }
  for (const KeyRange& range : request.readConflicts) {
    if (history_.conflicts(range.begin, range.end, request.readVersion)) {
      ++conflicts_;
      throw Error(errors::kNotCommitted,
                  fmt::format("a write committed after read version {} intersects [{}, {})",
                              request.readVersion, printable(range.begin), printable(range.end)));
    }
  }
  for (const Mutation& mutation : request.mutations) apply(mutation, version);
  std::vector<WeakPromise<void>> fired;
  if (!watches_.empty()) {
    for (const Mutation& mutation : request.mutations) checkWatches(mutation, version, &fired);
  }
  for (const KeyRange& range : request.writeConflicts) {
    history_.add(range.begin, range.end, version);
  }
  latestCommitted_.store(version, std::memory_order_release);
  minNextCommit_ = std::max(minNextCommit_.load(), version + 1);
  ++commits_;
  collectGarbageLocked(version);
  lock.unlock();
  for (const WeakPromise<void>& promise : fired) promise.setValue();  // callbacks run unlocked
  return version;
}

void Engine::checkWatches(const Mutation& mutation, int64_t version,
                          std::vector<WeakPromise<void>>* fired) {
  auto fireChanged = [&](auto begin, auto end) {
    for (auto it = begin; it != end;) {
      if (it->second.promise.expired()) {
        it = watches_.erase(it);
      } else if (store_.get(it->first, version) != it->second.expected) {
        fired->push_back(std::move(it->second.promise));
        it = watches_.erase(it);
      } else {
        ++it;
      }
    }
  };
  if (mutation.kind == Mutation::Kind::kClearRange) {
    fireChanged(watches_.lower_bound(mutation.key), watches_.lower_bound(mutation.param));
  } else if (mutation.kind == Mutation::Kind::kAtomic &&
             mutation.atomicType == MutationType::kSetVersionstampedKey) {
    // The key written is only known now; checking every watch is simple, and this is rare.
    fireChanged(watches_.begin(), watches_.end());
  } else {
    auto [begin, end] = watches_.equal_range(mutation.key);
    fireChanged(begin, end);
  }
}

void Engine::armWatch(std::string_view key, std::optional<Bytes> expected,
                      WeakPromise<void> promise) {
  std::unique_lock lock(mutex_);
  if (store_.get(key, latestCommitted_.load()) != expected) {
    lock.unlock();
    promise.setValue();
    return;
  }
  watches_.emplace(Bytes(key), Watch{std::move(expected), std::move(promise)});
}

size_t Engine::outstandingWatches() {
  std::unique_lock lock(mutex_);
  std::erase_if(watches_, [](const auto& entry) { return entry.second.promise.expired(); });
  return watches_.size();
}

void Engine::collectGarbageLocked(int64_t version) {
  int64_t horizon = version - kMvccWindowVersions;
  store_.collectGarbage(horizon);
  if (commits_ - lastHistoryCleanup_ >= kHistoryCleanupInterval) {
    history_.forgetUpTo(horizon);
    lastHistoryCleanup_ = commits_;
  }
}

int64_t Engine::roundTrip(RoundTripKind kind) {
  roundTrips_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  int64_t delay = 0;
  if (options_.oneWayDelayMicros > 0) {
    double mean = 2.0 * static_cast<double>(options_.oneWayDelayMicros);
    if (options_.delayDistribution == EngineOptions::DelayDistribution::kFixed) {
      delay = static_cast<int64_t>(mean);
    } else {
      std::lock_guard lock(delayMutex_);
      delay = static_cast<int64_t>(std::exponential_distribution<double>(1.0 / mean)(delayRandom_));
    }
  }
  return delay + faults_.slowdownMicros();
}

RoundTrips Engine::roundTrips() const {
  auto count = [&](RoundTripKind kind) { return roundTrips_[static_cast<size_t>(kind)].load(); };
  return RoundTrips{count(RoundTripKind::kReadVersion), count(RoundTripKind::kRead),
                    count(RoundTripKind::kRangeRead), count(RoundTripKind::kMappedRangeRead),
                    count(RoundTripKind::kCommit)};
}

Timer& Engine::timer() {
  std::call_once(timerStarted_, [&] { timer_ = std::make_unique<Timer>(clock_); });
  return *timer_;
}

EngineStats Engine::stats() const {
  std::shared_lock lock(mutex_);
  return EngineStats{
      readOperations_.load(),  commits_, conflicts_, store_.keyCount(), store_.entryCount(),
      history_.boundaryCount()};
}

}  // namespace fdb::engine
