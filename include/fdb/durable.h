// Looking after a durable store (file:<dir>; docs/durable.md): verification, backup and
// restore, and the counters of its commit log.
//
//   fdb::Database db = fdb::Database::open("file:/var/lib/app/store");
//   int64_t version = fdb::checkpointDurableStore(db, "/backups/store-1");
//   fdb::restoreDurableStore("/backups/store-1", "/var/lib/app/restored");
//   fdb::verifyDurableStore("/var/lib/app/restored");
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "fdb/database.h"

namespace fdb {

// Opens the store in `directory` (or uses this process's open handle of it) and walks every
// file, checking every checksum and every log record. Throws fdb::Error 1522 (file_corrupt)
// naming the damaged file, or what opening throws (1529 when another process has it open).
void verifyDurableStore(std::string_view directory);

// Writes a consistent copy of the open durable store `db` into `directory` (which must not
// exist) and returns its version: the copy holds every commit at or below it and none above.
// Commits wait while the copy is taken (tens of milliseconds; files are hard-linked when on
// the same file system). Throws 2000 when `db` is not a durable store.
int64_t checkpointDurableStore(const Database& db, std::string_view directory);

// Makes `directory` (which must not exist, or be empty) a store holding what the checkpoint in
// `checkpoint` holds; open it as any store. Throws 2000 for a bad target, 1510 when copying
// fails.
void restoreDurableStore(std::string_view checkpoint, std::string_view directory);

struct DurableStoreStats {
  int64_t walSyncs = 0;       // synced log writes (each is one fsync of the WAL)
  int64_t loggedCommits = 0;  // commits those writes carried (group commit: several per sync)
  int64_t baseVersion = 0;    // every commit at or below it has been folded into the base
};
// Throws 2000 when `db` is not a durable store.
DurableStoreStats durableStoreStats(const Database& db);

}  // namespace fdb
