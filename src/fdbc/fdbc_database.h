// The FoundationDB backend: fdb::Database and fdb::Transaction over a libfdb_c loaded at run
// time (client.h), behind the addresses fdb:<cluster file> and fdb: (docs/fdbc.md).
//
//   std::shared_ptr<DatabaseBackend> db = fdbc::openDatabase("/etc/foundationdb/fdb.cluster");
//   fdb::Database database(db);  // what fdb::Database::open("fdb:...") returns
//
// Every operation is the C call of the same name; futures are FDB futures completed through
// fdb_future_set_callback (future_bridge.h). Round trips are counted by kind where the C call
// is made (docs/fdbc.md says how that differs from the engine's count).
//
// Thread-safety: a database may be used from any number of threads; a transaction by one
// thread at a time, as every fdb::Transaction.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "fdb/backend.h"
#include "fdbc/c_api.h"

namespace fdb::fdbc {

// The kinds of RoundTrips, as indexes of the database's counters.
enum class RoundTripKind { kReadVersion, kRead, kRangeRead, kMappedRangeRead, kCommit };

class FdbcDatabase final : public DatabaseBackend,
                           public std::enable_shared_from_this<FdbcDatabase> {
 public:
  // Takes ownership of `database`.
  FdbcDatabase(const CApi& api, FDBDatabase* database);
  ~FdbcDatabase() override;
  FdbcDatabase(const FdbcDatabase&) = delete;
  FdbcDatabase& operator=(const FdbcDatabase&) = delete;

  std::shared_ptr<TransactionBackend> createTransaction() override;
  RoundTrips roundTrips() const override;
  void setOption(int code, std::optional<std::string_view> value) override;

  // Adds one round trip of `kind` to the database's count (transactions call it).
  void count(RoundTripKind kind) {
    trips_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  }

 private:
  const CApi& api_;
  FDBDatabase* database_;
  std::array<std::atomic<int64_t>, 5> trips_{};
};

// The database of `clusterFile` (empty: the default cluster file, as libfdb_c finds it),
// loading the library on first use. Throws fdb::Error: the loader's errors, or the code of
// fdb_create_database.
std::shared_ptr<DatabaseBackend> openDatabase(std::string_view clusterFile);

}  // namespace fdb::fdbc
