#include "engine/pending_commit.h"

#include <utility>

#include "engine/transaction_internal.h"

namespace fdb::engine {

int64_t commitWithFaults(Engine& engine, const CommitRequest& request, bool automaticIdempotency) {
  // With automatic idempotency the client learns, through the commit's idempotency id,
  // whether a commit with an unknown result took effect, and reports that instead.
  switch (engine.faults().commitFault()) {
    case FaultInjector::CommitFault::kNone: return engine.commit(request);
    case FaultInjector::CommitFault::kNotCommitted:
      throw Error(errors::kNotCommitted, "injected fault");
    case FaultInjector::CommitFault::kUnknownNotCommitted:
      if (automaticIdempotency) {
        throw Error(errors::kNotCommitted, "injected fault, resolved by idempotency id");
      }
      throw Error(errors::kCommitUnknownResult, "injected fault (not committed)");
    case FaultInjector::CommitFault::kUnknownCommitted: {
      int64_t version = engine.commit(request);
      if (automaticIdempotency) return version;
      throw Error(errors::kCommitUnknownResult, "injected fault (committed)");
    }
  }
  return engine.commit(request);
}

Bytes versionstampOf(int64_t version) {
  Bytes stamp(10, '\0');
  for (int i = 0; i < 8; ++i) stamp[i] = static_cast<char>((version >> (56 - 8 * i)) & 0xff);
  return stamp;
}

std::shared_ptr<PendingCommit> PendingCommit::make() {
  return std::allocate_shared<PendingCommit>(detail::ThreadCachedAllocator<PendingCommit>());
}

Future<void> PendingCommit::future() {
  std::shared_ptr<PendingCommit> self = shared_from_this();
  Promise<void> promise =
      Promise<void>::adopt(std::shared_ptr<detail::FutureState<void>>(self, &outcomeState_));
  outcome_ = promise.weaken();
  promise.setStarter(std::move(self));
  return promise.future();
}

void PendingCommit::send() {
  State waiting = State::kWaiting;
  if (!state_.compare_exchange_strong(waiting, State::kSending, std::memory_order_acq_rel)) {
    return;  // sent or dropped already
  }
  if (parts_.timeoutDeadline != 0 &&
      parts_.engine->clock().coarseMicros() >= parts_.timeoutDeadline) {
    state_.store(State::kDropped, std::memory_order_release);  // the timeout fired first
    state_.notify_all();
    fail(Error(errors::kTransactionTimedOut, "the transaction's timeout expired"));
    return;
  }
  // Sent while kSending: the transaction's storage stays as it is until drop() returns.
  std::optional<Error> failure;
  {
    CommitRequest request;
    request.readVersion =
        parts_.readVersion != 0 ? parts_.readVersion : parts_.engine->getReadVersion();
    request.selfConflict = parts_.selfConflict;
    request.readConflicts = *parts_.readConflicts;
    request.writeConflicts = *parts_.writeConflicts;
    request.mutations = parts_.writes->mutations();
    std::vector<size_t> conflicting;
    if (parts_.reportConflictingKeys) request.conflictingReadRanges = &conflicting;
    try {
      committedVersion_.store(
          commitWithFaults(*parts_.engine, request, parts_.automaticIdempotency),
          std::memory_order_release);
    } catch (const Error& e) {
      failure = e;
      if (e.code() == errors::kNotCommitted) {
        conflictingKeys_ = ConflictingKeys::reported(*parts_.readConflicts, conflicting,
                                                     parts_.readConflictsMerged);
        notCommitted_.store(true, std::memory_order_release);
      }
    }
  }
  state_.store(State::kSent, std::memory_order_release);  // the transaction may go on
  state_.notify_all();
  // Only now: what completes here may run callbacks that use the transaction.
  // Watches are armed (or fail) now; the outcome and the versionstamp arrive together, after
  // the round trips still due.
  for (PendingWatch& watch : parts_.watches) {
    if (failure) {
      watch.promise.setError(*failure);
    } else {
      parts_.engine->armWatch(watch.key, std::move(watch.expected), std::move(watch.promise));
    }
  }
  if (parts_.readyAt == 0) {  // no simulated delay: the outcome is here
    if (failure) {
      if (parts_.versionstamp) {
        parts_.versionstamp->setError(
            Error(internal::kTransactionInvalidVersion, "the commit failed"));
      }
      outcome_.setError(std::move(*failure));
    } else {
      if (parts_.versionstamp) parts_.versionstamp->setValue(versionstampOf(committedVersion()));
      outcome_.setValue();
    }
    return;
  }
  auto deliver = [outcome = outcome_, versionstamp = std::move(parts_.versionstamp), failure,
                  version = committedVersion()](bool cancelled) mutable {
    if (cancelled) {
      Error error(errors::kTransactionCancelled, "the transaction was cancelled");
      outcome.setError(error);
      if (versionstamp) versionstamp->setError(error);
    } else if (failure) {
      outcome.setError(*failure);
      if (versionstamp) {
        versionstamp->setError(Error(internal::kTransactionInvalidVersion, "the commit failed"));
      }
    } else {
      outcome.setValue();
      if (versionstamp) versionstamp->setValue(versionstampOf(version));
    }
  };
  if (parts_.readyAt <= parts_.engine->clock().nowMicros()) {
    deliver(parts_.cancelled && parts_.cancelled->load());
    return;
  }
  parts_.engine->timer().schedule(
      parts_.readyAt, [deliver = std::move(deliver), cancelled = parts_.cancelled]() mutable {
        deliver(cancelled && cancelled->load());
      });
}

void PendingCommit::drop(int code, std::string_view why) {
  State state = state_.load(std::memory_order_acquire);
  while (true) {
    if (state == State::kSending) {  // wait for the send under way to leave the storage be
      state_.wait(State::kSending, std::memory_order_acquire);
      state = state_.load(std::memory_order_acquire);
    } else if (state != State::kWaiting) {
      return;  // sent or dropped already
    } else if (state_.compare_exchange_weak(state, State::kDropped, std::memory_order_acq_rel)) {
      fail(Error(code, std::string(why)));
      return;
    }
  }
}

void PendingCommit::fail(const Error& error) {
  outcome_.setError(error);
  if (parts_.versionstamp) parts_.versionstamp->setError(error);
  for (PendingWatch& watch : parts_.watches) watch.promise.setError(error);
}

}  // namespace fdb::engine
