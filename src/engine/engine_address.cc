#include "engine/engine_address.h"

#include "engine/durable/durable_database.h"
#include "fdb/backend_registry.h"

namespace fdb {

// The engine's schemes in fdb::Database::open's registry (cmake/Backends.cmake).
void registerEngineBackends(BackendRegistry& registry) {
  registry.add(BackendScheme{.scheme = "memory",
                             .forms = {"memory:", "memory:<name>"},
                             .open = [](std::string_view name, const EngineOptions& options) {
                               return std::shared_ptr<DatabaseBackend>(
                                   engine::openMemoryDatabase(name, options));
                             }});
  registry.add(BackendScheme{.scheme = "file",
                             .forms = {"file:<dir>", "a directory path"},
                             .open =
                                 [](std::string_view directory, const EngineOptions& options) {
                                   return std::shared_ptr<DatabaseBackend>(
                                       engine::openDurableDatabase(directory, options));
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
  if (address.starts_with(kMemory))
    return openMemoryDatabase(address.substr(kMemory.size()), options);
  if (address.starts_with(kFile)) return openDurableDatabase(address.substr(kFile.size()), options);
  if (isBarePath(address)) return openDurableDatabase(address, options);
  return nullptr;
}

}  // namespace fdb::engine
