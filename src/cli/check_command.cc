// `rl check`: the Record Layer's consistency check (rl::StoreChecker) of one record store,
// read-only (docs/cli.md "Checking a store").
//
//   rl check --db file:/tmp/shop --path '("shop", "orders")' [--json]
//
// Prints what was walked (counts grouped by thousands, "4,000 records", as the other commands
// print them) and every problem, one a line; exits with status 0 when the store
// is clean and 1 when problems were found (as for any error), so scripts can test it.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "printable.h"
#include "rl/store/store_checker.h"
#include "store.h"
#include "table.h"

namespace rl::cli {
namespace {

// A problem's key for people: its tuple when it decodes, else its printable bytes.
std::string shownKey(const CheckProblem& problem) {
  return decodedTuple(problem.key).value_or(problem.printableKey);
}

void printText(const StoreArguments& args, const CheckReport& report) {
  fmt::print("Checked the record store {} in {} in {}: {} ({}), {} expected, {} scanned.\n",
             fdb::formatTuple(storeTuple(args)), args.db,
             plural(report.transactions, "transaction", "transactions"),
             plural(report.recordsChecked, "record", "records"),
             plural(report.recordKeysScanned, "key", "keys"),
             plural(report.indexEntriesExpected, "index entry", "index entries"),
             groupDigits(report.indexEntriesScanned));
  fmt::print("Indexes checked: {}.\n",
             report.indexesChecked.empty()
                 ? "none"
                 : fmt::format("{}", fmt::join(report.indexesChecked, ", ")));
  if (!report.indexesSkipped.empty()) {
    fmt::print("Indexes skipped: {}.\n", fmt::join(report.indexesSkipped, "; "));
  }
  if (report.ok()) {
    fmt::print("No problems.\n");
    return;
  }
  fmt::print("{}{}:\n", plural(static_cast<int64_t>(report.problems.size()), "problem", "problems"),
             report.problemsDropped > 0
                 ? fmt::format(" (and {} more not listed)", groupDigits(report.problemsDropped))
                 : "");
  for (const CheckProblem& problem : report.problems) {
    fmt::print("  {} at {}: {}\n", checkProblemKindName(problem.kind), shownKey(problem),
               problem.message);
  }
}

void printJson(const StoreArguments& args, const CheckReport& report) {
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (const CheckProblem& problem : report.problems) {
    nlohmann::ordered_json row = {{"kind", checkProblemKindName(problem.kind)},
                                  {"key", problem.printableKey}};
    if (std::optional<std::string> tuple = decodedTuple(problem.key)) row["tuple"] = *tuple;
    row["message"] = problem.message;
    problems.push_back(std::move(row));
  }
  nlohmann::ordered_json out = {
      {"store", fdb::formatTuple(storeTuple(args))},
      {"ok", report.ok()},
      {"transactions", report.transactions},
      {"records", report.recordsChecked},
      {"record_keys", report.recordKeysScanned},
      {"index_entries_expected", report.indexEntriesExpected},
      {"index_entries_scanned", report.indexEntriesScanned},
      {"indexes_checked", report.indexesChecked},
      {"indexes_skipped", report.indexesSkipped},
      {"problems", std::move(problems)},
      {"problems_not_listed", report.problemsDropped},
  };
  fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Throws CLI::RuntimeError(1) after printing when the check found problems.
void runCheck(const StoreArguments& args, bool json) {
  const StoreLocation location = storeLocation(args);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  RecordMetaData metaData = loadStoreMetaData(db, args);
  const CheckReport report = StoreChecker(db, location, std::move(metaData)).run();
  if (json) {
    printJson(args, report);
  } else {
    printText(args, report);
  }
  if (!report.ok()) throw CLI::RuntimeError(1);  // the problems are printed; status 1
}

}  // namespace

void addCheckCommand(CLI::App& app) {
  auto args = std::make_shared<StoreArguments>();
  auto json = std::make_shared<bool>(false);
  CLI::App* check = app.add_subcommand(
      "check",
      "Check a record store's consistency (header, records, VALUE indexes against the "
      "records), read-only; exit status 0 when clean, 1 when problems are found");
  addStoreArguments(check, *args);
  check->add_flag("--json", *json, "Print the report as JSON");
  check->callback([args, json] { runCheck(*args, *json); });
}

}  // namespace rl::cli
