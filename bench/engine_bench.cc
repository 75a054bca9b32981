// The embedded engine through the client API: a point read, a one-key commit and a 100-row
// range read on an in-memory database of 10,000 keys. Results are validated outside the
// timed region.
#include <benchmark/benchmark.h>

#include <string>

#include "fdb/database.h"

namespace {

constexpr int kKeys = 10000;

std::string keyOf(int i) {
  std::string key = "key" + std::to_string(100000 + i);
  return key;
}

fdb::Database populated() {
  fdb::Database db = fdb::Database::open("memory:");
  for (int start = 0; start < kKeys; start += 1000) {
    db.run([&](fdb::Transaction& tr) {
      for (int i = start; i < start + 1000; ++i) tr.set(keyOf(i), std::string(100, 'v'));
    });
  }
  return db;
}

void BM_PointReadInNewTransaction(benchmark::State& state) {
  fdb::Database db = populated();
  int i = 0;
  for (auto _ : state) {
    fdb::Transaction tr = db.createTransaction();
    std::optional<fdb::Bytes> value = tr.get(keyOf(i++ % kKeys)).get();
    if (!value) state.SkipWithError("missing key");
  }
}
BENCHMARK(BM_PointReadInNewTransaction);

void BM_PointReadsInOneTransaction(benchmark::State& state) {
  fdb::Database db = populated();
  fdb::Transaction tr = db.createTransaction();
  int i = 0;
  for (auto _ : state) {
    std::optional<fdb::Bytes> value = tr.snapshot().get(keyOf(i++ % kKeys)).get();
    if (!value) state.SkipWithError("missing key");
  }
}
BENCHMARK(BM_PointReadsInOneTransaction);

void BM_SetAndCommit(benchmark::State& state) {
  fdb::Database db = populated();
  int i = 0;
  for (auto _ : state) {
    fdb::Transaction tr = db.createTransaction();
    tr.set(keyOf(i++ % kKeys), "new value");
    tr.commit().get();
  }
}
BENCHMARK(BM_SetAndCommit);

void BM_RangeRead100Rows(benchmark::State& state) {
  fdb::Database db = populated();
  fdb::Transaction tr = db.createTransaction();
  int i = 0;
  for (auto _ : state) {
    int start = (i++ * 100) % (kKeys - 100);
    fdb::RangeOptions options;
    options.limit = 100;
    options.mode = fdb::StreamingMode::kExact;
    fdb::RangeResult result =
        tr.getRange(fdb::KeyRange{keyOf(start), keyOf(start + 100)}, options).get();
    if (result.rows.size() != 100) state.SkipWithError("wrong row count");
  }
}
BENCHMARK(BM_RangeRead100Rows);

}  // namespace
