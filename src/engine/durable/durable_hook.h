// DurableHook — the durable store's part in the engine's commit pipeline (docs/engine.md, "The
// commit pipeline"; docs/durable.md). The engine runs every commit through one pipeline; in
// durable mode it holds a DurableHook, which adds, stage by stage:
//   - start: a failed log write has stopped the engine's commits (beginCommit);
//   - apply: every mutation is also written to the commit's log record (logSet, logClear), a
//     cleared range also hides the base's keys (clearRange), and values are read through the
//     base (DurableStore::get);
//   - publish: the commit is published once a log write holds it (logAndPublish: group
//     commit); a window over its memory budget makes the base move up early, and one over
//     twice the budget holds the committer back.
// Besides the pipeline: recovery from the log when the engine opens, and the folder thread
// that moves versions that have left the MVCC window into the base.
//
//   // Engine's constructor, given a DurableStore:
//   durable_ = std::make_unique<DurableHook>(*this, std::move(store));
//   initialVersion_ = std::max(kInitialVersion, durable_->recover() + 1);
//   ...
//   durable_->startFolder();
//
// Thread-safety: the pipeline's stages (the methods below marked so) run under the engine's
// commit lock, as the engine calls them; the folder thread takes that lock itself.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/durable/durable_store.h"
#include "engine/durable/log_record.h"
#include "fdb/error.h"

namespace fdb::engine {

class Engine;

class DurableHook {
 public:
  // The hook of `engine` (which is being constructed) over `store`.
  DurableHook(Engine& engine, std::shared_ptr<DurableStore> store);
  DurableHook(const DurableHook&) = delete;
  DurableHook& operator=(const DurableHook&) = delete;

  DurableStore& store() const { return *store_; }

  // Opening: applies every logged commit above the base to the window, at its version;
  // returns the newest version logged. Throws what reading the log throws.
  int64_t recover();
  void startFolder();
  // Closing (the engine's destructor): stops the folder and folds every published commit
  // into the base, so the next open replays nothing; nothing after quiesceForExit.
  void close();
  // For the process's exit (Engine::quiesceForExit): stops the folder and syncs the log.
  void quiesceForExit();
  // Folds now as far as readers allow (a few steps of the folder's work); returns the base
  // version.
  int64_t foldForTesting();

  // ---- The pipeline's stages; REQUIRES: the commit lock held -------------------------

  // Start: throws the failure that stopped the engine's commits; starts this commit's record.
  void beginCommit() {
    if (logFailure_) throw *logFailure_;
    record_ = LogRecord();
  }
  // Apply: what the engine writes to the window also goes into the commit's record.
  void logSet(std::string_view key, std::string_view value) { record_.set(key, value); }
  void logClear(std::string_view key) { record_.clear(key); }
  // Apply: clears [begin, end) at `version` in the window, the base's keys included, and logs
  // it.
  void clearRange(std::string_view begin, std::string_view end, int64_t version);
  // Apply failed (reading the base): the commit stays hidden for good, and the engine takes
  // no more commits.
  void stopCommits(Error failure) { logFailure_ = std::move(failure); }
  // Publish: hands the commit at `version` (applied, hidden) to the log and returns once a
  // log write holds it and it is published, its watches fired. Concurrent committers share
  // one log write (group commit). Throws the log write's failure, which stops the engine's
  // commits. Over twice the window's budget, waits for the folder first.
  void logAndPublish(std::unique_lock<std::mutex>& lock, int64_t version);

 private:
  // Applies one logged mutation to the window.
  void applyLogged(LogRecord::Op op, std::string_view key, std::string_view second,
                   int64_t version);
  // Back-pressure: waits while the window holds more than twice its budget, so memory stays
  // bounded even when folding falls behind.
  void throttleLocked(std::unique_lock<std::mutex>& lock);
  void foldLoop();
  void foldOnce();
  void stopFolder();

  Engine& engine_;
  std::shared_ptr<DurableStore> store_;
  // Guarded by the commit lock: the record of the commit being applied; commits applied but
  // not yet handed to a log write; whether a log write is under way; the failure that
  // stopped the engine's commits.
  LogRecord record_;
  std::vector<LoggedCommit> pendingLog_;
  bool logWriteInProgress_ = false;
  std::optional<Error> logFailure_;
  std::condition_variable published_;   // a log write ended
  std::condition_variable windowRoom_;  // the folder freed window memory
  std::mutex folderMutex_;
  std::condition_variable folderWake_;
  bool stopping_ = false;  // guarded by folderMutex_
  // Set by quiesceForExit (the exit handler's thread, before any static destructor).
  bool exitQuiesced_ = false;
  std::thread folder_;
};

}  // namespace fdb::engine
