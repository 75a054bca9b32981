// The Record Layer's own range reads follow `more`: inside a transaction a read may stop early
// where it reaches a piece the transaction knows nothing about (docs/semantics.md, "Range
// reads"), here after a key or range the test reads first.
#include <gtest/gtest.h>

#include "record_store_test_util.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

class RangeReadsFollowMoreTest : public RecordStoreTest {};

// Opening a store reads every index state, even when a read of part of them came first.
TEST_F(RangeReadsFollowMoreTest, OpeningAStoreReadsEveryIndexState) {
  withStore([&](RecordStore& store) {
    store.markIndexWriteOnly("Order$email");
    store.markIndexWriteOnly("Order$price");
  });
  run([&](RecordContext& context) {
    // The states range (5, name) as far as "Order$f": "Order$email" is known, the rest not.
    const fdb::RangeResult part =
        context.transaction().getRange(fdb::KeyRange{"\x15\x05"s, "\x15\x05\x02Order$f"s}).get();
    ASSERT_EQ(part.rows.size(), 1u);
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    EXPECT_EQ(store.indexState("Order$email"), IndexState::kWriteOnly);
    EXPECT_EQ(store.indexState("Order$price"), IndexState::kWriteOnly);
  });
}

// recordExists looks past the version key, even when a read of it came first.
TEST_F(RangeReadsFollowMoreTest, RecordExistsLooksPastAKnownVersionKey) {
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(5, "e")); });
  // (1, 5): the record's keys in the records subspace (1); (1, 5, -1) its version key, before
  // (1, 5, 0) the record itself.
  const std::string prefix = "\x15\x01\x15\x05"s;
  withStore([&](RecordStore& store) {
    const fdb::RangeResult versionOnly =
        store.context().transaction().getRange(fdb::KeyRange{prefix, prefix + "\x14"}).get();
    ASSERT_EQ(versionOnly.rows.size(), 1u);
    EXPECT_TRUE(store.recordExists(fdb::Tuple{5}));
  });
}

}  // namespace
}  // namespace rl::store_test
