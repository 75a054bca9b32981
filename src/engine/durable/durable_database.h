// The durable store behind the addresses file:<dir> and <dir> (a bare directory path):
// the engine in durable mode over a DurableStore in that directory (docs/durable.md).
//
//   std::shared_ptr<MemoryDatabase> db = openDurableDatabase("/var/lib/app/store", {});
//
// One process owns a store at a time (another process gets fdb::Error 1529). Within a process,
// opening a store that is already open shares its engine (like memory:<name>), and a store is
// closed when the last handle, transaction or future holding its engine goes.
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <memory>
#include <string_view>

#include "engine/engine.h"
#include "engine/memory_database.h"
#include "engine/version_clock.h"
#include "fdb/backend.h"
#include "fdb/database.h"

namespace fdb::engine {

// The durable engine of the store in `directory`, opened (and recovered) if this process has
// not got it open. `options` and `clock` apply only when it is opened here. Throws
// DurableStore::open's and recovery's fdb::Errors, and 2000 for an empty directory.
std::shared_ptr<Engine> openDurableEngine(
    std::string_view directory, const EngineOptions& options,
    std::shared_ptr<VersionClock> clock = std::make_shared<SteadyVersionClock>());

std::shared_ptr<MemoryDatabase> openDurableDatabase(std::string_view directory,
                                                    const EngineOptions& options);

}  // namespace fdb::engine
