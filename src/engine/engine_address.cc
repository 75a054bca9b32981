#include "engine/engine_address.h"

#include "engine/durable/durable_database.h"
#include "fdb/backend_registry.h"

namespace fdb {

// The engine's schemes in fdb::Database::open's registry (cmake/Backends.cmake).
void registerEngineBackends(BackendRegistry& registry) {
  registry.add(BackendScheme{.scheme = "memory",
                             .forms = {"memory:", "memory:<name>"},
                             .open = [](std::string_view name, const EngineOptions& options) {
                               return std::shared_ptr<DatabaseBackend>(engine::openEngineDatabase(
                                   "memory:" + std::string(name), options));
                             }});
  registry.add(BackendScheme{.scheme = "file",
                             .forms = {"file:<dir>", "a directory path"},
                             .open =
                                 [](std::string_view directory, const EngineOptions& options) {
                                   return std::shared_ptr<DatabaseBackend>(
                                       engine::openEngineDatabase("file:" + std::string(directory),
                                                                  options));
                                 },
                             .servesBarePaths = true});
}

}  // namespace fdb

namespace fdb::engine {
namespace {

// A bare directory path: it has a '/', and no "scheme:" before the first one ("/var/lib/x",
// "./data", "data/"). A word alone ("memory") is a mistyped address, not a directory.
bool isBarePath(std::string_view address) {
  size_t slash = address.find('/');
  return slash != std::string_view::npos &&
         address.substr(0, slash).find(':') == std::string_view::npos;
}

}  // namespace

std::shared_ptr<MemoryDatabase> openEngineDatabase(std::string_view address,
                                                   const EngineOptions& options) {
  constexpr std::string_view kMemory = "memory:";
  constexpr std::string_view kFile = "file:";
  std::shared_ptr<MemoryDatabase> database;
  if (address.starts_with(kMemory)) {
    database = openMemoryDatabase(address.substr(kMemory.size()), options);
  } else if (address.starts_with(kFile)) {
    database = openDurableDatabase(address.substr(kFile.size()), options);
  } else if (isBarePath(address)) {
    database = openDurableDatabase(address, options);
  } else {
    return nullptr;
  }
  // Opened by its address: the address is its connection string and its location.
  database->settings()->setConnectionRecord(
      ConnectionRecord{std::string(address), std::string(address)});
  return database;
}

}  // namespace fdb::engine
