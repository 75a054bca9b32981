// fdb::Transaction — one FoundationDB transaction, with FoundationDB's exact semantics.
//
// Reads see a consistent snapshot at the transaction's read version plus the transaction's
// own writes (read-your-writes). Serializable reads add read conflict ranges; commit fails
// with not_committed (1020) iff a write committed after the read version intersects one of
// them. Writes are buffered and become visible atomically at commit. Errors are
// fdb::Error with FoundationDB's codes; errors of set/clear/atomicOp are deferred to the
// next operation that returns a future (usually commit), as FoundationDB defers them.
//
//   fdb::Transaction tr = db.createTransaction();
//   while (true) {
//     try {
//       auto v = tr.get("counter").get();
//       tr.set("counter", v ? *v + "!" : "!");
//       tr.commit().get();
//       break;
//     } catch (const fdb::Error& e) {
//       tr.onError(e).get();  // rethrows what is not retryable
//     }
//   }
//
// Thread-safety: one thread at a time. A transaction is a handle: copies share one
// transaction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/future.h"
#include "fdb/key_selector.h"
#include "fdb/options.h"
#include "fdb/types.h"

namespace fdb {

class TransactionBackend;
class Transaction;

// The snapshot view of a transaction: reads that add no read conflict ranges.
// (They still see the transaction's own writes, as FoundationDB's snapshot reads do.)
class SnapshotReads {
 public:
  Future<std::optional<Bytes>> get(std::string_view key) const;
  Future<Bytes> getKey(KeySelectorRef selector) const;
  Future<RangeResult> getRange(KeySelectorRef begin, KeySelectorRef end,
                               const RangeOptions& options = {}) const;
  Future<RangeResult> getRange(const KeyRange& range, const RangeOptions& options = {}) const;
  std::vector<KeyValue> getRangeAll(const KeyRange& range, int limit = 0,
                                    bool reverse = false) const;
  // Fails with unsupported_operation (2108): mapped reads are serializable only.
  Future<MappedRangeResult> getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                           std::string_view mapper,
                                           const RangeOptions& options = {}) const;

 private:
  friend class Transaction;
  explicit SnapshotReads(TransactionBackend* backend) : backend_(backend) {}
  TransactionBackend* backend_;
};

class Transaction {
 public:
  explicit Transaction(std::shared_ptr<TransactionBackend> backend);

  // The read version: fetched on first use (first read, this call, or commit), then fixed
  // until reset or a retry.
  Future<int64_t> getReadVersion();
  // Reads at `version` instead. Errors (2011 version <= 0, 2010 already set) are deferred;
  // reading at a version older than the MVCC window fails with 1007, newer than the
  // database with 1009.
  void setReadVersion(int64_t version);

  // Serializable reads (they add read conflict ranges).
  Future<std::optional<Bytes>> get(std::string_view key);
  Future<Bytes> getKey(KeySelectorRef selector);
  // One batch of the rows in [begin, end), resolved selectors, honouring limits and mode.
  Future<RangeResult> getRange(KeySelectorRef begin, KeySelectorRef end,
                               const RangeOptions& options = {});
  // [range.begin, range.end) as firstGreaterOrEqual selectors.
  Future<RangeResult> getRange(const KeyRange& range, const RangeOptions& options = {});
  // Every row (up to `limit`, 0 = all), iterating batches as the bindings do.
  std::vector<KeyValue> getRangeAll(const KeyRange& range, int limit = 0, bool reverse = false);

  // A range read of index entries that also reads, for each entry, the range the mapper
  // builds from it (docs/semantics.md, "Mapped range reads"): one operation, at the read
  // version. The mapper is a packed tuple whose elements are literals, "{K[i]}" / "{V[i]}" (element
  // i of the entry's key / value) and a final "{...}" (the range of every key the other elements
  // prefix).
  // Fails with 2039 when the entries or the ranges touch this transaction's own writes.
  Future<MappedRangeResult> getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                           std::string_view mapper,
                                           const RangeOptions& options = {});

  // A future that becomes ready once `key`'s value differs from what this transaction sees
  // now (armed when the transaction commits; docs/semantics.md, "Watches"). Fails with the
  // commit's error, or 1025 if the transaction is reset or destroyed first. Dropping every
  // copy cancels it.
  Future<void> watch(std::string_view key);

  // The same reads without read conflict ranges.
  SnapshotReads snapshot() const { return SnapshotReads(backend_.get()); }

  void set(std::string_view key, std::string_view value);
  void clear(std::string_view key);
  void clearRange(std::string_view begin, std::string_view end);
  void clearRange(const KeyRange& range) { clearRange(range.begin, range.end); }
  void atomicOp(std::string_view key, std::string_view param, MutationType type);

  void addReadConflictRange(std::string_view begin, std::string_view end);
  void addReadConflictKey(std::string_view key);
  void addWriteConflictRange(std::string_view begin, std::string_view end);
  void addWriteConflictKey(std::string_view key);

  // Options (include/fdb/options.h): without a parameter, with an integer (sent as FoundationDB
  // sends it: 8 bytes little-endian), or with bytes.
  void setOption(TransactionOption option);
  void setOption(TransactionOption option, int64_t value);
  void setOption(TransactionOption option, std::string_view value);

  // Commits the writes. A transaction without a read version yet (a blind write) sends its
  // commit only when the future's outcome is first asked for; destroying, resetting or
  // cancelling the transaction before that means nothing is written (docs/semantics.md, "When
  // a commit is sent").
  Future<void> commit();
  // The 10-byte versionstamp this transaction commits with: ready after a successful
  // commit; fails with 2021 if it commits read-only, 2020 if the commit fails, 1025 if the
  // transaction is reset first. Must be asked for before commit() (afterwards: 2017).
  Future<Bytes> getVersionstamp();
  // The version the transaction committed at; -1 before a successful commit and after a
  // read-only one.
  int64_t getCommittedVersion();
  // A running estimate of the commit's size in bytes (mutations plus conflict ranges).
  Future<int64_t> getApproximateSize();

  // fdb_transaction_on_error: for a retryable error, waits a backoff, resets the
  // transaction for another attempt and completes; otherwise completes with the error.
  Future<void> onError(const Error& error);
  // Back to a fresh transaction (writes, reads, read version, options, retry count).
  void reset();
  // Fails every pending and later operation with transaction_cancelled (1025) until reset.
  void cancel();

  // The round trips this transaction's operations made (all attempts since creation).
  RoundTrips roundTrips() const;

 private:
  std::shared_ptr<TransactionBackend> backend_;
};

}  // namespace fdb
