// `rl kv`: fdbcli's commands for raw keys, one a run (docs/cli.md):
//   rl kv --db ADDRESS get KEY | set KEY VALUE | clear KEY | clearrange BEGIN END
//                      | getrange BEGIN [END] | getrangekeys BEGIN [END]
// Keys and values are read and printed in FoundationDB's printable form (`\xNN`); with
// --tuple, keys are tuples in the text syntax of docs/tuple.md. Each command is one
// transaction, run in the retry loop. Every argument is parsed and checked before the store is
// opened, so a bad one changes nothing.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "printable.h"
#include "tuple_argument.h"

namespace rl::cli {
namespace {

constexpr int kDefaultLimit = 25;  // fdbcli's getrange default

struct KvOptions {
  std::string db;
  bool tuple = false;  // keys are tuples, given and shown in the rl tuple syntax
  bool json = false;
};

struct RangeOptions {
  std::string begin;
  std::optional<std::string> end;
  int limit = kDefaultLimit;
  bool reverse = false;
};

fdb::Database openDatabase(const KvOptions& options) {
  if (options.db.empty()) {
    throw std::invalid_argument(
        "rl kv needs --db ADDRESS (raw keys have no default store): memory:, memory:<name>, "
        "file:<dir>, a directory path, fdb:<cluster file> or fdb:");
  }
  return fdb::Database::open(options.db);
}

fdb::Bytes parseKey(const KvOptions& options, const std::string& text) {
  if (options.tuple) return parseTupleArgument(text).pack();
  return parsePrintable(text);
}

// The tuple a key decodes to, in the text syntax, or nothing when it is not a packed tuple.
std::optional<std::string> decodedTuple(std::string_view key) {
  try {
    return fdb::formatTuple(fdb::Tuple::unpack(key));
  } catch (const fdb::Error&) {
    return std::nullopt;
  }
}

// A key as fdbcli shows it, `KEY', or with --tuple the tuple it decodes to (bare) when it does.
std::string showKey(const KvOptions& options, std::string_view key) {
  if (options.tuple) {
    if (std::optional<std::string> tuple = decodedTuple(key)) return *tuple;
  }
  return fmt::format("`{}'", fdb::printable(key));
}

nlohmann::json jsonKey(const KvOptions& options, std::string_view key) {
  nlohmann::json row = {{"key", fdb::printable(key)}};
  if (options.tuple) {
    if (std::optional<std::string> tuple = decodedTuple(key)) row["tuple"] = *tuple;
  }
  return row;
}

void printJson(const nlohmann::json& json) {
  fmt::print("{}\n", json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

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

void printCommitted(const KvOptions& options, int64_t version) {
  if (options.json) {
    printJson({{"committed_version", version}});
  } else {
    fmt::print("Committed ({})\n", version);
  }
}

void runGet(const KvOptions& options, const std::string& keyText) {
  const fdb::Bytes key = parseKey(options, keyText);
  fdb::Database db = openDatabase(options);
  std::optional<fdb::Bytes> value = db.run([&](fdb::Transaction& tr) { return tr.get(key).get(); });
  if (options.json) {
    nlohmann::json row = jsonKey(options, key);
    row["value"] = value ? nlohmann::json(fdb::printable(*value)) : nlohmann::json(nullptr);
    printJson(row);
  } else if (value) {
    fmt::print("{} is `{}'\n", showKey(options, key), fdb::printable(*value));
  } else {
    fmt::print("{}: not found\n", showKey(options, key));
  }
}

void runSet(const KvOptions& options, const std::string& keyText, const std::string& valueText) {
  const fdb::Bytes key = parseKey(options, keyText);
  const fdb::Bytes value = parsePrintable(valueText);
  fdb::Database db = openDatabase(options);
  printCommitted(options, commitWithRetry(db, [&](fdb::Transaction& tr) { tr.set(key, value); }));
}

void runClear(const KvOptions& options, const std::string& keyText) {
  const fdb::Bytes key = parseKey(options, keyText);
  fdb::Database db = openDatabase(options);
  printCommitted(options, commitWithRetry(db, [&](fdb::Transaction& tr) { tr.clear(key); }));
}

// [begin, end) from the arguments. Without END: up to \xff (fdbcli's default), or with --tuple
// every key the tuple prefixes, the tuple's own key included: [pack(BEGIN), pack(BEGIN)+\xff).
fdb::KeyRange parseRange(const KvOptions& options, const std::string& beginText,
                         const std::optional<std::string>& endText) {
  fdb::KeyRange range;
  range.begin = parseKey(options, beginText);
  if (endText) {
    range.end = parseKey(options, *endText);
  } else {
    range.end = options.tuple ? range.begin + '\xff' : fdb::Bytes("\xff");
  }
  if (range.begin > range.end) {
    throw fdb::Error(fdb::errors::kInvertedRange,
                     fmt::format("the range's begin {} is after its end {}",
                                 showKey(options, range.begin), showKey(options, range.end)));
  }
  return range;
}

void runClearRange(const KvOptions& options, const std::string& beginText,
                   const std::string& endText) {
  const fdb::KeyRange range = parseRange(options, beginText, endText);
  fdb::Database db = openDatabase(options);
  printCommitted(options, commitWithRetry(db, [&](fdb::Transaction& tr) { tr.clearRange(range); }));
}

void runGetRange(const KvOptions& options, const RangeOptions& rangeOptions, bool keysOnly) {
  if (rangeOptions.limit < 0) {
    throw std::invalid_argument(
        fmt::format("--limit {}: a limit is 0 (every key) or more", rangeOptions.limit));
  }
  const fdb::KeyRange range = parseRange(options, rangeOptions.begin, rangeOptions.end);
  fdb::Database db = openDatabase(options);
  // One row more than the limit says whether the range holds more.
  const int fetch = rangeOptions.limit == 0 ? 0 : rangeOptions.limit + 1;
  std::vector<fdb::KeyValue> rows = db.run(
      [&](fdb::Transaction& tr) { return tr.getRangeAll(range, fetch, rangeOptions.reverse); });
  const bool more = rangeOptions.limit > 0 && rows.size() > static_cast<size_t>(rangeOptions.limit);
  if (more) rows.resize(static_cast<size_t>(rangeOptions.limit));

  if (options.json) {
    nlohmann::json array = nlohmann::json::array();
    for (const fdb::KeyValue& row : rows) {
      nlohmann::json item = jsonKey(options, row.key);
      if (!keysOnly) item["value"] = fdb::printable(row.value);
      array.push_back(std::move(item));
    }
    printJson(array);
  } else {
    for (const fdb::KeyValue& row : rows) {
      if (keysOnly) {
        fmt::print("{}\n", showKey(options, row.key));
      } else {
        fmt::print("{} is `{}'\n", showKey(options, row.key), fdb::printable(row.value));
      }
    }
  }
  if (more) {
    fmt::print(stderr, "rl kv: the range has more keys than the {} shown (--limit; 0 for all)\n",
               rangeOptions.limit);
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
      "kv", "fdbcli's commands for raw keys: get, set, clear, clearrange, getrange, getrangekeys");
  kv->require_subcommand(1);
  kv->fallthrough();  // --db, --tuple and --json may come after the command too
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
