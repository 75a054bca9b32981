// `rl demo`: the main job (docs/cli.md). Creates a store (a temporary durable one unless
// --db names another), saves Orders behind a VALUE index on price (every hundredth with a
// 250,000-byte payload, so split across keys), scans the index with SCAN_AND_FETCH and with
// USE_REMOTE_FETCH, checks that both return the rows that were saved, and prints the first
// rows and the time and round trips of each scan, without and with a simulated network delay,
// all measured in this run. It also runs a query the planner plans, printing its plan and the
// first rows (checked against a filter over every order). On fdb: it says which libfdb_c it ran on
// and what delay that had.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "commands.h"
#include "demo_orders.pb.h"
#include "fdb/database.h"
#include "fdb/durable.h"
#include "fdb/error.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "fdbc/library.h"
#include "progress.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_fetch_method.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/query/queried_record.h"
#include "rl/query/query_text.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_plan.h"
#include "rl/query/record_query_planner.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "table.h"

namespace rl::cli {
namespace {

using demo::Order;

constexpr std::string_view kPriceIndex = "Order$price";  // from demo_orders.proto
constexpr int64_t kMaxRecords = 100'000;
constexpr size_t kSmallPayload = 200;
constexpr size_t kLargePayload = 250'000;  // over 100,000 bytes: split, three chunks
constexpr int64_t kLargeEvery = 100;       // orders 0, 100, 200, ... carry the large payload
// A transaction's records: at most this many, and at most this many payload bytes (well under
// FoundationDB's 10,000,000-byte transaction limit).
constexpr int64_t kBatchRecords = 200;
constexpr int64_t kBatchBytes = 2'000'000;
constexpr int kShownRows = 10;  // the first rows printed, for each fetch method
constexpr int kShortScan = 10;  // the short scan measured besides the whole index
constexpr int kTimedRuns = 3;   // a scan's time is the median of these (after one untimed run)

struct DemoOptions {
  int64_t records = 2000;
  std::string db;  // empty: a temporary durable store
  int64_t delayMicros = 250;
  bool noDelay = false;
};

// --- The orders ---

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

size_t payloadSizeOf(int64_t id) { return id % kLargeEvery == 0 ? kLargePayload : kSmallPayload; }

Order makeOrder(int64_t id) {
  static constexpr const char* kItems[] = {"lamp",  "desk", "chair", "kettle",
                                           "shelf", "rug",  "clock", "mirror"};
  const uint64_t h = mix(static_cast<uint64_t>(id));
  Order order;
  order.set_id(id);
  order.set_price(100 + static_cast<int64_t>(h % 99'900));  // $1.00 .. $999.99
  order.set_customer(fmt::format("customer-{}", (h >> 20) % 50));
  order.set_item(kItems[(h >> 32) % std::size(kItems)]);
  order.set_quantity(1 + static_cast<int64_t>((h >> 40) % 9));
  std::string payload(payloadSizeOf(id), '\0');
  uint64_t x = h;
  for (char& c : payload) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(x >> 56);
  }
  order.set_payload(std::move(payload));
  return order;
}

uint64_t checksum(std::string_view bytes) {  // FNV-1a
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

// What the demo compares between the two fetch methods and against what it saved: the
// index entry, every field, and how many keys the record occupies.
struct Row {
  fdb::Tuple entry;  // (price, id)
  int64_t id = 0;
  int64_t price = 0;
  std::string customer;
  std::string item;
  int64_t quantity = 0;
  size_t payloadSize = 0;
  uint64_t payloadSum = 0;
  int keyCount = 0;

  friend bool operator==(const Row&, const Row&) = default;
};

Row rowOf(fdb::Tuple entry, const Order& order, int keyCount) {
  return Row{std::move(entry), order.id(),       order.price(),          order.customer(),
             order.item(),     order.quantity(), order.payload().size(), checksum(order.payload()),
             keyCount};
}

std::string describe(const Row& row) {
  return fmt::format("id {} price {} {} {} x{} payload {} bytes (sum {:016x}) in {} keys", row.id,
                     row.price, row.customer, row.item, row.quantity, row.payloadSize,
                     row.payloadSum, row.keyCount);
}

// Every order, in the index's order (price, then id).
std::vector<Row> expectedRows(int64_t records) {
  std::vector<Row> rows;
  rows.reserve(static_cast<size_t>(records));
  for (int64_t id = 0; id < records; ++id) {
    const Order order = makeOrder(id);
    const int keys = order.payload().size() > 100'000 ? 3 : 1;
    rows.push_back(rowOf(fdb::Tuple{order.price(), id}, order, keys));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::pair(a.price, a.id) < std::pair(b.price, b.id);
  });
  return rows;
}

// --- The store ---

// The demo's store: P = the packed tuple ("rl-demo", "orders"), which remote fetch can use.
const fdb::Tuple& storeTuple() {
  static const fdb::Tuple kTuple{"rl-demo", "orders"};
  return kTuple;
}

const StoreLocation& location() {
  static const StoreLocation kLocation = StoreLocation::tuple(storeTuple());
  return kLocation;
}

RecordMetaData demoMetaData() { return RecordMetaDataBuilder(Order::descriptor()->file()).build(); }

struct SeedSummary {
  int64_t transactions = 0;
  int64_t splitRecords = 0;
  int64_t payloadBytes = 0;
  double seconds = 0;
};

// Clears the demo's store in `db` and saves orders 0..records-1 into it, in transactions of
// at most kBatchRecords records and kBatchBytes payload bytes.
SeedSummary seed(fdb::Database& db, const RecordMetaData& metaData, int64_t records,
                 const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  SeedSummary summary;
  db.run([](fdb::Transaction& tr) { tr.clearRange(fdb::Subspace(storeTuple()).range()); });
  Progress progress(what, records);
  for (int64_t first = 0; first < records;) {
    int64_t end = first;
    int64_t bytes = 0;
    while (end < records && end - first < kBatchRecords &&
           (end == first || bytes + static_cast<int64_t>(payloadSizeOf(end)) <= kBatchBytes)) {
      bytes += static_cast<int64_t>(payloadSizeOf(end));
      ++end;
    }
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location(), metaData);
      for (int64_t id = first; id < end; ++id) store.saveRecord(makeOrder(id));
    });
    ++summary.transactions;
    summary.payloadBytes += bytes;
    for (int64_t id = first; id < end; ++id) summary.splitRecords += payloadSizeOf(id) > 100'000;
    first = end;
    progress.update(end, formatBytes(summary.payloadBytes));
  }
  progress.finish();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

// --- The scans ---

struct ScanSpec {
  std::string name;  // "all 2,000", "first 10"
  int limit = 0;     // returned-row limit; 0: the whole index
};

struct ScanRun {
  std::vector<Row> rows;
  fdb::RoundTrips trips;  // the transaction's: read version, store open, scan
  double seconds = 0;     // the transaction's wall time, commit included
};

// One transaction: open the store, drain the index scan, commit (read-only). The rows are
// decoded after the clock has stopped.
ScanRun scanOnce(fdb::Database& db, const RecordMetaData& metaData, const ScanSpec& spec,
                 IndexFetchMethod method) {
  std::vector<FetchedRecord> fetched;
  ScanRun run;
  const auto start = std::chrono::steady_clock::now();
  runInContext(db, [&](RecordContext& context) {
    fetched.clear();
    RecordStore store = RecordStore::open(context, location(), metaData);
    ExecuteProperties execute;
    execute.returnedRowLimit = spec.limit;
    CursorPtr<FetchedRecord> cursor = store.scanIndexRecords(
        kPriceIndex, TupleRange::all(), std::nullopt, ScanProperties(execute), method);
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
      fetched.push_back(std::move(r.value()));
    }
    run.trips = context.transaction().roundTrips();
  });
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.rows.reserve(fetched.size());
  for (const FetchedRecord& f : fetched) {
    if (!f.record) {
      throw std::runtime_error(fmt::format("{}: index entry {} has no record",
                                           indexFetchMethodName(method),
                                           fdb::formatTuple(f.entry.key())));
    }
    run.rows.push_back(rowOf(f.entry.key(), f.record->as<Order>(), f.record->size.keyCount));
  }
  return run;
}

// Fails loudly, naming the first difference, unless `got` is `want`.
void checkRows(const std::vector<Row>& got, const std::vector<Row>& want, const std::string& what,
               const std::string& against) {
  const size_t common = std::min(got.size(), want.size());
  for (size_t i = 0; i < common; ++i) {
    if (!(got[i] == want[i])) {
      throw std::runtime_error(fmt::format("{} differs from {} at row {}: {} instead of {}", what,
                                           against, i + 1, describe(got[i]), describe(want[i])));
    }
  }
  if (got.size() != want.size()) {
    throw std::runtime_error(
        fmt::format("{} returned {} rows, {} {}", what, got.size(), against, want.size()));
  }
}

struct Measurement {
  std::string store;  // the store column
  int64_t delayMicros = 0;
  std::string scan;
  IndexFetchMethod method;
  size_t rows = 0;
  double seconds = 0;  // median
  fdb::RoundTrips trips;
  bool realNetwork = false;  // on FoundationDB: the delay is the cluster's network
};

// The first rows a method returned, to show.
using FirstRows = std::vector<std::pair<IndexFetchMethod, std::vector<Row>>>;

// Both methods over every scan on `db`: one untimed run each, then kTimedRuns timed ones;
// every run's rows are checked against `expected` and between the methods. With `firstRows`,
// also the first kShownRows rows of each method's untimed whole-index scan.
std::vector<Measurement> measure(fdb::Database& db, const RecordMetaData& metaData,
                                 const std::vector<ScanSpec>& scans,
                                 const std::vector<Row>& expected, const std::string& store,
                                 int64_t delayMicros, FirstRows* firstRows) {
  std::vector<Measurement> out;
  for (const ScanSpec& spec : scans) {
    const std::vector<Row> want(
        expected.begin(),
        expected.begin() +
            static_cast<std::ptrdiff_t>(
                spec.limit == 0 ? expected.size() : std::min<size_t>(spec.limit, expected.size())));
    std::optional<std::vector<Row>> scanAndFetchRows;
    for (IndexFetchMethod method :
         {IndexFetchMethod::kScanAndFetch, IndexFetchMethod::kUseRemoteFetch}) {
      const std::string what =
          fmt::format("{} ({}, {}{})", indexFetchMethodName(method), spec.name, store,
                      delayMicros > 0 ? fmt::format(", {} us delay", delayMicros) : "");
      ScanRun first = scanOnce(db, metaData, spec, method);
      if (scanAndFetchRows) {
        checkRows(first.rows, *scanAndFetchRows, what, "SCAN_AND_FETCH");
      } else {
        scanAndFetchRows = first.rows;
      }
      checkRows(first.rows, want, what, "the orders saved");
      if (firstRows != nullptr && spec.limit == 0) {
        const auto shown =
            static_cast<std::ptrdiff_t>(std::min<size_t>(first.rows.size(), kShownRows));
        firstRows->emplace_back(method,
                                std::vector<Row>(first.rows.begin(), first.rows.begin() + shown));
      }
      std::vector<double> seconds;
      ScanRun last;
      for (int i = 0; i < kTimedRuns; ++i) {
        last = scanOnce(db, metaData, spec, method);
        checkRows(last.rows, want, what, "the orders saved");
        seconds.push_back(last.seconds);
        // Every round trip takes twice the one-way delay: a run faster than one round trip
        // did not run with the delay.
        if (delayMicros > 0 && last.seconds < 2e-6 * static_cast<double>(delayMicros)) {
          throw std::runtime_error(fmt::format(
              "{}: took {}, less than one round trip: the simulated delay did not take effect",
              what, formatSeconds(last.seconds)));
        }
      }
      std::sort(seconds.begin(), seconds.end());
      out.push_back(Measurement{store, delayMicros, spec.name, method, last.rows.size(),
                                seconds[seconds.size() / 2], last.trips});
    }
  }
  return out;
}

// --- The query ---

// The demo's query, in the query text of `rl query --where` (docs/query.md), sorted by price:
// cheap lamps and desks, which the planner answers from the price index with the item left
// to a filter.
constexpr std::string_view kQueryText = R"(price < 25000 AND item IN ("lamp", "desk"))";
constexpr int64_t kQueryMaxPrice = 25000;
constexpr int kShownQueryRows = 5;

struct QueryRun {
  std::string plan;
  std::vector<Row> rows;
  fdb::RoundTrips trips;
  double seconds = 0;
};

// Plans the query against the store and runs it in one transaction (SCAN_AND_FETCH); checks
// the rows against a filter over every order saved.
QueryRun runQuery(fdb::Database& db, const RecordMetaData& metaData,
                  const std::vector<Row>& expected) {
  const RecordQuery query{
      .recordTypes = {"Order"},
      .filter = parseQueryFilter(kQueryText, metaData, {"Order"}),
      .sort = field("price"),
  };
  QueryRun run;
  std::vector<QueriedRecord> found;
  const auto start = std::chrono::steady_clock::now();
  runInContext(db, [&](RecordContext& context) {
    found.clear();
    RecordStore store = RecordStore::open(context, location(), metaData);
    const RecordQueryPlanPtr plan = store.planQuery(query);
    run.plan = plan->explain();
    CursorPtr<QueriedRecord> cursor = store.executeQuery(*plan, std::nullopt, ExecuteProperties{});
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
      found.push_back(std::move(r.value()));
    }
    run.trips = context.transaction().roundTrips();
  });
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const QueriedRecord& row : found) {
    run.rows.push_back(rowOf(row.indexEntry ? row.indexEntry->key() : fdb::Tuple{}, row.as<Order>(),
                             row.size.keyCount));
  }
  std::vector<Row> want;
  for (const Row& row : expected) {
    if (row.price < kQueryMaxPrice && (row.item == "lamp" || row.item == "desk")) {
      want.push_back(row);
    }
  }
  checkRows(run.rows, want, "the query", "a filter over the orders saved");
  return run;
}

// --- The run ---

// A temporary directory, removed with everything in it when this goes.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rl-demo-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(
          fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool isDurable(const fdb::Database& db) {
  try {
    fdb::durableStoreStats(db);
    return true;
  } catch (const fdb::Error&) {
    return false;
  }
}

std::string describeStore(const std::string& address, bool durable, bool temporary) {
  if (temporary) return "a temporary durable store, " + address;
  if (durable) return "the durable store " + address;
  if (address == "memory:") return "a fresh in-memory database (memory:)";
  if (address.starts_with("memory:")) return "the in-memory database " + address;
  return address;
}

std::string priceText(int64_t cents) {
  return fmt::format("${}.{:02}", groupDigits(cents / 100), cents % 100);
}

void printFirstRows(const std::vector<Row>& rows) {
  Table table({{"id", Align::kRight},
               {"price", Align::kRight},
               {"customer"},
               {"item"},
               {"qty", Align::kRight},
               {"payload", Align::kRight},
               {"keys", Align::kRight}});
  for (const Row& row : rows) {
    table.addRow({groupDigits(row.id), priceText(row.price), row.customer, row.item,
                  std::to_string(row.quantity), formatBytes(static_cast<int64_t>(row.payloadSize)),
                  std::to_string(row.keyCount)});
  }
  table.print(stdout, 2);
}

void printMeasurements(const std::vector<Measurement>& measurements) {
  Table table({{"delay"},
               {"store"},
               {"scan"},
               {"method"},
               {"rows", Align::kRight},
               {"time", Align::kRight},
               {"round trips", Align::kRight},
               {"range reads", Align::kRight},
               {"mapped reads", Align::kRight}});
  for (const Measurement& m : measurements) {
    const std::string delay = m.realNetwork       ? "network"
                              : m.delayMicros > 0 ? fmt::format("{} us", m.delayMicros)
                                                  : "none";
    table.addRow({delay, m.store, m.scan, std::string(indexFetchMethodName(m.method)),
                  groupDigits(static_cast<int64_t>(m.rows)), formatSeconds(m.seconds),
                  groupDigits(m.trips.total()), groupDigits(m.trips.rangeReads),
                  groupDigits(m.trips.mappedRangeReads)});
  }
  table.print(stdout, 2);
}

// What an fdb: address ran on: the libfdb_c loaded, and the simulated one-way delay of this
// project's own libfdb_c.so, which reads RECORDLAYER_ONE_WAY_DELAY_US when it creates a
// database (docs/capi.md); FoundationDB's libfdb_c has the cluster's real network instead.
struct ClientLibrary {
  fdb::fdbc::ClientLibraryInfo info;
  int64_t delayMicros = 0;  // embedded only
};

ClientLibrary clientLibraryOf(const std::string& address) {
  ClientLibrary library;
  if (!address.starts_with("fdb:")) return library;
  library.info = fdb::fdbc::loadClientLibrary();  // loaded by the open: describes it
  if (library.info.embedded) {
    if (const char* delay = std::getenv("RECORDLAYER_ONE_WAY_DELAY_US"); delay != nullptr) {
      library.delayMicros = std::max<int64_t>(0, std::strtoll(delay, nullptr, 10));
    }
  }
  return library;
}

std::string describeLibrary(const ClientLibrary& library) {
  if (!library.info.embedded) {
    return fmt::format(
        "fdb: ran on FoundationDB's libfdb_c (client version {}):\n"
        "the times include the cluster's network (delay \"network\"); a simulated delay is the\n"
        "embedded engine's, so there are no runs with --delay-us.",
        library.info.clientVersion);
  }
  const std::string delay =
      library.delayMicros > 0
          ? fmt::format("{} us one way (RECORDLAYER_ONE_WAY_DELAY_US; a round trip takes {} us)",
                        library.delayMicros, 2 * library.delayMicros)
          : std::string("none (RECORDLAYER_ONE_WAY_DELAY_US unset or 0)");
  return fmt::format(
      "fdb: ran on RecordLayer's own libfdb_c, the embedded engine behind FoundationDB's C API,\n"
      "not on FoundationDB (client version {}).\n"
      "Its simulated delay: {},\n"
      "read by the library when it created the database; the demo cannot change a libfdb_c's\n"
      "delay, so there are no runs with --delay-us.",
      library.info.clientVersion, delay);
}

void runDemo(const DemoOptions& options) {
  if (options.records < 1 || options.records > kMaxRecords) {
    throw std::invalid_argument(fmt::format("--records must be between 1 and {} (got {})",
                                            groupDigits(kMaxRecords), options.records));
  }
  if (options.delayMicros < 0 || options.delayMicros > 100'000) {
    throw std::invalid_argument(fmt::format(
        "--delay-us must be between 0 and 100,000 microseconds (got {})", options.delayMicros));
  }
  std::optional<TemporaryDirectory> temporary;  // outlives the database: removed after it closes
  std::string address = options.db;
  if (address.empty()) {
    temporary.emplace();
    address = "file:" + temporary->path();
  }
  std::optional<fdb::Database> db = fdb::Database::open(address);
  const bool durable = isDurable(*db);
  const bool memory = address.starts_with("memory:");
  const bool viaLibfdbC = address.starts_with("fdb:");
  const ClientLibrary library = clientLibraryOf(address);
  const std::string storeName = durable ? "file:" : address;

  fmt::print("rl demo: {} orders in {}\n", groupDigits(options.records),
             describeStore(address, durable, temporary.has_value()));
  if (viaLibfdbC) {
    fmt::print("through libfdb_c {} ({})\n", library.info.path,
               library.info.embedded ? "RecordLayer's embedded engine" : "FoundationDB");
  }
  fmt::print("\n");
  fmt::print(
      "Schema: Order (id, price, customer, item, quantity, payload), primary key id, a VALUE\n"
      "index {} on price; records over 100,000 bytes are split across keys.\n",
      kPriceIndex);

  const RecordMetaData metaData = demoMetaData();
  const SeedSummary seeded = seed(*db, metaData, options.records, "saving orders");
  fmt::print(
      "Saved {} orders in {} transaction{} (at most {} each) in {}: {} of payload,\n"
      "{} of the orders with {} each, stored split.\n\n",
      groupDigits(options.records), seeded.transactions, seeded.transactions == 1 ? "" : "s",
      formatBytes(kBatchBytes), formatSeconds(seeded.seconds), formatBytes(seeded.payloadBytes),
      groupDigits(seeded.splitRecords), formatBytes(static_cast<int64_t>(kLargePayload)));

  const std::vector<Row> expected = expectedRows(options.records);
  // The whole index, and (when that is longer) a short scan, where remote fetch's one batch
  // pays most.
  std::vector<ScanSpec> scans = {{fmt::format("all {}", groupDigits(options.records)), 0}};
  if (options.records > kShortScan) {
    scans.push_back({fmt::format("first {}", kShortScan), kShortScan});
  }

  FirstRows firstRows;
  std::vector<Measurement> measurements =
      measure(*db, metaData, scans, expected, storeName, library.delayMicros, &firstRows);
  if (viaLibfdbC && !library.info.embedded) {
    for (Measurement& m : measurements) m.realNetwork = true;
  }

  for (const auto& [method, rows] : firstRows) {
    fmt::print("The first orders by price (index {}), fetched with {}:\n", kPriceIndex,
               indexFetchMethodName(method));
    printFirstRows(rows);
    fmt::print("\n");
  }

  // A query, planned by the planner and run before any delay (the same as `rl query --where
  // '...' --sort price` would on a store made by `rl store create`).
  const QueryRun query = runQuery(*db, metaData, expected);
  fmt::print("A query, planned: --where '{}' --sort price\n", kQueryText);
  fmt::print("  plan: {}\n", query.plan);
  const size_t shown = std::min<size_t>(query.rows.size(), kShownQueryRows);
  fmt::print(
      "  {} order{} in {}, {} round trips (a load per order under {}, then the filter);\n"
      "  the same as a filter over every order saved{}\n",
      groupDigits(static_cast<int64_t>(query.rows.size())), query.rows.size() == 1 ? "" : "s",
      formatSeconds(query.seconds), groupDigits(query.trips.total()), priceText(kQueryMaxPrice),
      shown == 0                   ? "."
      : shown == query.rows.size() ? ":"
                                   : fmt::format(". The first {}:", shown));
  if (shown > 0) {
    printFirstRows(std::vector<Row>(query.rows.begin(),
                                    query.rows.begin() + static_cast<std::ptrdiff_t>(shown)));
  }
  fmt::print("\n");

  std::vector<std::string> notes;
  const bool delayed = !options.noDelay && options.delayMicros > 0;
  if (delayed && durable) {
    // Engine options apply when a store is opened: close it, open it again with the delay.
    db.reset();
    fdb::EngineOptions engine;
    engine.oneWayDelayMicros = options.delayMicros;
    db = fdb::Database::open(address, engine);
    std::vector<Measurement> more =
        measure(*db, metaData, scans, expected, storeName, options.delayMicros, nullptr);
    measurements.insert(measurements.end(), more.begin(), more.end());
    notes.push_back(
        fmt::format("For the delayed runs the store was closed and opened again with\n"
                    "fdb::EngineOptions::oneWayDelayMicros = {} (a round trip then takes {} us).",
                    options.delayMicros, 2 * options.delayMicros));
  } else if (delayed && memory) {
    // An in-memory database gets its options when it is created: seed a second one.
    fdb::EngineOptions engine;
    engine.oneWayDelayMicros = options.delayMicros;
    fdb::Database copy = fdb::Database::open("memory:", engine);
    const SeedSummary copySeeded =
        seed(copy, metaData, options.records, "saving orders (delayed copy)");
    std::vector<Measurement> more =
        measure(copy, metaData, scans, expected, "memory: copy", options.delayMicros, nullptr);
    measurements.insert(measurements.end(), more.begin(), more.end());
    notes.push_back(fmt::format(
        "memory: copy is a second in-memory database, seeded the same way (in {}), with\n"
        "fdb::EngineOptions::oneWayDelayMicros = {} (a round trip takes {} us).",
        formatSeconds(copySeeded.seconds), options.delayMicros, 2 * options.delayMicros));
  } else if (viaLibfdbC) {
    notes.push_back(describeLibrary(library));
  }

  fmt::print(
      "Index scans of {}, each one transaction (read version, store open, scan); the time is\n"
      "the median of {} runs:\n",
      kPriceIndex, kTimedRuns);
  printMeasurements(measurements);
  fmt::print(
      "round trips: the read version, the store's open and the scan's reads; range reads are\n"
      "index batches and record loads, mapped reads the batches the server resolves itself.\n");
  if (durable) fmt::print("file: is {}.\n", address);
  for (const std::string& note : notes) fmt::print("{}\n", note);
  fmt::print("\nBoth fetch methods returned the orders saved, row for row, in every scan.\n");

  db.reset();  // closes the store before its directory goes
  if (temporary) {
    const std::string path = temporary->path();
    temporary.reset();
    fmt::print("Removed the temporary store {}.\n", path);
  }
}

}  // namespace

void addDemoCommand(CLI::App& app) {
  CLI::App* demo = app.add_subcommand(
      "demo",
      "The main job: orders in a store, an index on price, both fetch methods timed with and "
      "without a simulated network delay (docs/cli.md)");
  auto options = std::make_shared<DemoOptions>();
  demo->add_option("--records", options->records, "How many orders to save")->capture_default_str();
  demo->add_option("--db", options->db,
                   "The store: memory:, memory:<name>, file:<dir>, a directory path or "
                   "fdb:<cluster file> (default: a temporary file: store, removed at the end); "
                   "the demo clears and rewrites its own keys, (\"rl-demo\", \"orders\"), only");
  demo->add_option("--delay-us", options->delayMicros,
                   "The simulated one-way network delay of the delayed runs, in microseconds "
                   "(memory: and file: stores; on fdb: the libfdb_c's delay applies)")
      ->capture_default_str();
  demo->add_flag("--no-delay", options->noDelay, "Skip the runs with a simulated delay");
  demo->callback([options] { runDemo(*options); });
}

}  // namespace rl::cli
