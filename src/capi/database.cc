// Databases and tenants: opening from a cluster file whose content is an address
// (docs/capi.md), options, transactions, and the database-level queries.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "capi/export.h"
#include "capi/fdb_c_api.h"
#include "capi/future.h"
#include "capi/handles.h"
#include "capi/network.h"
#include "engine/engine_address.h"
#include "fdb/error.h"

using fdb::capi::currentErrorCode;
using fdb::capi::failedFuture;
using fdb::capi::KeyResult;
using fdb::capi::Network;
using fdb::capi::readyFuture;

namespace {

constexpr fdb_error_t kNoClusterFileFound = 1515;
constexpr fdb_error_t kConnectionStringInvalid = 2104;
constexpr fdb_error_t kUnsupportedOperation = 2108;
constexpr fdb_error_t kTenantsDisabled = 2136;
// FoundationDB 7.3's protocol version (docs/capi.md, "Queries answered differently from a
// cluster").
constexpr uint64_t kProtocolVersion = 0x0FDB00B073000000ULL;

// FoundationDB's search order for the default cluster file.
std::string defaultClusterFile() {
  if (const char* path = std::getenv("FDB_CLUSTER_FILE"); path != nullptr && *path != '\0') {
    return path;
  }
  if (std::filesystem::exists("fdb.cluster")) return "fdb.cluster";
  return "/etc/foundationdb/fdb.cluster";
}

// The simulated network of the engine, from the environment (docs/capi.md).
fdb::EngineOptions engineOptionsFromEnvironment() {
  fdb::EngineOptions options;
  if (const char* delay = std::getenv("RECORDLAYER_ONE_WAY_DELAY_US"); delay != nullptr) {
    options.oneWayDelayMicros = std::strtoll(delay, nullptr, 10);
  }
  return options;
}

// Opens the engine database at `address`; `clusterFilePath` is the cluster file that named it
// (empty: the address was given directly), for \xff\xff/cluster_file_path.
fdb_error_t openAddress(std::string address, const std::string& clusterFilePath,
                        FDBDatabase** out) {
  // Surrounding whitespace and a trailing newline are not part of the address.
  size_t first = address.find_first_not_of(" \t\r\n");
  size_t last = address.find_last_not_of(" \t\r\n");
  address = first == std::string::npos ? "" : address.substr(first, last - first + 1);
  // The embedded engine's addresses only: a FoundationDB connection string, or fdb: (which
  // would load a client library from inside one), is not something this library can open.
  if (address.empty() || address.rfind("fdb:", 0) == 0 || address.find('@') != std::string::npos) {
    return kConnectionStringInvalid;
  }
  try {
    std::shared_ptr<fdb::engine::MemoryDatabase> database =
        fdb::engine::openEngineDatabase(address, engineOptionsFromEnvironment());
    if (!database) return kConnectionStringInvalid;
    if (!clusterFilePath.empty()) {
      database->settings()->setConnectionRecord(
          fdb::engine::ConnectionRecord{address, clusterFilePath});
    }
    *out = new FDB_database(std::move(database));
    return 0;
  } catch (const fdb::Error& e) {
    return e.code() == fdb::errors::kClientInvalidOperation ? kConnectionStringInvalid : e.code();
  } catch (...) {
    return currentErrorCode();
  }
}

}  // namespace

RL_C_EXPORT fdb_error_t fdb_create_database(const char* cluster_file_path,
                                            FDBDatabase** out_database) {
  if (!Network::instance().isSetUp()) return 2008;  // network_not_setup
  std::string path = cluster_file_path != nullptr && *cluster_file_path != '\0'
                         ? std::string(cluster_file_path)
                         : defaultClusterFile();
  std::ifstream file(path);
  if (!file) return kNoClusterFileFound;
  std::stringstream content;
  content << file.rdbuf();
  return openAddress(content.str(), path, out_database);
}

RL_C_EXPORT fdb_error_t fdb_create_database_from_connection_string(const char* connection_string,
                                                                   FDBDatabase** out_database) {
  if (!Network::instance().isSetUp()) return 2008;
  return openAddress(connection_string != nullptr ? connection_string : "", "", out_database);
}

RL_C_EXPORT void fdb_database_destroy(FDBDatabase* d) { delete d; }

RL_C_EXPORT fdb_error_t fdb_database_set_option(FDBDatabase* d, FDBDatabaseOption option,
                                                const uint8_t* value, int value_length) {
  try {
    std::optional<std::string_view> parameter;
    if (value != nullptr) {
      parameter.emplace(reinterpret_cast<const char*>(value), static_cast<size_t>(value_length));
    }
    d->db->setOption(fdb::capi::codeOf(option), parameter);
    return 0;
  } catch (...) {
    return currentErrorCode();
  }
}

RL_C_EXPORT fdb_error_t fdb_database_open_tenant(FDBDatabase* d, uint8_t const* tenant_name,
                                                 int tenant_name_length, FDBTenant** out_tenant) {
  *out_tenant = new FDB_tenant(d->db, fdb::Bytes(reinterpret_cast<const char*>(tenant_name),
                                                 static_cast<size_t>(tenant_name_length)));
  return 0;
}

RL_C_EXPORT fdb_error_t fdb_database_create_transaction(FDBDatabase* d,
                                                        FDBTransaction** out_transaction) {
  try {
    *out_transaction = new FDB_transaction(*d->db);
    return 0;
  } catch (...) {
    return currentErrorCode();
  }
}

RL_C_EXPORT FDBFuture* fdb_database_reboot_worker(FDBDatabase*, uint8_t const*, int, fdb_bool_t,
                                                  int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_force_recovery_with_data_loss(FDBDatabase*, uint8_t const*,
                                                                  int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_create_snapshot(FDBDatabase*, uint8_t const*, int,
                                                    uint8_t const*, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT double fdb_database_get_main_thread_busyness(FDBDatabase*) { return 0.0; }

RL_C_EXPORT FDBFuture* fdb_database_get_server_protocol(FDBDatabase*, uint64_t expected) {
  // With `expected` set, the future waits for the protocol to differ from it; in-process it
  // never changes, so such a future stays pending until cancelled or destroyed.
  if (expected == kProtocolVersion) {
    auto* never = new FDB_future();
    never->makePending();
    return never;
  }
  return readyFuture(kProtocolVersion);
}

RL_C_EXPORT FDBFuture* fdb_database_get_client_status(FDBDatabase*) {
  return readyFuture(KeyResult{
      R"({"Healthy":true,"ClientLibrary":"recordlayer-embedded-engine","Connections":[]})"});
}

// ---- Tenants --------------------------------------------------------------------------

RL_C_EXPORT void fdb_tenant_destroy(FDBTenant* t) { delete t; }

RL_C_EXPORT fdb_error_t fdb_tenant_create_transaction(FDBTenant*,
                                                      FDBTransaction** out_transaction) {
  *out_transaction = nullptr;
  return kTenantsDisabled;
}

RL_C_EXPORT FDBFuture* fdb_tenant_get_id(FDBTenant*) { return failedFuture(kTenantsDisabled); }
