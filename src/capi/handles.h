// What the C API's opaque handles point at: FDBDatabase, FDBTenant, FDBTransaction.
#pragma once

#include <mutex>
#include <utility>

#include "capi/fdb_c_api.h"
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

struct FDB_transaction {
  explicit FDB_transaction(fdb::Transaction transaction) : tr(std::move(transaction)) {}
  // fdb::Transaction is used by one thread at a time; C clients may call from several.
  std::mutex mutex;
  fdb::Transaction tr;
};

// Blob-granule results: never produced (blob granules are not supported).
struct FDB_result {};
