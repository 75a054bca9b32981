// fdb::fdbc — choosing the libfdb_c behind the FoundationDB backend (fdb: addresses).
//
// `fdb::Database::open("fdb:<cluster file>")` (or "fdb:" for the default cluster file) runs
// the client API over a FoundationDB client library, libfdb_c, loaded at run time at API
// version 730, once per process. Which file is loaded, first match wins:
//   1. the path given to setLibraryPath();
//   2. the environment variable RL_FDB_C_LIBRARY;
//   3. "libfdb_c.so" from the system's library path (FoundationDB's client package).
// A library whose fdb_get_client_version() says "recordlayer" (this project's embedded engine
// exported as a libfdb_c) is refused unless allowed, by allowEmbeddedLibrary(true) or
// RL_FDB_C_ALLOW_EMBEDDED=1, so that a run meant for a real cluster cannot silently run on
// the embedded engine. docs/fdbc.md has the details.
//
//   fdb::fdbc::setLibraryPath("/usr/lib/libfdb_c.so");
//   fdb::Database db = fdb::Database::open("fdb:/etc/foundationdb/fdb.cluster");
//   fdb::fdbc::ClientLibraryInfo lib = fdb::fdbc::loadClientLibrary();  // already loaded
//   std::cout << lib.path << ": " << lib.clientVersion << "\n";
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fdb::fdbc {

// What was loaded.
struct ClientLibraryInfo {
  std::string requestedPath;  // as asked for: a path, or "libfdb_c.so" for the system's
  std::string path;           // the file the dynamic loader opened
  std::string source;         // where the choice came from: setLibraryPath, RL_FDB_C_LIBRARY,
                              // or the system library path
  std::string clientVersion;  // fdb_get_client_version(): "<release>,<source>,<protocol>"
  int maxApiVersion = 0;      // fdb_get_max_api_version()
  bool embedded = false;      // the client version names this project's embedded engine
};

// The library to load (an empty path: back to RL_FDB_C_LIBRARY / the system's). Throws
// fdb::Error 2000 (client_invalid_operation) once a different library is loaded: a process
// runs one libfdb_c, whose API version and network are set up once.
void setLibraryPath(std::string_view path);

// Whether this project's own libfdb_c.so may be loaded (RL_FDB_C_ALLOW_EMBEDDED=1 allows it
// too). For tests and benchmarks that run the backend on the embedded engine on purpose.
void allowEmbeddedLibrary(bool allow);

// Loads the library now if it is not loaded yet (selects API 730, starts the network) and
// describes it. Throws fdb::Error naming what was looked for, where, and what to install:
// 2000 (client_invalid_operation) for a library that cannot be opened, lacks a function or
// is refused; 2203 (api_version_not_supported) for one older than API 730.
ClientLibraryInfo loadClientLibrary();

// The library loaded so far, if any (never loads).
std::optional<ClientLibraryInfo> loadedClientLibrary();

}  // namespace fdb::fdbc
