// Golden bytes of what a record store writes, written out from docs/format.md ("Store
// keyspace", "Store header", "Records", "Record versions", "VALUE index entries"), never
// copied from our own output.
#include <gtest/gtest.h>

#include "record_store_test_util.h"
#include "rl/metadata/metadata_builder.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

class RecordStoreFormatTest : public RecordStoreTest {};

TEST_F(RecordStoreFormatTest, NewStoreHeaderIsDataStoreInfoAtTupleZero) {
  ASSERT_EQ(metaData.version(), 3);  // three indexes declared by field options
  RecordStoreOptions options;
  options.clock = [] { return uint64_t{1000}; };
  withStore([](RecordStore& store) { EXPECT_TRUE(store.headerChanged()); }, options);
  const std::vector<fdb::KeyValue> rows = allKeyValues();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, "\x14"s);  // (0)
  // formatVersion = 7 (field 1), metaDataversion = 3 (field 2), lastUpdateTime = 1000
  // (field 5, varint e8 07); nothing else set (cacheable stays unset by default).
  EXPECT_EQ(rows[0].value, "\x08\x07\x10\x03\x28\xe8\x07"s);
}

TEST_F(RecordStoreFormatTest, UnsplitRecordAndInlineVersionKeys) {
  std::string versionstamp;
  run([&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    Order order;
    order.set_id(42);
    order.set_name("foo");
    StoredRecord saved = store.saveRecord(order);
    EXPECT_EQ(saved.primaryKey, fdb::Tuple{42});
    ASSERT_TRUE(saved.version.has_value());
    EXPECT_FALSE(saved.version->isComplete());
  });
  // Record (1, 42, 0): the union message with field 1 (_Order) holding {id: 42, name: "foo"}.
  const std::optional<fdb::Bytes> record = rawGet("\x15\x01\x15\x2a\x14"s);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(*record,
            "\x0a\x07\x08\x2a\x12\x03"
            "foo"s);
  // Version (1, 42, -1): 0x33 + 10-byte versionstamp + 2-byte local version 0.
  const std::optional<fdb::Bytes> version = rawGet("\x15\x01\x15\x2a\x13\xfe"s);
  ASSERT_TRUE(version.has_value());
  ASSERT_EQ(version->size(), 13u);
  EXPECT_EQ((*version)[0], '\x33');
  EXPECT_EQ(version->substr(11), "\x00\x00"s);
}

TEST_F(RecordStoreFormatTest, ValueIndexEntryKeyAndEmptyValue) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("idx", field("name")));
  metaData = builder.build();
  withStore([](RecordStore& store) { store.saveRecord(makeOrder(42, "foo")); });
  const std::optional<fdb::Bytes> entry = rawGet(
      "\x15\x02\x02idx\x00\x02"
      "foo\x00\x15\x2a"s);  // (2, "idx", "foo", 42)
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(*entry, "");
}

TEST_F(RecordStoreFormatTest, IndexEntriesTrimPrimaryKeyColumnsAlreadyIndexed) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("by_name_id", concat(field("name"), field("id"))));
  builder.addIndex("Order", Index("by_id_name", concat(field("id"), field("name"))));
  metaData = builder.build();
  withStore([](RecordStore& store) { store.saveRecord(makeOrder(42, "foo")); });
  // (2, "by_name_id", "foo", 42): the primary key (42) is the index's second column.
  EXPECT_EQ(keysWithPrefix("\x15\x02\x02"
                           "by_name_id\x00"s),
            std::vector<fdb::Bytes>{"\x15\x02\x02"
                                    "by_name_id\x00\x02"
                                    "foo\x00\x15\x2a"s});
  EXPECT_EQ(keysWithPrefix("\x15\x02\x02"
                           "by_id_name\x00"s),
            std::vector<fdb::Bytes>{"\x15\x02\x02"
                                    "by_id_name\x00\x15\x2a\x02"
                                    "foo\x00"s});
  // Scanning rebuilds the primary key from the index column.
  withStore([](RecordStore& store) {
    auto cursor = store.scanIndex("by_name_id", TupleRange::all(), std::nullopt, ScanProperties());
    auto result = cursor->next();
    ASSERT_TRUE(result.hasValue());
    EXPECT_EQ(result.value().key, (fdb::Tuple{"foo", 42}));
    EXPECT_EQ(result.value().primaryKey, fdb::Tuple{42});
    EXPECT_TRUE(result.value().value.empty());
  });
}

TEST_F(RecordStoreFormatTest, SplitRecordChunksAndCoveringIndexValue) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order",
                   Index("covering", keyWithValue(concat(field("name"), field("price")), 1)));
  metaData = builder.build();
  Order order = makeOrder(42, "foo", 7);
  order.set_payload(std::string(250'000, 'x'));
  withStore([&](RecordStore& store) {
    StoredRecord saved = store.saveRecord(order);
    EXPECT_TRUE(saved.size.isSplit);
  });
  // Chunks (1, 42, 1), (1, 42, 2), (1, 42, 3) of 100,000, 100,000 and the rest; the version
  // (1, 42, -1) sorts first.
  EXPECT_EQ(keysWithPrefix("\x15\x01"s),
            (std::vector<fdb::Bytes>{"\x15\x01\x15\x2a\x13\xfe"s, "\x15\x01\x15\x2a\x15\x01"s,
                                     "\x15\x01\x15\x2a\x15\x02"s, "\x15\x01\x15\x2a\x15\x03"s}));
  EXPECT_EQ(rawGet("\x15\x01\x15\x2a\x15\x01"s)->size(), 100'000u);
  // The covering index: key (2, "covering", "foo", 42), value Tuple(7) = 15 07.
  EXPECT_EQ(rawGet("\x15\x02\x02"
                   "covering\x00\x02"
                   "foo\x00\x15\x2a"s),
            "\x15\x07"s);
  withStore([&](RecordStore& store) {
    auto back = store.loadRecord<Order>(fdb::Tuple{42});
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->record.payload(), order.payload());
    auto cursor = store.scanIndex("covering", TupleRange::all(), std::nullopt, ScanProperties());
    auto result = cursor->next();
    ASSERT_TRUE(result.hasValue());
    EXPECT_EQ(result.value().value, fdb::Tuple{7});
  });
}

TEST_F(RecordStoreFormatTest, IndexStateKeysAreTupleCodesUnderTheIndexName) {
  withStore([](RecordStore& store) {
    EXPECT_TRUE(store.markIndexWriteOnly("Order$price"));
    EXPECT_TRUE(store.markIndexDisabled("Order$name"));
  });
  // (5, "Order$price") = Tuple(1); (5, "Order$name") = Tuple(2).
  EXPECT_EQ(rawGet("\x15\x05\x02Order$price\x00"s), "\x15\x01"s);
  EXPECT_EQ(rawGet("\x15\x05\x02Order$name\x00"s), "\x15\x02"s);
  withStore([](RecordStore& store) {
    EXPECT_EQ(store.indexState("Order$price"), IndexState::kWriteOnly);
    EXPECT_EQ(store.indexState("Order$name"), IndexState::kDisabled);
    EXPECT_EQ(store.indexState("Order$email"), IndexState::kReadable);
    store.markIndexReadable("Order$price");
  });
  EXPECT_FALSE(rawGet("\x15\x05\x02Order$price\x00"s).has_value());  // READABLE: no key
}

TEST_F(RecordStoreFormatTest, OldFormatVersionsLiveAtKeyspaceEight) {
  RecordStoreOptions options;
  options.formatVersion = 5;
  withStore(
      [](RecordStore& store) {
        EXPECT_TRUE(store.oldVersionFormat());
        store.saveRecord(makeOrder(42, "foo"));
      },
      options);
  // (8, 42) = the raw 12-byte version; no inline (1, 42, -1).
  const std::optional<fdb::Bytes> version = rawGet("\x15\x08\x15\x2a"s);
  ASSERT_TRUE(version.has_value());
  EXPECT_EQ(version->size(), 12u);
  EXPECT_FALSE(rawGet("\x15\x01\x15\x2a\x13\xfe"s).has_value());
  EXPECT_TRUE(rawGet("\x15\x01\x15\x2a\x14"s).has_value());
  withStore(
      [&](RecordStore& store) {
        auto back = store.loadRecord<Order>(fdb::Tuple{42});
        ASSERT_TRUE(back.has_value());
        ASSERT_TRUE(back->version.has_value());
        EXPECT_EQ(back->version->toBytes(), *version);
      },
      options);
}

}  // namespace
}  // namespace rl::store_test
