#include "engine/engine.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <mutex>
#include <thread>

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
// Durable mode: a cleared range hiding at most this many base keys clears each of them in
// memory; a larger one becomes a range tombstone.
constexpr size_t kMaterializedClearLimit = 256;
// Durable mode: how often the folder moves versions out of the window into the base.
constexpr auto kFoldInterval = std::chrono::milliseconds(50);

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
    : Engine(std::move(clock), options, nullptr) {}

Engine::Engine(std::shared_ptr<VersionClock> clock, const EngineOptions& options,
               std::shared_ptr<DurableStore> durable)
    : clock_(std::move(clock)),
      options_(options),
      initialVersion_(kInitialVersion),
      faults_(options.faults),
      delayRandom_(options.faults.seed + 1),
      store_(durable != nullptr),
      latestCommitted_(0),
      commitInFlight_(INT64_MAX),
      minNextCommit_(0),
      durable_(std::move(durable)) {
  if (durable_) {
    std::lock_guard lock(commitMutex_);
    int64_t newest = durable_->replayLog([&](int64_t version, std::string_view record) {
      LogRecord::forEach(record,
                         [&](LogRecord::Op op, std::string_view key, std::string_view second) {
                           applyLogged(op, key, second, version);
                         });
    });
    // Versions continue above every durable one, so versionstamps keep increasing.
    initialVersion_ = std::max(kInitialVersion, newest + 1);
  }
  latestCommitted_ = wallVersion();
  lastApplied_ = latestCommitted_;
  minNextCommit_ = latestCommitted_ + 1;
  if (durable_) folder_ = std::thread([this] { foldLoop(); });
}

Engine::~Engine() {
  if (!durable_) return;
  if (exitQuiesced_) return;  // the process is exiting: RocksDB may be gone
  stopFolder();
  // No reader is left: everything durable can go into the base, so the next open replays
  // nothing. A failure leaves the log to the next open's recovery.
  try {
    durable_->foldTo(latestCommitted_.load());
  } catch (const Error&) {
  }
}

void Engine::stopFolder() {
  {
    std::lock_guard lock(folderMutex_);
    stopping_ = true;
  }
  folderWake_.notify_all();
  if (folder_.joinable()) folder_.join();
}

void Engine::quiesceForExit() {
  if (!durable_) return;
  stopFolder();
  durable_->syncLog();
  exitQuiesced_ = true;
}

int64_t Engine::wallVersion() const { return initialVersion_ + clock_->nowMicros(); }

void Engine::raiseMinNextCommit(int64_t version) {
  int64_t next = version + 1;
  int64_t seen = minNextCommit_.load();
  while (seen < next && !minNextCommit_.compare_exchange_weak(seen, next)) {
  }
}

// How reads avoid waiting for commits. A commit announces a lower bound of its version in
// commitInFlight_ (the wall version, before it picks the version), then picks a version
// >= that bound and >= minNextCommit_, applies, publishes latestCommitted_, and clears the
// announcement. A read version v is safe when every commit at or below v is applied: true
// for v <= latestCommitted_; for a larger v, the reader raises minNextCommit_ above v and
// then checks that no commit in flight announced a bound <= v. Both sides write, then read
// the other's variable (sequentially consistent), so either the commit sees the raised
// minimum and lands above v, or the reader sees the commit's announcement.
int64_t Engine::getReadVersion() {
  // Lock-free: every acknowledged commit is <= latestCommitted_. The wall version is read
  // before the announcement, so a commit announcing after that lands above it; one already
  // announced caps the result below its bound. Reads at the result never wait.
  int64_t wall = wallVersion() - 1;
  int64_t inFlight = commitInFlight_.load();
  int64_t latest = latestCommitted_.load();
  return std::max(latest, std::min(wall, inFlight - 1));
}

Engine::Reader Engine::read(int64_t version) {
  if (version <= 0) {
    throw Error(errors::kTransactionTooOld,
                fmt::format("read version {} is not positive", version));
  }
  int64_t waitedMicros = 0;
  while (true) {
    // Entered before the age check below, so garbage collection cannot drop what this
    // reader is entitled to see while it reads (see VersionedStore::collectGarbage).
    VersionedStore::ReadGuard guard = store_.enterRead();
    int64_t latest = latestCommitted_.load();
    int64_t wall = wallVersion();
    int64_t current = std::max(latest, wall);
    if (version < current - kMvccWindowVersions) {
      throw Error(errors::kTransactionTooOld,
                  fmt::format("read version {} is older than the MVCC window (current {})", version,
                              current));
    }
    if (version < minReadable_.load()) {
      throw Error(errors::kTransactionTooOld,
                  fmt::format("read version {} is older than {}: the durable store's window went "
                              "over its memory budget and was folded to disk early",
                              version, minReadable_.load()));
    }
    if (version <= latest) {
      ++readOperations_;
      return Reader(std::move(guard), &store_, durable_.get(), version);
    }
    if (version <= wall) {
      raiseMinNextCommit(version);
      if (commitInFlight_.load() > version) {
        ++readOperations_;
        return Reader(std::move(guard), &store_, durable_.get(), version);
      }
      // A commit that may land at or below this version is being applied: only a version
      // the client chose itself gets here (read versions handed out stay below in-flight
      // commits). It takes microseconds.
      guard = {};
      std::this_thread::yield();
      continue;
    }
    // Versions advance with wall time: wait for this one, as a storage server would.
    if (waitedMicros >= kFutureVersionWaitMicros) {
      throw Error(
          errors::kFutureVersion,
          fmt::format("read version {} is ahead of the database (current {})", version, current));
    }
    guard = {};
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

void Engine::resolveLocked(const CommitRequest& request, int64_t version) {
  // The age rule applies to transactions with read conflict ranges, the client's
  // self-conflict key included (spec §2.6 step 4).
  bool hasReadConflicts = request.selfConflict || !request.readConflicts.empty();
  if (hasReadConflicts && request.readVersion < version - kMvccWindowVersions) {
    throw Error(errors::kTransactionTooOld,
                fmt::format("read version {} is more than {} versions older than commit version {}",
                            request.readVersion, kMvccWindowVersions, version));
  }
  for (KeyRangeView range : request.readConflicts) {
    if (history_.conflicts(range.begin, range.end, request.readVersion)) {
      ++conflicts_;
      throw Error(errors::kNotCommitted,
                  fmt::format("a write committed after read version {} intersects [{}, {})",
                              request.readVersion, printable(range.begin), printable(range.end)));
    }
  }
}

int64_t Engine::commit(const CommitRequest& request) {
  if (durable_) return commitDurable(request);
  std::unique_lock lock(commitMutex_);
  // Announce before picking the version (see getReadVersion); withdrawn on every exit.
  commitInFlight_.store(wallVersion());
  struct Withdraw {  // on a failure; destroyed before `lock`
    std::atomic<int64_t>* inFlight;
    ~Withdraw() {
      if (inFlight != nullptr) inFlight->store(INT64_MAX);
    }
  } withdraw{&commitInFlight_};
  int64_t version = std::max({minNextCommit_.load(), latestCommitted_.load() + 1, wallVersion()});
  resolveLocked(request, version);
  for (size_t i = 0; i < request.mutations.size(); ++i) {
    apply(request.mutations[i], version);
    if (applyHook_) applyHook_(i);
  }
  std::vector<WeakPromise<void>> fired;
  if (!watches_.empty()) {
    for (const Mutation& mutation : request.mutations) checkWatches(mutation, version, &fired);
  }
  for (KeyRangeView range : request.writeConflicts) {
    history_.add(range.begin, range.end, version);
  }
  // Published before the announcement is withdrawn: a reader sees one or the other.
  latestCommitted_.store(version);
  commitInFlight_.store(INT64_MAX);
  withdraw.inFlight = nullptr;
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
      } else if (valueAt(it->first, version) != it->second.expected) {
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
  std::unique_lock lock(commitMutex_);
  if (durable_) {
    // Judged against every commit applied, published or not: one not yet published fires
    // the watch when it is.
    if (valueAt(key, lastApplied_) != expected) {
      if (lastApplied_ > latestCommitted_.load()) {
        unpublishedWatches_.emplace_back(lastApplied_, std::move(promise));
        return;
      }
      lock.unlock();
      promise.setValue();
      return;
    }
  } else if (store_.get(key, latestCommitted_.load()) != expected) {
    lock.unlock();
    promise.setValue();
    return;
  }
  watches_.emplace(Bytes(key), Watch{std::move(expected), std::move(promise)});
}

size_t Engine::outstandingWatches() {
  std::unique_lock lock(commitMutex_);
  std::erase_if(watches_, [](const auto& entry) { return entry.second.promise.expired(); });
  return watches_.size();
}

void Engine::collectGarbageLocked(int64_t version) {
  // Readers check both bounds after entering (see read()).
  int64_t horizon = std::max(version - kMvccWindowVersions, minReadable_.load());
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
  std::unique_lock lock(commitMutex_);
  return EngineStats{
      readOperations_.load(),  commits_, conflicts_, store_.keyCount(), store_.entryCount(),
      history_.boundaryCount()};
}

// ---- Durable mode ------------------------------------------------------------------------

std::optional<Bytes> Engine::valueAt(std::string_view key, int64_t version) const {
  if (durable_) return durable_->get(store_, key, version);
  return store_.get(key, version);
}

void Engine::applyLogged(LogRecord::Op op, std::string_view key, std::string_view second,
                         int64_t version) {
  switch (op) {
    case LogRecord::Op::kSet: store_.set(key, second, version); break;
    case LogRecord::Op::kClear: store_.clear(key, version); break;
    case LogRecord::Op::kClearRange: {
      if (key >= second) break;
      store_.clearRange(key, second, version);  // the keys the store holds
      // The base's keys: each cleared in memory when there are few, else one tombstone.
      std::vector<Bytes> baseKeys;
      if (durable_->baseKeys(key, second, kMaterializedClearLimit, &baseKeys)) {
        for (const Bytes& baseKey : baseKeys) store_.clear(baseKey, version);
      } else {
        store_.addTombstone(key, second, version);
      }
      break;
    }
  }
}

void Engine::applyDurable(const Mutation& mutation, int64_t version, LogRecord& record) {
  switch (mutation.kind) {
    case Mutation::Kind::kSet:
      record.set(mutation.key, mutation.param);
      store_.set(mutation.key, mutation.param, version);
      break;
    case Mutation::Kind::kClearRange: {
      // clear(key) arrives as [key, key\0): one key, no need to look at the base.
      std::string_view end = mutation.param;
      bool oneKey = end.size() == mutation.key.size() + 1 && end.back() == '\0' &&
                    end.starts_with(mutation.key);
      if (oneKey) {
        record.clear(mutation.key);
        applyLogged(LogRecord::Op::kClear, mutation.key, {}, version);
      } else {
        record.clearRange(mutation.key, end);
        applyLogged(LogRecord::Op::kClearRange, mutation.key, end, version);
      }
      break;
    }
    case Mutation::Kind::kAtomic: {
      if (mutation.atomicType == MutationType::kSetVersionstampedKey) {
        Bytes key = placeVersionstamp(mutation.key, version);
        record.set(key, mutation.param);
        store_.set(key, mutation.param, version);
        break;
      }
      if (mutation.atomicType == MutationType::kSetVersionstampedValue) {
        Bytes value = placeVersionstamp(mutation.param, version);
        record.set(mutation.key, value);
        store_.set(mutation.key, value, version);
        break;
      }
      std::optional<Bytes> result =
          applyAtomicOp(mutation.atomicType, valueAt(mutation.key, version), mutation.param);
      if (result) {
        record.set(mutation.key, *result);
        store_.set(mutation.key, *result, version);
      } else {
        record.clear(mutation.key);
        store_.clear(mutation.key, version);
      }
      break;
    }
  }
}

int64_t Engine::commitDurable(const CommitRequest& request) {
  std::unique_lock lock(commitMutex_);
  if (logFailure_) throw *logFailure_;
  // Announce (see getReadVersion). Unpublished commits stay hidden behind the oldest of
  // them, which bounds every version still to come; otherwise this commit's lower bound.
  commitInFlight_.store(std::min(firstUnpublished_, wallVersion()));
  struct Withdraw {  // on a failure; destroyed before `lock`
    Engine* engine;
    ~Withdraw() {
      if (engine != nullptr) engine->commitInFlight_.store(engine->firstUnpublished_);
    }
  } withdraw{this};
  int64_t version = std::max({minNextCommit_.load(), lastApplied_ + 1, wallVersion()});
  resolveLocked(request, version);
  LogRecord record;
  try {
    for (size_t i = 0; i < request.mutations.size(); ++i) {
      applyDurable(request.mutations[i], version, record);
      if (applyHook_) applyHook_(i);
    }
  } catch (const Error& e) {
    // Reading the base failed with the commit half applied: it stays hidden for good, and
    // the engine takes no more commits.
    lastApplied_ = version;
    firstUnpublished_ = std::min(firstUnpublished_, version);
    logFailure_ = Error(errors::kIoError, fmt::format("the store failed: {}", e.what()));
    throw;
  }
  std::vector<WeakPromise<void>> fired;
  if (!watches_.empty()) {
    for (const Mutation& mutation : request.mutations) checkWatches(mutation, version, &fired);
  }
  for (WeakPromise<void>& promise : fired) unpublishedWatches_.emplace_back(version, promise);
  for (KeyRangeView range : request.writeConflicts) {
    history_.add(range.begin, range.end, version);
  }
  lastApplied_ = version;
  if (firstUnpublished_ == INT64_MAX) firstUnpublished_ = version;
  commitInFlight_.store(firstUnpublished_);
  withdraw.engine = nullptr;
  pendingLog_.push_back(LoggedCommit{version, record.release()});
  ++commits_;
  // Over the memory budget: every durable version goes to disk at the next fold.
  bool overBudget = store_.windowBytes() > options_.durable.windowBytes &&
                    minReadable_.load() < latestCommitted_.load();
  if (overBudget) minReadable_.store(latestCommitted_.load());
  collectGarbageLocked(latestCommitted_.load());
  if (overBudget) folderWake_.notify_one();

  // Group commit: whoever finds no log write under way writes every pending commit (its own
  // among them) in one durable write; the others wait for it, or lead the next write.
  while (latestCommitted_.load() < version) {
    if (logFailure_) throw *logFailure_;
    if (logWriteInProgress_) {
      published_.wait(lock);
      continue;
    }
    logWriteInProgress_ = true;
    std::vector<LoggedCommit> batch;
    batch.swap(pendingLog_);
    lock.unlock();
    std::optional<Error> failure;
    try {
      durable_->writeLog(batch);
    } catch (const Error& e) {
      failure = e;
    }
    lock.lock();
    logWriteInProgress_ = false;
    if (failure) {
      logFailure_ = failure;
      published_.notify_all();
      throw *failure;
    }
    std::vector<WeakPromise<void>> toFire = publishLocked(batch.back().version);
    published_.notify_all();
    throttleLocked(lock);
    lock.unlock();
    for (const WeakPromise<void>& promise : toFire) promise.setValue();
    return version;
  }
  throttleLocked(lock);
  return version;
}

void Engine::throttleLocked(std::unique_lock<std::mutex>& lock) {
  const int64_t limit = 2 * options_.durable.windowBytes;
  while (store_.windowBytes() > limit && !logFailure_) {
    folderWake_.notify_one();
    windowRoom_.wait_for(lock, std::chrono::milliseconds(10));
  }
}

std::vector<WeakPromise<void>> Engine::publishLocked(int64_t version) {
  // Published before the announcement moves on: a reader sees one or the other.
  latestCommitted_.store(version);
  firstUnpublished_ =
      lastApplied_ > version && !pendingLog_.empty() ? pendingLog_.front().version : INT64_MAX;
  commitInFlight_.store(firstUnpublished_);
  std::vector<WeakPromise<void>> toFire;
  std::erase_if(unpublishedWatches_, [&](std::pair<int64_t, WeakPromise<void>>& watch) {
    if (watch.first > version) return false;
    toFire.push_back(std::move(watch.second));
    return true;
  });
  return toFire;
}

void Engine::foldOnce() {
  int64_t target = 0;
  {
    std::lock_guard lock(commitMutex_);
    collectGarbageLocked(latestCommitted_.load());  // moves the epochs and the read floor on
    target = std::min(store_.readFloor(), latestCommitted_.load());
  }
  windowRoom_.notify_all();  // garbage collection may have dropped what a base move allowed
  if (target <= durable_->baseVersion()) return;
  durable_->foldTo(target);
  std::lock_guard lock(commitMutex_);
  store_.announceBase(target);
}

void Engine::foldLoop() {
  std::unique_lock lock(folderMutex_);
  while (!stopping_) {
    // Committers held back by the window's budget (throttleLocked) wake it every 10 ms.
    folderWake_.wait_for(lock, kFoldInterval);
    if (stopping_) break;
    lock.unlock();
    try {
      foldOnce();
    } catch (const Error&) {
      // The log keeps everything not folded; the next round tries again.
    }
    lock.lock();
  }
}

int64_t Engine::foldForTesting() {
  for (int i = 0; i < 8; ++i) foldOnce();
  return durable_->baseVersion();
}

}  // namespace fdb::engine
