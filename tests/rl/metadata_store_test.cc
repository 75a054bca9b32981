// The metadata store: round trips, history, the version rule, golden keys, split metadata,
// and two processes (two Database handles on one named database) sharing one version.
#include "rl/store/metadata_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdb/database.h"
#include "fdb/error.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/record_store.h"
#include "store_test_records.pb.h"
#include "test_database.h"

namespace rl {
namespace {

using store_test::Order;

// The test schema at `version` (its field-option indexes take versions 1..3); from 11 on, with an
// extra index "Order$tags".
RecordMetaData metaDataAt(int version) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  if (version >= 11) {
    // Added at version 11, as the evolution rules want of a new index.
    Index tags("Order$tags", field("tags", FanType::kFanOut));
    tags.setAddedVersion(11);
    tags.setLastModifiedVersion(11);
    builder.addIndex("Order", tags);
  }
  builder.setVersion(version);
  return builder.build();
}

const StoreLocation kLocation = StoreLocation::rawPrefix("M");

class MetaDataStoreTest : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();

  void save(const RecordMetaData& metaData, fdb::Database on) {
    runInContext(on,
                 [&](RecordContext& context) { MetaDataStore(context, kLocation).save(metaData); });
  }
  void save(const RecordMetaData& metaData) { save(metaData, db); }
  std::optional<RecordMetaData> load(fdb::Database on) {
    return runInContext(
        on, [&](RecordContext& context) { return MetaDataStore(context, kLocation).load(); });
  }
  std::optional<RecordMetaData> load() { return load(db); }
  std::optional<RecordMetaData> load(int version) {
    return runInContext(db, [&](RecordContext& context) {
      return MetaDataStore(context, kLocation).load(version);
    });
  }
  std::vector<fdb::Bytes> keys() {
    std::vector<fdb::Bytes> out;
    for (const fdb::KeyValue& row : runInContext(db, [](RecordContext& context) {
           return context.transaction().getRangeAll(fdb::KeyRange{"", "\xff"});
         })) {
      out.push_back(row.key);
    }
    return out;
  }
  std::optional<fdb::Bytes> rawGet(std::string_view key) {
    return runInContext(
        db, [&](RecordContext& context) { return context.transaction().get(key).get(); });
  }
};

TEST_F(MetaDataStoreTest, NothingSavedLoadsNothing) {
  EXPECT_FALSE(load());
  EXPECT_FALSE(load(10));
  EXPECT_EQ(runInContext(
                db, [](RecordContext& c) { return MetaDataStore(c, kLocation).currentVersion(); }),
            -1);
  EXPECT_TRUE(keys().empty());
}

TEST_F(MetaDataStoreTest, RoundTrip) {
  const RecordMetaData saved = metaDataAt(10);
  save(saved);
  const std::optional<RecordMetaData> loaded = load();
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->version(), 10);
  EXPECT_EQ(loaded->toProto().SerializeAsString(), saved.toProto().SerializeAsString());
  EXPECT_TRUE(loaded->hasIndex("Order$email"));
  EXPECT_TRUE(loaded->index("Order$email").isUnique());
  EXPECT_FALSE(loaded->hasIndex("Order$tags"));
  EXPECT_TRUE(loaded->splitLongRecords());
  // The stored value is the MetaData proto itself.
  EXPECT_EQ(rawGet(fdb::Bytes("M\x00\x14", 3)), saved.toProto().SerializeAsString());
}

TEST_F(MetaDataStoreTest, GoldenKeys) {
  save(metaDataAt(10));
  // Current: P + 00 (the tuple (null)) + 14 (unsplit suffix 0).
  EXPECT_EQ(keys(), (std::vector<fdb::Bytes>{fdb::Bytes("M\x00\x14", 3)}));
  save(metaDataAt(11));
  // History of version 10: P + 02 48 00 ("H") + 15 0a (10) + 14; it sorts after the current.
  EXPECT_EQ(keys(), (std::vector<fdb::Bytes>{fdb::Bytes("M\x00\x14", 3),
                                             fdb::Bytes("M\x02H\x00\x15\x0a\x14", 7)}));
  save(metaDataAt(300));
  EXPECT_EQ(keys(), (std::vector<fdb::Bytes>{fdb::Bytes("M\x00\x14", 3),
                                             fdb::Bytes("M\x02H\x00\x15\x0a\x14", 7),
                                             fdb::Bytes("M\x02H\x00\x15\x0b\x14", 7)}));
  EXPECT_EQ(MetaDataStore::currentKey().pack(), fdb::Bytes("\x00", 1));
  EXPECT_EQ(MetaDataStore::historyKey(7).pack(), fdb::Bytes("\x02H\x00\x15\x07", 5));
}

TEST_F(MetaDataStoreTest, HistoryKeepsEveryReplacedVersion) {
  save(metaDataAt(10));
  save(metaDataAt(11));
  save(metaDataAt(15));
  EXPECT_EQ(load()->version(), 15);
  const std::optional<RecordMetaData> first = load(10);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->version(), 10);
  EXPECT_FALSE(first->hasIndex("Order$tags"));
  const std::optional<RecordMetaData> second = load(11);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->hasIndex("Order$tags"));
  EXPECT_EQ(load(15)->version(), 15);  // the current one
  EXPECT_FALSE(load(12));
  EXPECT_EQ(rawGet(fdb::Bytes("M\x02H\x00\x15\x0b\x14", 7)),
            metaDataAt(11).toProto().SerializeAsString());
}

TEST_F(MetaDataStoreTest, VersionMustGoUp) {
  save(metaDataAt(12));
  for (int version : {12, 11, 4}) {
    EXPECT_THROW(save(metaDataAt(version)), MetaDataException) << version;
  }
  try {
    save(metaDataAt(11));
  } catch (const MetaDataException& e) {
    EXPECT_NE(std::string(e.what()).find("must increase"), std::string::npos) << e.what();
  }
  // Nothing changed.
  EXPECT_EQ(load()->version(), 12);
  EXPECT_EQ(keys().size(), 1u);
}

TEST_F(MetaDataStoreTest, LongMetaDataIsSplit) {
  MetaDataProto proto = metaDataAt(10).toProto();
  proto.mutable_records()->mutable_source_code_info()->add_location()->set_leading_comments(
      std::string(250'000, 'c'));
  runInContext(db, [&](RecordContext& context) { MetaDataStore(context, kLocation).save(proto); });
  EXPECT_EQ(keys(),
            (std::vector<fdb::Bytes>{fdb::Bytes("M\x00\x15\x01", 4), fdb::Bytes("M\x00\x15\x02", 4),
                                     fdb::Bytes("M\x00\x15\x03", 4)}));
  const std::optional<MetaDataProto> back = runInContext(
      db, [](RecordContext& context) { return MetaDataStore(context, kLocation).loadProto(); });
  ASSERT_TRUE(back);
  EXPECT_EQ(back->SerializeAsString(), proto.SerializeAsString());
  EXPECT_EQ(load()->version(), 10);
  // Replaced by a short one: the chunks go to the history, the current is unsplit again.
  save(metaDataAt(11));
  const std::vector<fdb::Bytes> after = keys();
  EXPECT_EQ(after.front(), fdb::Bytes("M\x00\x14", 3));
  EXPECT_EQ(after.size(), 4u);
  EXPECT_EQ(load(10)->version(), 10);
}

TEST_F(MetaDataStoreTest, MetaDataThatDoesNotBuildIsNotSaved) {
  MetaDataProto proto = metaDataAt(10).toProto();
  proto.mutable_indexes(0)->set_name("");
  proto.mutable_record_types(0)->clear_primary_key();
  EXPECT_THROW(runInContext(db, [&](RecordContext& c) { MetaDataStore(c, kLocation).save(proto); }),
               MetaDataException);
  EXPECT_TRUE(keys().empty());
}

TEST_F(MetaDataStoreTest, TwoProcessesShareOneVersion) {
  // Two handles on one database, as two processes would have.
  auto [first, second] = rl::tests::openTwoHandles("metadata-store-test");
  save(metaDataAt(10), first);
  EXPECT_EQ(load(second)->version(), 10);
  save(metaDataAt(11), second);
  EXPECT_EQ(load(first)->version(), 11);
  EXPECT_TRUE(load(first)->hasIndex("Order$tags"));
  EXPECT_THROW(save(metaDataAt(11), first), MetaDataException);

  // Racing updates: both read version 11, the second to commit conflicts, and its retry
  // sees version 12 and refuses its own 12.
  RecordContext a(first);
  RecordContext b(second);
  MetaDataStore(a, kLocation).save(metaDataAt(12));
  MetaDataStore(b, kLocation).save(metaDataAt(12));
  a.commit();
  try {
    b.commit();
    FAIL() << "the second save committed";
  } catch (const fdb::Error& e) {
    EXPECT_EQ(e.code(), fdb::errors::kNotCommitted);
  }
  EXPECT_THROW(save(metaDataAt(12), second), MetaDataException);
  EXPECT_EQ(load(second)->version(), 12);
}

TEST_F(MetaDataStoreTest, AStoreOpensWithLoadedMetaData) {
  save(metaDataAt(11));
  const RecordMetaData loaded = *load();
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, StoreLocation::rawPrefix("S"), loaded);
    Order order;
    order.set_id(1);
    order.add_tags("t");
    store.saveRecord(order);
    EXPECT_EQ(store.header().metadataversion(), 11);
  });
}

TEST_F(MetaDataStoreTest, DirectoryLocations) {
  const StoreLocation location = StoreLocation::directory({"app", "meta"});
  EXPECT_FALSE(
      runInContext(db, [&](RecordContext& c) { return MetaDataStore(c, location).load(); }));
  runInContext(db, [&](RecordContext& c) { MetaDataStore(c, location).save(metaDataAt(14)); });
  EXPECT_EQ(runInContext(
                db, [&](RecordContext& c) { return MetaDataStore(c, location).currentVersion(); }),
            14);
}

}  // namespace
}  // namespace rl
