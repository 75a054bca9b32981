// rl::cli::readSnapshot — every key-value of some key ranges as of one database version, in as
// many transactions as it takes: what `rl backup` reads (docs/backup.md "Consistency").
//
//   fdb::Transaction first = db.createTransaction();
//   const int64_t version = first.getReadVersion().get();
//   SnapshotStats stats = readSnapshot(db, first, version, {.soleWriter = false}, ranges,
//                                      [&](const fdb::KeyValueRef& row) { ... });
//
// Each transaction reads at `version` (set with setReadVersion) until it has read
// readBytesPerTransaction, then a new one takes over at the same version: FoundationDB's
// read-your-writes cache keeps what a transaction read, so this bounds memory, and every row
// comes from the one snapshot. A retryable error retries the read in a fresh transaction at
// the same version. A version older than the MVCC window (transaction_too_old, 1007) cannot be
// read again: the read fails with that error and a message saying so, unless
// `soleWriter` (nothing else can commit to this database while the read runs, as for an
// embedded memory: or file: database open in this process only), when the read goes on at a
// new read version, which then has the same data.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fdb/database.h"
#include "fdb/types.h"

namespace rl::cli {

struct SnapshotOptions {
  bool soleWriter = false;
  int64_t readBytesPerTransaction = 8'000'000;
  int rowsPerRead = 10'000;
  int bytesPerRead = 1'000'000;
};

struct SnapshotStats {
  int64_t transactions = 0;     // transactions read in (retries included)
  int64_t newReadVersions = 0;  // soleWriter: times the read went on at a new read version
  int64_t keys = 0;
  int64_t bytes = 0;  // keys and values
};

// Calls `row` for every key-value of `ranges` (ascending, disjoint) in key order, then
// `afterRead` (if set) after each range read. `first` is the transaction that fixed
// `version`. Throws fdb::Error: transaction_too_old as said above, and what onError does not
// retry.
SnapshotStats readSnapshot(fdb::Database& db, fdb::Transaction first, int64_t version,
                           const SnapshotOptions& options, const std::vector<fdb::KeyRange>& ranges,
                           const std::function<void(const fdb::KeyValueRef&)>& row,
                           const std::function<void(const SnapshotStats&)>& afterRead = {});

}  // namespace rl::cli
