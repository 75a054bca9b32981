// One message factory per metadata: stores opened with the same metadata (one per
// transaction, typically) share it instead of building prototypes again.
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include "record_store_test_util.h"
#include "rl/metadata/proto_schema_loader.h"

namespace rl::store_test {
namespace {

TEST(MessageFactory, CompiledSchemasUseTheGeneratedFactory) {
  RecordMetaData metaData = testMetaData();
  EXPECT_EQ(metaData.messageFactory(), google::protobuf::MessageFactory::generated_factory());
}

TEST(MessageFactory, RunTimeSchemasShareOneFactoryAcrossCopiesAndStores) {
  RecordMetaData metaData = loadRecordMetaData("store_test_records.proto", {RL_TEST_PROTO_DIR});
  ASSERT_NE(metaData.messageFactory(), nullptr);
  EXPECT_NE(metaData.messageFactory(), google::protobuf::MessageFactory::generated_factory());
  RecordMetaData copy = metaData;
  EXPECT_EQ(copy.messageFactory(), metaData.messageFactory());

  fdb::Database db = rl::tests::openTestDatabase();
  const google::protobuf::Descriptor* orderType =
      metaData.recordType("Order").descriptor().file()->FindMessageTypeByName("Order");
  ASSERT_NE(orderType, nullptr);
  const google::protobuf::Message* prototype = metaData.messageFactory()->GetPrototype(orderType);
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), copy);
    std::unique_ptr<google::protobuf::Message> order(prototype->New());
    const auto* reflection = order->GetReflection();
    reflection->SetInt64(order.get(), orderType->FindFieldByName("id"), 7);
    store.saveRecord(*order);
  });
  // Loaded in another transaction's store: a message of the shared factory's prototype.
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    std::optional<LoadedRecord> loaded = store.loadRecord(fdb::Tuple{7});
    ASSERT_TRUE(loaded.has_value());
    EXPECT_EQ(loaded->record->GetDescriptor(), orderType);
    // Each DynamicMessageFactory makes its own reflection per type: the same one here means
    // the store made the message with the metadata's factory.
    EXPECT_EQ(loaded->record->GetReflection(), prototype->GetReflection());
  });
}

}  // namespace
}  // namespace rl::store_test

namespace rl::store_test {
namespace {

TEST(MessageFactory, MetadataFromALoadedSchemaUsesTheSchemasFactory) {
  LoadedSchema schema = ProtoSchemaLoader({RL_TEST_PROTO_DIR}).load("store_test_records.proto");
  RecordMetaData metaData = RecordMetaData::build(schema);
  EXPECT_EQ(metaData.messageFactory(), schema.messageFactory.get());
  // A message made from the schema and a record the store loads share one reflection.
  std::unique_ptr<google::protobuf::Message> order = schema.newMessage("rl.store_test.Order");
  order->GetReflection()->SetInt64(order.get(), order->GetDescriptor()->FindFieldByName("id"), 3);
  fdb::Database db = rl::tests::openTestDatabase();
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    store.saveRecord(*order);
    std::optional<LoadedRecord> loaded = store.loadRecord(fdb::Tuple{3});
    ASSERT_TRUE(loaded.has_value());
    EXPECT_EQ(loaded->record->GetReflection(), order->GetReflection());
    // Not a generated message: as<Order>() says so instead of miscasting.
    EXPECT_THROW(loaded->as<Order>(), RecordDeserializationException);
  });
}

TEST(MessageFactory, LoadedRecordsCastOnlyToTheirOwnGeneratedType) {
  fdb::Database db = rl::tests::openTestDatabase();
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), testMetaData());
    store.saveRecord(makeOrder(5, "five", 50));
    Customer customer;
    customer.set_id(6);
    store.saveRecord(customer);
    fdb::RoundTrips before = store.roundTrips();
    std::optional<LoadedRecord> order = store.loadRecord(fdb::Tuple{5});
    std::optional<LoadedRecord> other = store.loadRecord(fdb::Tuple{6});
    fdb::RoundTrips spent = store.roundTrips() - before;
    EXPECT_EQ(spent.rangeReads, 2);  // one range read per record load
    EXPECT_EQ(spent.total(), 2);
    ASSERT_TRUE(order && other);
    EXPECT_EQ(order->as<Order>().name(), "five");
    EXPECT_EQ(other->as<Customer>().id(), 6);
    EXPECT_THROW(other->as<Order>(), RecordDeserializationException);
  });
}

}  // namespace
}  // namespace rl::store_test
