#include "engine/engine_address.h"

#include "engine/durable/durable_database.h"

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
