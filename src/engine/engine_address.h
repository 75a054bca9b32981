// The embedded engine's addresses (include/fdb/database.h has the grammar): memory:,
// memory:<name>, file:<dir> and a bare directory path. The engine registers them with
// fdb::Database::open's registry (src/fdb/backend_registry.h); the C library (src/capi/),
// which serves the engine alone, opens them here.
#pragma once

#include <memory>
#include <string_view>

#include "engine/memory_database.h"
#include "fdb/database.h"

namespace fdb::engine {

// The database at `address`, or nullptr when `address` is not one of the engine's (fdb:,
// a mistyped scheme). Throws what opening a durable store throws.
std::shared_ptr<MemoryDatabase> openEngineDatabase(std::string_view address,
                                                   const EngineOptions& options);

}  // namespace fdb::engine
