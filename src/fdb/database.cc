#include "fdb/database.h"

#include <fmt/format.h>

#include "engine/memory_database.h"
#include "fdb/backend.h"

namespace fdb {

Database Database::open(std::string_view address) { return open(address, EngineOptions{}); }

Database Database::open(std::string_view address, const EngineOptions& options) {
  if (address.starts_with("memory:")) {
    return Database(
        engine::openMemoryDatabase(address.substr(std::string_view("memory:").size()), options));
  }
  throw Error(errors::kClientInvalidOperation,
              fmt::format("cannot open '{}': addresses are memory: or memory:<name>", address));
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
