// Loaded records live on arenas shared with their cursor's other records: a record stays
// valid as long as it is held (after its cursor, store and transaction are gone), rows moved
// around read the same, and a long scan moves on to new arenas.
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record_store_test_util.h"
#include "rl/store/record_arena.h"

namespace rl::store_test {
namespace {

class RecordArenaTest : public RecordStoreTest {
 protected:
  void SetUp() override {
    withStore([](RecordStore& store) {
      for (int i = 1; i <= 6; ++i) {
        Order order = makeOrder(
            i, "a name long enough to leave the inline buffer " + std::to_string(i), 100 - i);
        order.add_tags("tag-" + std::to_string(i));
        if (i == 3) order.set_payload(std::string(150'000, 'p'));  // split in two chunks
        store.saveRecord(order);
      }
    });
  }

  static std::string nameOf(int64_t id) {
    return "a name long enough to leave the inline buffer " + std::to_string(id);
  }
  static void expectOrder(const LoadedRecord& row, int64_t id) {
    const Order& order = row.as<Order>();
    EXPECT_EQ(order.id(), id);
    EXPECT_EQ(order.name(), nameOf(id));
    ASSERT_EQ(order.tags_size(), 1);
    EXPECT_EQ(order.tags(0), "tag-" + std::to_string(id));
    EXPECT_EQ(order.payload().size(), id == 3 ? 150'000u : 0u);
  }
};

TEST_F(RecordArenaTest, ScannedRecordsOutliveTheirCursorStoreAndTransaction) {
  std::vector<LoadedRecord> kept;
  withStore([&](RecordStore& store) {
    auto cursor = store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties());
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
      if (r.value().primaryKey.getInt(0) % 2 == 1) kept.push_back(std::move(r.value()));
    }
  });
  ASSERT_EQ(kept.size(), 3u);
  for (size_t i = 0; i < kept.size(); ++i) expectOrder(kept[i], 2 * static_cast<int64_t>(i) + 1);
  // The rows share one arena: letting go of some leaves the others as they were.
  kept.erase(kept.begin());
  expectOrder(kept[0], 3);
  expectOrder(kept[1], 5);
}

TEST_F(RecordArenaTest, FetchedRecordsOutliveTheirCursorAndReadTheSameMoved) {
  for (IndexFetchMethod method :
       {IndexFetchMethod::kScanAndFetch, IndexFetchMethod::kUseRemoteFetch}) {
    std::optional<FetchedRecord> last;
    std::shared_ptr<const google::protobuf::Message> first;
    withStore([&](RecordStore& store) {
      auto cursor = store.scanIndexRecords("Order$price", TupleRange::all(), std::nullopt,
                                           ScanProperties(), method);
      for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
        if (!first) first = r.value().record->record;  // a copy of the pointer
        last = std::move(r.value());                   // the row moved out
      }
      cursor.reset();  // the cursor goes first, the rows stay
    });
    ASSERT_TRUE(last && last->record && first);
    // Price order is 100 - id: the last row is record 1, the first record 6.
    expectOrder(*last->record, 1);
    EXPECT_EQ(last->entry.primaryKey(), fdb::Tuple{1});
    EXPECT_EQ(dynamic_cast<const Order&>(*first).id(), 6);
    FetchedRecord moved = std::move(*last);
    last.reset();
    expectOrder(*moved.record, 1);
  }
}

TEST_F(RecordArenaTest, ALoadedRecordOutlivesItsStore) {
  std::optional<LoadedRecord> loaded =
      withStore([](RecordStore& store) { return store.loadRecord(fdb::Tuple{3}); });
  ASSERT_TRUE(loaded.has_value());
  expectOrder(*loaded, 3);
  LoadedRecord copy = *loaded;  // copies share the message
  loaded.reset();
  expectOrder(copy, 3);
}

TEST_F(RecordArenaTest, RunTimeSchemaRecordsLiveOnArenasToo) {
  RecordMetaData dynamicMetaData =
      loadRecordMetaData("store_test_records.proto", {RL_TEST_PROTO_DIR});
  std::vector<LoadedRecord> rows;
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), dynamicMetaData);
    auto cursor = store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties());
    for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
      rows.push_back(std::move(r.value()));
    }
  });
  ASSERT_EQ(rows.size(), 6u);
  for (const LoadedRecord& row : rows) {
    const google::protobuf::Message& message = *row.record;
    const auto* type = message.GetDescriptor();
    const auto* reflection = message.GetReflection();
    const int64_t id = reflection->GetInt64(message, type->FindFieldByName("id"));
    EXPECT_EQ(reflection->GetString(message, type->FindFieldByName("name")), nameOf(id));
    EXPECT_EQ(reflection->GetRepeatedString(message, type->FindFieldByName("tags"), 0),
              "tag-" + std::to_string(id));
    EXPECT_NE(message.GetArena(), nullptr);
  }
}

TEST(RecordArenas, MessagesShareAnArenaUntilItIsFullThenANewOneStarts) {
  store::RecordArenas arenas;
  const Order& prototype = Order::default_instance();
  std::shared_ptr<google::protobuf::Message> first = arenas.newMessage(prototype);
  dynamic_cast<Order&>(*first).set_name(std::string(100, 'f'));
  google::protobuf::Arena* firstArena = first->GetArena();
  ASSERT_NE(firstArena, nullptr);
  std::shared_ptr<google::protobuf::Message> second = arenas.newMessage(prototype);
  EXPECT_EQ(second->GetArena(), firstArena);
  // Fill the arena: repeated fields' arrays are arena memory.
  int made = 0;
  std::shared_ptr<google::protobuf::Message> later = second;
  while (later->GetArena() == firstArena) {
    ASSERT_LT(++made, 100'000) << "the arena never filled";
    auto& order = dynamic_cast<Order&>(*later);
    const std::string tag = "tag";
    for (int i = 0; i < 64; ++i) order.add_tags(tag);
    later = arenas.newMessage(prototype);
  }
  EXPECT_NE(later->GetArena(), nullptr);
  second.reset();
  // The first arena lives as long as `first` does.
  EXPECT_EQ(dynamic_cast<const Order&>(*first).name(), std::string(100, 'f'));
}

}  // namespace
}  // namespace rl::store_test
