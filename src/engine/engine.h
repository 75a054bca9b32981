// Engine — the embedded database: FoundationDB's architecture in one process.
//
// A sequencer hands out versions that advance with wall time (about 1,000,000 a second) and
// strictly per commit; a resolver (ConflictHistory) rejects a commit whose read conflict
// ranges intersect writes committed after its read version (not_committed, 1020); the
// VersionedStore serves reads at any version of the last 5,000,000 (older reads fail with
// transaction_too_old, 1007; reads at versions the database has not reached wait up to a
// second, then fail with future_version, 1009).
//
//   auto engine = std::make_shared<fdb::engine::Engine>();
//   int64_t v = engine->getReadVersion();
//   std::optional<fdb::Bytes> value = engine->read(v).get("key");
//
// Every commit runs one pipeline (commit(); docs/engine.md, "The commit pipeline"): announce,
// pick the version, resolve, apply, check watches, record write conflicts, publish.
//
// Durable mode (a DurableStore given to the constructor, docs/durable.md): the store keeps
// only the versions above the disk's base, and the durable hook (durable/durable_hook.h)
// plugs into the pipeline: the engine recovers from the store's log on construction, logs
// every commit and acknowledges it only once the log write is durable (concurrent commits
// share one write: group commit), publishes commits to readers in version order only once
// durable, and a folder thread moves versions that have left the MVCC window into the base.
//
// Thread-safety: every method may be called from any thread. Commits are serialized (the
// commit lock); reads take no lock and never wait for a commit: a read version is only
// handed out, or accepted, once no commit can still land at or below it (see read()).
#pragma once

#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "engine/conflict_history.h"
#include "engine/durable/durable_store.h"
#include "engine/fault_injector.h"
#include "engine/timer.h"
#include "engine/version_clock.h"
#include "engine/versioned_store.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/future.h"
#include "fdb/types.h"

namespace fdb::engine {

class DurableHook;

// One mutation of a commit, in the order the transaction issued it: views of bytes the
// transaction owns (the engine copies what it keeps).
struct Mutation {
  enum class Kind { kSet, kClearRange, kAtomic };
  Kind kind;
  std::string_view key;    // kClearRange: the range's begin
  std::string_view param;  // kSet: the value; kClearRange: the range's end; kAtomic: the operand
  MutationType atomicType = MutationType::kAdd;  // kAtomic only
};

// A key range seen in place.
struct KeyRangeView {
  std::string_view begin;
  std::string_view end;
};

// Key ranges kept compactly: every begin and end one after another in one buffer, the first
// `InlineBytes` bytes and `InlineRanges` ranges inside the object, so a transaction with a
// few short conflict ranges allocates nothing for them.
template <size_t InlineBytes, size_t InlineRanges>
class FlatKeyRanges {
 public:
  void add(std::string_view begin, std::string_view end) {
    ranges_.push_back(Range{offsetForMore(begin.size() + end.size()),
                            static_cast<uint32_t>(begin.size()),
                            static_cast<uint32_t>(end.size())});
    char* at = grow(begin.size() + end.size());
    copyBytes(at, begin);
    copyBytes(at + begin.size(), end);
  }
  // The range [key, key + '\0'), written without a temporary for the key after.
  void addKey(std::string_view key) {
    ranges_.push_back(Range{offsetForMore(2 * key.size() + 1), static_cast<uint32_t>(key.size()),
                            static_cast<uint32_t>(key.size() + 1)});
    char* at = grow(2 * key.size() + 1);
    copyBytes(at, key);
    copyBytes(at + key.size(), key);
    at[2 * key.size()] = '\0';
  }
  size_t size() const { return ranges_.size(); }
  bool empty() const { return ranges_.empty(); }
  KeyRangeView operator[](size_t i) const {
    const Range& range = ranges_[i];
    std::string_view bytes(bytes_.data(), bytes_.size());
    return KeyRangeView{bytes.substr(range.offset, range.beginSize),
                        bytes.substr(range.offset + range.beginSize, range.endSize)};
  }
  void clear() {
    bytes_.clear();
    ranges_.clear();
  }

 private:
  struct Range {
    uint32_t offset;  // of the begin in bytes_; the end follows it
    uint32_t beginSize;
    uint32_t endSize;
  };
  // Where the next range's bytes go. Offsets are 32 bits: 4 GiB of conflict ranges is far
  // past the 10,000,000 bytes a transaction may hold, so it fails as too large (2101).
  uint32_t offsetForMore(size_t bytes) const {
    if (bytes_.size() + bytes > UINT32_MAX) {
      throw Error(errors::kTransactionTooLarge, "conflict ranges beyond 4 GiB");
    }
    return static_cast<uint32_t>(bytes_.size());
  }
  // `bytes` more bytes at the end, to be written. (One resize and plain copies: the
  // vector's generic range insert costs several times more for keys this short.)
  char* grow(size_t bytes) {
    size_t at = bytes_.size();
    bytes_.resize(at + bytes);
    return bytes_.data() + at;
  }
  static void copyBytes(char* to, std::string_view from) {
    if (!from.empty()) std::memcpy(to, from.data(), from.size());
  }

  absl::InlinedVector<char, InlineBytes> bytes_;
  absl::InlinedVector<Range, InlineRanges> ranges_;
};
// A transaction's: reads name a few keys each (LoadRecord's store open and record read, three
// ranges); writes of one key add one range.
using ReadConflictRanges = FlatKeyRanges<200, 4>;
using WriteConflictRanges = FlatKeyRanges<96, 2>;

// The conflict ranges of a commit: a view of KeyRanges or of FlatKeyRanges.
class KeyRangesView {
 public:
  KeyRangesView() = default;
  KeyRangesView(std::span<const KeyRange> ranges) : ranges_(ranges) {}
  KeyRangesView(const std::vector<KeyRange>& ranges) : ranges_(ranges) {}
  template <size_t InlineBytes, size_t InlineRanges>
  KeyRangesView(const FlatKeyRanges<InlineBytes, InlineRanges>& flat)
      : flatSize_(flat.size()), flat_(&flat), flatAt_([](const void* ranges, size_t i) {
          return (*static_cast<const FlatKeyRanges<InlineBytes, InlineRanges>*>(ranges))[i];
        }) {}

  size_t size() const { return flat_ != nullptr ? flatSize_ : ranges_.size(); }
  bool empty() const { return size() == 0; }
  KeyRangeView operator[](size_t i) const {
    if (flat_ != nullptr) return flatAt_(flat_, i);
    return KeyRangeView{ranges_[i].begin, ranges_[i].end};
  }

  class Iterator {
   public:
    Iterator(const KeyRangesView* view, size_t i) : view_(view), i_(i) {}
    KeyRangeView operator*() const { return (*view_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return i_ != other.i_; }

   private:
    const KeyRangesView* view_;
    size_t i_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

 private:
  std::span<const KeyRange> ranges_;
  // A FlatKeyRanges<...>, read through flatAt_ (the view outlives no commit: the ranges do
  // not change while it is used).
  size_t flatSize_ = 0;
  const void* flat_ = nullptr;
  KeyRangeView (*flatAt_)(const void* ranges, size_t i) = nullptr;
};

// A commit as the transaction hands it over: views of its own storage, read during
// Engine::commit only.
struct CommitRequest {
  int64_t readVersion = 0;
  // FoundationDB's client adds a self-conflict key unless causal_write_risky is set, which
  // makes the MVCC age check apply even to transactions without read conflict ranges.
  bool selfConflict = true;
  KeyRangesView readConflicts;
  KeyRangesView writeConflicts;
  std::span<const Mutation> mutations;
  // REPORT_CONFLICTING_KEYS: when set, a commit that fails with not_committed first lists here
  // the index of every read conflict range that met a later write, not just the first.
  std::vector<size_t>* conflictingReadRanges = nullptr;
};

struct EngineStats {
  int64_t readOperations = 0;  // Reader objects created: one per client read operation
  int64_t commits = 0;
  int64_t conflicts = 0;
  size_t keys = 0;
  size_t versionEntries = 0;
  size_t conflictBoundaries = 0;
};

// The kinds of round trip a client makes to a cluster (see fdb::RoundTrips).
enum class RoundTripKind { kReadVersion, kRead, kRangeRead, kMappedRangeRead, kCommit };

class Engine {
 public:
  explicit Engine(std::shared_ptr<VersionClock> clock = std::make_shared<SteadyVersionClock>(),
                  const EngineOptions& options = {});
  // The durable engine over `durable`: recovers every logged commit, then continues versions
  // above the newest of them. Throws what reading the log throws.
  Engine(std::shared_ptr<VersionClock> clock, const EngineOptions& options,
         std::shared_ptr<DurableStore> durable);
  // Durable mode: stops the folder and folds every commit into the base.
  ~Engine();
  // For the process's exit (DurableStore::markProcessExiting): stops the folder thread and
  // syncs the durable log, so that nothing of this engine's touches RocksDB afterwards but
  // its commits. A durable engine only.
  void quiesceForExit();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // A read version that sees every commit acknowledged before the call.
  int64_t getReadVersion();

  // Reads at one version without locks: create one per client operation and keep it only
  // for that operation (it holds back the reclamation of what the store retires meanwhile).
  class Reader {
   public:
    std::optional<Bytes> get(std::string_view key) const {
      if (durable_ != nullptr) return durable_->get(*store_, key, version_);
      return store_->get(key, version_);
    }
    std::optional<KeyValue> firstAtOrAfter(std::string_view from, std::string_view end) const {
      if (durable_ != nullptr) {
        return durable_->firstAtOrAfter(*store_, from, end, version_, &cursor_);
      }
      return store_->firstAtOrAfter(from, end, version_);
    }
    std::optional<KeyValue> lastBefore(std::string_view before, std::string_view begin) const {
      if (durable_ != nullptr) {
        return durable_->lastBefore(*store_, before, begin, version_, &cursor_);
      }
      return store_->lastBefore(before, begin, version_);
    }
    template <typename Visit>
    void scan(std::string_view begin, std::string_view end, bool reverse, Visit visit) const {
      if (durable_ != nullptr) {
        durable_->scan(*store_, begin, end, version_, reverse, visit);
        return;
      }
      store_->scan(begin, end, version_, reverse, visit);
    }
    int64_t version() const { return version_; }

   private:
    friend class Engine;
    Reader(VersionedStore::ReadGuard guard, const VersionedStore* store,
           const DurableStore* durable, int64_t version)
        : guard_(std::move(guard)), store_(store), durable_(durable), version_(version) {}
    VersionedStore::ReadGuard guard_;
    const VersionedStore* store_;
    const DurableStore* durable_;  // durable mode: the base under the store
    int64_t version_;
    // Durable mode: the base iterator of this operation's steps (declared after guard_, so
    // destroyed before it).
    mutable BaseCursor cursor_;
  };

  // Throws fdb::Error 1007 when `version` is <= 0 or older than the MVCC window, and 1009
  // when the database has not reached it within a second.
  Reader read(int64_t version);

  // Resolves and applies a commit; returns its version. Throws fdb::Error 1020
  // (not_committed) on a conflict and 1007 when the read version is more than the MVCC
  // window older than the commit version.
  int64_t commit(const CommitRequest& request);

  // Arms a watch: `promise` becomes ready once `key`'s value differs from `expected`,
  // judged now and after every later commit. Fires at once if it differs already.
  void armWatch(std::string_view key, std::optional<Bytes> expected, WeakPromise<void> promise);
  // Armed watches somebody still waits for.
  size_t outstandingWatches();

  VersionClock& clock() { return *clock_; }

  // Counts one round trip of `kind` for the whole database and returns how long it takes:
  // the simulated network's delay plus any injected slowdown (0 without either).
  int64_t roundTrip(RoundTripKind kind);
  RoundTrips roundTrips() const;
  FaultInjector& faults() { return faults_; }
  // Whether round trips can take time (a simulated network or injected slowdowns).
  bool delaysRoundTrips() const {
    return options_.oneWayDelayMicros > 0 ||
           (options_.faults.enabled && options_.faults.slowdown > 0);
  }
  // The timer that completes delayed operations (started on first use).
  Timer& timer();
  EngineStats stats() const;

  // Durable mode (null otherwise): the disk under the engine.
  DurableStore* durableStore() const;
  // Durable mode: folds now as far as readers allow (a few steps of the folder's work);
  // returns the base version.
  int64_t foldForTesting();

  // Tests only: called with the commit lock held after each mutation a commit applies,
  // before the commit is published (to hold a commit in the middle of being applied).
  void setApplyHookForTesting(std::function<void(size_t mutationIndex)> hook) {
    std::lock_guard lock(commitMutex_);
    applyHook_ = std::move(hook);
  }

 private:
  // The durable hook works on the pipeline's state under the commit lock.
  friend class DurableHook;

  // The version wall time has reached (versions advance ~1e6 per second).
  int64_t wallVersion() const;
  void raiseMinNextCommit(int64_t version);

  // The commit pipeline's stages (commit() runs them in order). REQUIRES: commitMutex_ held.
  // The resolver: throws 1007 when the read version is more than the MVCC window older than
  // `version`, 1020 when a read conflict range meets a later write (after listing them all in
  // request.conflictingReadRanges when it is set).
  void resolveLocked(const CommitRequest& request, int64_t version);
  // Applies the mutations at `version`, through the durable hook's log and base in durable
  // mode. A durable commit that fails here stays hidden and stops the engine's commits.
  void applyLocked(std::span<const Mutation> mutations, int64_t version);
  // The one apply routine, compiled for each mode (kDurable: through the durable hook), so
  // that the in-memory engine's mutations pay nothing for the hook.
  template <bool kDurable>
  void applyEach(std::span<const Mutation> mutations, int64_t version);
  template <bool kDurable>
  void apply(const Mutation& mutation, int64_t version);
  template <bool kDurable>
  void setLocked(std::string_view key, std::string_view value, int64_t version);
  template <bool kDurable>
  void clearLocked(std::string_view key, int64_t version);
  // Moves the watches `mutation` may have fired to `fired`.
  void checkWatches(const Mutation& mutation, int64_t version,
                    std::vector<WeakPromise<void>>* fired);
  // Makes every commit up to `version` visible to readers; `nextUnpublished` is the oldest
  // commit applied and still hidden (INT64_MAX: none). Appends to `toFire` the watches that
  // the newly visible commits fired.
  // (Here, to be inlined into commit(): the durable hook calls it too.)
  void publishLocked(int64_t version, int64_t nextUnpublished,
                     std::vector<WeakPromise<void>>* toFire) {
    // Published before the announcement moves on: a reader sees one or the other.
    latestCommitted_.store(version);
    firstUnpublished_ = nextUnpublished;
    commitInFlight_.store(nextUnpublished);
    if (!unpublishedWatches_.empty()) takePublishedWatchesLocked(version, toFire);
  }
  // Moves the watches fired by commits at or below `version` from unpublishedWatches_ to
  // `toFire`.
  void takePublishedWatchesLocked(int64_t version, std::vector<WeakPromise<void>>* toFire);
  void collectGarbageLocked(int64_t version);
  // The value of `key` at `version` as the writer sees it (the window, then the base).
  std::optional<Bytes> valueAt(std::string_view key, int64_t version) const;

  struct Watch {
    std::optional<Bytes> expected;
    WeakPromise<void> promise;
  };

  std::shared_ptr<VersionClock> clock_;
  const EngineOptions options_;
  // The first version of this engine's clock (versions continue above a recovered log).
  int64_t initialVersion_;
  FaultInjector faults_;
  std::mutex delayMutex_;
  std::mt19937_64 delayRandom_;  // network jitter; separate from the fault plan's generator
  std::once_flag timerStarted_;
  std::unique_ptr<Timer> timer_;
  std::array<std::atomic<int64_t>, 5> roundTrips_{};  // by RoundTripKind
  // The writer's lock: commits, watches, and the store's writer-only methods.
  mutable std::mutex commitMutex_;
  VersionedStore store_;
  ConflictHistory history_;  // guarded by commitMutex_
  // The newest commit published: applied in full (and, durable, logged). Written under
  // commitMutex_.
  std::atomic<int64_t> latestCommitted_;
  // A lower bound of the version of the commit being applied (INT64_MAX: none): reads at
  // this version or above would have to wait for it, so read versions stay below it.
  std::atomic<int64_t> commitInFlight_;
  // Every version accepted for reading is below this, so later commits stay after it.
  std::atomic<int64_t> minNextCommit_;
  // Guarded by commitMutex_: the newest commit applied to the store; the oldest applied
  // commit not yet published (INT64_MAX: none); watches fired by unpublished commits. In
  // memory a commit is published as it is applied, so these stay latestCommitted_, INT64_MAX
  // and empty.
  int64_t lastApplied_ = 0;
  int64_t firstUnpublished_ = INT64_MAX;
  std::vector<std::pair<int64_t, WeakPromise<void>>> unpublishedWatches_;
  std::multimap<Bytes, Watch, std::less<>> watches_;  // guarded by commitMutex_
  std::function<void(size_t)> applyHook_;             // guarded by commitMutex_
  std::atomic<int64_t> readOperations_{0};
  int64_t commits_ = 0;
  int64_t conflicts_ = 0;
  int64_t lastHistoryCleanup_ = 0;
  // Reads below this version fail with 1007: the window's memory budget made the base move
  // up early (durable mode; 0 otherwise).
  std::atomic<int64_t> minReadable_{0};
  // Durable mode (null otherwise): the log and the base, and the folder.
  std::unique_ptr<DurableHook> durable_;
};

}  // namespace fdb::engine
