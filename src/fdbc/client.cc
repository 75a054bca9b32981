#include "fdbc/client.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fdb/error.h"

namespace fdb::fdbc {
namespace {

constexpr std::string_view kSystemLibrary = "libfdb_c.so";
constexpr std::string_view kEmbeddedMarker = "recordlayer";
constexpr std::string_view kInstallHint =
    "Install FoundationDB's client package (7.3 or newer; it provides libfdb_c.so), or name a "
    "libfdb_c with RL_FDB_C_LIBRARY=<path> or fdb::fdbc::setLibraryPath()";

// What the process asked for, and what it got. Never destroyed: the exit handler reads it.
struct LoaderState {
  std::mutex mutex;
  std::string path;                      // setLibraryPath; empty: not set
  bool allowEmbedded = false;            // allowEmbeddedLibrary
  std::atomic<Client*> client{nullptr};  // written once, under the mutex
  // A failure after the library's one-shot setup began: every later attempt reports it.
  std::optional<Error> permanentFailure;
};

LoaderState& loaderState() {
  static LoaderState* state = new LoaderState;
  return *state;
}

bool environmentFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

// The file the dynamic loader opened for `handle` (it searched the library path for a bare
// name); `requested` if the loader does not say.
std::string resolvedPath(void* handle, const std::string& requested) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return requested;
}

}  // namespace

// Loads the library under the state's lock.
class ClientLoader {
 public:
  static Client* load(LoaderState& state) {
    ClientLibraryInfo info;
    if (!state.path.empty()) {
      info.requestedPath = state.path;
      info.source = "fdb::fdbc::setLibraryPath";
    } else if (const char* env = std::getenv("RL_FDB_C_LIBRARY"); env != nullptr && *env != 0) {
      info.requestedPath = env;
      info.source = "RL_FDB_C_LIBRARY";
    } else {
      info.requestedPath = kSystemLibrary;
      info.source = "the system library path (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib)";
    }
    const bool allowEmbedded = state.allowEmbedded || environmentFlag("RL_FDB_C_ALLOW_EMBEDDED");

    dlerror();
    void* handle = dlopen(info.requestedPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      throw Error(
          errors::kClientInvalidOperation,
          fmt::format("cannot open libfdb_c: dlopen(\"{}\") (from {}) failed: {}. {}",
                      info.requestedPath, info.source, why ? why : "unknown error", kInstallHint));
    }
    info.path = resolvedPath(handle, info.requestedPath);
    // Nothing of the library was set up yet: it can be unloaded again.
    auto reject = [&](int code, std::string detail) {
      dlclose(handle);
      throw Error(code, std::move(detail));
    };

    CApi api;
    std::vector<std::string_view> missing;
#define RL_FDBC_RESOLVE(name)                                            \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name)); \
  if (api.name == nullptr) missing.push_back(#name);
#define RL_FDBC_RESOLVE_INT_CODE(name, ...) RL_FDBC_RESOLVE(name)
    RL_FDBC_FUNCTIONS(RL_FDBC_RESOLVE)
    RL_FDBC_INT_CODE_FUNCTIONS(RL_FDBC_RESOLVE_INT_CODE)
#undef RL_FDBC_RESOLVE_INT_CODE
#undef RL_FDBC_RESOLVE
    if (!missing.empty()) {
      reject(errors::kClientInvalidOperation,
             fmt::format("cannot open libfdb_c: {} (from {}) is not a usable libfdb_c: it lacks "
                         "{}. {}",
                         info.path, info.source, fmt::join(missing, ", "), kInstallHint));
    }

    const char* version = api.fdb_get_client_version();
    info.clientVersion = version != nullptr ? version : "";
    info.maxApiVersion = api.fdb_get_max_api_version();
    info.embedded = std::string_view(info.clientVersion).find(kEmbeddedMarker) != std::string::npos;
    if (info.maxApiVersion < kApiVersion) {
      reject(2203,  // api_version_not_supported
             fmt::format("cannot open libfdb_c: {} (from {}, client version {}) supports API "
                         "versions up to {}; this backend needs {}. {}",
                         info.path, info.source, info.clientVersion, info.maxApiVersion,
                         kApiVersion, kInstallHint));
    }
    if (info.embedded && !allowEmbedded) {
      reject(errors::kClientInvalidOperation,
             fmt::format("cannot open libfdb_c: refusing {} (from {}): its client version \"{}\" "
                         "is RecordLayer's embedded engine, not FoundationDB. Point "
                         "RL_FDB_C_LIBRARY (or fdb::fdbc::setLibraryPath) at FoundationDB's "
                         "libfdb_c, or allow the embedded one on purpose with "
                         "RL_FDB_C_ALLOW_EMBEDDED=1 (or fdb::fdbc::allowEmbeddedLibrary(true))",
                         info.path, info.source, info.clientVersion));
    }

    // From here on the library's one-shot process state changes: a failure is final.
    if (fdb_error_t code = api.fdb_select_api_version_impl(kApiVersion, kApiVersion); code != 0) {
      dlclose(handle);  // selecting failed: nothing was set up
      throw Error(code, fmt::format("cannot open libfdb_c: fdb_select_api_version({}) on {} "
                                    "failed{}",
                                    kApiVersion, info.path,
                                    code == 2201 ? " (another part of this process already "
                                                   "initialized this library)"
                                                 : ""));
    }
    if (fdb_error_t code = api.fdb_setup_network(); code != 0) {
      state.permanentFailure = Error(
          code, fmt::format("cannot open libfdb_c: fdb_setup_network on {} failed", info.path));
      throw *state.permanentFailure;
    }
    auto* client = new Client(api, std::move(info));
    client->startNetwork();
    return client;
  }
};

Client::Client(const CApi& api, ClientLibraryInfo info) : api_(api), info_(std::move(info)) {}

const Client& Client::instance() {
  LoaderState& state = loaderState();
  if (Client* client = state.client.load(std::memory_order_acquire)) return *client;
  std::lock_guard lock(state.mutex);
  if (Client* client = state.client.load(std::memory_order_acquire)) return *client;
  if (state.permanentFailure) throw *state.permanentFailure;
  Client* client = ClientLoader::load(state);
  state.client.store(client, std::memory_order_release);
  return *client;
}

void Client::check(fdb_error_t code, std::string_view call) {
  if (code != 0) throw Error(code, fmt::format("{} failed", call));
}

void Client::startNetwork() {
  network_ = std::thread([this] {
    if (fdb_error_t code = api_.fdb_run_network(); code != 0) {
      std::fprintf(stderr, "fdb_run_network failed: %d (%s)\n", code,
                   std::string(errorName(code)).c_str());
    }
  });
  // exit() runs atexit handlers and the destructors of static objects in the reverse order of
  // their registration, so everything static created after this point is destroyed while the
  // network still runs; then this stops the network and waits for its thread, before the
  // library's own static objects (created during its setup, above) go away.
  std::atexit(&Client::stopNetworkAtExit);
}

void Client::stopNetworkAtExit() {
  // Registered only once the client exists (no lock: exit() may run while another thread
  // holds the loader's).
  Client* client = loaderState().client.load(std::memory_order_acquire);
  if (client == nullptr || client->api_.fdb_stop_network() != 0) return;
  if (client->network_.get_id() == std::this_thread::get_id()) {
    client->network_.detach();  // exit() called from a callback: it cannot wait for itself
  } else if (client->network_.joinable()) {
    client->network_.join();
  }
}

// ---- include/fdbc/library.h ---------------------------------------------------------

void setLibraryPath(std::string_view path) {
  LoaderState& state = loaderState();
  std::lock_guard lock(state.mutex);
  const Client* client = state.client.load(std::memory_order_acquire);
  if (client != nullptr && !path.empty() &&
      std::string_view(client->info().requestedPath) != path &&
      std::string_view(client->info().path) != path) {
    throw Error(errors::kClientInvalidOperation,
                fmt::format("cannot use libfdb_c {}: this process already runs {} (a process "
                            "loads one libfdb_c)",
                            path, client->info().path));
  }
  state.path = std::string(path);
}

void allowEmbeddedLibrary(bool allow) {
  LoaderState& state = loaderState();
  std::lock_guard lock(state.mutex);
  state.allowEmbedded = allow;
}

ClientLibraryInfo loadClientLibrary() { return Client::instance().info(); }

std::optional<ClientLibraryInfo> loadedClientLibrary() {
  const Client* client = loaderState().client.load(std::memory_order_acquire);
  if (client == nullptr) return std::nullopt;
  return client->info();
}

}  // namespace fdb::fdbc
