#include "engine/durable/durable_hook.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <utility>

#include "engine/engine.h"

namespace fdb::engine {
namespace {

// A cleared range hiding at most this many base keys clears each of them in memory; a larger
// one becomes a range tombstone.
constexpr size_t kMaterializedClearLimit = 256;
// How often the folder moves versions out of the window into the base.
constexpr auto kFoldInterval = std::chrono::milliseconds(50);

}  // namespace

DurableHook::DurableHook(Engine& engine, std::shared_ptr<DurableStore> store)
    : engine_(engine), store_(std::move(store)) {}

// ---- Opening and closing -----------------------------------------------------------------

int64_t DurableHook::recover() {
  std::lock_guard lock(engine_.commitMutex_);
  return store_->replayLog([&](int64_t version, std::string_view record) {
    LogRecord::forEach(record,
                       [&](LogRecord::Op op, std::string_view key, std::string_view second) {
                         applyLogged(op, key, second, version);
                       });
  });
}

void DurableHook::startFolder() {
  folder_ = std::thread([this] { foldLoop(); });
}

void DurableHook::close() {
  if (exitQuiesced_) return;  // the process is exiting: RocksDB may be gone
  stopFolder();
  // No reader is left: everything durable can go into the base, so the next open replays
  // nothing. A failure leaves the log to the next open's recovery.
  try {
    store_->foldTo(engine_.latestCommitted_.load());
  } catch (const Error&) {
  }
}

void DurableHook::quiesceForExit() {
  stopFolder();
  store_->syncLog();
  exitQuiesced_ = true;
}

void DurableHook::stopFolder() {
  {
    std::lock_guard lock(folderMutex_);
    stopping_ = true;
  }
  folderWake_.notify_all();
  if (folder_.joinable()) folder_.join();
}

// ---- Apply -------------------------------------------------------------------------------

void DurableHook::applyLogged(LogRecord::Op op, std::string_view key, std::string_view second,
                              int64_t version) {
  VersionedStore& window = engine_.store_;
  switch (op) {
    case LogRecord::Op::kSet: window.set(key, second, version); break;
    case LogRecord::Op::kClear: window.clear(key, version); break;
    case LogRecord::Op::kClearRange: {
      if (key >= second) break;
      window.clearRange(key, second, version);  // the keys the store holds
      // The base's keys: each cleared in memory when there are few, else one tombstone.
      std::vector<Bytes> baseKeys;
      if (store_->baseKeys(key, second, kMaterializedClearLimit, &baseKeys)) {
        for (const Bytes& baseKey : baseKeys) window.clear(baseKey, version);
      } else {
        window.addTombstone(key, second, version);
      }
      break;
    }
  }
}

void DurableHook::clearRange(std::string_view begin, std::string_view end, int64_t version) {
  // clear(key) arrives as [key, key\0): one key, no need to look at the base.
  bool oneKey = end.size() == begin.size() + 1 && end.back() == '\0' && end.starts_with(begin);
  if (oneKey) {
    record_.clear(begin);
    applyLogged(LogRecord::Op::kClear, begin, {}, version);
  } else {
    record_.clearRange(begin, end);
    applyLogged(LogRecord::Op::kClearRange, begin, end, version);
  }
}

// ---- Publish -----------------------------------------------------------------------------

void DurableHook::logAndPublish(std::unique_lock<std::mutex>& lock, int64_t version) {
  pendingLog_.push_back(LoggedCommit{version, record_.release()});
  // Over the memory budget: every durable version goes to disk at the next fold.
  int64_t latest = engine_.latestCommitted_.load();
  bool overBudget = engine_.store_.windowBytes() > engine_.options_.durable.windowBytes &&
                    engine_.minReadable_.load() < latest;
  if (overBudget) engine_.minReadable_.store(latest);
  engine_.collectGarbageLocked(latest);
  if (overBudget) folderWake_.notify_one();

  // Group commit: whoever finds no log write under way writes every pending commit (its own
  // among them) in one durable write; the others wait for it, or lead the next write.
  while (engine_.latestCommitted_.load() < version) {
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
      store_->writeLog(batch);
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
    // What was applied meanwhile stays hidden behind the oldest of it.
    std::vector<WeakPromise<void>> toFire;
    engine_.publishLocked(batch.back().version,
                          pendingLog_.empty() ? INT64_MAX : pendingLog_.front().version, &toFire);
    published_.notify_all();
    throttleLocked(lock);
    lock.unlock();
    for (const WeakPromise<void>& promise : toFire) promise.setValue();
    return;
  }
  throttleLocked(lock);
}

void DurableHook::throttleLocked(std::unique_lock<std::mutex>& lock) {
  const int64_t limit = 2 * engine_.options_.durable.windowBytes;
  while (engine_.store_.windowBytes() > limit && !logFailure_) {
    folderWake_.notify_one();
    windowRoom_.wait_for(lock, std::chrono::milliseconds(10));
  }
}

// ---- The folder --------------------------------------------------------------------------

void DurableHook::foldOnce() {
  int64_t target = 0;
  {
    std::lock_guard lock(engine_.commitMutex_);
    // Moves the epochs and the read floor on.
    engine_.collectGarbageLocked(engine_.latestCommitted_.load());
    target = std::min(engine_.store_.readFloor(), engine_.latestCommitted_.load());
  }
  windowRoom_.notify_all();  // garbage collection may have dropped what a base move allowed
  if (target <= store_->baseVersion()) return;
  store_->foldTo(target);
  std::lock_guard lock(engine_.commitMutex_);
  engine_.store_.announceBase(target);
}

void DurableHook::foldLoop() {
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

int64_t DurableHook::foldForTesting() {
  for (int i = 0; i < 8; ++i) foldOnce();
  return store_->baseVersion();
}

}  // namespace fdb::engine
