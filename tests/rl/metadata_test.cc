// RecordMetaData from a compiled schema and its options (docs/format.md, "Metadata from a schema"),
// the builder's changes, the errors it reports, and the MetaData proto round trip.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rl/metadata/metadata.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "test_records.pb.h"
#include "union_by_usage.pb.h"

namespace {

const google::protobuf::FileDescriptor* testRecords() {
  return rl::test::Order::descriptor()->file();
}

// The message of the exception `action` throws, or a failure.
template <typename Action>
std::string errorOf(Action action) {
  try {
    action();
  } catch (const rl::MetaDataException& e) {
    return e.what();
  }
  ADD_FAILURE() << "no MetaDataException";
  return "";
}

TEST(MetaDataUnion, FoundByName) {
  rl::RecordMetaData metaData = rl::RecordMetaData::build(testRecords());
  EXPECT_EQ(metaData.unionDescriptor().name(), "RecordTypeUnion");
  ASSERT_EQ(metaData.recordTypes().size(), 2u);
  EXPECT_NE(metaData.findRecordType("Order"), nullptr);
  EXPECT_NE(metaData.findRecordType("Person"), nullptr);
  EXPECT_EQ(&metaData.recordTypeForDescriptor(*rl::test::Order::descriptor()),
            &metaData.recordType("Order"));
  EXPECT_THROW(metaData.recordType("Customer"), rl::MetaDataException);
}

TEST(MetaDataUnion, FoundByUsageOption) {
  rl::RecordMetaData metaData =
      rl::RecordMetaData::build(rl::test::usage::Item::descriptor()->file());
  EXPECT_EQ(metaData.unionDescriptor().name(), "AllRecords");
  ASSERT_EQ(metaData.recordTypes().size(), 1u);
  const rl::RecordType& item = metaData.recordType("Item");
  EXPECT_EQ(item.primaryKey(), rl::field("key"));
  EXPECT_EQ(item.sinceVersion(), 1);  // not above the version its one index raised it to
  EXPECT_EQ(metaData.version(), 1);
  EXPECT_EQ(item.recordTypeKey(), fdb::TupleElement(1));
}

TEST(MetaDataRecordTypes, RecordTypeKeysAndUnionFields) {
  rl::RecordMetaData metaData = rl::RecordMetaData::build(testRecords());
  const rl::RecordType& order = metaData.recordType("Order");
  // Two union fields hold Order: the key is the smallest number (3, not 7); records are
  // written to the field named _Order.
  EXPECT_EQ(order.recordTypeKey(), fdb::TupleElement(3));
  EXPECT_FALSE(order.hasExplicitRecordTypeKey());
  EXPECT_EQ(order.unionField().name(), "_Order");
  const rl::RecordType& person = metaData.recordType("Person");
  EXPECT_EQ(person.recordTypeKey(), fdb::TupleElement("person"));
  EXPECT_TRUE(person.hasExplicitRecordTypeKey());
  EXPECT_EQ(person.evaluationContext().recordTypeKey, fdb::TupleElement("person"));
}

TEST(MetaDataRecordTypes, PrimaryKeysFromFieldOptions) {
  rl::RecordMetaData metaData = rl::RecordMetaData::build(testRecords());
  EXPECT_EQ(metaData.recordType("Order").primaryKey(), rl::field("id"));
  EXPECT_EQ(metaData.recordType("Person").primaryKey(), rl::field("id"));
  ASSERT_TRUE(metaData.commonPrimaryKey().has_value());
  EXPECT_EQ(*metaData.commonPrimaryKey(), rl::field("id"));
}

TEST(MetaDataRecordTypes, SchemaOptions) {
  rl::RecordMetaData metaData = rl::RecordMetaData::build(testRecords());
  EXPECT_TRUE(metaData.storeRecordVersions());
  EXPECT_FALSE(metaData.splitLongRecords());
}

TEST(MetaDataIndexes, FromFieldOptions) {
  rl::RecordMetaData metaData = rl::RecordMetaData::build(testRecords());
  ASSERT_EQ(metaData.allIndexes().size(), 2u);
  const rl::Index& price = metaData.index("Order$price");
  EXPECT_EQ(price.type(), "value");
  EXPECT_EQ(price.rootExpression(), rl::field("price"));
  EXPECT_FALSE(price.isUnique());
  EXPECT_EQ(price.subspaceKey(), fdb::TupleElement("Order$price"));
  EXPECT_EQ(price.addedVersion(), 1);
  EXPECT_EQ(price.lastModifiedVersion(), 1);
  const rl::Index& email = metaData.index("Order$email");
  EXPECT_TRUE(email.isUnique());
  EXPECT_EQ(email.lastModifiedVersion(), 2);
  // Each index added without a version raised the metadata version.
  EXPECT_EQ(metaData.version(), 2);
  ASSERT_EQ(metaData.recordType("Order").indexes().size(), 2u);
  EXPECT_TRUE(metaData.recordType("Person").indexes().empty());
  std::vector<const rl::RecordType*> types = metaData.recordTypesForIndex(price);
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0]->name(), "Order");
}

TEST(MetaDataIndexes, AddedByTheBuilder) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.addIndex("Order", rl::Index("by_customer", rl::field("customer").nest("id")));
  builder.addUniversalIndex(rl::Index("by_name", rl::field("name")));
  rl::RecordMetaData metaData = builder.build();
  EXPECT_EQ(metaData.version(), 4);
  EXPECT_EQ(metaData.index("by_customer").lastModifiedVersion(), 3);
  EXPECT_EQ(metaData.index("by_name").addedVersion(), 4);
  EXPECT_EQ(metaData.universalIndexes().size(), 1u);
  EXPECT_EQ(metaData.recordTypesForIndex(metaData.index("by_name")).size(), 2u);
}

TEST(MetaDataIndexes, PrimaryKeyPositionsTrimEntries) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.addIndex("Order", rl::Index("price_id", rl::concatenateFields("price", "id")));
  rl::RecordMetaData metaData = builder.build();

  // The pk column `id` is index column 1: entries do not repeat it.
  const rl::Index& priceId = metaData.index("price_id");
  ASSERT_TRUE(priceId.primaryKeyComponentPositions().has_value());
  EXPECT_EQ(*priceId.primaryKeyComponentPositions(), std::vector<int>{1});
  EXPECT_EQ(priceId.trimPrimaryKey(fdb::Tuple{42}), fdb::Tuple{});
  EXPECT_EQ(priceId.entryPrimaryKey(fdb::Tuple{100, 42}), fdb::Tuple{42});

  // No pk column in the index key: entries carry the whole pk after the index columns.
  const rl::Index& price = metaData.index("Order$price");
  EXPECT_FALSE(price.primaryKeyComponentPositions().has_value());
  EXPECT_EQ(price.trimPrimaryKey(fdb::Tuple{42}), fdb::Tuple{42});
  EXPECT_EQ(price.entryPrimaryKey(fdb::Tuple{100, 42}), fdb::Tuple{42});
}

TEST(MetaDataIndexes, PositionsForAPartlyCoveredPrimaryKey) {
  // pk (recordType, id); index (id, price): pk column 0 is not in the index, column 1 is
  // index column 0.
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.recordType("Order").setPrimaryKey(rl::concat(rl::recordType(), rl::field("id")));
  builder.addIndex("Order", rl::Index("id_price", rl::concatenateFields("id", "price")));
  rl::RecordMetaData metaData = builder.build();
  const rl::Index& index = metaData.index("id_price");
  EXPECT_EQ(*index.primaryKeyComponentPositions(), (std::vector<int>{-1, 0}));
  EXPECT_EQ(index.trimPrimaryKey(fdb::Tuple{3, 42}), fdb::Tuple{3});
  EXPECT_EQ(index.entryPrimaryKey(fdb::Tuple{42, 100, 3}), (fdb::Tuple{3, 42}));
  EXPECT_FALSE(metaData.commonPrimaryKey().has_value());
  EXPECT_EQ(rl::RecordMetaData::commonPrimaryKeyLength(
                {&metaData.recordType("Order"), &metaData.recordType("Person")}),
            -1);
}

TEST(MetaDataErrors, DuplicateIndexName) {
  rl::RecordMetaDataBuilder builder(testRecords());
  std::string message =
      errorOf([&] { builder.addIndex("Order", rl::Index("Order$price", rl::field("name"))); });
  EXPECT_NE(message.find("Order$price"), std::string::npos) << message;
}

TEST(MetaDataErrors, UnknownFieldInAnIndex) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.addIndex("Order", rl::Index("bad", rl::field("nope")));
  std::string message = errorOf([&] { builder.build(); });
  EXPECT_NE(message.find("nope"), std::string::npos) << message;
}

TEST(MetaDataErrors, UnknownFieldInAPrimaryKey) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.recordType("Person").setPrimaryKey(rl::field("nope"));
  std::string message = errorOf([&] { builder.build(); });
  EXPECT_NE(message.find("nope"), std::string::npos) << message;
}

TEST(MetaDataErrors, PrimaryKeyThatFansOut) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.recordType("Order").setPrimaryKey(rl::field("tags", rl::FanType::kFanOut));
  std::string message = errorOf([&] { builder.build(); });
  EXPECT_NE(message.find("more than one"), std::string::npos) << message;
}

TEST(MetaDataErrors, UnknownRecordType) {
  rl::RecordMetaDataBuilder builder(testRecords());
  EXPECT_THROW(builder.addIndex("Nope", rl::Index("x", rl::field("name"))), rl::MetaDataException);
  EXPECT_THROW(builder.recordType("Customer"), rl::MetaDataException);
}

TEST(MetaDataProtoForm, RoundTripsToEqualMetaData) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.recordType("Order").setPrimaryKey(rl::concat(rl::recordType(), rl::field("id")));
  builder.addIndex("Order", rl::Index("id_price", rl::concatenateFields("id", "price")));
  builder.addUniversalIndex(rl::Index("by_name", rl::field("name")));
  builder.addMultiTypeIndex(
      {"Order", "Person"},
      rl::Index("names", rl::field("name"), rl::Index::kValue, {{"unique", "true"}}));
  builder.removeIndex("Order$email");
  builder.setSplitLongRecords(true);
  rl::RecordMetaData original = builder.build();

  rl::MetaDataProto proto = original.toProto();
  rl::MetaDataProto reparsed;
  ASSERT_TRUE(reparsed.ParseFromString(proto.SerializeAsString()));
  rl::RecordMetaData back = rl::RecordMetaData::fromProto(reparsed);

  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back.toProto(), proto))
      << back.toProto().DebugString() << "\nvs\n"
      << proto.DebugString();
  EXPECT_EQ(back.version(), original.version());
  EXPECT_TRUE(back.splitLongRecords());
  EXPECT_TRUE(back.storeRecordVersions());
  ASSERT_EQ(back.allIndexes().size(), original.allIndexes().size());
  for (const auto& index : original.allIndexes()) {
    EXPECT_EQ(back.index(index->name()), *index) << index->name();
  }
  for (const auto& [name, type] : original.recordTypes()) {
    const rl::RecordType& other = back.recordType(name);
    EXPECT_EQ(other.primaryKey(), type.primaryKey()) << name;
    EXPECT_EQ(other.recordTypeKey(), type.recordTypeKey()) << name;
    EXPECT_EQ(other.indexes().size(), type.indexes().size()) << name;
    EXPECT_EQ(other.multiTypeIndexes().size(), type.multiTypeIndexes().size()) << name;
  }
  ASSERT_EQ(back.formerIndexes().size(), 1u);
  EXPECT_EQ(back.formerIndexes()[0], original.formerIndexes()[0]);
  EXPECT_EQ(back.formerIndexes()[0].formerName, "Order$email");
  // The rebuilt schema reads records written with the generated one.
  EXPECT_EQ(back.recordsDescriptor().name(), "test_records.proto");
  EXPECT_NE(&back.recordsDescriptor(), testRecords());
}

TEST(MetaDataProtoForm, CarriesTheSchemaAndLeavesOutTheLibrarysFiles) {
  rl::MetaDataProto proto = rl::RecordMetaData::build(testRecords()).toProto();
  EXPECT_EQ(proto.records().name(), "test_records.proto");
  // test_records.proto imports only record_metadata_options.proto and tuple_fields.proto,
  // which readers have compiled in.
  EXPECT_EQ(proto.dependencies_size(), 0);
  ASSERT_EQ(proto.indexes_size(), 2);
  EXPECT_EQ(proto.indexes(0).name(), "Order$email");  // by name, as Java writes them
  EXPECT_EQ(proto.indexes(0).record_type_size(), 1);
  EXPECT_EQ(proto.indexes(0).record_type(0), "Order");
  // The subspace key is a packed one-element tuple: "Order$email".
  EXPECT_EQ(proto.indexes(0).subspace_key(), fdb::Tuple{"Order$email"}.pack());
  EXPECT_EQ(proto.version(), 2);
}

}  // namespace

namespace {

TEST(MetaDataCopies, ShareTheirContents) {
  rl::RecordMetaData metaData = rl::RecordMetaData::build(testRecords());
  const rl::RecordMetaData copy = metaData;
  // The same record types and indexes, not copies of them.
  EXPECT_EQ(&copy.recordType("Order"), &metaData.recordType("Order"));
  EXPECT_EQ(&copy.allIndexes(), &metaData.allIndexes());
  EXPECT_EQ(copy.messageFactory(), metaData.messageFactory());
}

TEST(MetaDataIndexesCovering, OwnThenMultiTypeThenUniversalInAllIndexesPositions) {
  rl::RecordMetaDataBuilder builder(testRecords());
  builder.addMultiTypeIndex({"Order", "Person"}, rl::Index("both$id", rl::field("id")));
  builder.addUniversalIndex(rl::Index("everything$id", rl::field("id")));
  const rl::RecordMetaData metaData = builder.build();
  auto namesCovering = [&](std::string_view type) {
    std::vector<std::string> names;
    for (size_t position : metaData.indexesCovering(metaData.recordType(type))) {
      names.push_back(metaData.allIndexes().at(position)->name());
    }
    return names;
  };
  std::vector<std::string> order = namesCovering("Order");
  ASSERT_GE(order.size(), 2u);
  EXPECT_EQ(order[order.size() - 2], "both$id");
  EXPECT_EQ(order.back(), "everything$id");
  EXPECT_EQ(namesCovering("Person"), (std::vector<std::string>{"both$id", "everything$id"}));
  // A record type of other metadata (same schema, another build) is not this one's.
  const rl::RecordMetaData other = rl::RecordMetaData::build(testRecords());
  EXPECT_THROW(metaData.indexesCovering(other.recordType("Order")), rl::MetaDataException);
}

}  // namespace
