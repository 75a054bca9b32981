// What the C API's opaque handles point at: FDBDatabase, FDBTenant, FDBTransaction.
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <utility>

#include "capi/fdb_c_api.h"
#include "capi/future.h"
#include "engine/engine_transaction.h"
#include "engine/memory_database.h"
#include "fdb/bytes.h"
#include "fdb/detail/thread_block_cache.h"

// A database of the embedded engine (the C library opens no other kind): its transactions
// are the engine's own, built in the transaction handle.
struct FDB_database {
  explicit FDB_database(std::shared_ptr<fdb::engine::MemoryDatabase> database)
      : db(std::move(database)) {}
  std::shared_ptr<fdb::engine::MemoryDatabase> db;
};

// Tenants are not supported by the embedded engine (docs/capi.md): a tenant handle opens
// (that needs no I/O) but creating a transaction in it fails with tenants_disabled (2136).
struct FDB_tenant {
  FDB_tenant(std::shared_ptr<fdb::engine::MemoryDatabase> database, fdb::Bytes tenantName)
      : db(std::move(database)), name(std::move(tenantName)) {}
  std::shared_ptr<fdb::engine::MemoryDatabase> db;
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

// A transaction handle: the engine's transaction itself, in the handle (one object and one
// lifetime, no shared state to count: fdb::Transaction's indirection is for callers that
// choose a backend, and this library has one). Its operations' futures are separate cells
// (FDB_future), which may outlive it (docs/capi.md, "Memory ownership").
struct FDB_transaction {
  explicit FDB_transaction(const fdb::engine::MemoryDatabase& database)
      : tr(database.engine(), database.settings()) {}
  // The engine's transaction is used by one thread at a time; C clients may call from
  // several.
  CallLock mutex;
  fdb::engine::EngineTransaction tr;

  // Handles come from the freeing thread's block cache (fdb/future.h), as the engine's
  // transactions do: a transaction per read then allocates nothing for its handle.
  static void* operator new(size_t size) {
    if (size != sizeof(FDB_transaction)) return ::operator new(size);
    return fdb::detail::BlockCacheOf<FDB_transaction>::allocate();
  }
  static void operator delete(void* block, size_t size) {
    if (size != sizeof(FDB_transaction)) return ::operator delete(block);
    fdb::detail::BlockCacheOf<FDB_transaction>::deallocate(block);
  }
};

// Blob-granule results: never produced (blob granules are not supported).
struct FDB_result {};
