// PendingCommit — a commit that waits to be sent (docs/semantics.md, "When a commit is sent"):
// FoundationDB sends a commit only once its transaction has a read version and its reads are
// over, and destroying, resetting or cancelling the transaction before then stops it. A
// commit that cannot be sent at once is handed over here and sent when its outcome is first
// asked for, unless it was dropped first.
//
//   std::shared_ptr<PendingCommit> pending = PendingCommit::make(std::move(parts));
//   fdb::Future<void> outcome = pending->future();  // lazy: asking for it sends the commit
//   pending->drop(1025, "the transaction was destroyed");  // nothing is written
//
// What it sends stays in the transaction (no copy): the transaction leaves it alone after
// commit() and calls drop() before it changes or frees it; drop() waits for a send under way.
//
// Also here: what sending a commit takes, for the transaction's commits sent at once too.
//
// Thread-safety: send() (from whoever asks for the outcome) and drop() (from the
// transaction) may race; exactly one of them acts.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/conflicting_keys.h"
#include "engine/engine.h"
#include "engine/write_map.h"
#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/future.h"

namespace fdb::engine {

// A watch of a transaction that has not committed yet: armed by its commit.
struct PendingWatch {
  Bytes key;
  std::optional<Bytes> expected;
  WeakPromise<void> promise;
};

// engine.commit under the fault plan: the commit's version; throws what it fails with (1020 or
// 1021, applied or not), or with `automaticIdempotency` that resolved as the client would.
int64_t commitWithFaults(Engine& engine, const CommitRequest& request, bool automaticIdempotency);

// The 10-byte versionstamp of a commit at `version`: the version big-endian, then the batch
// order (0: the engine commits one transaction per batch).
Bytes versionstampOf(int64_t version);

class PendingCommit : public std::enable_shared_from_this<PendingCommit> {
 public:
  // What the commit sends and what it completes.
  struct Parts {
    // The transaction's engine, which outlives every use here: the transaction holds it and
    // drops the commit (waiting for a send under way) before it lets it go.
    Engine* engine = nullptr;
    // The transaction's, valid until drop() (see above).
    const WriteMap* writes = nullptr;
    const ReadConflictRanges* readConflicts = nullptr;
    const WriteConflictRanges* writeConflicts = nullptr;
    // 0: a fresh one when it is sent (a transaction without a read version takes one just
    // before its commit leaves).
    int64_t readVersion = 0;
    bool selfConflict = true;
    bool automaticIdempotency = false;
    bool reportConflictingKeys = false;
    bool readConflictsMerged = true;  // read-your-writes on ("Conflicting keys")
    // The transaction's timeout deadline (engine clock coarse micros; 0: none): a commit not
    // sent by then fails with 1031 instead.
    int64_t timeoutDeadline = 0;
    // When the outcome is delivered (engine clock micros; 0: at once), unless `cancelled`
    // is set by then (the transaction was cancelled or destroyed: 1025).
    int64_t readyAt = 0;
    std::shared_ptr<std::atomic<bool>> cancelled;
    std::optional<Promise<Bytes>> versionstamp;
    std::vector<PendingWatch> watches;
  };

  // One allocation from the thread's block cache, for the commit and its future's state;
  // the caller fills in parts() before asking for future().
  static std::shared_ptr<PendingCommit> make();

  PendingCommit() = default;
  PendingCommit(const PendingCommit&) = delete;
  PendingCommit& operator=(const PendingCommit&) = delete;

  // What it sends, filled in by the transaction before future().
  Parts& parts() { return parts_; }

  // The commit's outcome: lazy, its first asker sends it. Call once.
  Future<void> future();

  // Sends the commit unless it was dropped or sent already, and completes its outcome.
  void send();
  // The future's starter (fdb::Promise::setStarter): the first asker sends the commit.
  void start() { send(); }
  // Drops the commit unless it was sent: nothing is written, and its outcome, versionstamp
  // and watches fail with error `code` saying `why` (made only then: dropping a commit sent
  // already costs nothing).
  void drop(int code, std::string_view why);

  // The version it committed at, -1 before (and after a failure).
  int64_t committedVersion() const { return committedVersion_.load(std::memory_order_acquire); }
  // What it reported when it failed with not_committed; null until then.
  const ConflictingKeys* conflictingKeys() const {
    return notCommitted_.load(std::memory_order_acquire) ? &conflictingKeys_ : nullptr;
  }

 private:
  enum class State : uint8_t { kWaiting, kSending, kSent, kDropped };

  // Fails the outcome, versionstamp and watches. REQUIRES: this thread moved state_ to kDropped.
  void fail(const Error& error);

  // Moved out of kWaiting once, by send() or drop(); drop() waits while it is kSending.
  std::atomic<State> state_{State::kWaiting};
  // Read and written by the one thread that moved state_ out of kWaiting.
  Parts parts_;
  // The outcome's state lives here (future() shares it by aliasing this object); its starter
  // holds this object until it runs or the outcome completes, which send() or drop() does.
  detail::FutureState<void> outcomeState_;
  WeakPromise<void> outcome_{std::weak_ptr<detail::FutureState<void>>()};
  ConflictingKeys conflictingKeys_;  // written before notCommitted_ is set
  std::atomic<bool> notCommitted_{false};
  std::atomic<int64_t> committedVersion_{-1};
};

}  // namespace fdb::engine
