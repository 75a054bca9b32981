// `rl index get`: the value of an aggregate index for one group (or rolled up over the groups
// a prefix names), as RecordStore::evaluateAggregateFunction answers it (docs/cli.md, "Reading
// an aggregate").
//
//   rl index get --db file:/tmp/shop --path '("shop", "orders")' 'Order$customer$count' alice
//   3
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/tuple_text.h"
#include "rl/store/record_store.h"
#include "store.h"
#include "tuple_argument.h"

namespace rl::cli {
namespace {

struct GetOptions {
  std::string index;
  std::vector<std::string> group;
  bool json = false;
};

// One group value: an element in the tuple syntax (42, "alice"), or else the word as a string.
fdb::TupleElement groupElement(const std::string& text) {
  try {
    const fdb::Tuple tuple = parseTupleArgument("(" + text + ",)");
    if (tuple.size() == 1) return tuple[0];
  } catch (const std::invalid_argument&) {
  }
  return fdb::TupleElement(text);
}

void runGet(const StoreArguments& args, const GetOptions& options) {
  const StoreLocation location = storeLocation(args);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  const Index& index = storeIndex(metaData, options.index);
  std::vector<std::string> types;
  for (const RecordType* type : metaData.recordTypesForIndex(index)) types.push_back(type->name());
  const KeyExpression& root = index.rootExpression();
  const size_t groupColumns =
      root.kind() == KeyExpression::Kind::kGrouping ? static_cast<size_t>(root.groupingCount()) : 0;
  if (options.group.size() > groupColumns) {
    throw std::invalid_argument(
        fmt::format("index {} has {} group column{} ({}); {} value{} given", index.name(),
                    groupColumns, groupColumns == 1 ? "" : "s", root.toString(),
                    options.group.size(), options.group.size() == 1 ? "" : "s"));
  }
  fdb::Tuple group;
  for (const std::string& value : options.group) group.append(groupElement(value));
  // The index's own type as the function, over its own key: only indexes like it answer.
  const IndexAggregateFunction function{index.type(), index.rootExpression()};
  const fdb::Tuple value = runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::openExisting(context, location, metaData);
    return store.evaluateAggregateFunction(types, function, group, IsolationLevel::kSnapshot);
  });
  const std::string shown = value.size() == 1 && value[0].type() == fdb::TupleType::kInteger
                                ? std::to_string(value.getInt(0))
                                : fdb::formatTuple(value);
  if (options.json) {
    nlohmann::ordered_json out = {{"index", index.name()},
                                  {"type", index.type()},
                                  {"group", fdb::formatTuple(group)},
                                  {"value", shown}};
    if (value.size() == 1 && value[0].type() == fdb::TupleType::kInteger) {
      out["value"] = value.getInt(0);
    }
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("{}\n", shown);
  }
}

}  // namespace

void addIndexGetCommand(CLI::App& index) {
  auto args = std::make_shared<StoreArguments>();
  auto options = std::make_shared<GetOptions>();
  CLI::App* get = index.add_subcommand(
      "get",
      "Print an aggregate index's value (count, sum, min_ever, max_ever, ...) for a group: its "
      "group columns' values in order, or fewer of them to roll up every group they start");
  addStoreArguments(get, *args);
  get->add_option("index", options->index, "The index, e.g. Order$customer$count")->required();
  get->add_option("group", options->group,
                  "The group's values, each an element (42, \"alice\") or a word taken as a "
                  "string");
  get->add_flag("--json", options->json,
                "Print {\"index\", \"type\", \"group\", \"value\"} (an integer value as a number)");
  get->callback([args, options] { runGet(*args, *options); });
}

}  // namespace rl::cli
