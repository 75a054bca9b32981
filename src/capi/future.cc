#include "capi/future.h"

#include "capi/handles.h"
#include "capi/network.h"

void FDB_future::unref() {
  // The sole owner (the usual case: a future born ready) needs no read-modify-write: no one
  // else can take a reference any more.
  if (refs_.load(std::memory_order_acquire) == 1 ||
      refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (FDB_transaction* owner = inlineOwner_) {
      this->~FDB_future();
      owner->releaseInlineFuture();
    } else {
      delete this;
    }
  }
}

FDB_future* FDB_transaction::newFuture() {
  // Only this handle's calls (serialized by its mutex) set the inline bit, and only while
  // the handle is alive, so a plain store suffices; the future's release clears it.
  if (owners_.load(std::memory_order_acquire) & kInlineFuture) return new FDB_future();
  owners_.store(kHandle | kInlineFuture, std::memory_order_relaxed);
  return new (inlineFuture_) FDB_future(this);
}

void FDB_transaction::destroy() {
  { fdb::Transaction dropped = std::move(tr); }  // cancels what is in flight (1025)
  // With the inline cell free nobody else can reach this handle any more.
  if (owners_.load(std::memory_order_acquire) == kHandle ||
      owners_.fetch_and(~kHandle, std::memory_order_acq_rel) == kHandle) {
    delete this;
  }
}

void FDB_transaction::releaseInlineFuture() {
  // With the handle gone, nobody else can reach this memory any more.
  if (owners_.load(std::memory_order_acquire) == kInlineFuture ||
      owners_.fetch_and(~kInlineFuture, std::memory_order_acq_rel) == kInlineFuture) {
    delete this;
  }
}

bool FDB_future::settle(fdb_error_t error, Result* result,
                        std::vector<std::pair<FDBCallback, void*>>* callbacks) {
  {
    std::lock_guard lock(pending_->mutex);
    if (ready_.load(std::memory_order_relaxed)) return false;
    error_ = error;
    if (result != nullptr) result_ = std::move(*result);
    callbacks->swap(pending_->callbacks);
    ready_.store(true, std::memory_order_release);
  }
  // Waiters cannot free the future meanwhile: a pending completion holds a reference.
  ready_.notify_all();
  return true;
}

void FDB_future::complete(Result result) {
  std::vector<std::pair<FDBCallback, void*>> callbacks;
  if (!settle(0, &result, &callbacks)) return;
  // Callbacks may destroy the future: nothing below touches it.
  for (const auto& [callback, parameter] : callbacks) callback(this, parameter);
}

void FDB_future::fail(fdb_error_t error) {
  std::vector<std::pair<FDBCallback, void*>> callbacks;
  if (!settle(error, nullptr, &callbacks)) return;
  for (const auto& [callback, parameter] : callbacks) callback(this, parameter);
}

void FDB_future::failUnshared(fdb_error_t error) {
  error_ = error;
  ready_.store(true, std::memory_order_release);
}

bool FDB_future::isReady() const { return ready_.load(std::memory_order_acquire); }

fdb_error_t FDB_future::blockUntilReady() {
  if (ready_.load(std::memory_order_acquire)) return 0;
  // Completions run on the network thread: waiting there would wait forever.
  if (fdb::capi::Network::onNetworkThread()) return 2026;  // blocked_from_network_thread
  ready_.wait(false, std::memory_order_acquire);
  return 0;
}

fdb_error_t FDB_future::setCallback(FDBCallback callback, void* parameter) {
  if (!ready_.load(std::memory_order_acquire)) {  // so it is pending (born-ready ones are not)
    std::lock_guard lock(pending_->mutex);
    if (!ready_.load(std::memory_order_relaxed)) {
      pending_->callbacks.emplace_back(callback, parameter);
      return 0;
    }
  }
  callback(this, parameter);  // ready: synchronously, on the caller's thread (spec §1.5)
  return 0;
}

fdb_error_t FDB_future::error() const {
  if (!ready_.load(std::memory_order_acquire)) return 2015;  // future_not_set
  return error_;
}

void FDB_future::cancel() {
  if (ready_.load(std::memory_order_acquire)) return;
  std::function<void()> canceller;
  {
    std::lock_guard lock(pending_->mutex);
    if (ready_.load(std::memory_order_relaxed)) return;
    canceller = pending_->canceller;
  }
  fail(1101);  // operation_cancelled; callbacks already registered fire with it
  if (canceller) canceller();
}

void FDB_future::releaseMemory() {
  int releases = releases_.fetch_add(1, std::memory_order_relaxed) + 1;
  // The memory of every get so far may go once each was released. (Releases racing gets or
  // each other are the caller's error, as in FoundationDB.)
  if (ready_.load(std::memory_order_acquire) && releases >= gets_.load(std::memory_order_relaxed)) {
    released_.store(true, std::memory_order_relaxed);
    result_ = Result{};
  }
}

namespace fdb::capi {

FDB_future* newFutureOf(FDB_transaction* owner) { return owner->newFuture(); }

FDBFuture* failedFuture(fdb_error_t error) {
  auto* cell = new FDB_future();
  cell->failUnshared(error);
  return cell;
}

FDBFuture* readyFuture(Result result) {
  auto* cell = new FDB_future();
  cell->completeUnshared(std::move(result));
  return cell;
}

fdb_error_t currentErrorCode() {
  try {
    throw;
  } catch (const fdb::Error& e) {
    return e.code();
  } catch (...) {
    return 4100;  // internal_error
  }
}

}  // namespace fdb::capi
