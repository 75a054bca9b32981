// `rl get`, `rl delete` and `rl scan`: records of a record store as JSON (docs/cli.md "Record
// stores").
//
//   rl get --db file:/tmp/shop --path '("shop", "orders")' 42
//   rl delete --db file:/tmp/shop --path '("shop", "orders")' 42
//   rl scan --db file:/tmp/shop --path '("shop", "orders")' --limit 100 [--reverse]
//           [--continuation HEX]
//
// With --json, each record comes with its primary key, type and version (and an index scan's
// entry), and a --limit continuation is a last line on standard output.
//
// A scan prints one record a line (NDJSON). It runs in transactions of at most 1,000 records,
// each resuming from the last one's continuation, so a scan of any size stays inside
// FoundationDB's five seconds. With --limit, when the scan stopped before the end, the
// continuation to resume from is printed on standard error: "continuation: HEX".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "fdb/tuple_text.h"
#include "paged_scan.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_fetch_method.h"
#include "rl/metadata/index.h"
#include "rl/store/record_store.h"
#include "rl/store/record_store_exception.h"
#include "store.h"
#include "tuple_argument.h"

namespace rl::cli {
namespace {

constexpr int kScanBatch = 1000;  // records a transaction

// A tuple argument, or one element alone: '(42,)' or 42, '("eu", 42)'. `what` names the
// argument in the error ("primary key", "--from").
fdb::Tuple parseTupleOrElement(const std::string& text, std::string_view what) {
  const size_t first = text.find_first_not_of(" \t");
  const bool bare = first == std::string::npos || text[first] != '(';
  try {
    return parseTupleArgument(bare ? "(" + text + ",)" : text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", what, e.what()));
  }
}

fdb::Tuple parsePrimaryKey(const std::string& text) {
  return parseTupleOrElement(text, "primary key");
}

void runGet(const StoreArguments& args, const std::string& keyText, bool json) {
  const StoreLocation location = storeLocation(args);
  const fdb::Tuple primaryKey = parsePrimaryKey(keyText);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  std::optional<LoadedRecord> record = runInContext(db, [&](RecordContext& context) {
    return RecordStore::openExisting(context, location, metaData).loadRecord(primaryKey);
  });
  if (!record) {
    throw std::runtime_error(
        fmt::format("no record with primary key {}", fdb::formatTuple(primaryKey)));
  }
  fmt::print("{}\n", json ? recordEnvelope(*record) : recordToJson(*record->record));
}

void runDelete(const StoreArguments& args, const std::string& keyText) {
  const StoreLocation location = storeLocation(args);
  const fdb::Tuple primaryKey = parsePrimaryKey(keyText);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadWrite);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  const bool deleted = runInContext(db, [&](RecordContext& context) {
    return RecordStore::openExisting(context, location, metaData).deleteRecord(primaryKey);
  });
  if (!deleted) {
    throw std::runtime_error(
        fmt::format("no record with primary key {}", fdb::formatTuple(primaryKey)));
  }
  fmt::print("Deleted the record with primary key {}.\n", fdb::formatTuple(primaryKey));
}

void runScan(const StoreArguments& args, const ScanOptions& options) {
  const StoreLocation location = storeLocation(args);
  checkScanOptions(options);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  printPaged(db, location, metaData, options,
             [&](RecordStore& store, const std::optional<fdb::Bytes>& continuation,
                 const ScanProperties& properties, std::vector<std::string>& rows) {
               CursorPtr<LoadedRecord> cursor =
                   store.scanRecords(TupleRange::all(), continuation, properties);
               auto result = cursor->next();
               for (; result.hasValue(); result = cursor->next()) {
                 rows.push_back(options.json ? recordEnvelope(result.value())
                                             : recordToJson(*result.value().record));
               }
               return result.continuation();
             });
}

struct IndexScanOptions {
  std::string index;
  std::optional<std::string> from;
  std::optional<std::string> to;
  std::optional<std::string> since;   // a record version, 24 hex digits
  std::optional<std::string> prefix;  // with --since: the columns before the version
  std::vector<std::string> byRank;    // FROM TO, for a RANK index
  std::string fetch = "adaptive";
};

std::optional<fdb::Tuple> parseBound(const std::optional<std::string>& text, const char* option) {
  if (!text) return std::nullopt;
  return parseTupleOrElement(*text, option);
}

// --since VERSION [--prefix TUPLE] on a VERSION index: the entries whose version column,
// after the columns `prefix` gives, comes after VERSION (as `rl get --json` prints versions).
TupleRange sinceRange(const Index& index, const IndexScanOptions& indexOptions) {
  if (indexOptions.from || indexOptions.to) {
    throw std::invalid_argument("--since takes the place of --from and --to");
  }
  const std::vector<KeyExpression> columns = index.rootExpression().normalizeKeyForPositions();
  const auto versionColumn = std::find_if(
      columns.begin(), columns.end(),
      [](const KeyExpression& column) { return column.kind() == KeyExpression::Kind::kVersion; });
  if (index.type() != Index::kVersion || versionColumn == columns.end()) {
    throw std::invalid_argument(
        fmt::format("--since: index {} is a {} index; --since scans a "
                    "version index",
                    index.name(), index.type()));
  }
  const fdb::Tuple prefix =
      indexOptions.prefix ? parseTupleOrElement(*indexOptions.prefix, "--prefix") : fdb::Tuple{};
  const auto before = static_cast<size_t>(versionColumn - columns.begin());
  if (prefix.size() != before) {
    throw std::invalid_argument(fmt::format(
        "--since on index {} ({}): --prefix gives the {} column(s) before the version, not {}",
        index.name(), index.rootExpression().toString(), before, prefix.size()));
  }
  RecordVersion since = RecordVersion::minVersion();
  try {
    since = RecordVersion::fromBytes(fromHex(*indexOptions.since));
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format(
        "--since {}: a record version is 24 hex digits, as rl get --json prints it ({})",
        *indexOptions.since, e.what()));
  }
  TupleRange range;
  range.low = prefix;
  range.low->append(since.toVersionstamp());
  range.lowEndpoint = EndpointType::kRangeExclusive;
  if (prefix.size() > 0) {
    range.high = prefix;
    range.highEndpoint = EndpointType::kRangeInclusive;
  }
  return range;
}

void runIndexScan(const StoreArguments& args, const IndexScanOptions& indexOptions,
                  const ScanOptions& options) {
  const StoreLocation location = storeLocation(args);
  const IndexFetchMethod method = parseFetch(indexOptions.fetch);
  if (indexOptions.prefix && !indexOptions.since) {
    throw std::invalid_argument("--prefix goes with --since");
  }
  const bool byRank = !indexOptions.byRank.empty();
  if (byRank && (indexOptions.from || indexOptions.to || indexOptions.since)) {
    throw std::invalid_argument("--by-rank FROM TO takes the place of --from, --to and --since");
  }
  // Ranks FROM through TO: a rank alone, or (group..., rank).
  TupleRange range = byRank ? TupleRange::betweenInclusive(
                                  parseTupleOrElement(indexOptions.byRank.at(0), "--by-rank FROM"),
                                  parseTupleOrElement(indexOptions.byRank.at(1), "--by-rank TO"))
                            : TupleRange::between(parseBound(indexOptions.from, "--from"),
                                                  parseBound(indexOptions.to, "--to"));
  checkScanOptions(options);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  const Index& index = storeIndex(metaData, indexOptions.index);
  if (indexOptions.since) range = sinceRange(index, indexOptions);
  try {
    printPaged(db, location, metaData, options,
               [&](RecordStore& store, const std::optional<fdb::Bytes>& continuation,
                   const ScanProperties& properties, std::vector<std::string>& rows) {
                 CursorPtr<FetchedRecord> cursor =
                     byRank ? store.scanIndexRecordsByRank(indexOptions.index, range, continuation,
                                                           properties)
                            : store.scanIndexRecords(indexOptions.index, range, continuation,
                                                     properties, method);
                 auto result = cursor->next();
                 for (; result.hasValue(); result = cursor->next()) {
                   const FetchedRecord& fetched = result.value();
                   rows.push_back(options.json
                                      ? recordEnvelope(*fetched.record, fetched.entry.key())
                                      : recordToJson(*fetched.record->record));
                 }
                 return result.continuation();
               });
  } catch (const ScanNonReadableIndexException& e) {
    throw ScanNonReadableIndexException(std::string(e.what()) + "; rl index build builds it");
  }
}

}  // namespace

void addRecordCommands(CLI::App& app) {
  auto args = std::make_shared<StoreArguments>();

  auto key = std::make_shared<std::string>();
  CLI::App* get = app.add_subcommand("get", "Print the record with a primary key, as JSON");
  addStoreArguments(get, *args);
  get->add_option("primary_key", *key,
                  "The primary key: a tuple, '(\"eu\", 42)', or one element alone, 42")
      ->required();
  auto getJson = std::make_shared<bool>(false);
  get->add_flag("--json", *getJson,
                "Print {\"primary_key\", \"type\", \"version\", \"record\"} instead of the "
                "record alone");
  get->callback([args, key, getJson] { runGet(*args, *key, *getJson); });

  CLI::App* remove =
      app.add_subcommand("delete", "Delete the record with a primary key and its index entries");
  addStoreArguments(remove, *args);
  remove
      ->add_option("primary_key", *key,
                   "The primary key: a tuple, '(\"eu\", 42)', or one element alone, 42")
      ->required();
  remove->callback([args, key] { runDelete(*args, *key); });

  auto options = std::make_shared<ScanOptions>();
  CLI::App* scan = app.add_subcommand(
      "scan",
      "Print records in primary-key order, one JSON object a line; with --limit, the "
      "continuation to resume from on standard error");
  addStoreArguments(scan, *args);
  scan->add_option("--limit", options->limit, "At most this many records; 0 for every record")
      ->capture_default_str();
  scan->add_flag("--reverse", options->reverse, "From the last primary key to the first");
  scan->add_option("--continuation", options->continuation,
                   "Resume where an earlier scan with the same --reverse stopped (its hex "
                   "continuation)");
  scan->add_flag("--json", options->json,
                 "Each record as {\"primary_key\", \"type\", \"version\", \"record\"}; "
                 "with --limit, the continuation as a last line {\"continuation\": HEX}");
  scan->callback([args, options] { runScan(*args, *options); });

  CLI::App* index = app.add_subcommand(
      "index", "Indexes: scan the records an index points to, in its order; build one");
  index->require_subcommand(1);
  auto indexOptions = std::make_shared<IndexScanOptions>();
  CLI::App* indexScan = index->add_subcommand(
      "scan",
      "Print the records an index's entries point to, in index order, one JSON object a "
      "line; with --limit, the continuation to resume from on standard error");
  addStoreArguments(indexScan, *args);
  indexScan->add_option("index", indexOptions->index, "The index, e.g. Order$price")->required();
  indexScan->add_option(
      "--from", indexOptions->from,
      "The first index value scanned: a tuple, or one element alone, 1000 (default: the first)");
  indexScan->add_option("--to", indexOptions->to,
                        "The index value after the last one scanned (default: the end)");
  indexScan->add_option("--since", indexOptions->since,
                        "On a version index: the records changed after this record version (24 "
                        "hex digits, as rl get --json prints it), in commit order");
  indexScan->add_option("--prefix", indexOptions->prefix,
                        "With --since: the index's columns before its version, e.g. '(\"c-1\",)'");
  indexScan
      ->add_option("--by-rank", indexOptions->byRank,
                   "For a RANK index: the records of ranks FROM through TO (0 is the lowest "
                   "score), each a rank alone, 0, or with its group, '(\"game-1\", 0)'")
      ->expected(2);
  indexScan
      ->add_option("--fetch", indexOptions->fetch,
                   "How records are fetched: adaptive (ADAPTIVE: chosen per scan), scan "
                   "(SCAN_AND_FETCH), remote (USE_REMOTE_FETCH) or fallback (remote, else scan)")
      ->capture_default_str();
  indexScan->add_option("--limit", options->limit, "At most this many records; 0 for every one")
      ->capture_default_str();
  indexScan->add_flag("--reverse", options->reverse, "From the last index entry to the first");
  indexScan->add_option("--continuation", options->continuation,
                        "Resume where an earlier index scan with the same range and --reverse "
                        "stopped (its hex continuation)");
  indexScan->add_flag("--json", options->json,
                      "Each record as {\"index_entry\", \"primary_key\", \"type\", "
                      "\"version\", \"record\"}; with --limit, the continuation as a last "
                      "line {\"continuation\": HEX}");
  indexScan->callback(
      [args, indexOptions, options] { runIndexScan(*args, *indexOptions, *options); });
  addIndexBuildCommand(*index);
  addIndexGetCommand(*index);
}

}  // namespace rl::cli
