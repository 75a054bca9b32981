// Client — the process's libfdb_c: loaded with dlopen, its functions resolved, API version
// 730 selected, and its network running on a thread of its own. One per process, created on
// first use and never destroyed (docs/fdbc.md: "The network").
//
//   const Client& client = Client::instance();  // loads on first use; throws fdb::Error
//   FDBDatabase* db = nullptr;
//   client.check(client.api().fdb_create_database(path, &db), "fdb_create_database");
//
// Thread-safety: instance() may be called from any thread; a Client is immutable.
#pragma once

#include <string_view>
#include <thread>

#include "fdbc/c_api.h"
#include "fdbc/library.h"

namespace fdb::fdbc {

class Client {
 public:
  // The loaded client, loading it (include/fdbc/library.h says which file) and starting its
  // network on the first call. Throws fdb::Error when no usable library can be loaded; a
  // later call tries again (unless the library was half set up: then it throws the same).
  static const Client& instance();

  const CApi& api() const { return api_; }
  const ClientLibraryInfo& info() const { return info_; }

  // Throws fdb::Error(code) naming `call` unless code is 0.
  static void check(fdb_error_t code, std::string_view call);

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

 private:
  friend class ClientLoader;
  Client(const CApi& api, ClientLibraryInfo info);
  ~Client() = delete;  // never destroyed: the network cannot be restarted nor the library
                       // unloaded

  // Runs fdb_run_network on a new thread and stops and joins it at exit.
  void startNetwork();
  static void stopNetworkAtExit();

  CApi api_;
  ClientLibraryInfo info_;
  std::thread network_;
};

}  // namespace fdb::fdbc
