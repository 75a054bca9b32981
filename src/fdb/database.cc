#include "fdb/database.h"

#include "fdb/backend.h"
#include "fdb/backend_registry.h"

namespace fdb {

Database Database::open(std::string_view address) { return open(address, EngineOptions{}); }

Database Database::open(std::string_view address, const EngineOptions& options) {
  return Database(BackendRegistry::instance().open(address, options));
}

std::vector<std::string> Database::addressSchemes() {
  return BackendRegistry::instance().schemes();
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
