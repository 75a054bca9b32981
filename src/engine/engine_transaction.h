// EngineTransaction — a transaction on the embedded engine: FoundationDB's client-side
// transaction (read-your-writes, conflict ranges, deferred errors, options, watches,
// versionstamps, the retry state machine of on_error) over an Engine.
//
// engine_transaction.cc holds the state machine, options, writes and commit;
// transaction_reads.cc the reads (the merged view, selectors, ranges, mapped ranges).
//
// Thread-safety: one thread at a time, like every fdb::Transaction.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "engine/conflicting_keys.h"
#include "engine/database_settings.h"
#include "engine/engine.h"
#include "engine/known_ranges.h"
#include "engine/pending_commit.h"
#include "engine/special_keys.h"
#include "engine/transaction_options.h"
#include "engine/write_map.h"
#include "fdb/backend.h"

namespace fdb::engine {

class EngineTransaction final : public TransactionBackend {
 public:
  EngineTransaction(std::shared_ptr<Engine> engine, std::shared_ptr<DatabaseSettings> settings);
  ~EngineTransaction() override;

  Future<int64_t> getReadVersion() override;
  void setReadVersion(int64_t version) override;
  Future<std::optional<Bytes>> get(std::string_view key, bool snapshot) override;
  Future<Bytes> getKey(KeySelectorRef selector, bool snapshot) override;
  Future<RangeResult> getRange(KeySelectorRef begin, KeySelectorRef end,
                               const RangeOptions& options, bool snapshot) override;
  Future<MappedRangeResult> getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                           std::string_view mapper, const RangeOptions& options,
                                           bool snapshot) override;
  Future<void> watch(std::string_view key) override;
  void set(std::string_view key, std::string_view value) override;
  void clear(std::string_view key) override;
  void clearRange(std::string_view begin, std::string_view end) override;
  void atomicOp(std::string_view key, std::string_view param, MutationType type) override;
  void addConflictRange(std::string_view begin, std::string_view end,
                        ConflictRangeType type) override;
  void setOption(int code, std::optional<std::string_view> value) override;
  Future<Bytes> getVersionstamp() override;
  Future<void> commit() override;
  int64_t getCommittedVersion() override;
  Future<int64_t> getApproximateSize() override;
  Future<void> onError(const Error& error) override;
  void reset() override;
  void cancel() override;
  RoundTrips roundTrips() const override { return trips_; }

  // Where an operation's outcome goes for a caller that completes a future of its own (the
  // C library, src/capi/), so that no fdb::Future is made only to be converted: value() or
  // error() at once when nothing holds the outcome back, later() with the Future that
  // completes once the simulated round trips are over, or deferred() with the lazy Future of
  // an operation that waits to be started (a commit not sent yet, docs/semantics.md, "When a
  // commit is sent"): asking that Future for its outcome starts it. Exactly one of them is
  // called, as the operation's last step.
  template <typename T>
  class Completion {
   public:
    using Value = detail::StoredType<T>;  // detail::Done for void
    virtual void value(Value&& value) = 0;
    virtual void error(const Error& error) = 0;
    virtual void later(Future<T> future) = 0;
    virtual void deferred(Future<T> future) = 0;

   protected:
    ~Completion() = default;
  };
  // The operations above of that name, completing `done`.
  void getReadVersion(Completion<int64_t>& done);
  void get(std::string_view key, bool snapshot, Completion<std::optional<Bytes>>& done);
  void getRange(KeySelectorRef begin, KeySelectorRef end, const RangeOptions& options,
                bool snapshot, Completion<RangeResult>& done);
  void commit(Completion<void>& done);

 private:
  // How an operation hands over its outcome: as the Future it returns (AsFuture), or to a
  // Completion (ToCompletion). fail/succeed: at once; failDelivered/succeedDelivered: after
  // the operation's simulated round trips (deliver); run: succeedDelivered with what `body`
  // returns, failDelivered with the fdb::Error it throws.
  template <typename T>
  struct AsFuture;
  template <typename T>
  struct ToCompletion;
  // The operations' bodies, written once for both (and inlined into each, so that the
  // Future path costs what it did with one body).
  template <typename Out>
  [[gnu::always_inline]] inline auto getReadVersionTo(Out out);
  template <typename Out>
  [[gnu::always_inline]] inline auto getTo(std::string_view key, bool snapshot, Out out);
  template <typename Out>
  [[gnu::always_inline]] inline auto getRangeTo(KeySelectorRef begin, KeySelectorRef end,
                                                const RangeOptions& options, bool snapshot,
                                                Out out);
  template <typename Out>
  [[gnu::always_inline]] inline auto commitTo(Out out);

  // A range read's selectors resolved to keys: rows are those in [begin, end). A bound is
  // a view of the selector's key when the selector is "first key >= k" (the common case,
  // no copy), else of the key resolved, kept in the storage here. Views point into the
  // object itself: it is filled in place and never copied or moved.
  struct ResolvedRange {
    ResolvedRange() = default;
    ResolvedRange(const ResolvedRange&) = delete;
    ResolvedRange& operator=(const ResolvedRange&) = delete;

    std::string_view begin;
    std::string_view end;
    bool ranOffStart = false;  // FoundationDB's readToBegin / readThroughEnd
    bool ranOffEnd = false;
    Bytes beginStorage;
    Bytes endStorage;
  };

  // The error every future-returning operation must fail with now, if any.
  std::optional<Error> blockingError(bool allowedAfterCommit);
  // For void operations: false when the transaction is poisoned or already committed
  // (poisoning it with used_during_commit).
  bool acceptWrite();
  void deferError(Error error);
  // Poisons the transaction with `code` unless it is poisoned already (the first poison stays,
  // as FoundationDB's reset promise keeps its first error).
  void poison(int code, const char* reason);
  // The timeout's timer, checked when it matters: FoundationDB's fires at the deadline and
  // poisons the transaction with 1031 (docs/semantics.md, "Transactions"), so anything that
  // could see or change the timeout first applies a deadline already passed.
  void fireTimeoutIfDue();
  Error poisonError() const;
  // The read version, fetched (one round trip) on first use.
  int64_t readVersion();
  // Starts timing a future-returning operation: its round trips add up from now.
  void beginOperation();
  // `body` (a read's), recording how it ended for the commit: FoundationDB's commit waits for
  // the transaction's reads and fails with the error of one that failed (docs/semantics.md,
  // "Commits" step 1). An error about the read's own arguments fails only the read.
  template <typename Body>
  [[gnu::always_inline]] inline auto waitedForByCommit(Body& body);
  void noteReadFailure(const Error& error);
  // Counts a round trip of `kind` for this transaction and the database, adds its
  // simulated delay to the operation, and applies the injected read faults.
  void roundTrip(RoundTripKind kind);
  // A reader at the read version after one round trip of `kind`.
  Engine::Reader readAt(RoundTripKind kind);
  // `result` as the caller sees it: at once, or from the timer once the operation's
  // round trips are over.
  template <typename T>
  Future<T> deliver(Future<T> result);
  // The same for a future handed out earlier: `complete(promise)` gives it its outcome, at
  // once or from the timer (where a cancelled transaction's promise gets 1025 instead).
  template <typename T, typename Complete>
  void deliverTo(Promise<T> promise, Complete complete);
  // The timer's part of both. REQUIRES: heldBack().
  template <typename T, typename Complete>
  void scheduleDelivery(Promise<T> promise, Complete complete);
  // Runs `body`: a future ready with what it returns (built in place in the future's state),
  // or failed with the fdb::Error it throws.
  template <typename T, typename Body>
  [[gnu::always_inline]] static inline Future<T> guarded(Body&& body);
  // Whether the operation under way is held back by the simulated network.
  bool heldBack() const {
    return operationReadyAt_ != 0 && operationReadyAt_ > engine_->clock().nowMicros();
  }
  // The end of the readable key space: "\xff", or "\xff\xff" with system-key access.
  const Bytes& maxReadKey() const;
  // Why an ordinary write of `key` is refused, if it is.
  std::optional<Error> unwritableKeyError(std::string_view key, std::string_view operation) const;
  void addReadConflict(std::string_view begin, std::string_view end);
  void addWriteConflict(std::string_view begin, std::string_view end);
  // The same for the one-key range [key, key + '\0'), without building the key after.
  void addReadConflictKey(std::string_view key);
  void addWriteConflictKey(std::string_view key);
  // The read conflict range of a serializable range read (docs/semantics.md, "Conflict
  // ranges"): `firstRow` and `lastRow` are the keys of the rows returned, in read order
  // (nullptr when none).
  void addRangeReadConflict(KeySelectorRef begin, KeySelectorRef end, std::string_view beginKey,
                            std::string_view endKey, const std::string_view* firstRow,
                            const std::string_view* lastRow, bool more, bool reverse,
                            const ResolvedRange& range);
  // Whether a commit now must wait before it is sent (docs/semantics.md, "When a commit is
  // sent"): the transaction took no read version before it, or, with simulated delay, the
  // read version or a read is still on its way.
  bool commitMustWait(bool hadReadVersion) const;
  // Hands the commit over to a PendingCommit (pendingCommit_): its lazy outcome. A
  // `readVersion` of 0 takes one when the commit is sent.
  Future<void> deferCommit(int64_t readVersion, std::optional<Promise<Bytes>>& versionstamp,
                           std::vector<PendingWatch>& watches);
  // The special key space [\xff\xff, \xff\xff\xff), answered without the database
  // (special_keys.h; transaction_special_keys.cc). readSpecialTo runs `body` with what the
  // special keys are read from, handing over its outcome as `out` says.
  template <typename Out, typename Body>
  auto readSpecialTo(Out out, Body body);
  Future<std::optional<Bytes>> getSpecialKey(std::string_view key);
  void getSpecialKey(std::string_view key, Completion<std::optional<Bytes>>& done);
  Future<RangeResult> getSpecialRange(KeySelectorRef begin, KeySelectorRef end,
                                      const RangeOptions& options);
  void getSpecialRange(KeySelectorRef begin, KeySelectorRef end, const RangeOptions& options,
                       Completion<RangeResult>& done);
  // Writes there: deferred 2114 without SPECIAL_KEY_SPACE_ENABLE_WRITES, else given to their
  // module (which may defer an error of its own).
  SpecialKeyWrites* specialKeyWrites();
  void setSpecialKey(std::string_view key, std::string_view value);
  void clearSpecialKey(std::string_view key);
  void clearSpecialRange(std::string_view begin, std::string_view end);
  // The error the written special-key modules fail the commit with, if any.
  std::optional<Error> specialKeysCommitError();
  // The size FoundationDB checks against the size limit at commit: the writes as its
  // read-your-writes map merges them and the conflict ranges coalesced (commit_size.h), or,
  // where that cannot exceed the limit, the running estimate.
  int64_t commitSize() const;
  // Clears everything an attempt accumulated (reset() and a retry share this); pending
  // watches and the versionstamp future fail with transaction_cancelled (1025), saying `why`.
  void clearAttempt(std::string_view why);
  // Fires pending watches whose key this transaction just changed to another value.
  void firePendingWatches(std::string_view key);
  void firePendingWatchesIn(std::string_view begin, std::string_view end);

  // The writes reads see: this transaction's own, or none when read-your-writes is off
  // (or, for snapshot reads, when the snapshot-RYW counter is <= 0).
  const WriteMap& visibleWrites(bool snapshot) const;
  // The merged view: the database at the read version overlaid with `writes`, over keys in
  // ["", maxReadKey).
  // nextVisible looks at keys in [from, end) (end "" or beyond maxReadKey: up to maxReadKey),
  // previousVisible at keys in [begin, before).
  std::optional<KeyValue> nextVisible(const Engine::Reader& reader, const WriteMap& writes,
                                      std::string_view from, std::string_view end = {}) const;
  std::optional<KeyValue> previousVisible(const Engine::Reader& reader, const WriteMap& writes,
                                          std::string_view before,
                                          std::string_view begin = {}) const;
  static std::optional<Bytes> valueOf(const Engine::Reader& reader, const WriteMap& writes,
                                      std::string_view key);
  // Resolves a normalized selector (orEqual already folded into the key). Sets
  // *ranOffStart when it ran out of keys going back (result ""), *ranOffEnd when it ran
  // out going forward with more than one step left (FoundationDB's readToBegin and
  // readThroughEnd); leaves them alone otherwise.
  Bytes resolve(const Engine::Reader& reader, const WriteMap& writes, std::string_view key,
                int offset, bool* ranOffStart, bool* ranOffEnd) const;
  // A range read's two normalized selectors, resolved into `*range` (whose views may
  // point into beginKey and endKey: they must outlive it).
  void resolveRange(const Engine::Reader& reader, const WriteMap& writes, std::string_view beginKey,
                    int beginOffset, std::string_view endKey, int endOffset,
                    ResolvedRange* range) const;
  // Checks a range read's parameters (docs/semantics.md, "Range reads"); returns the
  // effective byte limit (-1: none).
  int64_t validateRange(KeySelectorRef begin, KeySelectorRef end,
                        const RangeOptions& options) const;
  // What the last commit that failed with not_committed reported (none before one did).
  const ConflictingKeys& conflictingKeys() const;

  // Whether reads remember what they learn of the database in known_ (not when read-your-writes
  // is off: such reads go to the database as they are).
  bool remembersReads() const { return !options_.readYourWritesDisabled; }
  // Whether a read of [begin, end] (`end` included: where the read stops matters too) meets
  // anything the transaction knows: a range read before or a write. If so, known_ holds
  // everything (knownReads) when it returns. Reads that meet nothing read the database in one
  // go, as they always did (docs/semantics.md, "Range reads"). REQUIRES: begin < end.
  [[gnu::always_inline]] inline bool touchesKnown(const WriteMap& writes, std::string_view begin,
                                                  std::string_view end);
  // known_, with what it still has to learn from the read conflict ranges (conflictsLearnt_).
  KnownRanges& knownReads() {
    if (conflictsLearnt_ != 0) [[unlikely]]
      learnConflicts();
    return known_;
  }
  void learnConflicts();
  // Called by a read that just added one read conflict range, exactly what it learnt of the
  // database: leaves it to known_ to learn from there, if every earlier read conflict range is
  // left to it too. Returns whether it did (if not, the read records what it learnt in
  // knownReads() itself).
  bool learntLastConflict() {
    if (readConflicts_.size() != size_t{conflictsLearnt_} + 1 || conflictsLearnt_ == UINT16_MAX) {
      return false;
    }
    ++conflictsLearnt_;
    return true;
  }
  // Records in known_ what a read of [begin, end) in the database alone learnt: all of it, or
  // up to its last row when it stopped at a limit (`lastRow`, in read order).
  void rememberRead(std::string_view begin, std::string_view end, bool reverse,
                    const std::string_view* lastRow);
  // The same for the reads that resolve a key selector (normalized: orEqual folded into `key`).
  void rememberSelectorRead(const Engine::Reader& reader, const WriteMap& writes,
                            std::string_view key, int offset);

  std::shared_ptr<Engine> engine_;
  std::shared_ptr<DatabaseSettings> settings_;
  TransactionOptions options_;
  WriteMap writes_;
  // What reads learnt of the database: where a range read may stop early (docs/semantics.md,
  // "Range reads").
  KnownRanges known_;
  std::optional<int64_t> readVersion_;
  // Read conflict ranges flat in one buffer (a range read adds one each); inline room for
  // one write conflict range: a one-key transaction allocates nothing for it (and the
  // object stays small enough for glibc's per-thread cache).
  ReadConflictRanges readConflicts_;
  WriteConflictRanges writeConflicts_;
  int64_t approximateSize_ = 0;
  std::optional<Error> deferredError_;
  // Set when cancelled (1025), timed out (1031) or used during commit (2017): every later
  // operation fails with it until reset. Kept as a code so that cancelling costs nothing.
  int poisonCode_ = 0;
  // The first error of a read the commit waits for (waitedForByCommit), 0 when none failed.
  int readErrorCode_ = 0;
  const char* poisonReason_ = "";
  bool commitCalled_ = false;
  bool hasReadOrWritten_ = false;
  // The first this many read conflict ranges are what the reads that added them learnt of the
  // database, in the order they were read (point reads' keys, whole ranges), and there is no
  // other yet: known_ learns them from there, when first needed (knownReads). Most
  // transactions never need it, and record nothing else for their reads.
  // (16 bits, with the flags and retries_ in one word: learntLastConflict stops counting at
  // the top, and the read then records itself.)
  uint16_t conflictsLearnt_ = 0;
  // Survives onError, not reset() (here, by the flags, to keep the object within 1024 bytes).
  int retries_ = 0;
  int64_t committedVersion_ = -1;
  // A commit that waits to be sent: dropped (1025, or the poison) when the transaction is
  // destroyed, reset, retried or poisoned first. Null otherwise.
  std::shared_ptr<PendingCommit> pendingCommit_;
  std::vector<PendingWatch> pendingWatches_;
  std::optional<Promise<Bytes>> versionstamp_;
  // Replaced by every commit that fails with not_committed, kept by onError's retries (as
  // FoundationDB's transaction state keeps them), dropped by reset(). Null while none.
  std::unique_ptr<ConflictingKeys> conflictingKeys_;
  // Made by the first write to the special key space (rare: kept out of the object).
  std::unique_ptr<SpecialKeyWrites> specialKeyWrites_;

  // Timing of simulated round trips (engine clock microseconds): when the operation under
  // way completes, and when the read version's round trip completes.
  int64_t operationReadyAt_ = 0;
  // Set when the transaction is cancelled or destroyed: operations still in flight on the
  // simulated network then complete with transaction_cancelled (1025). Made by the first
  // delayed operation (without delay nothing is ever in flight); a reset starts a new one.
  std::shared_ptr<std::atomic<bool>> cancelled_;
  int64_t readVersionReadyAt_ = 0;
  // When the last read the commit waits for completes (0: none under way).
  int64_t readsDoneAt_ = 0;
  RoundTrips trips_;

  // Survive onError, not reset(): the backoff, the timeout's start (and retries_).
  double backoffSeconds_;
  int64_t startMicros_;
};

template <typename T>
Future<T> EngineTransaction::deliver(Future<T> result) {
  if (!heldBack()) return result;
  Promise<T> promise;
  scheduleDelivery(promise, [result](Promise<T>& promise) mutable {
    if (std::optional<Error> error = result.error()) {
      promise.setError(*error);
    } else if constexpr (std::is_void_v<T>) {
      promise.setValue();
    } else {
      promise.setValue(std::move(result).get());
    }
  });
  return promise.future();
}

template <typename T, typename Complete>
void EngineTransaction::deliverTo(Promise<T> promise, Complete complete) {
  if (heldBack()) {
    scheduleDelivery(std::move(promise), std::move(complete));
  } else {
    complete(promise);
  }
}

template <typename T, typename Complete>
void EngineTransaction::scheduleDelivery(Promise<T> promise, Complete complete) {
  if (!cancelled_) cancelled_ = std::make_shared<std::atomic<bool>>(false);
  engine_->timer().schedule(operationReadyAt_, [promise, complete = std::move(complete),
                                                cancelled = cancelled_]() mutable {
    if (cancelled->load()) {
      promise.setError(Error(errors::kTransactionCancelled, "the transaction was cancelled"));
    } else {
      complete(promise);
    }
  });
}

template <typename T, typename Body>
Future<T> EngineTransaction::guarded(Body&& body) {
  try {
    if constexpr (std::is_void_v<T>) {
      body();
      return Future<T>::ready();
    } else {
      return Future<T>::ready(body());
    }
  } catch (const Error& e) {
    return Future<T>::failed(e);
  }
}

template <typename T>
struct EngineTransaction::AsFuture {
  using Value = detail::StoredType<T>;
  EngineTransaction* tr;

  Future<T> fail(const Error& error) { return Future<T>::failed(error); }
  Future<T> succeed(Value&& value) {
    if constexpr (std::is_void_v<T>) {
      return Future<T>::ready();
    } else {
      return Future<T>::ready(std::move(value));
    }
  }
  Future<T> failDelivered(const Error& error) { return tr->deliver(fail(error)); }
  Future<T> succeedDelivered(Value&& value) { return tr->deliver(succeed(std::move(value))); }
  template <typename Body>
  [[gnu::always_inline]] inline Future<T> run(Body&& body) {
    return tr->deliver(guarded<T>(std::forward<Body>(body)));
  }
  // run() for a read the commit waits for.
  template <typename Body>
  [[gnu::always_inline]] inline Future<T> runRead(Body&& body) {
    return run(tr->waitedForByCommit(body));
  }
  Future<T> deferred(Future<T> lazy) { return lazy; }
};

template <typename T>
struct EngineTransaction::ToCompletion {
  using Value = detail::StoredType<T>;
  EngineTransaction* tr;
  Completion<T>& done;

  void fail(const Error& error) { done.error(error); }
  void succeed(Value&& value) { done.value(std::move(value)); }
  void failDelivered(const Error& error) {
    if (tr->heldBack()) {
      done.later(tr->deliver(Future<T>::failed(error)));
    } else {
      done.error(error);
    }
  }
  void succeedDelivered(Value&& value) {
    if (tr->heldBack()) {
      done.later(tr->deliver(AsFuture<T>{tr}.succeed(std::move(value))));
    } else {
      done.value(std::move(value));
    }
  }
  template <typename Body>
  [[gnu::always_inline]] inline void run(Body&& body) {
    std::optional<Value> value;
    try {
      if constexpr (std::is_void_v<T>) {
        body();
        value.emplace();
      } else {
        value.emplace(body());
      }
    } catch (const Error& e) {
      failDelivered(e);
      return;
    }
    succeedDelivered(std::move(*value));
  }
  template <typename Body>
  [[gnu::always_inline]] inline void runRead(Body&& body) {
    run(tr->waitedForByCommit(body));
  }
  void deferred(Future<T> lazy) { done.deferred(std::move(lazy)); }
};

template <typename Body>
auto EngineTransaction::waitedForByCommit(Body& body) {
  return [ this, &body ]() __attribute__((always_inline))->decltype(body()) {
    // The read completes when its result is delivered: after the body's round trips.
    struct Done {
      EngineTransaction* tr;
      ~Done() { tr->readsDoneAt_ = std::max(tr->readsDoneAt_, tr->operationReadyAt_); }
    } done{this};
    try {
      return body();
    } catch (const Error& e) {
      noteReadFailure(e);
      throw;
    }
  };
}

}  // namespace fdb::engine
