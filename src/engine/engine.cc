#include "engine/engine.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "engine/atomic.h"
#include "engine/durable/durable_hook.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

// The first version a new database reports (FoundationDB's are large too; any positive
// start works).
constexpr int64_t kInitialVersion = 100 * kVersionsPerSecond;
// How often (in commits) the resolver's history drops versions past the window.
constexpr int64_t kHistoryCleanupInterval = 1024;
// MAX_COMMIT_BATCH_INTERVAL (2 s) in versions: an idle cluster's commit proxies still commit
// an empty batch this often, so that the committed version keeps up with time.
constexpr int64_t kEmptyBatchIntervalVersions = 2 * kVersionsPerSecond;

// The newest committed version when the newest commit is `latest` and wall time has reached
// version `wall` (docs/engine.md, "Versions"): `latest`, or the last of the empty batches
// that followed it, one every kEmptyBatchIntervalVersions.
int64_t newestBatchVersion(int64_t latest, int64_t wall) {
  if (wall - latest < kEmptyBatchIntervalVersions) return latest;
  return latest + (wall - latest) / kEmptyBatchIntervalVersions * kEmptyBatchIntervalVersions;
}

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
      minNextCommit_(0) {
  if (durable) {
    durable_ = std::make_unique<DurableHook>(*this, std::move(durable));
    // Versions continue above every durable one, so versionstamps keep increasing.
    initialVersion_ = std::max(kInitialVersion, durable_->recover() + 1);
  }
  latestCommitted_ = wallVersion();
  lastApplied_ = latestCommitted_;
  minNextCommit_ = latestCommitted_ + 1;
  if (durable_) durable_->startFolder();
}

Engine::~Engine() {
  if (durable_) durable_->close();
}

void Engine::quiesceForExit() {
  if (durable_) durable_->quiesceForExit();
}

DurableStore* Engine::durableStore() const { return durable_ ? &durable_->store() : nullptr; }

int64_t Engine::foldForTesting() { return durable_->foldForTesting(); }

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
  // A read version is the newest committed version, which moves only with commit batches
  // (docs/engine.md, "Versions"). Lock-free: every acknowledged commit is <= latestCommitted_.
  // An empty batch's version is at most the wall version, read before the announcement, so a
  // commit announcing after that lands above it; one already announced caps the result below
  // its bound. Reads at the result never wait.
  int64_t wall = wallVersion() - 1;
  int64_t inFlight = commitInFlight_.load();
  int64_t latest = latestCommitted_.load();
  return std::max(latest, std::min(newestBatchVersion(latest, wall), inFlight - 1));
}

Engine::Reader Engine::read(int64_t version) {
  if (version <= 0) {
    throw Error(errors::kTransactionTooOld,
                fmt::format("read version {} is not positive", version));
  }
  const DurableStore* base = durable_ ? &durable_->store() : nullptr;
  int64_t waitedMicros = 0;
  while (true) {
    // Entered before the age check below, so garbage collection cannot drop what this
    // reader is entitled to see while it reads (see VersionedStore::collectGarbage).
    VersionedStore::ReadGuard guard = store_.enterRead();
    int64_t latest = latestCommitted_.load();
    int64_t wall = wallVersion();
    // The window trails the newest commit batch, as a storage server's trails the newest
    // version it has received.
    int64_t current = newestBatchVersion(latest, wall);
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
      return Reader(std::move(guard), &store_, base, version);
    }
    if (version <= wall) {
      raiseMinNextCommit(version);
      if (commitInFlight_.load() > version) {
        ++readOperations_;
        return Reader(std::move(guard), &store_, base, version);
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
    int64_t step = std::min(version - wall, kFutureVersionWaitMicros - waitedMicros);
    clock_->sleepMicros(step);
    waitedMicros += step;
  }
}

// The commit pipeline (docs/engine.md, "The commit pipeline"): every commit runs these
// stages once, under the commit lock. In durable mode the durable hook adds the log record
// and the base to the apply stage, and publishes a commit only once a log write holds it.
int64_t Engine::commit(const CommitRequest& request) {
  std::unique_lock lock(commitMutex_);
  if (durable_) durable_->beginCommit();
  // 1. Announce a lower bound of the version before picking it (see getReadVersion): the
  // wall version, or the oldest commit applied and still unpublished, which bounds every
  // version still to come. Withdrawn on every exit.
  commitInFlight_.store(std::min(firstUnpublished_, wallVersion()));
  struct Withdraw {  // on a failure; destroyed before `lock`
    Engine* engine;
    ~Withdraw() {
      if (engine != nullptr) engine->commitInFlight_.store(engine->firstUnpublished_);
    }
  } withdraw{this};
  // 2. The version: above every commit applied and every version handed to a reader.
  int64_t version = std::max({minNextCommit_.load(), lastApplied_ + 1, wallVersion()});
  // 3. Resolve.
  resolveLocked(request, version);
  // 4. Apply.
  applyLocked(request.mutations, version);
  // 5. Watches.
  std::vector<WeakPromise<void>> fired;
  if (!watches_.empty()) {
    for (const Mutation& mutation : request.mutations) checkWatches(mutation, version, &fired);
  }
  // 6. Conflict history: the transaction's write conflict ranges, and the key each
  // versionstamped key produced, which only now is known (FoundationDB's commit proxy adds it;
  // docs/semantics.md, "Conflict ranges").
  for (KeyRangeView range : request.writeConflicts) {
    history_.add(range.begin, range.end, version);
  }
  for (const Mutation& mutation : request.mutations) {
    if (mutation.kind == Mutation::Kind::kAtomic &&
        mutation.atomicType == MutationType::kSetVersionstampedKey) {
      Bytes key = placeVersionstamp(mutation.key, version);
      history_.add(key, key + '\0', version);
    }
  }
  lastApplied_ = version;
  ++commits_;
  // 7. Publish: in memory at once; durable once a log write holds the commit.
  if (!durable_) {
    publishLocked(version, INT64_MAX, &fired);
    withdraw.engine = nullptr;
    collectGarbageLocked(version);
    lock.unlock();
    for (const WeakPromise<void>& promise : fired) promise.setValue();  // callbacks run unlocked
    return version;
  }
  // Hidden until then, behind the oldest unpublished commit; its watches fire with it.
  if (firstUnpublished_ == INT64_MAX) firstUnpublished_ = version;
  commitInFlight_.store(firstUnpublished_);
  withdraw.engine = nullptr;
  for (WeakPromise<void>& promise : fired) unpublishedWatches_.emplace_back(version, promise);
  durable_->logAndPublish(lock, version);
  return version;
}

void Engine::resolveLocked(const CommitRequest& request, int64_t version) {
  // The age rule applies to transactions with read conflict ranges, the client's
  // self-conflict key included (docs/semantics.md, "Commits" step 4).
  bool hasReadConflicts = request.selfConflict || !request.readConflicts.empty();
  if (hasReadConflicts && request.readVersion < version - kMvccWindowVersions) {
    throw Error(errors::kTransactionTooOld,
                fmt::format("read version {} is more than {} versions older than commit version {}",
                            request.readVersion, kMvccWindowVersions, version));
  }
  std::optional<KeyRangeView> firstConflict;
  for (size_t i = 0; i < request.readConflicts.size(); ++i) {
    KeyRangeView range = request.readConflicts[i];
    if (!history_.conflicts(range.begin, range.end, request.readVersion)) continue;
    if (!firstConflict) firstConflict = range;
    if (request.conflictingReadRanges == nullptr) break;
    request.conflictingReadRanges->push_back(i);
  }
  if (firstConflict) {
    ++conflicts_;
    throw Error(errors::kNotCommitted,
                fmt::format("a write committed after read version {} intersects [{}, {})",
                            request.readVersion, printable(firstConflict->begin),
                            printable(firstConflict->end)));
  }
}

inline void Engine::applyLocked(std::span<const Mutation> mutations, int64_t version) {
  if (!durable_) {
    applyEach<false>(mutations, version);
    return;
  }
  try {
    applyEach<true>(mutations, version);
  } catch (const Error& e) {
    // Reading the base failed with the commit half applied: it stays hidden for good, and
    // the engine takes no more commits.
    lastApplied_ = version;
    firstUnpublished_ = std::min(firstUnpublished_, version);
    durable_->stopCommits(Error(errors::kIoError, fmt::format("the store failed: {}", e.what())));
    throw;
  }
}

template <bool kDurable>
void Engine::applyEach(std::span<const Mutation> mutations, int64_t version) {
  for (size_t i = 0; i < mutations.size(); ++i) {
    apply<kDurable>(mutations[i], version);
    if (applyHook_) applyHook_(i);
  }
}

template <bool kDurable>
void Engine::apply(const Mutation& mutation, int64_t version) {
  switch (mutation.kind) {
    case Mutation::Kind::kSet: setLocked<kDurable>(mutation.key, mutation.param, version); break;
    case Mutation::Kind::kClearRange:
      if constexpr (kDurable) {
        durable_->clearRange(mutation.key, mutation.param, version);  // the base's keys too
      } else {
        store_.clearRange(mutation.key, mutation.param, version);
      }
      break;
    case Mutation::Kind::kAtomic: {
      if (mutation.atomicType == MutationType::kSetVersionstampedKey) {
        setLocked<kDurable>(placeVersionstamp(mutation.key, version), mutation.param, version);
        break;
      }
      if (mutation.atomicType == MutationType::kSetVersionstampedValue) {
        setLocked<kDurable>(mutation.key, placeVersionstamp(mutation.param, version), version);
        break;
      }
      // Evaluated against the value as of this commit, earlier mutations included.
      std::optional<Bytes> current = kDurable ? durable_->store().get(store_, mutation.key, version)
                                              : store_.get(mutation.key, version);
      std::optional<Bytes> result = applyAtomicOp(mutation.atomicType, current, mutation.param);
      if (result) {
        setLocked<kDurable>(mutation.key, *result, version);
      } else {
        clearLocked<kDurable>(mutation.key, version);
      }
      break;
    }
  }
}

template <bool kDurable>
void Engine::setLocked(std::string_view key, std::string_view value, int64_t version) {
  if constexpr (kDurable) durable_->logSet(key, value);
  store_.set(key, value, version);
}

template <bool kDurable>
void Engine::clearLocked(std::string_view key, int64_t version) {
  if constexpr (kDurable) durable_->logClear(key);
  store_.clear(key, version);
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

void Engine::takePublishedWatchesLocked(int64_t version, std::vector<WeakPromise<void>>* toFire) {
  std::erase_if(unpublishedWatches_, [&](std::pair<int64_t, WeakPromise<void>>& watch) {
    if (watch.first > version) return false;
    toFire->push_back(std::move(watch.second));
    return true;
  });
}

void Engine::armWatch(std::string_view key, std::optional<Bytes> expected,
                      WeakPromise<void> promise) {
  std::unique_lock lock(commitMutex_);
  // Judged against every commit applied, published or not: one not yet published (durable
  // mode) fires the watch when it is.
  if (valueAt(key, lastApplied_) != expected) {
    if (lastApplied_ > latestCommitted_.load()) {
      unpublishedWatches_.emplace_back(lastApplied_, std::move(promise));
      return;
    }
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

std::optional<Bytes> Engine::valueAt(std::string_view key, int64_t version) const {
  if (durable_) return durable_->store().get(store_, key, version);
  return store_.get(key, version);
}

}  // namespace fdb::engine
