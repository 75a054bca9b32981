// Shared fixtures of the record store tests: an in-memory database, the test schema's
// metadata, and helpers to open a store and read raw keys.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "fdb/database.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/store/record_store.h"
#include "store_test_records.pb.h"
#include "test_database.h"

namespace rl::store_test {

// The store sits at an empty prefix, so keys read back are exactly the bytes docs/format.md shows.
inline StoreLocation testLocation() { return StoreLocation::rawPrefix(""); }

inline RecordMetaData testMetaData() {
  return RecordMetaData::build(rl::store_test::Order::descriptor()->file());
}

inline rl::store_test::Order makeOrder(int64_t id, std::string name, int64_t price = 0,
                                       std::optional<std::string> email = std::nullopt) {
  rl::store_test::Order order;
  order.set_id(id);
  order.set_name(std::move(name));
  order.set_price(price);
  if (email) order.set_email(*email);
  return order;
}

class RecordStoreTest : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();
  RecordMetaData metaData = testMetaData();

  template <typename F>
  auto run(F&& fn) {
    return runInContext(db, std::forward<F>(fn));
  }
  template <typename F>
  auto withStore(F&& fn, RecordStoreOptions options = {}) {
    return runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, testLocation(), metaData, options);
      return fn(store);
    });
  }
  // Every key-value in the database (outside the system keys).
  std::vector<fdb::KeyValue> allKeyValues() {
    return run([](RecordContext& context) {
      return context.transaction().getRangeAll(fdb::KeyRange{"", "\xff"});
    });
  }
  std::vector<fdb::Bytes> keysWithPrefix(std::string_view prefix) {
    std::vector<fdb::Bytes> keys;
    for (const fdb::KeyValue& row : allKeyValues()) {
      if (std::string_view(row.key).starts_with(prefix)) keys.push_back(row.key);
    }
    return keys;
  }
  std::optional<fdb::Bytes> rawGet(std::string_view key) {
    return run([&](RecordContext& context) { return context.transaction().get(key).get(); });
  }
};

}  // namespace rl::store_test
