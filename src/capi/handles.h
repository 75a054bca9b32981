// What the C API's opaque handles point at: FDBDatabase, FDBTenant, FDBTransaction.
#pragma once

#include <atomic>
#include <thread>
#include <utility>

#include "capi/fdb_c_api.h"
#include "capi/future.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/transaction.h"

struct FDB_database {
  explicit FDB_database(fdb::Database database) : db(std::move(database)) {}
  fdb::Database db;
};

// Tenants are not supported by the embedded engine (docs/capi.md): a tenant handle opens
// (that needs no I/O) but creating a transaction in it fails with tenants_disabled (2136).
struct FDB_tenant {
  FDB_tenant(fdb::Database database, fdb::Bytes tenantName)
      : db(std::move(database)), name(std::move(tenantName)) {}
  fdb::Database db;
  fdb::Bytes name;
};

// Serializes the calls on one transaction handle. Bindings use a transaction from one
// thread at a time, so the lock is nearly never contended: it spins (yielding) when it is,
// and its release is a plain store, which makes it cheaper than a mutex on the path every
// call takes.
class CallLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

// A transaction handle also holds one future cell inline: most transactions have one
// operation in flight at a time (a read, then the commit), and taking the cell from the
// handle instead of the heap saves an allocation per operation. The handle's memory lives
// until both the handle is destroyed and the inline cell's future is destroyed (a future
// may outlive its transaction, spec §1.6).
struct FDB_transaction {
  explicit FDB_transaction(fdb::Transaction transaction) : tr(std::move(transaction)) {}
  // fdb::Transaction is used by one thread at a time; C clients may call from several.
  CallLock mutex;
  fdb::Transaction tr;

  // A new future cell for an operation of this transaction: the inline one when it is free.
  // REQUIRES: mutex held (called from the transaction's own calls).
  FDB_future* newFuture();
  // fdb_transaction_destroy: the engine transaction goes now (operations in flight fail
  // with 1025), the memory once the inline cell is free too.
  void destroy();
  // Called by the inline cell's future when its last owner lets go (any thread).
  void releaseInlineFuture();

  // Handles come from the freeing thread's block cache (fdb/future.h), as the engine's
  // transactions do: a transaction per read then allocates nothing for its handle.
  static void* operator new(size_t size) {
    if (size != sizeof(FDB_transaction)) return ::operator new(size);
    return fdb::detail::BlockCache<sizeof(FDB_transaction)>::allocate();
  }
  static void operator delete(void* block, size_t size) {
    if (size != sizeof(FDB_transaction)) return ::operator delete(block);
    fdb::detail::BlockCache<sizeof(FDB_transaction)>::deallocate(block);
  }

 private:
  ~FDB_transaction() = default;

  static constexpr unsigned kHandle = 1;        // the C handle is alive
  static constexpr unsigned kInlineFuture = 2;  // the inline cell holds a future
  std::atomic<unsigned> owners_{kHandle};
  alignas(FDB_future) unsigned char inlineFuture_[sizeof(FDB_future)];
};

// Blob-granule results: never produced (blob granules are not supported).
struct FDB_result {};
