#include "fdb/database.h"

#include <fmt/format.h>

#include "engine/engine_address.h"
#include "fdb/backend.h"
#include "fdbc/fdbc_database.h"

namespace fdb {

Database Database::open(std::string_view address) { return open(address, EngineOptions{}); }

Database Database::open(std::string_view address, const EngineOptions& options) {
  if (address.starts_with("fdb:")) {
    if (options.oneWayDelayMicros != 0 || options.faults.enabled) {
      throw Error(errors::kClientInvalidOperation,
                  fmt::format("cannot open '{}': EngineOptions (simulated delay, faults) apply to "
                              "the embedded engine's memory: addresses only",
                              address));
    }
    return Database(fdbc::openDatabase(address.substr(std::string_view("fdb:").size())));
  }
  if (auto engine = engine::openEngineDatabase(address, options))
    return Database(std::move(engine));
  throw Error(errors::kClientInvalidOperation,
              fmt::format("cannot open '{}': addresses are memory:, memory:<name>, file:<dir>, "
                          "a directory path, fdb:<cluster file> or fdb:",
                          address));
}

Database::Database(std::shared_ptr<DatabaseBackend> backend) : backend_(std::move(backend)) {}

Transaction Database::createTransaction() { return Transaction(backend_->createTransaction()); }

RoundTrips Database::roundTrips() const { return backend_->roundTrips(); }

void Database::setOption(DatabaseOption option) {
  backend_->setOption(static_cast<int>(option), std::nullopt);
}
void Database::setOption(DatabaseOption option, int64_t value) {
  backend_->setOption(static_cast<int>(option), encodeOptionInt(value));
}
void Database::setOption(DatabaseOption option, std::string_view value) {
  backend_->setOption(static_cast<int>(option), value);
}

}  // namespace fdb
