#include "capi/future.h"

#include "capi/network.h"

void FDB_future::unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void FDB_future::complete(Result result) {
  std::vector<std::pair<FDBCallback, void*>> callbacks;
  {
    std::lock_guard lock(mutex_);
    if (ready_) return;
    ready_ = true;
    result_ = std::move(result);
    callbacks.swap(callbacks_);
  }
  readyChanged_.notify_all();
  for (const auto& [callback, parameter] : callbacks) callback(this, parameter);
}

void FDB_future::fail(fdb_error_t error) {
  std::vector<std::pair<FDBCallback, void*>> callbacks;
  {
    std::lock_guard lock(mutex_);
    if (ready_) return;
    ready_ = true;
    error_ = error;
    callbacks.swap(callbacks_);
  }
  readyChanged_.notify_all();
  for (const auto& [callback, parameter] : callbacks) callback(this, parameter);
}

bool FDB_future::isReady() const {
  std::lock_guard lock(mutex_);
  return ready_;
}

fdb_error_t FDB_future::blockUntilReady() {
  std::unique_lock lock(mutex_);
  if (ready_) return 0;
  // Completions run on the network thread: waiting there would wait forever.
  if (fdb::capi::Network::onNetworkThread()) return 2026;  // blocked_from_network_thread
  readyChanged_.wait(lock, [&] { return ready_; });
  return 0;
}

fdb_error_t FDB_future::setCallback(FDBCallback callback, void* parameter) {
  {
    std::lock_guard lock(mutex_);
    if (!ready_) {
      callbacks_.emplace_back(callback, parameter);
      return 0;
    }
  }
  callback(this, parameter);  // ready: synchronously, on the caller's thread (spec §1.5)
  return 0;
}

fdb_error_t FDB_future::error() const {
  std::lock_guard lock(mutex_);
  if (!ready_) return 2015;  // future_not_set
  return error_;
}

void FDB_future::cancel() {
  std::function<void()> canceller;
  {
    std::lock_guard lock(mutex_);
    if (ready_) return;
    canceller = canceller_;
  }
  fail(1101);  // operation_cancelled; callbacks already registered fire with it
  if (canceller) canceller();
}

void FDB_future::releaseMemory() {
  std::lock_guard lock(mutex_);
  ++releases_;
  // The memory of every get so far may go once each was released.
  if (ready_ && releases_ >= gets_) {
    released_ = true;
    result_ = Result{};
  }
}

namespace fdb::capi {

FDBFuture* failedFuture(fdb_error_t error) {
  auto* cell = new FDB_future();
  cell->fail(error);
  return cell;
}

FDBFuture* readyFuture(Result result) {
  auto* cell = new FDB_future();
  cell->complete(std::move(result));
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
