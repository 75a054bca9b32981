#include "engine/durable/durable_database.h"

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/memory_database.h"
#include "fdb/durable.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

// The stores this process has open, by canonical path. An entry whose engine has expired is
// being closed: its RocksDB lock is still held until the entry goes.
struct Registry {
  std::mutex mutex;
  std::condition_variable closed;
  std::map<std::string, std::weak_ptr<Engine>, std::less<>> stores;
};

Registry& registry() {
  static Registry* instance = new Registry();  // never destroyed: engines may outlive main
  return *instance;
}

// Runs at exit before RocksDB's singletons are destroyed (registered after a store opened,
// so after they were made): quiesces every store still open, then lets later destructors
// skip RocksDB (DurableStore::markProcessExiting).
void quiesceOpenStoresAtExit() {
  std::vector<std::shared_ptr<Engine>> open;
  {
    Registry& stores = registry();
    std::lock_guard lock(stores.mutex);
    for (auto& [path, weak] : stores.stores) {
      if (std::shared_ptr<Engine> engine = weak.lock()) open.push_back(std::move(engine));
    }
  }
  for (const std::shared_ptr<Engine>& engine : open) engine->quiesceForExit();
  DurableStore::markProcessExiting();
  // An engine only this handler still held is destroyed here, skipping RocksDB.
}

}  // namespace

std::shared_ptr<Engine> openDurableEngine(std::string_view directory, const EngineOptions& options,
                                          std::shared_ptr<VersionClock> clock) {
  if (directory.empty()) {
    throw Error(errors::kClientInvalidOperation, "a durable store needs a directory (file:<dir>)");
  }
  std::error_code error;
  std::filesystem::path path = std::filesystem::weakly_canonical(
      std::filesystem::absolute(std::filesystem::path(directory)), error);
  if (error) path = std::filesystem::path(directory);
  std::string key = path.string();

  Registry& stores = registry();
  std::unique_lock lock(stores.mutex);
  while (true) {
    auto it = stores.stores.find(key);
    if (it == stores.stores.end()) break;
    if (std::shared_ptr<Engine> engine = it->second.lock()) return engine;
    stores.closed.wait(lock);  // being closed: wait until it is
  }
  if (!options.durable.createIfMissing && !DurableStore::existsIn(key)) {
    throw Error(errors::kFileNotFound,
                fmt::format("no database at {}: {}", directory,
                            std::filesystem::exists(path, error) ? "the directory holds no store"
                                                                 : "no such directory"));
  }
  // RocksDB creates the store's directory, not its parents.
  std::filesystem::create_directories(path, error);
  if (error) {
    throw Error(errors::kIoError,
                fmt::format("store {}: cannot create the directory: {}", key, error.message()));
  }
  std::shared_ptr<DurableStore> disk = DurableStore::open(key, options.durable);
  static const bool exitHandlerRegistered = std::atexit(quiesceOpenStoresAtExit) == 0;
  (void)exitHandlerRegistered;
  auto* engine = new Engine(std::move(clock), options, std::move(disk));
  std::shared_ptr<Engine> shared(engine, [key](Engine* closing) {
    delete closing;  // folds and closes the store
    Registry& stores = registry();
    {
      std::lock_guard lock(stores.mutex);
      stores.stores.erase(key);
    }
    stores.closed.notify_all();
  });
  stores.stores.emplace(key, shared);
  return shared;
}

std::shared_ptr<MemoryDatabase> openDurableDatabase(std::string_view directory,
                                                    const EngineOptions& options) {
  // The in-memory database's handle is the engine's handle: the engine is what differs.
  return std::make_shared<MemoryDatabase>(openDurableEngine(directory, options));
}

}  // namespace fdb::engine

namespace fdb {
namespace {

engine::DurableStore& durableStoreOf(const Database& db) {
  auto* handle = dynamic_cast<engine::MemoryDatabase*>(db.backend().get());
  engine::DurableStore* store = handle != nullptr ? handle->engine()->durableStore() : nullptr;
  if (store == nullptr) {
    throw Error(errors::kClientInvalidOperation, "not a durable store (file:<dir>)");
  }
  return *store;
}

}  // namespace

void verifyDurableStore(std::string_view directory) {
  std::shared_ptr<engine::Engine> engine = engine::openDurableEngine(directory, EngineOptions{});
  engine->durableStore()->verify();
}

int64_t checkpointDurableStore(const Database& db, std::string_view directory) {
  std::filesystem::path target = std::filesystem::absolute(std::filesystem::path(directory));
  return durableStoreOf(db).checkpoint(target.string());
}

void restoreDurableStore(std::string_view checkpoint, std::string_view directory) {
  std::filesystem::path target(directory);
  std::error_code error;
  if (std::filesystem::exists(target) && !std::filesystem::is_empty(target)) {
    throw Error(errors::kClientInvalidOperation,
                fmt::format("cannot restore into {}: it is not empty", target.string()));
  }
  if (!std::filesystem::exists(std::filesystem::path(checkpoint) / "CURRENT")) {
    throw Error(errors::kClientInvalidOperation,
                fmt::format("cannot restore from {}: not a checkpoint of a store", checkpoint));
  }
  std::filesystem::create_directories(target, error);
  if (!error) {
    std::filesystem::copy(std::filesystem::path(checkpoint), target,
                          std::filesystem::copy_options::recursive, error);
  }
  if (error) {
    throw Error(errors::kIoError, fmt::format("restoring {} into {}: {}", checkpoint,
                                              target.string(), error.message()));
  }
}

DurableStoreStats durableStoreStats(const Database& db) {
  engine::DurableStore& store = durableStoreOf(db);
  return DurableStoreStats{store.walSyncs(), store.loggedCommits(), store.baseVersion()};
}

}  // namespace fdb
