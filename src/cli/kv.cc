#include "kv.h"

#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "printable.h"
#include "tuple_argument.h"

namespace rl::cli {
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

fdb::Database openKvDatabase(const KvOptions& options, DatabaseAccess access) {
  if (options.db.empty()) {
    throw std::invalid_argument(
        "rl kv needs --db ADDRESS (raw keys have no default store): memory:, memory:<name>, "
        "file:<dir>, a directory path, fdb:<cluster file> or fdb:");
  }
  return openDatabase(options.db, access);
}

fdb::Bytes parseKey(const KvOptions& options, const std::string& text) {
  if (options.tuple) return parseTupleArgument(text).pack();
  return parsePrintable(text);
}

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

void checkLimit(int limit) {
  if (limit < 0) {
    throw std::invalid_argument(fmt::format("--limit {}: a limit is 0 (every key) or more", limit));
  }
}

std::string showKey(const KvOptions& options, std::string_view key) {
  if (options.tuple) {
    if (std::optional<std::string> tuple = decodedTuple(key)) return *tuple;
  }
  return fmt::format("`{}'", fdb::printable(key));
}

std::vector<fdb::KeyValue> readRange(fdb::Transaction& tr, const fdb::KeyRange& range, int limit,
                                     bool reverse) {
  return tr.getRangeAll(range, limit == 0 ? 0 : limit + 1, reverse);
}

void printValue(const KvOptions& options, std::string_view key,
                const std::optional<fdb::Bytes>& value) {
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

void printRange(const KvOptions& options, std::vector<fdb::KeyValue> rows, int limit,
                bool keysOnly) {
  const bool more = limit > 0 && rows.size() > static_cast<size_t>(limit);
  if (more) rows.resize(static_cast<size_t>(limit));

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
    std::fflush(stdout);  // the note follows the rows when both go to one place
    fmt::print(stderr, "rl kv: the range has more keys than the {} shown (--limit; 0 for all)\n",
               limit);
  }
}

void printCommitted(const KvOptions& options, int64_t version) {
  if (options.json) {
    printJson({{"committed_version", version}});
  } else {
    fmt::print("Committed ({})\n", version);
  }
}

}  // namespace rl::cli
