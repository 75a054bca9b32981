#include "version.h"

#include <google/protobuf/stubs/common.h>
#include <rocksdb/version.h>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "fdb/database.h"
#include "rl_version.h"

namespace rl::cli {

std::string versionText() {
  return fmt::format(
      "rl {} (commit {})\n"
      "addresses: {}\n"
      "embedded engine: memory: in memory; file: durable on RocksDB {}.{}.{}\n"
      "FoundationDB backend: fdb:, over a libfdb_c loaded at run time (API 730)\n"
      "C library: lib/recordlayer/libfdb_c.so (FoundationDB's C API over the embedded engine)\n"
      "records: protobuf {}",
      RL_VERSION, RL_COMMIT, fmt::format("{}:", fmt::join(fdb::Database::addressSchemes(), ":, ")),
      ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH,
      google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
}

}  // namespace rl::cli
