// BackendRegistry — the address schemes fdb::Database::open knows, each registered by the
// backend that serves it (include/fdb/database.h has the address grammar).
//
// A backend folder registers its schemes in a function named in its CMakeLists.txt with
// rl_register_backend(FUNCTION) (cmake/Backends.cmake); the build generates the list of
// those functions (src/fdb/builtin_backends.cc.in), and the registry calls each once, on
// first use. A new scheme is therefore one new folder: Database::open names none of them.
//
//   BackendRegistry::instance().add({.scheme = "mem2", .forms = {"mem2:<name>"},
//                                    .open = [](std::string_view name,
//                                               const EngineOptions& options) { ... }});
//   std::shared_ptr<DatabaseBackend> db = BackendRegistry::instance().open("mem2:x", {});
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fdb/backend.h"
#include "fdb/database.h"

namespace fdb {

struct BackendScheme {
  // The scheme: the backend serves the addresses "<scheme>:<rest>".
  std::string scheme;
  // The forms of its addresses, for error messages ({"memory:", "memory:<name>"}).
  std::vector<std::string> forms;
  // Opens the database at "<scheme>:<rest>" (or at the bare path `rest`, when
  // servesBarePaths). Throws fdb::Error.
  std::function<std::shared_ptr<DatabaseBackend>(std::string_view rest,
                                                 const EngineOptions& options)>
      open;
  // Whether it also serves an address with no scheme that is a directory path (one with a
  // '/' and no ':' before it). At most one registered scheme may.
  bool servesBarePaths = false;
};

class BackendRegistry {
 public:
  // The process's registry, with the built-in backends registered.
  static BackendRegistry& instance();
  // An empty registry (tests build their own).
  BackendRegistry() = default;

  // Throws fdb::Error 2000 (client_invalid_operation) when the scheme is taken, or when a
  // second scheme claims bare paths.
  void add(BackendScheme scheme);

  // The database at `address`, through the backend its scheme names. Throws fdb::Error 2000
  // for an address no backend serves (the message lists the registered forms), and what
  // the backend's open throws.
  std::shared_ptr<DatabaseBackend> open(std::string_view address, const EngineOptions& options);

  // The registered schemes' names, in registration order.
  std::vector<std::string> schemes() const;

 private:
  // REQUIRES: mutex_ held.
  const BackendScheme* findLocked(std::string_view scheme) const;

  mutable std::mutex mutex_;
  std::vector<BackendScheme> schemes_;
};

// Registers the backends built into this library (generated from the rl_register_backend
// calls of the build).
void registerBuiltinBackends(BackendRegistry& registry);

}  // namespace fdb
