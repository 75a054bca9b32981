// DurableStore — the durable engine's disk: a RocksDB base under the in-memory MVCC window,
// and the commit log.
//
// The engine keeps the last five seconds of versions in memory (VersionedStore, backed mode);
// the base holds every key as of one version, the base version, which lags the window, as a
// FoundationDB storage server's disk lags its in-memory versions. A read at version v looks in
// memory first and falls back to the base, which is correct because every version a reader
// may ask for is >= the base version and the memory holds every write above it. Every commit
// is a log record made durable through RocksDB's write-ahead log before it is acknowledged;
// folding moves the oldest logged commits into the base in one atomic write batch (their
// mutations, the new base version, the deletion of their records). docs/durable.md has the
// on-disk format and the durability contract.
//
//   std::shared_ptr<DurableStore> disk = DurableStore::open("/var/lib/app/store", {});
//   auto engine = std::make_shared<Engine>(clock, options, disk);  // recovers from the log
//
// Thread-safety: every method may be called from any thread; writeLog and foldTo are each
// called by one thread at a time (the engine's group-commit leader and its folder).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/durable/log_record.h"
#include "engine/function_ref.h"
#include "engine/versioned_store.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/types.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
class Iterator;
}  // namespace rocksdb

namespace fdb::engine {

// A RocksDB iterator over the base kept for the reads of one operation (an Engine::Reader),
// so that the many small steps of selectors and read-your-writes ranges do not each open one.
// Empty (and free) until a read needs it.
class BaseCursor {
 public:
  BaseCursor() = default;
  ~BaseCursor() {
    if (iterator_ != nullptr) release();
  }
  BaseCursor(BaseCursor&& other) noexcept : iterator_(other.iterator_) {
    other.iterator_ = nullptr;
  }
  BaseCursor& operator=(BaseCursor&&) = delete;
  BaseCursor(const BaseCursor&) = delete;
  BaseCursor& operator=(const BaseCursor&) = delete;

 private:
  friend class DurableStore;
  void release();
  rocksdb::Iterator* iterator_ = nullptr;
};

class DurableStore {
 public:
  // Opens the store in `directory`, creating it when missing. Throws fdb::Error:
  // 1529 (lock_file_failure) "store <dir> is in use by another process" when another process
  // (or another open handle of this process) has it open; 1522 (file_corrupt) naming the
  // file when a file is damaged or truncated; 1510 (io_error) for other failures.
  static std::shared_ptr<DurableStore> open(const std::string& directory,
                                            const EngineOptions::Durable& options);
  // Whether `directory` holds a store (one this build or an earlier one initialized).
  static bool existsIn(const std::string& directory);
  ~DurableStore();
  DurableStore(const DurableStore&) = delete;
  DurableStore& operator=(const DurableStore&) = delete;

  // At process exit RocksDB's own singletons (its thread-local registry, the default Env)
  // are destroyed in the reverse order of their creation, which may come before a store held
  // in a static of the program is closed. An atexit handler registered after they exist
  // (durable_database.cc) runs first: it syncs the log of every store still open (syncLog),
  // then markProcessExiting(); a store destroyed after that gives its RocksDB handles up
  // unclosed (the process is ending; the next open replays the synced log).
  void syncLog();
  static void markProcessExiting();

  const std::string& directory() const { return directory_; }
  const EngineOptions::Durable& options() const { return options_; }
  // Every commit at or below this version is in the base; the log holds those above.
  int64_t baseVersion() const { return baseVersion_.load(); }

  // Recovery: calls replay(version, record) for every logged commit above the base version,
  // in version order. Returns the newest version found (the base version when none).
  int64_t replayLog(FunctionRef<void(int64_t, std::string_view)> replay);

  // Makes `commits` (in version order) durable as one write: synced to disk before it
  // returns unless options().sync is relaxed. Throws fdb::Error 1510 on failure.
  void writeLog(std::span<const LoggedCommit> commits);
  // How many synced log writes there have been (each is one fsync of the WAL), and how
  // many commits they carried.
  int64_t walSyncs() const { return walSyncs_.load(); }
  int64_t loggedCommits() const { return loggedCommits_.load(); }

  // Moves every logged commit at or below `version` into the base, atomically. REQUIRES:
  // no reader reads at a version below `version` (any more), and every commit at or below it
  // is logged.
  void foldTo(int64_t version);

  // The base's own value of `key` (its current state).
  std::optional<Bytes> getBase(std::string_view key) const;
  // Appends to `keys` the base's keys in [begin, end), up to `limit` of them; returns false
  // when there are more.
  bool baseKeys(std::string_view begin, std::string_view end, size_t limit,
                std::vector<Bytes>* keys) const;

  // Reads at `version` through `memory` (in backed mode) and then the base. REQUIRES: a
  // ReadGuard of `memory`, held since before `cursor` (if given) was first used, and
  // `version` >= the base version for as long as the read lasts (the engine guarantees
  // both). With a cursor, every read through it sees one state of the base.
  std::optional<Bytes> get(const VersionedStore& memory, std::string_view key,
                           int64_t version) const;
  std::optional<KeyValue> firstAtOrAfter(const VersionedStore& memory, std::string_view from,
                                         std::string_view end, int64_t version,
                                         BaseCursor* cursor = nullptr) const;
  std::optional<KeyValue> lastBefore(const VersionedStore& memory, std::string_view before,
                                     std::string_view begin, int64_t version,
                                     BaseCursor* cursor = nullptr) const;
  // As VersionedStore::scan: visit(key, value) in order until it returns false.
  void scan(const VersionedStore& memory, std::string_view begin, std::string_view end,
            int64_t version, bool reverse,
            FunctionRef<bool(std::string_view, std::string_view)> visit,
            BaseCursor* cursor = nullptr) const;

  // Walks every file of the store checking every checksum, and every log record's
  // encoding. Throws fdb::Error 1522 naming the damaged file.
  void verify() const;

  // Writes a consistent copy of the store (RocksDB checkpoint: SST files hard-linked when on
  // the same file system) into `directory`, which must not exist; returns the version it
  // holds: every commit logged at or below it, none above. Log writes wait meanwhile.
  int64_t checkpoint(const std::string& directory);

 private:
  DurableStore(std::string directory, const EngineOptions::Durable& options);

  std::string directory_;
  EngineOptions::Durable options_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* base_ = nullptr;  // "default"
  rocksdb::ColumnFamilyHandle* log_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;
  std::atomic<int64_t> baseVersion_{0};
  std::atomic<int64_t> walSyncs_{0};
  std::atomic<int64_t> loggedCommits_{0};
  std::mutex foldMutex_;
  // Held by every write (log writes, folds) and by checkpoint. The newest version logged.
  std::mutex writeMutex_;
  int64_t lastLogged_ = 0;  // guarded by writeMutex_
};

}  // namespace fdb::engine
