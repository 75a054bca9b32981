// What `rl kv`'s one-shot commands (kv_command.cc) and its shell (kv_shell.h) share: keys
// read in printable form or as tuples, ranges, and results printed as fdbcli prints them
// (or as JSON). docs/cli.md describes the formats.
//
//   KvOptions options{.db = "file:/tmp/store", .tuple = true};
//   fdb::Database db = openKvDatabase(options, DatabaseAccess::kReadOnly);
//   const fdb::Bytes key = parseKey(options, R"(("orders", 42))");
//   printValue(options, key, db.run([&](fdb::Transaction& tr) { return tr.get(key).get(); }));
//
// Thread-safety: free functions; printing writes to stdout and stderr.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "database_access.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/types.h"

namespace rl::cli {

constexpr int kDefaultRangeLimit = 25;  // fdbcli's getrange default

struct KvOptions {
  std::string db;      // the address; required
  bool tuple = false;  // keys are tuples, given and shown in the rl tuple syntax
  bool json = false;   // results as JSON
};

// Opens options.db. Throws std::invalid_argument when it is empty (raw keys have no default
// store), fdb::Error when it cannot be opened.
fdb::Database openKvDatabase(const KvOptions& options, DatabaseAccess access);

// A key typed in printable form, or with --tuple a tuple, packed. Throws
// std::invalid_argument for a bad escape or a bad tuple.
fdb::Bytes parseKey(const KvOptions& options, const std::string& text);

// [begin, end) from the arguments. Without END: up to \xff (fdbcli's default), or with --tuple
// every key the tuple prefixes, the tuple's own key included: [pack(BEGIN), pack(BEGIN)+\xff).
// Throws fdb::Error 2005 (inverted_range) when begin is after end.
fdb::KeyRange parseRange(const KvOptions& options, const std::string& beginText,
                         const std::optional<std::string>& endText);

// Throws std::invalid_argument unless limit >= 0 (0: every key).
void checkLimit(int limit);

// A key as fdbcli shows it, `KEY', or with --tuple the tuple it decodes to (bare) when it does.
std::string showKey(const KvOptions& options, std::string_view key);

// The rows of `range`, at most limit + 1 of them (every row for limit 0), so that printRange
// can tell whether the range holds more than it shows.
std::vector<fdb::KeyValue> readRange(fdb::Transaction& tr, const fdb::KeyRange& range, int limit,
                                     bool reverse);

// `KEY' is `VALUE' or `KEY': not found.
void printValue(const KvOptions& options, std::string_view key,
                const std::optional<fdb::Bytes>& value);

// `KEY' is `VALUE' a row (`KEY' with keysOnly), at most `limit` of them; a line on stderr
// when readRange found more.
void printRange(const KvOptions& options, std::vector<fdb::KeyValue> rows, int limit,
                bool keysOnly);

// Committed (VERSION).
void printCommitted(const KvOptions& options, int64_t version);

// {"key": printable} with, under --tuple, "tuple" when the key decodes; and JSON printed as
// every --json output is (indented by 2).
nlohmann::json jsonKey(const KvOptions& options, std::string_view key);
void printJson(const nlohmann::json& json);

// The retry loop of fdb::Database::run, returning the committed version (fdbcli prints it).
template <typename F>
int64_t commitWithRetry(fdb::Database& db, F&& write) {
  fdb::Transaction tr = db.createTransaction();
  while (true) {
    try {
      write(tr);
      tr.commit().get();
      return tr.getCommittedVersion();
    } catch (const fdb::Error& e) {
      tr.onError(e).get();
    }
  }
}

}  // namespace rl::cli
