// `rl kv`: fdbcli's commands for raw keys, one a run (docs/cli.md):
//   rl kv --db ADDRESS get KEY | set KEY VALUE | clear KEY | clearrange BEGIN END
//                      | getrange BEGIN [END] | getrangekeys BEGIN [END]
// Keys and values are read and printed in FoundationDB's printable form (`\xNN`); with
// --tuple, keys are tuples in the text syntax of docs/tuple.md. Each command is one
// transaction, run in the retry loop. Every argument is parsed and checked before the store is
// opened, so a bad one changes nothing. With no command, `rl kv --db ADDRESS` is a shell
// (kv_shell.h) reading commands from standard input.
#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "commands.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "kv.h"
#include "kv_shell.h"
#include "printable.h"

namespace rl::cli {
namespace {

struct RangeOptions {
  std::string begin;
  std::optional<std::string> end;
  int limit = kDefaultRangeLimit;
  bool reverse = false;
};

void runGet(const KvOptions& options, const std::string& keyText) {
  const fdb::Bytes key = parseKey(options, keyText);
  fdb::Database db = openKvDatabase(options, DatabaseAccess::kReadOnly);
  printValue(options, key, db.run([&](fdb::Transaction& tr) { return tr.get(key).get(); }));
}

void runSet(const KvOptions& options, const std::string& keyText, const std::string& valueText) {
  const fdb::Bytes key = parseKey(options, keyText);
  const fdb::Bytes value = parsePrintable(valueText);
  fdb::Database db = openKvDatabase(options, DatabaseAccess::kReadWrite);
  printCommitted(options, commitWithRetry(db, [&](fdb::Transaction& tr) { tr.set(key, value); }));
}

void runClear(const KvOptions& options, const std::string& keyText) {
  const fdb::Bytes key = parseKey(options, keyText);
  fdb::Database db = openKvDatabase(options, DatabaseAccess::kReadWrite);
  printCommitted(options, commitWithRetry(db, [&](fdb::Transaction& tr) { tr.clear(key); }));
}

void runClearRange(const KvOptions& options, const std::string& beginText,
                   const std::string& endText) {
  const fdb::KeyRange range = parseRange(options, beginText, endText);
  fdb::Database db = openKvDatabase(options, DatabaseAccess::kReadWrite);
  printCommitted(options, commitWithRetry(db, [&](fdb::Transaction& tr) { tr.clearRange(range); }));
}

void runGetRange(const KvOptions& options, const RangeOptions& rangeOptions, bool keysOnly) {
  checkLimit(rangeOptions.limit);
  const fdb::KeyRange range = parseRange(options, rangeOptions.begin, rangeOptions.end);
  fdb::Database db = openKvDatabase(options, DatabaseAccess::kReadOnly);
  std::vector<fdb::KeyValue> rows = db.run([&](fdb::Transaction& tr) {
    return readRange(tr, range, rangeOptions.limit, rangeOptions.reverse);
  });
  printRange(options, std::move(rows), rangeOptions.limit, keysOnly);
}

// `rl kv --db ADDRESS` with no command: the shell, on standard input.
void runShell(const KvOptions& options) {
  KvShell shell(options, openKvDatabase(options, DatabaseAccess::kReadWrite));
  if (!shell.run(std::cin, isatty(STDIN_FILENO) != 0)) {
    throw CLI::RuntimeError(1);  // the errors are printed; exit with status 1
  }
}

void addRangeArguments(CLI::App* command, RangeOptions& range) {
  command->add_option("begin", range.begin, "The first key of the range")->required();
  command->add_option("end", range.end,
                      "The key after the range (default: \\xff, or with --tuple every key the "
                      "BEGIN tuple prefixes, its own included)");
  command->add_option("--limit", range.limit, "At most this many keys; 0 for every key")
      ->capture_default_str();
  command->add_flag("--reverse", range.reverse, "From the end of the range: the last keys first");
}

}  // namespace

void addKvCommand(CLI::App& app) {
  CLI::App* kv = app.add_subcommand(
      "kv",
      "fdbcli's commands for raw keys: get, set, clear, clearrange, getrange, getrangekeys; "
      "with no command, a shell reading them from standard input (begin, commit, rollback, "
      "option, watch, unwatch, watches, wait, status, help)");
  kv->require_subcommand(0, 1);  // none: the shell
  kv->fallthrough();             // --db, --tuple and --json may come after the command too
  auto options = std::make_shared<KvOptions>();
  kv->add_option("--db", options->db,
                 "The store (required): memory:, memory:<name>, file:<dir>, a directory path or "
                 "fdb:<cluster file>");
  kv->add_flag("--tuple", options->tuple,
               "Keys are tuples, e.g. '(\"orders\", 42)' (docs/tuple.md), and keys that decode as "
               "tuples are shown as tuples");
  kv->add_flag("--json", options->json, "Print JSON (keys and values in printable form)");
  kv->footer(
      "Keys and values are in FoundationDB's printable form: printable ASCII as is, \\xNN for a "
      "byte, \\\\ for a backslash. Put -- before a key that starts with '-'.");

  kv->callback([kv, options] {
    if (kv->get_subcommands().empty()) runShell(*options);
  });

  auto key = std::make_shared<std::string>();
  auto value = std::make_shared<std::string>();
  auto end = std::make_shared<std::string>();
  auto range = std::make_shared<RangeOptions>();

  CLI::App* get = kv->add_subcommand("get", "Print a key's value: `KEY' is `VALUE'");
  get->add_option("key", *key, "The key")->required();
  get->callback([options, key] { runGet(*options, *key); });

  CLI::App* set = kv->add_subcommand("set", "Set a key to a value");
  set->add_option("key", *key, "The key")->required();
  set->add_option("value", *value, "The value")->required();
  set->callback([options, key, value] { runSet(*options, *key, *value); });

  CLI::App* clear = kv->add_subcommand("clear", "Clear a key");
  clear->add_option("key", *key, "The key")->required();
  clear->callback([options, key] { runClear(*options, *key); });

  CLI::App* clearRange = kv->add_subcommand("clearrange", "Clear every key in [BEGIN, END)");
  clearRange->add_option("begin", *key, "The first key cleared")->required();
  clearRange->add_option("end", *end, "The key after the last one cleared")->required();
  clearRange->callback([options, key, end] { runClearRange(*options, *key, *end); });

  CLI::App* getRange =
      kv->add_subcommand("getrange", "Print the keys and values in [BEGIN, END), 25 by default");
  addRangeArguments(getRange, *range);
  getRange->callback([options, range] { runGetRange(*options, *range, false); });

  CLI::App* getRangeKeys =
      kv->add_subcommand("getrangekeys", "Print the keys in [BEGIN, END), 25 by default");
  addRangeArguments(getRangeKeys, *range);
  getRangeKeys->callback([options, range] { runGetRange(*options, *range, true); });
}

}  // namespace rl::cli
