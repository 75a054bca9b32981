#include "engine/memory_database.h"

#include <map>
#include <mutex>
#include <string>

#include "engine/engine_transaction.h"
#include "fdb/detail/thread_block_cache.h"

namespace fdb::engine {

std::shared_ptr<TransactionBackend> MemoryDatabase::createTransaction() {
  // From this thread's cache of transaction blocks: once one was freed, creating a
  // transaction allocates nothing.
  return std::allocate_shared<EngineTransaction>(
      fdb::detail::ThreadCachedAllocator<EngineTransaction>(), engine_, settings_);
}

void MemoryDatabase::setOption(int code, std::optional<std::string_view> value) {
  settings_->setOption(code, value);
}

std::shared_ptr<MemoryDatabase> openMemoryDatabase(std::string_view name,
                                                   const EngineOptions& options) {
  auto newEngine = [&] {
    return std::make_shared<Engine>(std::make_shared<SteadyVersionClock>(), options);
  };
  if (name.empty()) return std::make_shared<MemoryDatabase>(newEngine());
  static std::mutex registryMutex;
  static std::map<std::string, std::weak_ptr<Engine>, std::less<>> registry;
  std::lock_guard lock(registryMutex);
  std::shared_ptr<Engine> engine;
  auto it = registry.find(name);
  if (it != registry.end()) engine = it->second.lock();
  if (!engine) {
    engine = newEngine();
    registry.insert_or_assign(std::string(name), engine);
  }
  return std::make_shared<MemoryDatabase>(engine);
}

}  // namespace fdb::engine
