// `rl keys`: every raw key under a record store, as the tuple after the store's prefix and
// what it is in the Record Layer's layout (docs/format.md; FDBRecordStoreKeyspace).
//
//   rl keys --db file:/tmp/shop --path '("shop", "orders")' [--limit N] [--json]
//
// One key a line: "(1, 42, 0)  record (42,)" (with --json, an object a line). Reads in
// transactions of at most 1,000 keys.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "store.h"

namespace rl::cli {
namespace {

constexpr int kKeysBatch = 1000;  // keys a transaction

// Elements [first, last) of `tuple` as a tuple.
fdb::Tuple slice(const fdb::Tuple& tuple, size_t first, size_t last) {
  fdb::Tuple out;
  for (size_t i = first; i < last; ++i) out.append(tuple[i]);
  return out;
}

// What the key `suffix` (after the store's prefix) is. Throws fdb::Error when an element
// is not of the type the layout puts there.
std::string describe(const fdb::Tuple& suffix) {
  if (suffix.empty() || suffix[0].type() != fdb::TupleType::kInteger) return "unknown";
  const int64_t space = suffix.getInt(0);
  auto indexName = [&] { return suffix.size() > 1 ? suffix.getString(1) : std::string("?"); };
  switch (space) {
    case 0: return "header";
    case 1: {
      if (suffix.size() == 2)
        return fmt::format("record {} (no suffix)", fdb::formatTuple(slice(suffix, 1, 2)));
      const std::string pk = fdb::formatTuple(slice(suffix, 1, suffix.size() - 1));
      const int64_t chunk = suffix.getInt(suffix.size() - 1);
      if (chunk == -1) return fmt::format("record {}: version", pk);
      if (chunk == 0) return fmt::format("record {}", pk);
      return fmt::format("record {}: chunk {}", pk, chunk);
    }
    case 2: return fmt::format("index {} entry", indexName());
    case 3: return fmt::format("index {} secondary space", indexName());
    case 4: return "record count";
    case 5: return fmt::format("index {} state", indexName());
    case 6: return fmt::format("index {} built range", indexName());
    case 7: return fmt::format("index {} uniqueness violation", indexName());
    case 8:
      return fmt::format("record {}: version (old format)",
                         fdb::formatTuple(slice(suffix, 1, suffix.size())));
    case 9: return fmt::format("index {} build", indexName());
  }
  return "unknown";
}

// --json: {"key": the whole key, printable; "tuple": the suffix's tuple (absent when it is
// not one); "what": what it is}.
std::string keyJson(std::string_view key, std::string_view suffix) {
  nlohmann::ordered_json out = {{"key", fdb::printable(key)}};
  try {
    const fdb::Tuple tuple = fdb::Tuple::unpack(suffix);
    out["tuple"] = fdb::formatTuple(tuple);
    try {
      out["what"] = describe(tuple);
    } catch (const fdb::Error&) {
      out["what"] = "unknown";
    }
  } catch (const fdb::Error&) {
    out["what"] = "not a tuple";
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string keyLine(std::string_view suffix) {
  try {
    const fdb::Tuple tuple = fdb::Tuple::unpack(suffix);
    std::string what;
    try {
      what = describe(tuple);
    } catch (const fdb::Error&) {
      what = "unknown";
    }
    return fmt::format("{}  {}", fdb::formatTuple(tuple), what);
  } catch (const fdb::Error&) {
    return fmt::format("`{}'  not a tuple", fdb::printable(suffix));
  }
}

void runKeys(const StoreArguments& args, int limit, bool json) {
  if (limit < 0) {
    throw std::invalid_argument(fmt::format("--limit {}: a limit is 0 (every key) or more", limit));
  }
  const fdb::Bytes prefix = storeTuple(args).pack();
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  loadStoreMetaData(db, args);  // a store that does not exist is an error, as elsewhere
  fdb::KeyRange range{prefix, prefix + '\xff'};
  int64_t printed = 0;
  while (true) {
    const int64_t left = limit == 0 ? kKeysBatch : limit - printed;
    const int batch = static_cast<int>(std::min<int64_t>(left, kKeysBatch));
    std::vector<fdb::KeyValue> rows =
        db.run([&](fdb::Transaction& tr) { return tr.getRangeAll(range, batch); });
    for (const fdb::KeyValue& row : rows) {
      const std::string_view suffix = std::string_view(row.key).substr(prefix.size());
      fmt::print("{}\n", json ? keyJson(row.key, suffix) : keyLine(suffix));
    }
    printed += static_cast<int64_t>(rows.size());
    if (static_cast<int>(rows.size()) < batch) return;
    if (limit != 0 && printed >= limit) return;
    range.begin = rows.back().key + '\0';
  }
}

}  // namespace

void addKeysCommand(CLI::App& app) {
  auto args = std::make_shared<StoreArguments>();
  auto limit = std::make_shared<int>(0);
  CLI::App* keys = app.add_subcommand(
      "keys",
      "Print every raw key under a record store, one a line: its tuple after the store's "
      "prefix and what it is (header, record, version, index entry, index state, ...)");
  addStoreArguments(keys, *args);
  keys->add_option("--limit", *limit, "At most this many keys; 0 for every key")
      ->capture_default_str();
  auto json = std::make_shared<bool>(false);
  keys->add_flag("--json", *json,
                 "One JSON object a line: {\"key\" (printable), \"tuple\" (after the prefix), "
                 "\"what\"}");
  keys->callback([args, limit, json] { runKeys(*args, *limit, *json); });
}

}  // namespace rl::cli
