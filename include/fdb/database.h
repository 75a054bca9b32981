// fdb::Database — a handle to a database, opened from an address.
//
// Addresses (one grammar everywhere: API, `rl --db`, the C ABI's cluster file):
//   memory:         a fresh private in-memory database (the embedded engine)
//   memory:<name>   an in-memory database shared by name within this process; it lives
//                   while any handle to it is open
//   fdb:<cluster file>, fdb:
//                   FoundationDB through a libfdb_c loaded at run time (the default cluster
//                   file for "fdb:"); include/fdbc/library.h and docs/fdbc.md say which
//                   library and how it is checked
//   file:<dir>, or a bare directory path (one with a '/' and no "scheme:" before it:
//                   "/var/lib/app/store", "./store")
//                   the durable embedded store in that directory (created when missing;
//                   docs/durable.md); one process at a time, and opening it again in the
//                   same process shares the open store
//
// Each scheme is served by a backend that registered it (src/fdb/backend_registry.h);
// open() itself knows none of them.
//
//   fdb::Database db = fdb::Database::open("memory:");
//   db.run([](fdb::Transaction& tr) { tr.set("hello", "world"); });
//   std::optional<fdb::Bytes> v =
//       db.run([](fdb::Transaction& tr) { return tr.get("hello").get(); });
//
// Thread-safety: a Database may be used from any number of threads; copies share the
// database.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fdb/error.h"
#include "fdb/options.h"
#include "fdb/transaction.h"

namespace fdb {

class DatabaseBackend;

// Options of the embedded engine (the memory: and file: addresses); they apply when the
// engine is created, so to a named database or an open store only on its first open.
struct EngineOptions {
  // Simulated network (off by default): every round trip (read version, each read or range
  // batch, each mapped-range batch, commit) completes after a delay, scheduled on a timer
  // thread; operations issued together overlap as on a network.
  enum class DelayDistribution { kFixed, kExponential };
  int64_t oneWayDelayMicros = 0;  // a round trip takes twice this (on average)
  DelayDistribution delayDistribution = DelayDistribution::kFixed;

  // Fault injection (off by default), FoundationDB's client buggify in-process: a seeded
  // plan; the same seed and the same operations give the same faults.
  struct Faults {
    bool enabled = false;
    uint64_t seed = 0;
    double notCommitted = 0;       // a commit fails with not_committed (1020)
    double unknownResult = 0;      // a commit fails with commit_unknown_result (1021),
                                   // half of them after committing
    double readVersionTooOld = 0;  // a read fails with transaction_too_old (1007)
    double slowdown = 0;           // a round trip takes slowdownMicros longer
    int64_t slowdownMicros = 0;
  } faults;

  // The durable store (file:<dir>; docs/durable.md).
  struct Durable {
    // kOnCommit: a commit is acknowledged only once its log record is synced to disk
    // (fdatasync of RocksDB's write-ahead log; concurrent commits share one sync).
    // kRelaxed: once it is written to the operating system, not synced. A crash of the
    // process loses nothing acknowledged; a crash of the machine or a power loss may lose
    // the last acknowledged commits (never part of one), and their versions and versionstamps
    // may then be handed out again.
    enum class Sync { kOnCommit, kRelaxed };
    Sync sync = Sync::kOnCommit;
    // RocksDB's block cache: the base's data kept in memory, beyond the MVCC window.
    int64_t cacheBytes = 64 << 20;
    // Memory the MVCC window (the versions not yet in RocksDB) may use. Past it, every
    // durable version is folded into RocksDB at once, and reads at versions older than that
    // fail with transaction_too_old (1007), as if the window were shorter than 5 seconds
    // (the retry loop retries them). Bounds memory under any write rate.
    int64_t windowBytes = 256 << 20;
    // false: a directory that holds no store is not made one; opening it fails with
    // file_not_found (1511) and creates nothing (for tools that only read, so that a
    // mistyped path is an error instead of a new, empty database).
    bool createIfMissing = true;
  } durable;
};

class Database {
 public:
  // Throws fdb::Error 2000 (client_invalid_operation) for an address it cannot open; for
  // fdb: addresses, also the errors of loading libfdb_c and of fdb_create_database.
  // EngineOptions apply to memory: addresses (fdb: fails with 2000 on non-default ones).
  static Database open(std::string_view address);
  static Database open(std::string_view address, const EngineOptions& options);
  explicit Database(std::shared_ptr<DatabaseBackend> backend);

  // The address schemes this build serves ("memory", "file", "fdb", ...), in the order their
  // backends registered them.
  static std::vector<std::string> addressSchemes();

  Transaction createTransaction();

  // Round trips of every transaction of this database so far.
  RoundTrips roundTrips() const;

  // Database options (include/fdb/options.h); the transaction defaults apply to
  // transactions created, reset or retried afterwards.
  void setOption(DatabaseOption option);
  void setOption(DatabaseOption option, int64_t value);
  void setOption(DatabaseOption option, std::string_view value);

  // The retry loop: runs fn(tr), commits, and on an fdb::Error retries exactly what
  // onError retries. Returns what fn returns; throws the first error onError does not
  // retry.
  template <typename F>
  std::invoke_result_t<F, Transaction&> run(F&& fn) {
    Transaction tr = createTransaction();
    while (true) {
      try {
        if constexpr (std::is_void_v<std::invoke_result_t<F, Transaction&>>) {
          fn(tr);
          tr.commit().get();
          return;
        } else {
          auto result = fn(tr);
          tr.commit().get();
          return result;
        }
      } catch (const Error& e) {
        tr.onError(e).get();
      }
    }
  }

  const std::shared_ptr<DatabaseBackend>& backend() const { return backend_; }

 private:
  std::shared_ptr<DatabaseBackend> backend_;
};

}  // namespace fdb
