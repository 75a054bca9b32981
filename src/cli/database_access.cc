#include "database_access.h"

#include <stdexcept>

#include <fmt/core.h>

#include "fdb/error.h"

namespace rl::cli {

fdb::Database openDatabase(std::string_view address, DatabaseAccess access) {
  fdb::EngineOptions options;
  options.durable.createIfMissing = access == DatabaseAccess::kReadWrite;
  try {
    return fdb::Database::open(address, options);
  } catch (const fdb::Error& e) {
    if (e.code() != fdb::errors::kFileNotFound || access != DatabaseAccess::kReadOnly) throw;
    // The engine says "no database at <dir>: <why>"; the command line names the address
    // as the user typed it.
    std::string_view why = e.detail();
    if (size_t colon = why.rfind(": "); colon != std::string_view::npos) {
      why = why.substr(colon + 2);
    }
    throw std::runtime_error(fmt::format(
        "no database at {} ({}); a command that only reads creates none", address, why));
  }
}

}  // namespace rl::cli
