// Tuple pack and unpack of record-layer-shaped keys: (store prefix, record type, primary key)
// and index entries (index name, value, primary key).
#include <benchmark/benchmark.h>

#include "fdb/subspace.h"
#include "fdb/tuple.h"

namespace {

const fdb::Subspace kStore(fdb::Tuple{"app", "orders", 1});

fdb::Tuple recordKey(int64_t i) { return fdb::Tuple{1, i}; }
fdb::Tuple indexEntry(int64_t i) { return fdb::Tuple{"Order$price", 1000 + i % 977, i}; }

void BM_PackRecordKey(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    fdb::Bytes key = kStore.pack(recordKey(++i));
    benchmark::DoNotOptimize(key);
  }
}
BENCHMARK(BM_PackRecordKey);

void BM_PackIndexEntry(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) {
    fdb::Bytes key = kStore.pack(indexEntry(++i));
    benchmark::DoNotOptimize(key);
  }
}
BENCHMARK(BM_PackIndexEntry);

void BM_UnpackIndexEntry(benchmark::State& state) {
  fdb::Bytes key = kStore.pack(indexEntry(123456));
  for (auto _ : state) {
    fdb::Tuple t = kStore.unpack(key);
    benchmark::DoNotOptimize(t);
  }
  if (kStore.unpack(key) != indexEntry(123456))
    state.SkipWithError("unpack returned another tuple");
}
BENCHMARK(BM_UnpackIndexEntry);

}  // namespace
