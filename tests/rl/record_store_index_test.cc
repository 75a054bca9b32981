// VALUE index maintenance: entries following updates and deletes, unique indexes, index
// states and what they do to saves and scans, open-time builds of new indexes.
#include <gtest/gtest.h>

#include "record_store_test_util.h"
#include "rl/index/index_scan_facts.h"
#include "rl/metadata/metadata_builder.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

class RecordStoreIndexTest : public RecordStoreTest {
 protected:
  std::vector<fdb::Tuple> indexKeys(RecordStore& store, std::string_view index) {
    return asList(*store.scanIndex(index, TupleRange::all(), std::nullopt, ScanProperties()),
                  [](IndexEntry& entry) { return entry.key; })
        .values;
  }
};

TEST_F(RecordStoreIndexTest, EntriesFollowUpdatesAndDeletes) {
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "apple", 10));
    store.saveRecord(makeOrder(2, "pear", 20));
    EXPECT_EQ(indexKeys(store, "Order$price"),
              (std::vector<fdb::Tuple>{fdb::Tuple{10, 1}, fdb::Tuple{20, 2}}));
  });
  withStore([&](RecordStore& store) {
    const int64_t cleared = store.counters().indexEntriesCleared;
    store.saveRecord(makeOrder(1, "apple", 30));                   // only the price changes
    EXPECT_EQ(store.counters().indexEntriesCleared - cleared, 1);  // name entry untouched
    EXPECT_EQ(store.counters().indexEntriesWritten, 1);
    EXPECT_EQ(indexKeys(store, "Order$price"),
              (std::vector<fdb::Tuple>{fdb::Tuple{20, 2}, fdb::Tuple{30, 1}}));
    EXPECT_EQ(indexKeys(store, "Order$name"),
              (std::vector<fdb::Tuple>{fdb::Tuple{"apple", 1}, fdb::Tuple{"pear", 2}}));
    store.deleteRecord(fdb::Tuple{2});
    EXPECT_EQ(indexKeys(store, "Order$price"), (std::vector<fdb::Tuple>{fdb::Tuple{30, 1}}));
    EXPECT_EQ(indexKeys(store, "Order$name"), (std::vector<fdb::Tuple>{fdb::Tuple{"apple", 1}}));
  });
}

TEST_F(RecordStoreIndexTest, FanOutAndUniversalIndexes) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("tags", field("tags", FanType::kFanOut)));
  builder.addUniversalIndex(Index("everything_by_id", field("id")));
  metaData = builder.build();
  withStore([&](RecordStore& store) {
    Order order = makeOrder(1, "tagged");
    order.add_tags("b");
    order.add_tags("a");
    store.saveRecord(order);
    Customer customer;
    customer.set_id(2);
    store.saveRecord(customer);
    EXPECT_EQ(indexKeys(store, "tags"),
              (std::vector<fdb::Tuple>{fdb::Tuple{"a", 1}, fdb::Tuple{"b", 1}}));
    EXPECT_EQ(indexKeys(store, "everything_by_id"),
              (std::vector<fdb::Tuple>{fdb::Tuple{1, 1}, fdb::Tuple{2, 2}}));
    order.clear_tags();
    order.add_tags("c");
    store.saveRecord(order);
    EXPECT_EQ(indexKeys(store, "tags"), (std::vector<fdb::Tuple>{fdb::Tuple{"c", 1}}));
    // A record replaced by one of another type leaves the old type's entries.
    Customer replacing;
    replacing.set_id(1);
    store.saveRecord(replacing);
    EXPECT_TRUE(indexKeys(store, "tags").empty());
    EXPECT_EQ(indexKeys(store, "everything_by_id").size(), 2u);
  });
}

TEST_F(RecordStoreIndexTest, UniqueIndexRefusesASecondRecordWithTheValue) {
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 0, "x@example.com"));
    store.saveRecord(makeOrder(1, "a2", 0, "x@example.com"));  // same record: fine
    store.saveRecord(makeOrder(3, "no email"));
    store.saveRecord(makeOrder(4, "no email either"));  // nulls do not collide
  });
  withStore([&](RecordStore& store) {
    try {
      store.saveRecord(makeOrder(2, "b", 0, "x@example.com"));
      FAIL() << "expected a uniqueness violation";
    } catch (const RecordIndexUniquenessViolation& e) {
      EXPECT_EQ(e.indexName, "Order$email");
      EXPECT_EQ(e.primaryKey, fdb::Tuple{2});
      EXPECT_EQ(e.existingPrimaryKey, fdb::Tuple{1});
      // The message names both records (the existing one last).
      const std::string message = e.what();
      const std::string existing =
          "already indexed for primary key " + fdb::printable(fdb::Tuple{1}.pack());
      EXPECT_TRUE(message.ends_with(existing)) << message;
      EXPECT_NE(message.find("of primary key " + fdb::printable(fdb::Tuple{2}.pack())),
                std::string::npos)
          << message;
    }
  });
  // Moving the value from one record to another within a transaction is fine.
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 0, "y@example.com"));
    store.saveRecord(makeOrder(2, "b", 0, "x@example.com"));
  });
}

TEST_F(RecordStoreIndexTest, WriteOnlyUniqueIndexRecordsViolationsInsteadOfThrowing) {
  withStore([&](RecordStore& store) {
    store.markIndexWriteOnly("Order$email");
    store.saveRecord(makeOrder(1, "a", 0, "same"));
    store.saveRecord(makeOrder(2, "b", 0, "same"));
    EXPECT_EQ(store.uniquenessViolations("Order$email"),
              (std::vector<fdb::Tuple>{fdb::Tuple{1}, fdb::Tuple{2}}));
    EXPECT_THROW(store.markIndexReadable("Order$email"), IndexNotBuiltException);
    // Resolving the conflict removes both violations.
    store.saveRecord(makeOrder(2, "b", 0, "other"));
    EXPECT_TRUE(store.uniquenessViolations("Order$email").empty());
    EXPECT_TRUE(store.markIndexReadable("Order$email"));
  });
  EXPECT_TRUE(keysWithPrefix("\x15\x07"s).empty());
}

TEST_F(RecordStoreIndexTest, StatesDecideMaintenanceAndScans) {
  withStore([&](RecordStore& store) {
    store.markIndexWriteOnly("Order$price");
    store.markIndexDisabled("Order$name");
  });
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 10));
    EXPECT_THROW(store.scanIndex("Order$price", TupleRange::all(), std::nullopt, ScanProperties()),
                 ScanNonReadableIndexException);
    EXPECT_THROW(store.scanIndex("Order$name", TupleRange::all(), std::nullopt, ScanProperties()),
                 ScanNonReadableIndexException);
    EXPECT_THROW(indexScanFacts(store, "Order$name"), ScanNonReadableIndexException);
  });
  // Write-only: maintained. Disabled: nothing written.
  EXPECT_EQ(keysWithPrefix("\x15\x02\x02Order$price\x00"s).size(), 1u);
  EXPECT_TRUE(keysWithPrefix("\x15\x02\x02Order$name\x00"s).empty());
  withStore([&](RecordStore& store) {
    store.markIndexReadable("Order$price");
    EXPECT_EQ(indexKeys(store, "Order$price"), (std::vector<fdb::Tuple>{fdb::Tuple{10, 1}}));
    store.rebuildIndex("Order$name");
    EXPECT_EQ(store.indexState("Order$name"), IndexState::kReadable);
    EXPECT_EQ(indexKeys(store, "Order$name"), (std::vector<fdb::Tuple>{fdb::Tuple{"a", 1}}));
  });
}

TEST_F(RecordStoreIndexTest, SavingReadsTheOldRecordOnceAndChecksUniquenessOnce) {
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(1, "a", 10, "a@x")); });
  withStore([&](RecordStore& store) {
    const fdb::RoundTrips before = store.roundTrips();
    store.saveRecord(makeOrder(1, "b", 20, "b@x"));  // every indexed field changes
    const fdb::RoundTrips after = store.roundTrips();
    // One range read for the old record, one for the new email's uniqueness; no point reads.
    EXPECT_EQ(after.rangeReads - before.rangeReads, 2);
    EXPECT_EQ(after.reads - before.reads, 0);
    EXPECT_EQ(store.counters().uniquenessChecks, 1);
    EXPECT_EQ(store.counters().indexEntriesCleared, 3);
    EXPECT_EQ(store.counters().indexEntriesWritten, 3);
  });
}

TEST_F(RecordStoreIndexTest, IndexEntriesOverTheKeySizeLimitAreRefused) {
  RecordStoreOptions options;
  options.indexKeySizeLimit = 100;
  withStore(
      [&](RecordStore& store) {
        EXPECT_THROW(store.saveRecord(makeOrder(1, std::string(200, 'n'))),
                     IndexEntryTooLargeException);
      },
      options);
}

// A metadata version with one more index than `base`.
RecordMetaData withNewIndex(const RecordMetaData& base, const char* name) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index(name, concat(field("price"), field("name"))));
  RecordMetaData upgraded = builder.build();
  EXPECT_GT(upgraded.version(), base.version());
  return upgraded;
}

TEST_F(RecordStoreIndexTest, NewIndexIsBuiltWhileOpeningASmallStore) {
  withStore([&](RecordStore& store) {
    for (int i = 0; i < 200; ++i) store.saveRecord(makeOrder(i, "n", i));
  });
  metaData = withNewIndex(metaData, "by_price_name");
  std::vector<std::string> log;
  RecordStoreOptions options;
  options.logger = [&](std::string_view line) { log.emplace_back(line); };
  withStore(
      [&](RecordStore& store) {
        EXPECT_EQ(store.indexState("by_price_name"), IndexState::kReadable);
        EXPECT_EQ(indexKeys(store, "by_price_name").size(), 200u);
        EXPECT_EQ(store.header().metadataversion(), metaData.version());
      },
      options);
  EXPECT_TRUE(std::any_of(log.begin(), log.end(), [](const std::string& line) {
    return line.find("built index by_price_name") != std::string::npos;
  }));
}

TEST_F(RecordStoreIndexTest, NewIndexIsDisabledOnAStoreOfMoreThan200Records) {
  withStore([&](RecordStore& store) {
    for (int i = 0; i < 201; ++i) store.saveRecord(makeOrder(i, "n", i));
  });
  const RecordMetaData old = metaData;
  metaData = withNewIndex(old, "by_price_name");
  withStore([&](RecordStore& store) {
    EXPECT_EQ(store.indexState("by_price_name"), IndexState::kDisabled);
    store.saveRecord(makeOrder(500, "not indexed", 5));
  });
  EXPECT_TRUE(keysWithPrefix("\x15\x02\x02"
                             "by_price_name\x00"s)
                  .empty());
  EXPECT_EQ(rawGet("\x15\x05\x02"
                   "by_price_name\x00"s),
            "\x15\x02"s);

  // The user's hook may choose WRITE_ONLY instead.
  db = rl::tests::openTestDatabase();
  metaData = old;
  withStore([&](RecordStore& store) {
    for (int i = 0; i < 201; ++i) store.saveRecord(makeOrder(i, "n", i));
  });
  metaData = withNewIndex(old, "by_price_name");
  RecordStoreOptions options;
  options.userVersionChecker.needRebuildIndex = [](const Index&, int64_t count, bool onNewTypes) {
    EXPECT_EQ(count, kMaxRecordsForRebuild + 1);
    return writeOnlyIfTooManyRecordsForRebuild(count, onNewTypes);
  };
  withStore(
      [&](RecordStore& store) {
        EXPECT_EQ(store.indexState("by_price_name"), IndexState::kWriteOnly);
        store.saveRecord(makeOrder(500, "indexed", 5));
      },
      options);
  EXPECT_EQ(keysWithPrefix("\x15\x02\x02"
                           "by_price_name\x00"s)
                .size(),
            1u);
}

TEST_F(RecordStoreIndexTest, RemovedIndexDataIsClearedWhenTheMetadataMovesOn) {
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 10));
    store.markIndexWriteOnly("Order$name");
  });
  ASSERT_FALSE(keysWithPrefix("\x15\x02\x02Order$name\x00"s).empty());
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.removeIndex("Order$name");
  metaData = builder.build();
  withStore([&](RecordStore& store) {
    EXPECT_THROW(store.indexState("Order$name"), RecordCoreArgumentException);
  });
  EXPECT_TRUE(keysWithPrefix("\x15\x02\x02Order$name\x00"s).empty());
  EXPECT_FALSE(rawGet("\x15\x05\x02Order$name\x00"s).has_value());
  EXPECT_EQ(keysWithPrefix("\x15\x02\x02Order$price\x00"s).size(), 1u);
}

}  // namespace
}  // namespace rl::store_test
