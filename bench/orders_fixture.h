// The Orders fixture of the index suites (indexfetch.cc, planskip.cc; docs/benchmarks.md):
// 1,000 Orders (IDs 0..999, price 10 * id + 5, so the index order is the ID order) behind the
// VALUE index price_idx, per arm in one in-memory database (`rl`: no added delay;
// `rl_delay250`: a simulated 250 us one-way delay per round trip), in two stores, each seeded
// and read back when first used, before any timer:
//   small  records of one key-value each (a 100-byte payload);
//   split  records with a 100,000-byte payload, stored as two chunks.
//
//   ArmFixture& fixture = fixtureFor(Arm::kNoDelay);
//   const Store& store = storeFor(fixture, Size::kSmall);
//   runInContext(fixture.db, [&](RecordContext& context) {
//     RecordStore records = RecordStore::open(context, store.location, fixture.metaData);
//     ...
//   });
//
// Thread-safety: one benchmark thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fdb/database.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/tuple_range.h"
#include "rl/metadata/metadata.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"
#include "rl_bench_util.h"

namespace rl::bench {

enum class Arm { kNoDelay, kDelay250 };
enum class Size { kSmall, kSplit };

inline constexpr size_t kSmallPayload = 100;
inline constexpr size_t kSplitPayload = 100'000;  // with the other fields: two chunks

inline const char* armName(Arm arm) { return arm == Arm::kNoDelay ? "rl" : "rl_delay250"; }
inline const char* sizeName(Size size) { return size == Size::kSmall ? "small" : "split"; }
inline size_t payloadSize(Size size) {
  return size == Size::kSmall ? kSmallPayload : kSplitPayload;
}
inline int keysPerRecord(Size size) { return size == Size::kSmall ? 1 : 2; }

inline void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("validation failed: " + what);
}

struct Store {
  StoreLocation location = StoreLocation::rawPrefix("");
  std::vector<uint64_t> payloadSums;  // by ID
};

struct ArmFixture {
  fdb::Database db;
  RecordMetaData metaData;
  std::optional<Store> stores[2];  // by Size: seeded when first asked for (storeFor)
};

// Seeds one store with IDs 0..999 and reads every record and index entry back.
inline Store seed(fdb::Database& db, const RecordMetaData& metaData, Size size) {
  Store store{StoreLocation::tuple(fdb::Tuple{"indexfetch", sizeName(size)}), {}};
  const int perTransaction = size == Size::kSmall ? 250 : 20;  // under 10 MB a transaction
  for (int start = 0; start < kRecords; start += perTransaction) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore records = RecordStore::open(context, store.location, metaData);
      for (int id = start; id < start + perTransaction; ++id) {
        records.saveRecord(makeOrder(id, payloadSize(size)));
      }
    });
  }
  for (int id = 0; id < kRecords; ++id) {
    store.payloadSums.push_back(checksum(payloadOf(id, payloadSize(size))));
  }
  int seen = 0;
  for (int start = 0; start < kRecords; start += 100) {
    runInContext(db, [&](RecordContext& context) {
      RecordStore records = RecordStore::open(context, store.location, metaData);
      auto cursor = records.scanRecords(
          TupleRange::between(fdb::Tuple{start}, fdb::Tuple{start + 100}), std::nullopt, {});
      for (auto r = cursor->next(); r.hasValue(); r = cursor->next(), ++seen) {
        const auto& order = dynamic_cast<const Order&>(*r.value().record);
        check(isOrder(order, seen, payloadSize(size), store.payloadSums[static_cast<size_t>(seen)]),
              "seeded record " + std::to_string(seen));
        check(r.value().size.keyCount == keysPerRecord(size),
              "keys of seeded record " + std::to_string(seen));
      }
    });
  }
  check(seen == kRecords, "1000 seeded records");
  runInContext(db, [&](RecordContext& context) {
    RecordStore records = RecordStore::open(context, store.location, metaData);
    auto cursor = records.scanIndex(kPriceIndex, TupleRange::all(), std::nullopt, {});
    int64_t id = 0;
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next(), ++id) {
      check(r.value().key == (fdb::Tuple{priceOf(id), id}), "index entry " + std::to_string(id));
    }
    check(id == kRecords, "1000 index entries");
  });
  return store;
}

inline ArmFixture& fixtureFor(Arm arm) {
  static std::optional<ArmFixture> fixtures[2];
  std::optional<ArmFixture>& slot = fixtures[arm == Arm::kNoDelay ? 0 : 1];
  if (!slot) {
    fdb::EngineOptions options;
    options.oneWayDelayMicros = arm == Arm::kNoDelay ? 0 : 250;
    slot = ArmFixture{fdb::Database::open("memory:", options),
                      benchMetaData(Layout{.priceIndex = true, .split = true}),
                      {}};
  }
  return *slot;
}

// The arm's store of `size`, seeded the first time it is asked for (so that a suite that
// reads only small records does not seed 100 MB of split ones).
inline const Store& storeFor(ArmFixture& fixture, Size size) {
  std::optional<Store>& slot = fixture.stores[size == Size::kSmall ? 0 : 1];
  if (!slot) slot = seed(fixture.db, fixture.metaData, size);
  return *slot;
}

}  // namespace rl::bench
