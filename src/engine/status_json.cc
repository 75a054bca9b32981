#include "engine/status_json.h"

#include <chrono>

#include <fmt/format.h>

namespace fdb::engine {
namespace {

// FoundationDB 7.3's protocol version, as status writes it (the C library's
// fdb_database_get_server_protocol answers the same).
constexpr std::string_view kProtocolVersion = "fdb00b073000000";

// A workload counter: FoundationDB reports a rate and its roughness too, which the engine
// does not measure.
std::string counter(int64_t count) {
  return fmt::format(R"({{"counter":{},"hz":0,"roughness":0}})", count);
}

}  // namespace

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Bytes statusJson(const ConnectionRecord& connection, Engine& engine) {
  const EngineStats stats = engine.stats();
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const char* storageEngine = engine.durableStore() != nullptr ? "ssd-rocksdb-v1" : "memory";
  std::string client = fmt::format(
      R"({{"cluster_file":{{"path":"{}","up_to_date":true}},)"
      R"("coordinators":{{"coordinators":[],"quorum_reachable":true}},)"
      R"("database_status":{{"available":true,"healthy":true}},"messages":[],"timestamp":{}}})",
      jsonEscape(connection.clusterFilePath), now);
  std::string cluster = fmt::format(
      R"({{"cluster_controller_timestamp":{},)"
      R"("configuration":{{"log_replicas":1,"redundancy_mode":"single","storage_engine":"{}",)"
      R"("storage_replicas":1,"tenant_mode":"disabled","usable_regions":1}},)"
      R"("connection_string":"{}",)"
      R"("data":{{"state":{{"description":"","healthy":true,"name":"healthy"}}}},)"
      R"("database_available":true,"database_lock_state":{{"locked":false}},)"
      R"("full_replication":true,"generation":1,"layers":{{"_valid":true}},"machines":{{}},)"
      R"("messages":[],"processes":{{}},"protocol_version":"{}",)"
      R"("recovery_state":{{"active_generations":1,"description":"Recovery complete.",)"
      R"("name":"fully_recovered"}},)"
      R"("workload":{{"operations":{{"reads":{}}},)"
      R"("transactions":{{"committed":{},"conflicted":{}}}}}}})",
      now, storageEngine, jsonEscape(connection.connectionString), kProtocolVersion,
      counter(stats.readOperations), counter(stats.commits), counter(stats.conflicts));
  return fmt::format(R"({{"client":{},"cluster":{}}})", client, cluster);
}

}  // namespace fdb::engine
