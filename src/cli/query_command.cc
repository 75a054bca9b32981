// `rl query` and `rl explain`: records found by a query the planner plans, and the plan
// (docs/cli.md "Queries"; the query text is docs/query.md's "Query text").
//
//   rl query --db file:/tmp/shop --path '("shop", "orders")' --type Order
//            --where 'price >= 10 AND customer = "c-3"' [--sort price] [--reverse]
//            [--skip N] [--limit N] [--fetch adaptive|scan|remote|fallback] [--continuation HEX]
//            [--param NAME=VALUE]... [--json]
//   rl explain (the same arguments) [--verbose]
//
// `rl query` prints one record a line, in transactions of at most 1,000 rows (and 10,000
// records scanned), each resuming from the last one's continuation, as `rl scan` does; with
// --limit, the continuation to resume from when the query stopped before the end. The plan is
// made once, in a transaction of its own, and run in every one after it.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/tuple_text.h"
#include "paged_scan.h"
#include "rl/context/record_context.h"
#include "rl/index/index_fetch_chooser.h"
#include "rl/query/bindings.h"
#include "rl/query/queried_record.h"
#include "rl/query/query_text.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_plan.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "rl/store/record_store_exception.h"
#include "store.h"

namespace rl::cli {
namespace {

// Records a query may read in one transaction before it stops and the next one resumes it:
// a filter that matches little must not hold a transaction past FoundationDB's 5 seconds.
constexpr int kScannedRecordsPerTransaction = 10'000;

struct QueryOptions {
  std::vector<std::string> types;
  std::optional<std::string> where;
  std::optional<std::string> sort;
  std::string fetch = "adaptive";
  std::vector<std::string> params;  // NAME=VALUE
  bool verbose = false;             // rl explain: the planner's trace
};

// The character (UTF-8 code point, from 1) at byte `position` of `text`, as rl tuple counts.
size_t characterAt(std::string_view text, size_t position) {
  const std::string_view before = text.substr(0, std::min(position, text.size()));
  return 1 + static_cast<size_t>(std::count_if(before.begin(), before.end(), [](char c) {
           return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
         }));
}

// A QueryTextException as one line naming the option, the character and, for a comparison at
// fault, its text.
std::invalid_argument textError(std::string_view option, std::string_view text,
                                const QueryTextException& e) {
  const std::string where =
      e.length() == 0 ? "" : fmt::format(" ({})", text.substr(e.position(), e.length()));
  return std::invalid_argument(fmt::format("{} at character {}{}: {}", option,
                                           characterAt(text, e.position()), where, e.what()));
}

void checkTypes(const RecordMetaData& metaData, const std::vector<std::string>& types) {
  for (const std::string& type : types) {
    if (metaData.findRecordType(type) != nullptr) continue;
    std::vector<std::string> names;
    for (const auto& [name, recordType] : metaData.recordTypes()) names.push_back(name);
    throw std::invalid_argument(fmt::format("--type {}: no record type {} (the store's types: {})",
                                            type, type, fmt::join(names, ", ")));
  }
}

RecordQuery makeQuery(const RecordMetaData& metaData, const QueryOptions& options, bool reverse) {
  checkTypes(metaData, options.types);
  RecordQuery query{.recordTypes = options.types};
  if (options.where) {
    try {
      query.filter = parseQueryFilter(*options.where, metaData, options.types);
    } catch (const QueryTextException& e) {
      throw textError("--where", *options.where, e);
    }
  }
  if (options.sort) {
    try {
      query.sort = parseQuerySort(*options.sort);
    } catch (const QueryTextException& e) {
      throw textError("--sort", *options.sort, e);
    }
  }
  if (reverse && !options.sort) {
    throw std::invalid_argument("--reverse reverses the --sort: give one, e.g. --sort price");
  }
  query.sortReverse = reverse;
  return query;
}

// --param NAME=VALUE: one value in the tuple syntax ("c-3", 10), or a list for IN $NAME
// written as a tuple, (1, 2, 3).
Bindings parseParams(const std::vector<std::string>& params) {
  Bindings bindings;
  for (const std::string& param : params) {
    const size_t equals = param.find('=');
    const std::string name = param.substr(0, std::min(equals, param.size()));
    if (equals == std::string::npos || name.empty()) {
      throw std::invalid_argument(fmt::format(
          "--param {}: a parameter is NAME=VALUE, e.g. max=100 or 'statuses=(1, 2)'", param));
    }
    const std::string value = param.substr(equals + 1);
    const size_t first = value.find_first_not_of(" \t");
    const bool list = first != std::string::npos && value[first] == '(';
    fdb::Tuple tuple;
    try {
      tuple = fdb::parseTuple(list ? value : "(" + value + ",)");
    } catch (const fdb::TupleSyntaxError& e) {
      throw std::invalid_argument(
          fmt::format("--param {}: bad value {}: {}", name, value, e.what()));
    }
    if (list) {
      bindings.setList(name, std::vector<fdb::TupleElement>(tuple.begin(), tuple.end()));
    } else {
      bindings.set(name, tuple[0]);
    }
  }
  return bindings;
}

// The parameters `component` compares with, in the order they appear.
void collectParameters(const QueryComponent& component, std::vector<std::string>& names) {
  switch (component.kind()) {
    case QueryComponent::Kind::kField:
    case QueryComponent::Kind::kOneOfThem:
    case QueryComponent::Kind::kVersion:
    case QueryComponent::Kind::kRank:
      if (component.comparison().hasParameter()) {
        names.push_back(component.comparison().parameterName());
      }
      return;
    case QueryComponent::Kind::kAnd:
    case QueryComponent::Kind::kOr:
      for (const QueryComponent& child : component.children()) collectParameters(child, names);
      return;
    case QueryComponent::Kind::kNested:
    case QueryComponent::Kind::kOneOfThemNested:
    case QueryComponent::Kind::kNot: collectParameters(component.child(), names); return;
  }
}

// Every $parameter of the filter has a --param.
void checkBound(const RecordQuery& query, const Bindings& bindings) {
  if (!query.filter) return;
  std::vector<std::string> names;
  collectParameters(*query.filter, names);
  for (const std::string& name : names) {
    if (!bindings.contains(name)) {
      throw std::invalid_argument(
          fmt::format("--where uses ${}: give its value with --param {}=VALUE", name, name));
    }
  }
}

struct Planned {
  RecordQueryPlanPtr plan;
  std::vector<std::string> trace;
  // With --verbose: how each index of the plan fetches its records, and why.
  std::vector<std::string> fetch;
};

// Plans the query in a transaction of its own, with the store's index states. Planning
// errors name the option at fault: the filter was checked when parsed, so an invalid query
// here is the sort's.
Planned plan(fdb::Database& db, const StoreArguments& args, const RecordMetaData& metaData,
             const RecordQuery& query, const QueryOptions& options, int rowLimit = 0) {
  Planned planned;
  RecordQueryPlannerConfiguration configuration;
  configuration.indexFetchMethod = parseFetch(options.fetch);
  if (options.verbose) {
    configuration.trace = [&](const std::string& line) { planned.trace.push_back(line); };
  }
  try {
    planned.plan = runInContext(db, [&](RecordContext& context) {
      planned.trace.clear();
      planned.fetch.clear();
      RecordStore store = RecordStore::openExisting(context, storeLocation(args), metaData);
      RecordQueryPlanPtr plan = store.planQuery(query, configuration);
      if (options.verbose) {
        for (const std::string& index : plan->usedIndexes()) {
          if (configuration.indexFetchMethod != IndexFetchMethod::kAdaptive) {
            planned.fetch.push_back(
                fmt::format("fetch {}: {} (as asked)", index,
                            indexFetchMethodName(configuration.indexFetchMethod)));
            continue;
          }
          ExecuteProperties execute;
          execute.returnedRowLimit = rowLimit;
          const FetchChoice choice =
              store.chooseIndexFetch(index, ScanProperties(execute, query.sortReverse));
          planned.fetch.push_back(fmt::format("fetch {}: ADAPTIVE chooses {} now: {}", index,
                                              indexFetchMethodName(choice.method), choice.reason));
        }
      }
      return plan;
    });
  } catch (const InvalidQueryException& e) {
    if (!options.sort) throw;
    throw std::invalid_argument(fmt::format("--sort {}: {}", *options.sort, e.what()));
  } catch (const UnplannableQueryException& e) {
    throw std::invalid_argument(fmt::format("--sort {}: {}", options.sort.value_or(""), e.what()));
  }
  return planned;
}

void runQuery(const StoreArguments& args, const QueryOptions& options,
              const ScanOptions& scanOptions) {
  const StoreLocation location = storeLocation(args);
  checkScanOptions(scanOptions);
  const Bindings bindings = parseParams(options.params);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  const RecordQuery query = makeQuery(metaData, options, scanOptions.reverse);
  checkBound(query, bindings);
  const RecordQueryPlanPtr queryPlan = plan(db, args, metaData, query, options).plan;
  try {
    // The plan reads in the direction of its sort: only properties.execute is used.
    printPaged(db, location, metaData, scanOptions,
               [&](RecordStore& store, const std::optional<fdb::Bytes>& continuation,
                   const ScanProperties& properties, std::vector<std::string>& rows) {
                 ExecuteProperties execute = properties.execute;
                 execute.scannedRecordsLimit = kScannedRecordsPerTransaction;
                 CursorPtr<QueriedRecord> cursor =
                     store.executeQuery(*queryPlan, bindings, continuation, execute);
                 auto result = cursor->next();
                 for (; result.hasValue(); result = cursor->next()) {
                   const QueriedRecord& row = result.value();
                   if (!scanOptions.json) {
                     rows.push_back(recordToJson(*row.record));
                   } else if (row.indexEntry) {
                     rows.push_back(recordEnvelope(row, row.indexEntry->key()));
                   } else {
                     rows.push_back(recordEnvelope(row));
                   }
                 }
                 return result.continuation();
               });
  } catch (const ScanNonReadableIndexException& e) {
    throw ScanNonReadableIndexException(std::string(e.what()) + "; rl index build builds it");
  }
}

void runExplain(const StoreArguments& args, const QueryOptions& options, bool reverse, bool json,
                int rowLimit) {
  parseParams(options.params);  // checked, though a plan is made without their values
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  const RecordQuery query = makeQuery(metaData, options, reverse);
  const Planned planned = plan(db, args, metaData, query, options, rowLimit);
  if (json) {
    const std::set<std::string> indexes = planned.plan->usedIndexes();
    nlohmann::ordered_json out;
    out["plan"] = planned.plan->explain();
    out["indexes"] = std::vector<std::string>(indexes.begin(), indexes.end());
    out["full_scan"] = planned.plan->hasFullRecordScan();
    if (options.verbose) {
      out["trace"] = planned.trace;
      out["fetch"] = planned.fetch;
    }
    fmt::print("{}\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  fmt::print("{}\n", planned.plan->explain());
  for (const std::string& line : planned.trace) fmt::print("{}\n", line);
  for (const std::string& line : planned.fetch) fmt::print("{}\n", line);
}

// The options `rl query` and `rl explain` share.
void addQueryOptions(CLI::App* command, QueryOptions& options, ScanOptions& scanOptions) {
  command->add_option("--type", options.types,
                      "A record type to query (repeat for several; default: every type)");
  command->add_option("--where", options.where,
                      "The filter, e.g. 'price >= 10 AND customer = \"c-3\"' (docs/query.md, "
                      "\"Query text\"; default: every record)");
  command->add_option("--sort", options.sort,
                      "The order: fields separated by commas, e.g. price or customer,price "
                      "(version() for the record's version); an index must give it");
  command->add_flag("--reverse", scanOptions.reverse, "The --sort descending");
  command
      ->add_option("--fetch", options.fetch,
                   "How index plans fetch records: adaptive (ADAPTIVE: chosen per scan), scan "
                   "(SCAN_AND_FETCH), remote (USE_REMOTE_FETCH) or fallback (remote, else scan)")
      ->capture_default_str();
  command->add_option("--param", options.params,
                      "NAME=VALUE: the value of $NAME in --where, in the tuple syntax (\"c-3\", "
                      "10); a list for IN $NAME as a tuple, (1, 2) (repeat for several)");
}

}  // namespace

void addQueryCommands(CLI::App& app) {
  auto args = std::make_shared<StoreArguments>();
  auto options = std::make_shared<QueryOptions>();
  auto scanOptions = std::make_shared<ScanOptions>();

  CLI::App* query = app.add_subcommand(
      "query",
      "Print the records a query finds, one JSON object a line, through the plan the planner "
      "picks; with --limit, the continuation to resume from on standard error");
  addStoreArguments(query, *args);
  addQueryOptions(query, *options, *scanOptions);
  query->add_option("--skip", scanOptions->skip, "Skip this many records first")
      ->capture_default_str();
  query->add_option("--limit", scanOptions->limit, "At most this many records; 0 for every one")
      ->capture_default_str();
  query->add_option("--continuation", scanOptions->continuation,
                    "Resume where an earlier run of the same query stopped (its hex "
                    "continuation; --skip then skips after it)");
  query->add_flag("--json", scanOptions->json,
                  "Each record as {[\"index_entry\",] \"primary_key\", \"type\", \"version\", "
                  "\"record\"}; with --limit, the continuation as a last line "
                  "{\"continuation\": HEX}");
  query->callback([args, options, scanOptions] { runQuery(*args, *options, *scanOptions); });

  CLI::App* explain = app.add_subcommand(
      "explain", "Print the plan of a query (the arguments of rl query), in one line");
  addStoreArguments(explain, *args);
  auto explainScan = std::make_shared<ScanOptions>();
  addQueryOptions(explain, *options, *explainScan);
  explain->add_flag("--verbose", options->verbose,
                    "Also print every candidate scan the planner considered and why it lost");
  // Accepted so that a query's command line explains as it is; they do not change the plan.
  explain->add_option("--skip", explainScan->skip, "As rl query's (does not change the plan)");
  explain->add_option("--limit", explainScan->limit,
                      "As rl query's (does not change the plan; --verbose costs the fetch for it)");
  explain->add_option("--continuation", explainScan->continuation,
                      "As rl query's (does not change the plan)");
  explain->add_flag("--json", explainScan->json,
                    "Print {\"plan\", \"indexes\", \"full_scan\"} (and \"trace\" with --verbose)");
  explain->callback([args, options, explainScan] {
    runExplain(*args, *options, explainScan->reverse, explainScan->json, explainScan->limit);
  });
}

}  // namespace rl::cli
