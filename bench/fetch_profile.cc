// fetch_profile — a small driver for profiling index fetch under valgrind --tool=callgrind
// (docs/benchmarks.md, "indexfetch"): 100 split Orders (100,000-byte payloads), the price
// index scanned whole `argv[2]` times (default 10) with the method `argv[1]` (scan | remote).
//
//   valgrind --tool=callgrind build/bin/fetch_profile remote 10
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "fdb/database.h"
#include "rl/context/record_context.h"
#include "rl/index/index_fetch_method.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "rl_bench_util.h"

int main(int argc, char** argv) {
  using namespace rl;
  using namespace rl::bench;
  retainFreedHeapForLargeRecords();
  const std::string which = argc > 1 ? argv[1] : "remote";
  const int scans = argc > 2 ? std::atoi(argv[2]) : 10;
  const IndexFetchMethod method =
      which == "scan" ? IndexFetchMethod::kScanAndFetch : IndexFetchMethod::kUseRemoteFetch;
  fdb::Database db = fdb::Database::open("memory:");
  const RecordMetaData metaData = benchMetaData(Layout{.priceIndex = true, .split = true});
  const StoreLocation location = StoreLocation::tuple(fdb::Tuple{"profile"});
  for (int start = 0; start < 100; start += 20) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore records = RecordStore::open(context, location, metaData);
      for (int id = start; id < start + 20; ++id) records.saveRecord(makeOrder(id, 100'000));
    });
  }
  size_t rows = 0;
  for (int i = 0; i < scans; ++i) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore records = RecordStore::open(context, location, metaData);
      auto cursor =
          records.scanIndexRecords(kPriceIndex, TupleRange::all(), std::nullopt, {}, method);
      std::vector<FetchedRecord> kept;  // kept to the end of the transaction, as indexfetch does
      for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
        kept.push_back(std::move(r.value()));
        ++rows;
      }
    });
  }
  std::printf("%zu rows\n", rows);
  return 0;
}
