// Saving, loading, deleting records: save modes, split overwrites, typed and dynamic
// records, versions, deleteAllRecords and deleteRecordsWhere.
#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>

#include "record_store_test_util.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/proto_schema_loader.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

class RecordStoreRecordsTest : public RecordStoreTest {};

TEST_F(RecordStoreRecordsTest, SaveModesRefuseWhatTheyMust) {
  withStore([](RecordStore& store) {
    EXPECT_THROW(store.saveRecord(makeOrder(1, "a"), SaveMode::kUpdate),
                 RecordDoesNotExistException);
    store.saveRecord(makeOrder(1, "a"), SaveMode::kInsert);
    EXPECT_THROW(store.saveRecord(makeOrder(1, "b"), SaveMode::kInsert),
                 RecordAlreadyExistsException);
    store.saveRecord(makeOrder(1, "c"), SaveMode::kUpdate);
    Customer customer;
    customer.set_id(1);
    EXPECT_THROW(store.saveRecord(customer, SaveMode::kUpdate), RecordTypeChangedException);
    store.saveRecord(makeOrder(1, "d"));  // insert or update
    auto back = store.loadRecord<Order>(fdb::Tuple{1});
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->record.name(), "d");
  });
}

TEST_F(RecordStoreRecordsTest, LoadExistsDeleteAndCounters) {
  withStore([](RecordStore& store) {
    EXPECT_FALSE(store.loadRecord(fdb::Tuple{5}).has_value());
    EXPECT_FALSE(store.recordExists(fdb::Tuple{5}));
    store.saveRecord(makeOrder(5, "five", 50));
    EXPECT_TRUE(store.recordExists(fdb::Tuple{5}));
    EXPECT_TRUE(store.deleteRecord(fdb::Tuple{5}));
    EXPECT_FALSE(store.deleteRecord(fdb::Tuple{5}));
    EXPECT_FALSE(store.recordExists(fdb::Tuple{5}));
    EXPECT_EQ(store.counters().recordsSaved, 1);
    EXPECT_EQ(store.counters().recordsDeleted, 1);
    EXPECT_GT(store.counters().indexEntriesWritten, 0);
    EXPECT_EQ(store.counters().indexEntriesCleared, store.counters().indexEntriesWritten);
    EXPECT_GT(store.roundTrips().rangeReads, 0);
  });
  EXPECT_TRUE(keysWithPrefix("\x15\x01"s).empty());
  EXPECT_TRUE(keysWithPrefix("\x15\x02"s).empty());
}

TEST_F(RecordStoreRecordsTest, OverwritingSmallWithSplitAndBackLeavesNoStaleKeys) {
  Order big = makeOrder(7, "big");
  big.set_payload(std::string(230'000, 'b'));
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(7, "small")); });
  withStore([&](RecordStore& store) { store.saveRecord(big); });
  EXPECT_EQ(keysWithPrefix("\x15\x01\x15\x07"s).size(), 4u);  // version + 3 chunks
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(7, "small again")); });
  EXPECT_EQ(keysWithPrefix("\x15\x01\x15\x07"s),
            (std::vector<fdb::Bytes>{"\x15\x01\x15\x07\x13\xfe"s, "\x15\x01\x15\x07\x14"s}));
  withStore([&](RecordStore& store) {
    store.saveRecord(big);
    store.saveRecord(makeOrder(7, "same transaction"));
    auto back = store.loadRecord<Order>(fdb::Tuple{7});
    EXPECT_EQ(back->record.name(), "same transaction");
    EXPECT_FALSE(back->size.isSplit);
  });
  EXPECT_EQ(keysWithPrefix("\x15\x01\x15\x07"s).size(), 2u);
}

TEST_F(RecordStoreRecordsTest, UnsplitStoreRefusesLongRecords) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.setSplitLongRecords(false);
  metaData = builder.build();
  Order big = makeOrder(7, "big");
  big.set_payload(std::string(100'001, 'b'));
  withStore([&](RecordStore& store) {
    EXPECT_THROW(store.saveRecord(big), RecordCoreArgumentException);
  });
}

TEST_F(RecordStoreRecordsTest, VersionsAreCompleteAfterCommit) {
  std::string versionstamp;
  RecordVersion saved = RecordVersion::minVersion();
  {
    RecordContext context(db);
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    store.saveRecord(makeOrder(1, "one"));
    saved = *store.saveRecord(makeOrder(2, "two")).version;
    EXPECT_EQ(saved, RecordVersion::incomplete(1));
    // Before commit a load answers the incomplete version from the context.
    EXPECT_EQ(*store.loadRecord(fdb::Tuple{2})->version, RecordVersion::incomplete(1));
    context.commit();
    versionstamp = *context.committedVersionstamp();
  }
  withStore([&](RecordStore& store) {
    auto one = store.loadRecord(fdb::Tuple{1});
    auto two = store.loadRecord(fdb::Tuple{2});
    ASSERT_TRUE(one->version && two->version);
    EXPECT_TRUE(two->version->isComplete());
    EXPECT_EQ(*two->version, saved.withCommittedVersion(versionstamp));
    EXPECT_LT(*one->version, *two->version);
  });
}

TEST_F(RecordStoreRecordsTest, VersionstampSaveBehaviors) {
  withStore([](RecordStore& store) {
    EXPECT_FALSE(store
                     .saveRecord(makeOrder(1, "a"), SaveMode::kInsertOrUpdate, std::nullopt,
                                 VersionstampSaveBehavior::kNoVersion)
                     .version);
    EXPECT_FALSE(store
                     .saveRecord(makeOrder(2, "b"), SaveMode::kInsertOrUpdate, std::nullopt,
                                 VersionstampSaveBehavior::kIfPresent)
                     .version);
    const RecordVersion given = RecordVersion::firstInDBVersion(12345);
    EXPECT_EQ(*store
                   .saveRecord(makeOrder(3, "c"), SaveMode::kInsertOrUpdate, given,
                               VersionstampSaveBehavior::kIfPresent)
                   .version,
              given);
    EXPECT_FALSE(store.loadRecord(fdb::Tuple{1})->version);
    EXPECT_EQ(*store.loadRecord(fdb::Tuple{3})->version, given);
  });
  EXPECT_FALSE(rawGet("\x15\x01\x15\x01\x13\xfe"s).has_value());
}

TEST_F(RecordStoreRecordsTest, DynamicRecordsFromARunTimeSchemaRoundTripWithTypedOnes) {
  const LoadedSchema schema =
      ProtoSchemaLoader({RL_TEST_PROTO_DIR}).load("store_test_records.proto");
  const RecordMetaData dynamicMetaData = RecordMetaData::build(schema.file, schema.owner);
  // Written dynamically...
  runInContext(db, [&](RecordContext& context) {
    RecordStoreOptions options;
    options.messageFactory = schema.messageFactory;
    RecordStore store = RecordStore::open(context, testLocation(), dynamicMetaData, options);
    std::unique_ptr<google::protobuf::Message> order = schema.newMessage("rl.store_test.Order");
    const google::protobuf::Reflection* reflection = order->GetReflection();
    const google::protobuf::Descriptor* type = order->GetDescriptor();
    reflection->SetInt64(order.get(), type->FindFieldByName("id"), 9);
    reflection->SetString(order.get(), type->FindFieldByName("name"), "dynamic");
    reflection->SetInt64(order.get(), type->FindFieldByName("price"), 99);
    store.saveRecord(*order);
    auto back = store.loadRecord(fdb::Tuple{9});
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->recordType->name(), "Order");
    EXPECT_EQ(back->record->GetDescriptor(), type);  // the run-time pool's type
    EXPECT_EQ(back->record->SerializeAsString(), order->SerializeAsString());
  });
  // ...read back typed, and the index entry it wrote is where the typed store looks.
  withStore([](RecordStore& store) {
    auto back = store.loadRecord<Order>(fdb::Tuple{9});
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->record.name(), "dynamic");
    EXPECT_EQ(back->record.price(), 99);
    EXPECT_THROW(store.loadRecord<Customer>(fdb::Tuple{9}), RecordDeserializationException);
    auto dynamicBack = store.loadRecord(fdb::Tuple{9});
    EXPECT_EQ(dynamicBack->record->GetDescriptor(), Order::descriptor());  // generated
    auto cursor = store.scanIndex("Order$price", TupleRange::allOf(fdb::Tuple{99}), std::nullopt,
                                  ScanProperties());
    auto entry = cursor->next();
    ASSERT_TRUE(entry.hasValue());
    EXPECT_EQ(entry.value().primaryKey, fdb::Tuple{9});
  });
}

TEST_F(RecordStoreRecordsTest, UnionMessagesWithUnknownOrSeveralFieldsAreRefused) {
  run([&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    // Field 3 is not in the union; fields 1 and 2 together are two records.
    context.transaction().set("\x15\x01\x15\x01\x14"s, "\x1a\x02\x08\x01"s);
    context.transaction().set("\x15\x01\x15\x02\x14"s, "\x0a\x02\x08\x02\x12\x02\x08\x02"s);
    context.transaction().set("\x15\x01\x15\x03\x14"s, ""s);
    EXPECT_THROW(store.loadRecord(fdb::Tuple{1}), RecordDeserializationException);
    EXPECT_THROW(store.loadRecord(fdb::Tuple{2}), RecordDeserializationException);
    EXPECT_THROW(store.loadRecord(fdb::Tuple{3}), RecordDeserializationException);
  });
}

TEST_F(RecordStoreRecordsTest, CompressedRecordsAreReadable) {
  Order order = makeOrder(3, "compressible");
  order.set_payload(std::string(5000, 'z'));
  RecordStoreOptions compress;
  compress.compressRecords = true;
  withStore([&](RecordStore& store) { store.saveRecord(order); }, compress);
  const std::optional<fdb::Bytes> stored = rawGet("\x15\x01\x15\x03\x14"s);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ((*stored)[0], '\x04');  // the compressed prefix
  EXPECT_LT(stored->size(), 1000u);
  withStore([&](RecordStore& store) {
    auto back = store.loadRecord<Order>(fdb::Tuple{3});
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->record.payload(), order.payload());
  });
}

TEST_F(RecordStoreRecordsTest, DeleteAllRecordsKeepsHeaderAndIndexStates) {
  withStore([](RecordStore& store) {
    for (int i = 0; i < 5; ++i) store.saveRecord(makeOrder(i, "n" + std::to_string(i), i));
    store.markIndexWriteOnly("Order$price");
  });
  run([](RecordContext& context) {
    // Keys in spaces 3, 6, 7, 8, 9 and 10 go too.
    for (int space : {3, 6, 7, 8, 9, 10}) {
      context.transaction().set(fdb::Tuple{space, "x"}.pack(), "v");
    }
  });
  withStore([](RecordStore& store) { store.deleteAllRecords(); });
  const std::vector<fdb::KeyValue> rows = allKeyValues();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, "\x14"s);
  EXPECT_EQ(rows[1].key, "\x15\x05\x02Order$price\x00"s);
  withStore([](RecordStore& store) {
    EXPECT_EQ(store.indexState("Order$price"), IndexState::kWriteOnly);
  });
}

TEST_F(RecordStoreRecordsTest, DeleteRecordsWhereClearsRecordsAndMatchingIndexRanges) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.recordType("Order").setPrimaryKey(concat(field("price"), field("id")));
  builder.recordType("Customer").setPrimaryKey(concat(field("id"), field("name")));
  builder.removeIndex("Order$name");
  builder.removeIndex("Order$email");
  builder.addIndex("Order", Index("by_price_name", concat(field("price"), field("name"))));
  metaData = builder.build();
  withStore([](RecordStore& store) {
    for (int i = 0; i < 6; ++i) store.saveRecord(makeOrder(i, "n" + std::to_string(i), i % 2));
    store.deleteRecordsWhere(fdb::Tuple{1});
  });
  withStore([](RecordStore& store) {
    auto records = asList(*store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties()),
                          [](LoadedRecord& r) { return r.primaryKey; });
    EXPECT_EQ(records.values,
              (std::vector<fdb::Tuple>{fdb::Tuple{0, 0}, fdb::Tuple{0, 2}, fdb::Tuple{0, 4}}));
    for (const char* name : {"Order$price", "by_price_name"}) {
      auto entries =
          asList(*store.scanIndex(name, TupleRange::all(), std::nullopt, ScanProperties()),
                 [](IndexEntry& e) { return e.primaryKey; });
      EXPECT_EQ(entries.values.size(), 3u) << name;
    }
  });
  // An index whose key does not start with the primary key's first column cannot follow.
  RecordMetaDataBuilder other(Order::descriptor()->file());
  metaData = other.build();  // Order$name does not start with id
  db = rl::tests::openTestDatabase();
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "x"));
    EXPECT_THROW(store.deleteRecordsWhere(fdb::Tuple{1}), DeleteRecordsWhereException);
  });
}

}  // namespace
}  // namespace rl::store_test

namespace rl::store_test {
namespace {

TEST_F(RecordStoreTest, OperationsAreTimedOnlyWhenAsked) {
  for (bool timed : {false, true}) {
    RecordStoreOptions options;
    options.timeOperations = timed;
    RecordStoreCounters counters = withStore(
        [&](RecordStore& store) {
          store.saveRecord(makeOrder(1, "one", 10));
          EXPECT_TRUE(store.loadRecord<Order>(fdb::Tuple{1}).has_value());
          EXPECT_TRUE(store.loadRecord(fdb::Tuple{1}).has_value());
          EXPECT_TRUE(store.deleteRecord(fdb::Tuple{1}));
          return store.counters();
        },
        options);
    EXPECT_EQ(counters.saveNanos > 0, timed);
    EXPECT_EQ(counters.loadNanos > 0, timed);
    EXPECT_EQ(counters.deleteNanos > 0, timed);
    EXPECT_EQ(counters.recordsSaved, 1);
    EXPECT_EQ(counters.recordsLoaded, 2);
    EXPECT_EQ(counters.recordsDeleted, 1);
  }
}

}  // namespace
}  // namespace rl::store_test
