#include "capi/future.h"

#include "capi/handles.h"
#include "capi/network.h"

void FDB_future::unref() {
  // The sole owner (the usual case: a future born ready) needs no read-modify-write: no one
  // else can take a reference any more.
  if (refs_.load(std::memory_order_acquire) == 1 ||
      refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete this;
  }
}

void FDB_future::startIfLazy() {
  if (pending_ == nullptr) return;
  uint8_t state = kStarterSet;
  if (pending_->starterState.load(std::memory_order_relaxed) != state ||
      !pending_->starterState.compare_exchange_strong(state, kStarterTaken,
                                                      std::memory_order_acquire)) {
    return;
  }
  pending_->runStarter(*pending_);
}

bool FDB_future::settle(fdb_error_t error, Result* result,
                        std::vector<std::pair<FDBCallback, void*>>* callbacks) {
  bool unstarted = false;  // dropped after the lock
  {
    std::lock_guard lock(pending_->mutex);
    if (ready_.load(std::memory_order_relaxed)) return false;
    error_ = error;
    if (result != nullptr) result_ = std::move(*result);
    callbacks->swap(pending_->callbacks);
    ready_.store(true, std::memory_order_release);
    uint8_t state = kStarterSet;
    unstarted = pending_->starterState.compare_exchange_strong(state, kNoStarter,
                                                               std::memory_order_acquire);
  }
  if (unstarted) pending_->dropStarter(*pending_);
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

bool FDB_future::isReady() {
  if (ready_.load(std::memory_order_acquire)) return true;
  startIfLazy();
  return ready_.load(std::memory_order_acquire);
}

fdb_error_t FDB_future::blockUntilReady() {
  if (ready_.load(std::memory_order_acquire)) return 0;
  startIfLazy();
  if (ready_.load(std::memory_order_acquire)) return 0;
  // Completions run on the network thread: waiting there would wait forever.
  if (fdb::capi::Network::onNetworkThread()) return 2026;  // blocked_from_network_thread
  ready_.wait(false, std::memory_order_acquire);
  return 0;
}

fdb_error_t FDB_future::setCallback(FDBCallback callback, void* parameter) {
  startIfLazy();  // asking starts a lazy operation: it may complete here and now
  if (!ready_.load(std::memory_order_acquire)) {  // so it is pending (born-ready ones are not)
    std::lock_guard lock(pending_->mutex);
    if (!ready_.load(std::memory_order_relaxed)) {
      pending_->callbacks.emplace_back(callback, parameter);
      return 0;
    }
  }
  callback(this, parameter);  // ready: at once, on the caller's thread (docs/capi.md, "Futures")
  return 0;
}

fdb_error_t FDB_future::error() {
  startIfLazy();
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
