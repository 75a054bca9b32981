#include "conformance/backends.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "fdbc/library.h"

namespace conformance {
namespace {

constexpr std::string_view kMemory = "memory:";

std::string trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// Says once which libfdb_c the fdb: addresses run on (docs/fdbc.md).
void reportClientLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::optional<fdb::fdbc::ClientLibraryInfo> lib = fdb::fdbc::loadedClientLibrary()) {
      std::cout << "[ fdb:     ] libfdb_c " << lib->path << " (from " << lib->source
                << "), client version " << lib->clientVersion << std::endl;
    }
  });
}

}  // namespace

std::vector<std::string> backendAddresses() {
  std::vector<std::string> addresses{std::string(kMemory)};
  const char* extra = std::getenv("RL_CONFORMANCE_ADDRESSES");
  if (extra == nullptr) return addresses;
  std::string_view rest(extra);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string address = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (address.empty()) continue;
    if (std::find(addresses.begin(), addresses.end(), address) != addresses.end()) continue;
    addresses.push_back(std::move(address));
  }
  return addresses;
}

std::string backendName(const testing::TestParamInfo<std::string>& info) {
  if (info.param == kMemory) return "memory";
  std::string name;
  for (char c : info.param) {
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  }
  return name + "_" + std::to_string(info.index);
}

fdb::Database openEmptyDatabase(const std::string& address) {
  // A durable store syncs every commit unless told otherwise; the suite runs it relaxed
  // (RL_CONFORMANCE_RELAXED_SYNC=1): thousands of synced commits would take minutes.
  fdb::EngineOptions options;
  if (const char* relaxed = std::getenv("RL_CONFORMANCE_RELAXED_SYNC");
      relaxed != nullptr && std::string_view(relaxed) == "1") {
    options.durable.sync = fdb::EngineOptions::Durable::Sync::kRelaxed;
  }
  fdb::Database db = address.starts_with("fdb:") ? fdb::Database::open(address)
                                                 : fdb::Database::open(address, options);
  if (address.starts_with("fdb:")) reportClientLibrary();
  // Only a bare "memory:" is a fresh private database; named memory databases, durable stores
  // and real clusters may hold data from earlier tests.
  if (address != kMemory) {
    db.run([](fdb::Transaction& tr) { tr.clearRange("", "\xff"); });
  }
  return db;
}

}  // namespace conformance
