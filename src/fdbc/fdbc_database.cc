#include "fdbc/fdbc_database.h"

#include <fmt/format.h>

#include <string>

#include "fdb/backend_registry.h"
#include "fdbc/client.h"
#include "fdbc/fdbc_transaction.h"

namespace fdb::fdbc {

FdbcDatabase::FdbcDatabase(const CApi& api, FDBDatabase* database)
    : api_(api), database_(database) {}

FdbcDatabase::~FdbcDatabase() { api_.fdb_database_destroy(database_); }

std::shared_ptr<TransactionBackend> FdbcDatabase::createTransaction() {
  FDBTransaction* transaction = nullptr;
  Client::check(api_.fdb_database_create_transaction(database_, &transaction),
                "fdb_database_create_transaction");
  return std::make_shared<FdbcTransaction>(api_, shared_from_this(), transaction);
}

RoundTrips FdbcDatabase::roundTrips() const {
  auto count = [&](RoundTripKind kind) {
    return trips_[static_cast<size_t>(kind)].load(std::memory_order_relaxed);
  };
  return RoundTrips{count(RoundTripKind::kReadVersion), count(RoundTripKind::kRead),
                    count(RoundTripKind::kRangeRead), count(RoundTripKind::kMappedRangeRead),
                    count(RoundTripKind::kCommit)};
}

void FdbcDatabase::setOption(int code, std::optional<std::string_view> value) {
  static constexpr uint8_t kEmpty[1] = {0};
  const uint8_t* bytes = nullptr;
  if (value) {
    bytes = value->data() != nullptr ? reinterpret_cast<const uint8_t*>(value->data()) : kEmpty;
  }
  if (fdb_error_t error = api_.fdb_database_set_option(database_, code, bytes,
                                                       value ? static_cast<int>(value->size()) : 0);
      error != 0) {
    throw Error(error);
  }
}

std::shared_ptr<DatabaseBackend> openDatabase(std::string_view clusterFile) {
  const Client& client = Client::instance();
  const std::string path(clusterFile);
  FDBDatabase* database = nullptr;
  if (fdb_error_t code =
          client.api().fdb_create_database(path.empty() ? nullptr : path.c_str(), &database);
      code != 0) {
    throw Error(code, fmt::format("cannot open 'fdb:{}': fdb_create_database of {} failed", path,
                                  client.info().path));
  }
  return std::make_shared<FdbcDatabase>(client.api(), database);
}

}  // namespace fdb::fdbc

namespace fdb {

// The fdb: scheme in fdb::Database::open's registry (cmake/Backends.cmake).
void registerFdbcBackend(BackendRegistry& registry) {
  registry.add(BackendScheme{
      .scheme = "fdb",
      .forms = {"fdb:<cluster file>", "fdb:"},
      .open = [](std::string_view clusterFile, const EngineOptions& options) {
        if (options.oneWayDelayMicros != 0 || options.faults.enabled) {
          throw Error(errors::kClientInvalidOperation,
                      fmt::format("cannot open 'fdb:{}': EngineOptions (simulated delay, faults) "
                                  "apply to the embedded engine's memory: addresses only",
                                  clusterFile));
        }
        return fdbc::openDatabase(clusterFile);
      }});
}

}  // namespace fdb
