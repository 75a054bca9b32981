#include "test_database.h"

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>

#include "fdb/error.h"
#include "fdbc/library.h"

namespace rl::tests {
namespace {

constexpr std::string_view kMemory = "memory:";

// Says once which libfdb_c an fdb: address runs on (docs/fdbc.md).
void reportClientLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::optional<fdb::fdbc::ClientLibraryInfo> lib = fdb::fdbc::loadedClientLibrary()) {
      std::cout << "[ fdb:     ] libfdb_c " << lib->path << " (from " << lib->source
                << "), client version " << lib->clientVersion << std::endl;
    }
  });
}

fdb::Database openAddress(const std::string& address) {
  fdb::Database db = fdb::Database::open(address);
  if (address.starts_with("fdb:")) reportClientLibrary();
  return db;
}

void clearNormalKeys(fdb::Database& db) {
  db.run([](fdb::Transaction& tr) { tr.clearRange("", "\xff"); });
}

}  // namespace

const std::string& testDatabaseAddress() {
  static const std::string address = [] {
    const char* value = std::getenv("RL_TEST_DATABASE");
    return value == nullptr || *value == '\0' ? std::string(kMemory) : std::string(value);
  }();
  return address;
}

bool onEmbeddedEngine() { return testDatabaseAddress().starts_with(kMemory); }

fdb::Database openTestDatabase() {
  const std::string& address = testDatabaseAddress();
  fdb::Database db = openAddress(address);
  // Only a bare "memory:" is a fresh private database; any other may hold earlier tests' keys.
  if (address != kMemory) clearNormalKeys(db);
  return db;
}

fdb::Database openTestDatabase(const fdb::EngineOptions& options) {
  if (!onEmbeddedEngine()) {
    throw fdb::Error(
        fdb::errors::kClientInvalidOperation,
        "engine options need the embedded engine; the tests run on " + testDatabaseAddress());
  }
  return fdb::Database::open(kMemory, options);
}

std::pair<fdb::Database, fdb::Database> openTwoHandles(const std::string& name) {
  if (onEmbeddedEngine()) {
    const std::string address = std::string(kMemory) + name;
    fdb::Database first = fdb::Database::open(address);
    clearNormalKeys(first);
    return {first, fdb::Database::open(address)};
  }
  fdb::Database first = openTestDatabase();
  return {first, openAddress(testDatabaseAddress())};
}

}  // namespace rl::tests
