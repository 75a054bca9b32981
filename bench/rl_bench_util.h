// What the Record Layer suites (rlbench.cc, indexfetch.cc) share: the bench schema's
// metadata variants, deterministic Order records, a payload checksum, and OpMeter, which
// measures one operation at a time so that validation (run with the timer stopped) is left
// out of time, allocation and round-trip counts alike.
//
//   OpMeter meter(db, state);
//   for (auto _ : state) {
//     meter.begin();
//     ... the measured operation ...
//     meter.end();
//     state.PauseTiming();
//     ... validate what it returned ...
//     state.ResumeTiming();
//   }
//   meter.report(state);
//
// Counters per operation: allocs and bytes (alloc_counter.cc: every malloc/new in the
// process, the in-process engine included), round_trips (the database's, all kinds) with
// rt_reads / rt_ranges / rt_mapped beside it, and p50/p90/p99 latency (ns).
// Thread-safety: one benchmark thread.
#pragma once

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_counter.h"
#include "bench_records.pb.h"
#include "fdb/database.h"
#include "fdb/tuple.h"
#include "fdb/types.h"
#include "result_digest.h"
#include "rl/metadata/index.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/record/heap_retention.h"

namespace rl::bench {

// Order: the generated message of protos/bench_records.proto (package rl.bench).

inline constexpr std::string_view kPriceIndex = "price_idx";
inline constexpr std::string_view kVersionIndex = "version_idx";
inline constexpr std::string_view kPriceRankIndex = "price_rank";  // a RANK index on price
inline constexpr int kRecords = 1000;                              // every fixture holds IDs 0..999

// The metadata of a benchmark's store: the bench schema, with or without the VALUE index
// price_idx on price, split long records (100,000-byte chunks) and inline record versions,
// and the VERSION index version_idx on version() (which needs versions).
struct Layout {
  bool priceIndex = false;
  // An aggregate index "agg" by customer of this type (count, sum or max_ever: of price), or
  // none when empty.
  std::string_view aggregate = {};
  bool split = false;
  bool versions = false;
  bool versionIndex = false;
  bool rankIndex = false;  // price_rank instead of price_idx
};

inline RecordMetaData benchMetaData(Layout layout) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  if (layout.priceIndex) {
    builder.addIndex("Order", Index(std::string(kPriceIndex), field("price")));
  }
  if (layout.versionIndex) {
    builder.addIndex("Order", Index(std::string(kVersionIndex), version(), Index::kVersion));
  }
  if (layout.aggregate == Index::kCount) {
    builder.addIndex("Order", Index("agg", grouping(field("customer"), 0), Index::kCount));
  } else if (!layout.aggregate.empty()) {
    builder.addIndex("Order",
                     Index("agg", field("price").groupBy(field("customer")), layout.aggregate));
  }
  if (layout.rankIndex) {
    builder.addIndex("Order", Index(std::string(kPriceRankIndex), field("price"), Index::kRank));
  }
  builder.setSplitLongRecords(layout.split);
  builder.setStoreRecordVersions(layout.versions);
  return builder.build();
}

// Fields of order `id`: the index order (by price) is the ID order.
inline int64_t priceOf(int64_t id) { return 10 * id + 5; }
inline int64_t quantityOf(int64_t id) { return id % 7 + 1; }
inline std::string nameOf(int64_t id) { return "order-" + std::to_string(id); }
inline std::string customerOf(int64_t id) { return "customer-" + std::to_string(id % 50); }

// `size` bytes that differ from record to record and chunk to chunk.
inline std::string payloadOf(int64_t id, size_t size) {
  std::string out(size, '\0');
  uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(id + 1);
  for (char& c : out) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(x >> 56);
  }
  return out;
}

// A 64-bit checksum, eight bytes at a time (fast enough for 100 MB per validation).
inline uint64_t checksum(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    h = (h ^ word) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < bytes.size(); ++i) {
    h = (h ^ static_cast<unsigned char>(bytes[i])) * 0x100000001b3ull;
  }
  return h;
}

inline Order makeOrder(int64_t id, size_t payloadSize) {
  Order order;
  order.set_id(id);
  order.set_price(priceOf(id));
  order.set_name(nameOf(id));
  order.set_quantity(quantityOf(id));
  order.set_customer(customerOf(id));
  order.set_payload(payloadOf(id, payloadSize));
  return order;
}

// Whether `order` is order `id` with a payload of `payloadSize` bytes summing to
// `payloadSum`.
inline bool isOrder(const Order& order, int64_t id, size_t payloadSize, uint64_t payloadSum) {
  return order.id() == id && order.price() == priceOf(id) && order.name() == nameOf(id) &&
         order.quantity() == quantityOf(id) && order.customer() == customerOf(id) &&
         order.payload().size() == payloadSize && checksum(order.payload()) == payloadSum;
}

// Adds an order's fields, its payload's checksum and the keys it occupies to `digest`.
inline void addOrder(ResultDigest& digest, const Order& order, int keyCount) {
  digest.add(order.id());
  digest.add(order.price());
  digest.add(order.name());
  digest.add(order.quantity());
  digest.add(order.customer());
  digest.add(static_cast<int64_t>(checksum(order.payload())));
  digest.add(static_cast<int64_t>(keyCount));
}

inline fdb::RoundTrips minus(const fdb::RoundTrips& a, const fdb::RoundTrips& b) {
  return fdb::RoundTrips{a.readVersions - b.readVersions, a.reads - b.reads,
                         a.rangeReads - b.rangeReads, a.mappedRangeReads - b.mappedRangeReads,
                         a.commits - b.commits};
}

// The load average, for the output's context: numbers taken on a busy machine are noisy.
inline void addLoadAverageContext() {
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3) {
    benchmark::AddCustomContext(
        "load average at start",
        std::to_string(load[0]) + " " + std::to_string(load[1]) + " " + std::to_string(load[2]));
  }
}

// The suites read large records: they keep freed heap as the `rl` command line does
// (rl/record/heap_retention.h) and record what was set in the run's context.
inline void retainFreedHeapForLargeRecords() {
  benchmark::AddCustomContext("heap retention", rl::retainFreedHeap().detail);
}

inline AllocationCounts operator+(const AllocationCounts& a, const AllocationCounts& b) {
  return {a.allocations + b.allocations, a.bytes + b.bytes};
}

// Measures operations one at a time (see the file comment).
class OpMeter {
 public:
  OpMeter(fdb::Database db, const benchmark::State& state) : db_(std::move(db)) {
    latencies_.reserve(static_cast<size_t>(std::min<benchmark::IterationCount>(
        std::max<benchmark::IterationCount>(state.max_iterations, 1), 1 << 20)));
  }

  void begin() {
    tripsBefore_ = db_.roundTrips();
    allocsBefore_ = allocationCounts();
    start_ = std::chrono::steady_clock::now();
  }
  void end() {
    const auto stop = std::chrono::steady_clock::now();
    allocs_ = allocs_ + (allocationCounts() - allocsBefore_);
    const fdb::RoundTrips trips = minus(db_.roundTrips(), tripsBefore_);
    trips_.readVersions += trips.readVersions;
    trips_.reads += trips.reads;
    trips_.rangeReads += trips.rangeReads;
    trips_.mappedRangeReads += trips.mappedRangeReads;
    trips_.commits += trips.commits;
    ++ops_;
    if (latencies_.size() < latencies_.capacity()) {
      latencies_.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start_).count());
    }
  }

  int64_t ops() const { return ops_; }

  void report(benchmark::State& state) {
    const double n = static_cast<double>(std::max<int64_t>(ops_, 1));
    state.counters["allocs"] = static_cast<double>(allocs_.allocations) / n;
    state.counters["bytes"] = static_cast<double>(allocs_.bytes) / n;
    state.counters["round_trips"] = static_cast<double>(trips_.total()) / n;
    state.counters["rt_reads"] = static_cast<double>(trips_.reads) / n;
    state.counters["rt_ranges"] = static_cast<double>(trips_.rangeReads) / n;
    state.counters["rt_mapped"] = static_cast<double>(trips_.mappedRangeReads) / n;
    std::sort(latencies_.begin(), latencies_.end());
    auto percentile = [&](double p) {
      if (latencies_.empty()) return 0.0;
      return static_cast<double>(
          latencies_[static_cast<size_t>(p * static_cast<double>(latencies_.size() - 1))]);
    };
    state.counters["p50_ns"] = percentile(0.50);
    state.counters["p90_ns"] = percentile(0.90);
    state.counters["p99_ns"] = percentile(0.99);
  }

 private:
  fdb::Database db_;
  fdb::RoundTrips tripsBefore_;
  fdb::RoundTrips trips_;
  AllocationCounts allocsBefore_;
  AllocationCounts allocs_;
  std::chrono::steady_clock::time_point start_;
  std::vector<int64_t> latencies_;
  int64_t ops_ = 0;
};

}  // namespace rl::bench
