// `rl index build`: builds an index that `rl store open` left DISABLED (or WRITE_ONLY) with
// rl::OnlineIndexer, in transactions of at most 500 records and 1 MB of records, then marks it
// READABLE (docs/cli.md "Building an index").
//
//   rl index build --db file:/tmp/shop --path '("shop", "orders")' 'Order$customer' [--json]
//
// Resumable: the progress is in the index's range set, so a build stopped by an error or a
// kill is taken up where it stopped by running the command again.
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/error.h"
#include "fdb/tuple_text.h"
#include "progress.h"
#include "rl/store/online_indexer.h"
#include "rl/store/record_store.h"
#include "store.h"
#include "table.h"

namespace rl::cli {
namespace {

struct BuildOptions {
  std::string index;
  int recordsPerTransaction = 500;
  bool json = false;
};

void runBuild(const StoreArguments& args, const BuildOptions& options) {
  const StoreLocation location = storeLocation(args);
  if (options.recordsPerTransaction < 1) {
    throw std::invalid_argument(
        fmt::format("--records-per-transaction {}: at least 1", options.recordsPerTransaction));
  }
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadWrite);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  storeIndex(metaData, options.index);
  const std::string store = fdb::formatTuple(storeTuple(args));

  OnlineIndexerOptions indexerOptions;
  indexerOptions.recordsPerTransaction = options.recordsPerTransaction;
  std::optional<Progress> progress;
  if (::isatty(STDERR_FILENO) == 1) progress.emplace("building " + options.index, 0);
  IndexBuildReport report;
  try {
    report = OnlineIndexer(db, location, metaData, options.index, indexerOptions)
                 .run([&](const IndexBuildReport& step) {
                   report = step;
                   if (progress) progress->update(step.recordsScanned, "records");
                 });
  } catch (const fdb::Error& e) {
    throw fdb::Error(
        e.code(), fmt::format("{}; {} indexed so far are kept: run rl index build again to go on",
                              e.detail().empty() ? e.description() : e.detail(),
                              plural(report.recordsScanned, "record", "records")));
  }
  if (progress) progress->finish();

  if (options.json) {
    nlohmann::ordered_json out = {
        {"store", store},
        {"index", options.index},
        {"state", indexStateName(report.state)},
        {"already_readable", report.alreadyReadable},
        {"resumed", report.resumed},
        {"transactions", report.transactions},
        {"records_scanned", report.recordsScanned},
        {"records_indexed", report.recordsIndexed},
        {"uniqueness_violations", report.uniquenessViolations},
    };
    fmt::print("{}\n", out.dump(2));
  } else if (report.alreadyReadable) {
    fmt::print("The index {} of the record store {} in {} is {} already: nothing to build.\n",
               options.index, store, args.db, indexStateName(report.state));
  } else if (report.state == IndexState::kReadable) {
    fmt::print(
        "Built the index {} of the record store {} in {}: {} scanned ({} indexed) in {}{}; "
        "it is READABLE.\n",
        options.index, store, args.db, plural(report.recordsScanned, "record", "records"),
        groupDigits(report.recordsIndexed),
        plural(report.transactions, "transaction", "transactions"),
        report.resumed ? ", resuming a build begun before" : "");
  }
  if (report.state != IndexState::kReadable && report.state != IndexState::kReadableUniquePending) {
    throw std::runtime_error(
        fmt::format("unique index {}: {} share a value with another record (recorded as uniqueness "
                    "violations); the index is built but stays {}",
                    options.index, plural(report.uniquenessViolations, "record", "records"),
                    indexStateName(report.state)));
  }
}

}  // namespace

void addIndexBuildCommand(CLI::App& index) {
  auto args = std::make_shared<StoreArguments>();
  auto options = std::make_shared<BuildOptions>();
  CLI::App* build = index.add_subcommand(
      "build",
      "Build an index rl store open left DISABLED (or one WRITE_ONLY) from the store's records, "
      "in transactions of at most --records-per-transaction records and 1 MB, then mark it "
      "READABLE; resumable: run it again after an error");
  addStoreArguments(build, *args);
  build->add_option("index", options->index, "The index, e.g. Order$customer")->required();
  build
      ->add_option("--records-per-transaction", options->recordsPerTransaction,
                   "Records indexed in one transaction")
      ->capture_default_str();
  build->add_flag("--json", options->json, "Print the summary as JSON");
  build->callback([args, options] { runBuild(*args, *options); });
}

}  // namespace rl::cli
