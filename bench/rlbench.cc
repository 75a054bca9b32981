// rlbench — the Record Layer benchmarks (docs/benchmarks.md, "rlbench"), on the embedded
// engine, one record-layer transaction per operation (a context,
// the store opened in it, the operation, commit):
//
//   SaveRecord                  save one small Order (no index)
//   SaveRecordWithIndex         the same with the VALUE index price_idx on price
//   SaveRecordWithIndex/value_versioned   the same on a store keeping record versions
//   SaveRecordWithIndex/version           the VERSION index version_idx on version() instead
//                               (versions kept): each entry a SET_VERSIONSTAMPED_KEY at commit
//   SaveRecordWithIndex/count   the same with a count index by customer instead (and /sum,
//                               /max_ever: of price by customer), atomic mutations only
//   SaveRecordWithIndex/rank    the same with the RANK index price_rank on price instead
//   SaveSplitRecord             save one ~250 kB Order: three 100,000-byte chunks
//   LoadRecord                  load one record by primary key (IDs 0..999 in turn)
//   ScanRecords                 scan 100 records (IDs [k, k+100))
//   ScanRecordsSplitVersioned   the same on a store that splits long records and keeps
//                               versions inline (every record: data key + version key)
//   ScanIndexRecords/serial     1,000 records through price_idx, SCAN_AND_FETCH, one record
//                               load at a time (pipeline size 1)
//   ScanIndexRecords/pipelined  the same with 10 loads in flight (the default pipeline)
//
// and two engine-only baselines, the same key-value reads without the record layer, to
// estimate its own share of the allocations: LoadRecord/engine_only, ScanIndexRecords/
// engine_only. Each benchmark has two arms: `rl` (no added delay) and `rl_delay250` (a
// simulated 250 us one-way delay per round trip, fdb::EngineOptions::oneWayDelayMicros).
//
// Write benchmarks run exactly 1,000 operations inserting IDs 0..999 into a store cleared
// (and its header rewritten) before the timer starts, then read every record back. Read
// benchmarks use a store seeded with IDs 0..999 and read back before any timer. Every
// result is validated with the timer stopped; a wrong result fails the benchmark.
// Counters: rl_bench_util.h (OpMeter), plus `allocs_call`: the allocations of the record
// layer call alone (loadRecord, or the scan's cursor and its draining), without the
// transaction and the store's open. Times are wall time (UseRealTime). Label (not on the
// engine-only baselines): digest=<hex> (result_digest.h) of the records read back — after the
// 1,000 saves for a write benchmark; the seeded store and the first operation's rows for a
// read benchmark — the same on both arms and on any revision that stores the same records.
#include <benchmark/benchmark.h>

#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "alloc_counter.h"
#include "fdb/database.h"
#include "fdb/key_selector.h"
#include "fdb/subspace.h"
#include "fdb/transaction.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_fetch_method.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "rl_bench_util.h"

namespace rl::bench {
namespace {

constexpr size_t kSmallPayload = 100;
constexpr size_t kSplitPayload = 250'000;  // with the other fields: three chunks
constexpr int kScanRows = 100;

enum class Arm { kNoDelay, kDelay250 };
const char* armName(Arm arm) { return arm == Arm::kNoDelay ? "rl" : "rl_delay250"; }

// One in-memory database per arm for the whole run (the engine options apply at creation).
fdb::Database& databaseFor(Arm arm) {
  static std::optional<fdb::Database> databases[2];
  std::optional<fdb::Database>& slot = databases[arm == Arm::kNoDelay ? 0 : 1];
  if (!slot) {
    fdb::EngineOptions options;
    options.oneWayDelayMicros = arm == Arm::kNoDelay ? 0 : 250;
    slot = fdb::Database::open("memory:", options);
  }
  return *slot;
}

StoreLocation locationOf(const std::string& storeName) {
  return StoreLocation::tuple(fdb::Tuple{"rlbench", storeName});
}

fdb::Subspace subspaceOf(const StoreLocation& location) {
  return fdb::Subspace::fromBytes(*location.knownPrefix());
}

// Clears the store and opens it again, so that it exists, empty, with its header.
void clearStore(fdb::Database& db, const StoreLocation& location, const RecordMetaData& metaData) {
  runInContext(db, [&](RecordContext& context) {
    context.transaction().clearRange(subspaceOf(location).range());
  });
  runInContext(db, [&](RecordContext& context) { RecordStore::open(context, location, metaData); });
}

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("validation failed: " + what);
}

// Reads every record of the store back (100 per transaction) and checks IDs 0..count-1:
// their fields, a payload of `payloadSize` bytes summing to payloadSum(id), and how many
// keys each occupies. With `digest`, adds each record to it (result_digest.h).
template <typename PayloadSum>
void checkRecords(fdb::Database& db, const StoreLocation& location, const RecordMetaData& metaData,
                  int count, size_t payloadSize, PayloadSum payloadSum, int keysPerRecord,
                  bool versions, ResultDigest* digest = nullptr) {
  int seen = 0;
  for (int start = 0; start < kRecords; start += 100) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      auto cursor = store.scanRecords(
          TupleRange::between(fdb::Tuple{start}, fdb::Tuple{start + 100}), std::nullopt, {});
      for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
        const LoadedRecord& loaded = r.value();
        const auto& order = dynamic_cast<const Order&>(*loaded.record);
        check(order.id() == seen, "record " + std::to_string(seen) + " in order");
        check(isOrder(order, seen, payloadSize, payloadSum(seen)),
              "fields of record " + std::to_string(seen));
        check(loaded.size.keyCount == keysPerRecord,
              "record " + std::to_string(seen) + " has " + std::to_string(loaded.size.keyCount) +
                  " keys, not " + std::to_string(keysPerRecord));
        check(loaded.version.has_value() == versions && (!versions || loaded.version->isComplete()),
              "version of record " + std::to_string(seen));
        if (digest != nullptr) addOrder(*digest, order, loaded.size.keyCount);
        ++seen;
      }
    });
  }
  check(seen == count, std::to_string(seen) + " records, not " + std::to_string(count));
}

// Checks that price_idx holds one entry per record 0..count-1, in price order.
void checkPriceIndex(fdb::Database& db, const StoreLocation& location,
                     const RecordMetaData& metaData, int count) {
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData);
    auto cursor = store.scanIndex(kPriceIndex, TupleRange::all(), std::nullopt, {});
    int64_t id = 0;
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next(), ++id) {
      check(r.value().key == (fdb::Tuple{priceOf(id), id}), "index entry " + std::to_string(id));
    }
    check(id == count, std::to_string(id) + " index entries, not " + std::to_string(count));
  });
}

// Checks that version_idx holds one entry per record 0..count-1, each at its record's version;
// records saved one per transaction in ID order, so in ID order.
void checkVersionIndex(fdb::Database& db, const StoreLocation& location,
                       const RecordMetaData& metaData, int count) {
  for (int start = 0; start < count; start += 100) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, metaData);
      for (int i = start; i < std::min(count, start + 100); ++i) {
        const std::optional<RecordVersion> version = store.loadRecordVersion(fdb::Tuple{i});
        check(version.has_value() && version->isComplete(),
              "version of record " + std::to_string(i));
        TupleRange one = TupleRange::allOf(fdb::Tuple{version->toVersionstamp()});
        auto entries = store.scanIndex(kVersionIndex, one, std::nullopt, {});
        auto r = entries->next();
        check(r.hasValue() && r.value().key == (fdb::Tuple{version->toVersionstamp(), i}),
              "version index entry of record " + std::to_string(i));
      }
    });
  }
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData);
    auto cursor = store.scanIndex(kVersionIndex, TupleRange::all(), std::nullopt, {});
    int64_t id = 0;
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next(), ++id) {
      check(r.value().primaryKey == fdb::Tuple{id}, "version index order at " + std::to_string(id));
    }
    check(id == count, std::to_string(id) + " version index entries, not " + std::to_string(count));
  });
}

// Checks that price_rank ranks records 0..count-1 by price: record k has rank k.
void checkPriceRankIndex(fdb::Database& db, const StoreLocation& location,
                         const RecordMetaData& metaData, int count) {
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData);
    for (int64_t id = 0; id < count; ++id) {
      check(store.scoreForRank(kPriceRankIndex, {}, id) == fdb::Tuple{priceOf(id)},
            "score of rank " + std::to_string(id));
    }
    check(!store.scoreForRank(kPriceRankIndex, {}, count), "no score past the last rank");
    auto cursor = store.scanIndex(kPriceRankIndex, TupleRange::all(), std::nullopt, {});
    int64_t id = 0;
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next(), ++id) {
      check(r.value().key == (fdb::Tuple{priceOf(id), id}), "rank entry " + std::to_string(id));
    }
    check(id == count, std::to_string(id) + " rank entries, not " + std::to_string(count));
  });
}

// ---- Read fixtures ---------------------------------------------------------------------

enum class Fixture { kPlain, kIndexed, kSplitVersioned };

struct ReadFixture {
  StoreLocation location = StoreLocation::rawPrefix("");
  RecordMetaData metaData;
  std::vector<uint64_t> payloadSums;  // by ID
  int keysPerRecord = 1;
  bool versions = false;
  ResultDigest digest;  // of the records read back after seeding
};

Layout layoutOf(Fixture fixture) {
  switch (fixture) {
    case Fixture::kPlain: return Layout{};
    case Fixture::kIndexed: return Layout{.priceIndex = true};
    case Fixture::kSplitVersioned: return Layout{.split = true, .versions = true};
  }
  return Layout{};
}

const char* storeNameOf(Fixture fixture) {
  switch (fixture) {
    case Fixture::kPlain: return "plain";
    case Fixture::kIndexed: return "indexed";
    case Fixture::kSplitVersioned: return "split_versioned";
  }
  return "";
}

// IDs 0..999 with small payloads, seeded once per arm and read back.
const ReadFixture& readFixture(Arm arm, Fixture fixture) {
  static std::optional<ReadFixture> fixtures[2][3];
  std::optional<ReadFixture>& slot =
      fixtures[arm == Arm::kNoDelay ? 0 : 1][static_cast<int>(fixture)];
  if (slot) return *slot;
  fdb::Database& db = databaseFor(arm);
  ReadFixture made{
      locationOf(storeNameOf(fixture)), benchMetaData(layoutOf(fixture)), {}, 1, false, {}};
  made.versions = fixture == Fixture::kSplitVersioned;
  made.keysPerRecord = made.versions ? 2 : 1;
  clearStore(db, made.location, made.metaData);
  for (int start = 0; start < kRecords; start += 100) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, made.location, made.metaData);
      for (int id = start; id < start + 100; ++id) store.saveRecord(makeOrder(id, kSmallPayload));
    });
  }
  for (int id = 0; id < kRecords; ++id) {
    made.payloadSums.push_back(checksum(payloadOf(id, kSmallPayload)));
  }
  checkRecords(
      db, made.location, made.metaData, kRecords, kSmallPayload,
      [&](int id) { return made.payloadSums[static_cast<size_t>(id)]; }, made.keysPerRecord,
      made.versions, &made.digest);
  if (fixture == Fixture::kIndexed) checkPriceIndex(db, made.location, made.metaData, kRecords);
  slot = std::move(made);
  return *slot;
}

// ---- Write benchmarks ------------------------------------------------------------------

enum class Save {
  kSmall,
  kWithIndex,
  kSplit,
  kWithIndexVersioned,
  kWithVersionIndex,
  kWithCount,
  kWithSum,
  kWithMaxEver,
  kWithRankIndex
};

std::string_view aggregateOf(Save kind) {
  switch (kind) {
    case Save::kWithCount: return Index::kCount;
    case Save::kWithSum: return Index::kSum;
    case Save::kWithMaxEver: return Index::kMaxEver;
    default: return {};
  }
}

// Checks index "agg" against orders 0..count-1 for every customer: its count, price sum or
// highest price.
void checkAggregateIndex(fdb::Database& db, const StoreLocation& location,
                         const RecordMetaData& metaData, Save kind, int count) {
  const std::string_view type = aggregateOf(kind);
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, location, metaData);
    for (int64_t customer = 0; customer < 50; ++customer) {
      int64_t expected = 0;
      for (int64_t id = customer; id < count; id += 50) {
        expected = type == Index::kCount ? expected + 1
                   : type == Index::kSum ? expected + priceOf(id)
                                         : std::max(expected, priceOf(id));
      }
      const KeyExpression operand = type == Index::kCount
                                        ? grouping(field("customer"), 0)
                                        : field("price").groupBy(field("customer"));
      const fdb::Tuple value = store.evaluateAggregateFunction(
          {"Order"}, IndexAggregateFunction{std::string(type), operand},
          fdb::Tuple{customerOf(customer)});
      check(value == fdb::Tuple{expected}, "aggregate of customer " + std::to_string(customer));
    }
  });
}

void runSave(benchmark::State& state, Arm arm, Save kind) {
  fdb::Database& db = databaseFor(arm);
  const Layout layout =
      kind == Save::kWithIndex            ? Layout{.priceIndex = true}
      : kind == Save::kSplit              ? Layout{.split = true}
      : kind == Save::kWithIndexVersioned ? Layout{.priceIndex = true, .versions = true}
      : kind == Save::kWithVersionIndex   ? Layout{.versions = true, .versionIndex = true}
      : kind == Save::kWithRankIndex      ? Layout{.rankIndex = true}
                                          : Layout{.aggregate = aggregateOf(kind)};
  const size_t payloadSize = kind == Save::kSplit ? kSplitPayload : kSmallPayload;
  const std::string storeName = kind == Save::kWithIndex            ? "save_indexed"
                                : kind == Save::kSplit              ? "save_split"
                                : kind == Save::kWithIndexVersioned ? "save_indexed_versioned"
                                : kind == Save::kWithVersionIndex   ? "save_version_indexed"
                                : kind == Save::kWithRankIndex      ? "save_rank_indexed"
                                : !aggregateOf(kind).empty()
                                    ? "save_" + std::string(aggregateOf(kind))
                                    : "save";
  const StoreLocation location = locationOf(storeName);
  const RecordMetaData metaData = benchMetaData(layout);
  clearStore(db, location, metaData);
  // One order, its ID and fields set per operation (short strings: no allocation); the
  // payload is order 0's for every ID.
  Order order = makeOrder(0, payloadSize);
  const uint64_t payloadSum = checksum(order.payload());
  std::vector<std::string> names, customers;
  for (int id = 0; id < kRecords; ++id) {
    names.push_back(nameOf(id));
    customers.push_back(customerOf(id));
  }
  OpMeter meter(db, state);
  int id = 0;
  try {
    for (auto _ : state) {
      if (id == kRecords) {  // only when run for more than the registered 1,000 iterations
        state.PauseTiming();
        clearStore(db, location, metaData);
        id = 0;
        state.ResumeTiming();
      }
      order.set_id(id);
      order.set_price(priceOf(id));
      order.set_name(names[static_cast<size_t>(id)]);
      order.set_quantity(quantityOf(id));
      order.set_customer(customers[static_cast<size_t>(id)]);
      meter.begin();
      runInContext(db, [&](RecordContext& context) {
        RecordStore store = RecordStore::open(context, location, metaData);
        store.saveRecord(order);
      });
      meter.end();
      ++id;
    }
    // After the loop: the timer has stopped.
    const int keysPerRecord = kind == Save::kSplit ? 3 : layout.versions ? 2 : 1;
    ResultDigest digest;
    checkRecords(
        db, location, metaData, id, payloadSize, [&](int) { return payloadSum; }, keysPerRecord,
        layout.versions, &digest);
    if (layout.priceIndex) checkPriceIndex(db, location, metaData, id);
    if (layout.versionIndex) checkVersionIndex(db, location, metaData, id);
    if (layout.rankIndex) checkPriceRankIndex(db, location, metaData, id);
    if (!aggregateOf(kind).empty()) checkAggregateIndex(db, location, metaData, kind, id);
    digest.publish(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  meter.report(state);
}

// ---- Read benchmarks -------------------------------------------------------------------

void runLoad(benchmark::State& state, Arm arm) {
  fdb::Database& db = databaseFor(arm);
  try {
    const ReadFixture& fixture = readFixture(arm, Fixture::kPlain);
    OpMeter meter(db, state);
    std::vector<std::optional<TypedRecord<Order>>> loaded(kRecords);
    AllocationCounts callAllocs;
    int64_t i = 0;
    ResultDigest digest = fixture.digest;  // and the first record loaded
    // Checks loaded[0..upTo) with the timer stopped, then empties them.
    auto validate = [&](int upTo) {
      for (int id = 0; id < upTo; ++id) {
        std::optional<TypedRecord<Order>>& slot = loaded[static_cast<size_t>(id)];
        check(slot.has_value(), "record " + std::to_string(id) + " loaded");
        check(slot->primaryKey == fdb::Tuple{id}, "primary key of " + std::to_string(id));
        check(
            isOrder(slot->record, id, kSmallPayload, fixture.payloadSums[static_cast<size_t>(id)]),
            "fields of record " + std::to_string(id));
        if (i <= kRecords && id == 0) addOrder(digest, slot->record, 1);
        slot.reset();
      }
    };
    for (auto _ : state) {
      const int64_t id = i % kRecords;
      meter.begin();
      runInContext(db, [&](RecordContext& context) {
        RecordStore store = RecordStore::open(context, fixture.location, fixture.metaData);
        const AllocationCounts before = allocationCounts();
        loaded[static_cast<size_t>(id)] = store.loadRecord<Order>(fdb::Tuple{id});
        callAllocs = callAllocs + (allocationCounts() - before);
      });
      meter.end();
      ++i;
      if (i % kRecords == 0) {
        state.PauseTiming();
        validate(kRecords);
        state.ResumeTiming();
      }
    }
    validate(static_cast<int>(i % kRecords));
    meter.report(state);
    digest.publish(state);
    state.counters["allocs_call"] =
        static_cast<double>(callAllocs.allocations) / static_cast<double>(std::max<int64_t>(i, 1));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void runScanRecords(benchmark::State& state, Arm arm, Fixture which) {
  fdb::Database& db = databaseFor(arm);
  try {
    const ReadFixture& fixture = readFixture(arm, which);
    OpMeter meter(db, state);
    std::vector<LoadedRecord> rows;
    rows.reserve(kScanRows);
    AllocationCounts callAllocs;
    int64_t i = 0;
    ResultDigest digest = fixture.digest;  // and the first scan's rows
    for (auto _ : state) {
      const int start = static_cast<int>((i * kScanRows) % kRecords);
      meter.begin();
      const NoNextReason reason = runInContext(db, [&](RecordContext& context) {
        rows.clear();
        RecordStore store = RecordStore::open(context, fixture.location, fixture.metaData);
        const AllocationCounts before = allocationCounts();
        CursorPtr<LoadedRecord> cursor =
            store.scanRecords(TupleRange::between(fdb::Tuple{start}, fdb::Tuple{start + kScanRows}),
                              std::nullopt, ScanProperties());
        CursorResult<LoadedRecord> r = cursor->next();
        for (; r.hasValue(); r = cursor->next()) rows.push_back(std::move(r.value()));
        callAllocs = callAllocs + (allocationCounts() - before);
        return r.noNextReason();
      });
      meter.end();
      ++i;
      state.PauseTiming();
      check(reason == NoNextReason::kSourceExhausted, "the scan ends SOURCE_EXHAUSTED");
      check(rows.size() == kScanRows, std::to_string(rows.size()) + " rows, not 100");
      for (int k = 0; k < kScanRows; ++k) {
        const LoadedRecord& row = rows[static_cast<size_t>(k)];
        const int id = start + k;
        const auto& order = dynamic_cast<const Order&>(*row.record);
        check(row.primaryKey == fdb::Tuple{id}, "primary key " + std::to_string(id));
        check(isOrder(order, id, kSmallPayload, fixture.payloadSums[static_cast<size_t>(id)]),
              "fields of record " + std::to_string(id));
        check(row.size.keyCount == fixture.keysPerRecord, "keys of record " + std::to_string(id));
        check(row.version.has_value() == fixture.versions, "version of " + std::to_string(id));
        if (i == 1) addOrder(digest, order, row.size.keyCount);
      }
      rows.clear();
      state.ResumeTiming();
    }
    meter.report(state);
    digest.publish(state);
    state.counters["allocs_call"] =
        static_cast<double>(callAllocs.allocations) / static_cast<double>(std::max<int64_t>(i, 1));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void runScanIndexRecords(benchmark::State& state, Arm arm, size_t pipelineSize) {
  fdb::Database& db = databaseFor(arm);
  try {
    const ReadFixture& fixture = readFixture(arm, Fixture::kIndexed);
    OpMeter meter(db, state);
    std::vector<FetchedRecord> rows;
    rows.reserve(kRecords);
    AllocationCounts callAllocs;
    int64_t i = 0;
    ResultDigest digest = fixture.digest;  // and the first scan's rows
    for (auto _ : state) {
      meter.begin();
      const NoNextReason reason = runInContext(db, [&](RecordContext& context) {
        rows.clear();
        RecordStore store = RecordStore::open(context, fixture.location, fixture.metaData);
        const AllocationCounts before = allocationCounts();
        CursorPtr<FetchedRecord> cursor = store.scanIndexRecords(
            kPriceIndex, TupleRange::all(), std::nullopt, ScanProperties(),
            IndexFetchMethod::kScanAndFetch, IndexOrphanBehavior::kError, pipelineSize);
        CursorResult<FetchedRecord> r = cursor->next();
        for (; r.hasValue(); r = cursor->next()) rows.push_back(std::move(r.value()));
        callAllocs = callAllocs + (allocationCounts() - before);
        return r.noNextReason();
      });
      meter.end();
      ++i;
      state.PauseTiming();
      check(reason == NoNextReason::kSourceExhausted, "the scan ends SOURCE_EXHAUSTED");
      check(rows.size() == kRecords, std::to_string(rows.size()) + " rows, not 1000");
      for (int id = 0; id < kRecords; ++id) {
        const FetchedRecord& row = rows[static_cast<size_t>(id)];
        check(row.record.has_value(), "record " + std::to_string(id) + " fetched");
        check(row.entry.primaryKey() == fdb::Tuple{id}, "entry " + std::to_string(id));
        const auto& order = dynamic_cast<const Order&>(*row.record->record);
        check(isOrder(order, id, kSmallPayload, fixture.payloadSums[static_cast<size_t>(id)]),
              "fields of record " + std::to_string(id));
        if (i == 1) addOrder(digest, order, row.record->size.keyCount);
      }
      rows.clear();
      state.ResumeTiming();
    }
    meter.report(state);
    digest.publish(state);
    state.counters["allocs_call"] =
        static_cast<double>(callAllocs.allocations) / static_cast<double>(std::max<int64_t>(i, 1));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// ---- Engine-only baselines -------------------------------------------------------------
//
// The key-value reads the record layer makes for LoadRecord and ScanIndexRecords/serial,
// made directly on fdb::Transaction with every key computed before the timer: a transaction,
// the store open's two reads (the first key of the store at snapshot, the index states), the
// record's range read (every key under (1, pk)), and for the index scan the index's batches
// in iterator mode, one record read per entry after it. What the engine allocates for those
// reads; the record layer's own share is the total minus this (an estimate: the record layer
// also builds its keys and selectors, which these baselines do not).

struct EngineKeys {
  fdb::KeyRange store;
  fdb::KeyRange indexStates;
  fdb::Bytes header;
  fdb::KeyRange index;
  std::vector<fdb::KeySelector> recordBegin, recordEnd;  // by ID
};

EngineKeys engineKeys(const ReadFixture& fixture) {
  EngineKeys keys;
  const fdb::Subspace store = subspaceOf(fixture.location);
  keys.store = store.range();
  keys.indexStates = store.subspace(fdb::Tuple{5}).range();
  keys.header = store.pack(fdb::Tuple{0});
  keys.index = store.subspace(fdb::Tuple{2, std::string(kPriceIndex)}).range();
  const fdb::Subspace records = store.subspace(fdb::Tuple{1});
  for (int id = 0; id < kRecords; ++id) {
    const fdb::Bytes prefix = records.pack(fdb::Tuple{id});
    keys.recordBegin.push_back(fdb::KeySelector::firstGreaterOrEqual(prefix + '\x00'));
    keys.recordEnd.push_back(fdb::KeySelector::firstGreaterOrEqual(prefix + '\xff'));
  }
  return keys;
}

// The store open's reads; what they found must be a header.
void engineOpen(fdb::Transaction& tr, const EngineKeys& keys) {
  fdb::RangeOptions firstKey;
  firstKey.limit = 1;
  fdb::Future<fdb::RangeResult> first = tr.snapshot().getRange(keys.store, firstKey);
  fdb::RangeOptions all;
  all.mode = fdb::StreamingMode::kWantAll;
  fdb::Future<fdb::RangeResult> states = tr.getRange(keys.indexStates, all);
  tr.addReadConflictKey(keys.header);
  const fdb::RangeResult header = std::move(first).get();
  check(header.rows.size() == 1 && header.rows[0].key == keys.header, "the store header");
  benchmark::DoNotOptimize(std::move(states).get());
}

fdb::RangeResult engineLoad(fdb::Transaction& tr, const EngineKeys& keys, size_t id) {
  fdb::RangeOptions options;
  options.mode = fdb::StreamingMode::kWantAll;
  return tr.getRange(keys.recordBegin[id], keys.recordEnd[id], options).get();
}

void runEngineLoad(benchmark::State& state, Arm arm) {
  fdb::Database& db = databaseFor(arm);
  try {
    const ReadFixture& fixture = readFixture(arm, Fixture::kPlain);
    const EngineKeys keys = engineKeys(fixture);
    OpMeter meter(db, state);
    int64_t i = 0;
    size_t totalValueBytes = 0;
    for (auto _ : state) {
      const size_t id = static_cast<size_t>(i % kRecords);
      meter.begin();
      fdb::Transaction tr = db.createTransaction();
      engineOpen(tr, keys);
      const fdb::RangeResult record = engineLoad(tr, keys, id);
      tr.commit().get();
      meter.end();
      ++i;
      totalValueBytes += record.rows.size() == 1 ? record.rows[0].value.size() : 0;
    }
    check(totalValueBytes > 0 || i == 0, "records read");
    meter.report(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void runEngineIndexScan(benchmark::State& state, Arm arm) {
  fdb::Database& db = databaseFor(arm);
  try {
    const ReadFixture& fixture = readFixture(arm, Fixture::kIndexed);
    const EngineKeys keys = engineKeys(fixture);
    OpMeter meter(db, state);
    for (auto _ : state) {
      meter.begin();
      fdb::Transaction tr = db.createTransaction();
      engineOpen(tr, keys);
      fdb::KeySelector begin = fdb::KeySelector::firstGreaterOrEqual(keys.index.begin);
      const fdb::KeySelector end = fdb::KeySelector::firstGreaterOrEqual(keys.index.end);
      size_t entries = 0, records = 0;
      for (int iteration = 1;; ++iteration) {
        fdb::RangeOptions options;
        options.mode = fdb::StreamingMode::kIterator;
        options.iteration = iteration;
        const fdb::RangeResult batch = tr.getRange(begin, end, options).get();
        for (size_t k = 0; k < batch.rows.size(); ++k, ++entries) {
          records += engineLoad(tr, keys, entries).rows.size();
        }
        if (!batch.more || batch.rows.empty()) break;
        begin = fdb::KeySelector::firstGreaterThan(batch.rows.back().key);
      }
      tr.commit().get();
      meter.end();
      state.PauseTiming();
      check(entries == kRecords && records == kRecords, "1000 entries and records");
      state.ResumeTiming();
    }
    meter.report(state);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void registerAll() {
  for (Arm arm : {Arm::kNoDelay, Arm::kDelay250}) {
    const std::string suffix = std::string("/") + armName(arm);
    auto reg = [&](const std::string& name, auto fn) {
      return benchmark::RegisterBenchmark((name + suffix).c_str(),
                                          [arm, fn](benchmark::State& s) { fn(s, arm); })
          ->UseRealTime();
    };
    for (auto [name, kind] :
         {std::pair{"SaveRecord", Save::kSmall}, std::pair{"SaveRecordWithIndex", Save::kWithIndex},
          std::pair{"SaveSplitRecord", Save::kSplit},
          std::pair{"SaveRecordWithIndex/value_versioned", Save::kWithIndexVersioned},
          std::pair{"SaveRecordWithIndex/version", Save::kWithVersionIndex},
          std::pair{"SaveRecordWithIndex/count", Save::kWithCount},
          std::pair{"SaveRecordWithIndex/sum", Save::kWithSum},
          std::pair{"SaveRecordWithIndex/max_ever", Save::kWithMaxEver},
          std::pair{"SaveRecordWithIndex/rank", Save::kWithRankIndex}}) {
      reg(name, [kind](benchmark::State& s, Arm a) { runSave(s, a, kind); })->Iterations(kRecords);
    }
    reg("LoadRecord", runLoad);
    reg("ScanRecords", [](benchmark::State& s, Arm a) { runScanRecords(s, a, Fixture::kPlain); });
    reg("ScanRecordsSplitVersioned",
        [](benchmark::State& s, Arm a) { runScanRecords(s, a, Fixture::kSplitVersioned); });
    reg("ScanIndexRecords/serial",
        [](benchmark::State& s, Arm a) { runScanIndexRecords(s, a, 1); });
    reg("ScanIndexRecords/pipelined",
        [](benchmark::State& s, Arm a) { runScanIndexRecords(s, a, 10); });
    reg("LoadRecord/engine_only", runEngineLoad);
    reg("ScanIndexRecords/engine_only", runEngineIndexScan);
  }
}

}  // namespace
}  // namespace rl::bench

int main(int argc, char** argv) {
  rl::bench::retainFreedHeapForLargeRecords();
  rl::bench::registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  rl::bench::addLoadAverageContext();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
