// How a command opens its database: to read only, or to write too. A command that only reads
// never creates anything: on a directory path that holds no store it fails, saying there is
// no database there, instead of leaving a new, empty store behind (a mistyped --db).
//
//   fdb::Database db = openDatabase(args.db, DatabaseAccess::kReadOnly);
//
// Thread-safety: a pure function, apart from the database it opens.
#pragma once

#include <string_view>

#include "fdb/database.h"

namespace rl::cli {

enum class DatabaseAccess { kReadOnly, kReadWrite };

// Opens `address`. kReadOnly: a durable store must exist already (std::runtime_error
// "no database at ADDRESS: ..." otherwise, and nothing is created). Throws fdb::Error when
// the database cannot be opened.
fdb::Database openDatabase(std::string_view address, DatabaseAccess access);

}  // namespace rl::cli
