// What the commands that print a store's records share (`rl scan`, `rl index scan`, `rl
// query`): a record as a line of JSON, the scan options, and printing a scan of any size in
// transactions of at most kScanBatch rows, each resuming from the last one's continuation
// (docs/cli.md "Record stores").
//
//   ScanOptions options{.limit = 100};
//   printPaged(db, location, metaData, options,
//              [&](RecordStore& store, const std::optional<fdb::Bytes>& continuation,
//                  const ScanProperties& properties, std::vector<std::string>& rows) {
//                auto cursor = store.scanRecords(TupleRange::all(), continuation, properties);
//                ...  // append each row's line to `rows`
//                return result.continuation();
//              });
//
// With a limit, when the scan stopped before the end, the continuation to resume from is
// printed on standard error ("continuation: HEX"), or with --json as a last line on standard
// output ({"continuation": HEX}).
//
// Thread-safety: functions of the command line's one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/index/index_fetch_method.h"
#include "rl/metadata/metadata.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "store.h"

namespace rl::cli {

inline constexpr int kScanBatch = 1000;  // records a transaction

// --json: a record with what the store knows of it, as one line of JSON:
// {"primary_key": "(2,)", "type": "Order", "version": "<24 hex digits>" or null,
//  "record": {...}}, and for an index scan "index_entry": the entry's key tuple first.
std::string recordEnvelope(const LoadedRecord& record,
                           const std::optional<fdb::Tuple>& indexEntry = std::nullopt);

struct ScanOptions {
  int limit = 0;
  int skip = 0;  // rows skipped at the start (after --continuation): the first transaction's
  bool reverse = false;
  std::optional<std::string> continuation;
  bool json = false;  // envelopes, and the continuation as a last line on standard output
};

// Throws std::invalid_argument for a negative --limit or --skip, or a --continuation that is not
// hex.
void checkScanOptions(const ScanOptions& options);

// --fetch adaptive|scan|remote|fallback. Throws std::invalid_argument for another name.
IndexFetchMethod parseFetch(const std::string& fetch);

// Prints the rows of a scan as NDJSON in transactions of at most kScanBatch rows, each
// resuming from the last one's continuation; with a limit, prints the continuation on
// standard error when the scan stopped before the end. `scan(store, continuation,
// properties)` makes the cursor and returns the rows of one transaction; the first
// transaction's properties skip options.skip rows. A scan may stop a transaction early
// (a scan limit: not the end, fewer rows); one that returns nothing and stands where it
// started is an error rather than a loop.
template <typename Scan>
void printPaged(fdb::Database& db, const StoreLocation& location, const RecordMetaData& metaData,
                const ScanOptions& options, Scan&& scan) {
  std::optional<fdb::Bytes> continuation;
  if (options.continuation) continuation = fromHex(*options.continuation);

  int64_t printed = 0;
  bool first = true;
  while (true) {
    const int64_t left = options.limit == 0 ? kScanBatch : options.limit - printed;
    const int batch = static_cast<int>(std::min<int64_t>(left, kScanBatch));
    std::vector<std::string> rows;
    Continuation next = Continuation::end();
    runInContext(db, [&](RecordContext& context) {
      rows.clear();
      RecordStore store = RecordStore::openExisting(context, location, metaData);
      ExecuteProperties execute;
      execute.returnedRowLimit = batch;
      if (first) execute.skip = options.skip;
      next = scan(store, continuation, ScanProperties(execute, options.reverse), rows);
    });
    for (const std::string& row : rows) fmt::print("{}\n", row);
    printed += static_cast<int64_t>(rows.size());
    if (next.isEnd()) return;
    if (rows.empty() && next.toBytes() == continuation) {
      throw std::runtime_error("the scan stopped where it started, returning nothing");
    }
    first = false;
    continuation = next.toBytes();
    if (options.limit != 0 && printed >= options.limit) {
      const std::string hex = toHex(continuation.value_or(fdb::Bytes()));
      if (options.json) {
        fmt::print("{}\n", nlohmann::ordered_json{{"continuation", hex}}.dump());
        return;
      }
      std::fflush(stdout);
      fmt::print(stderr, "continuation: {}\n", hex);
      return;
    }
  }
}

}  // namespace rl::cli
