// Opening stores: existence checks, the no-info-and-not-empty rule, format versions and
// their upgrades, metadata and user versions, cacheability.
#include <gtest/gtest.h>

#include "record_store_test_util.h"
#include "rl/metadata/metadata_builder.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

class RecordStoreOpenTest : public RecordStoreTest {
 protected:
  RecordStore openWith(RecordContext& context, StoreExistenceCheck check, int formatVersion = 7) {
    RecordStoreOptions options;
    options.existenceCheck = check;
    options.formatVersion = formatVersion;
    return RecordStore::open(context, testLocation(), metaData, options);
  }
  void writeHeader(const DataStoreInfo& header) {
    run([&](RecordContext& context) {
      context.transaction().set("\x14"s, header.SerializeAsString());
    });
  }
};

TEST_F(RecordStoreOpenTest, ExistenceChecks) {
  run([&](RecordContext& context) {
    EXPECT_THROW(RecordStore::openExisting(context, testLocation(), metaData),
                 RecordStoreDoesNotExistException);
  });
  run([&](RecordContext& context) { RecordStore::create(context, testLocation(), metaData); });
  run([&](RecordContext& context) {
    EXPECT_THROW(RecordStore::create(context, testLocation(), metaData),
                 RecordStoreAlreadyExistsException);
    RecordStore store = RecordStore::openExisting(context, testLocation(), metaData);
    EXPECT_FALSE(store.headerChanged());
    EXPECT_EQ(store.formatVersion(), kDefaultFormatVersion);
  });
}

TEST_F(RecordStoreOpenTest, NoInfoButNotEmpty) {
  run([&](RecordContext& context) { context.transaction().set("\x15\x01\x15\x01\x14"s, "x"); });
  for (StoreExistenceCheck check : {StoreExistenceCheck::kErrorIfNoInfoAndNotEmpty,
                                    StoreExistenceCheck::kErrorIfNoInfoAndHasRecordsOrIndexes,
                                    StoreExistenceCheck::kErrorIfExists}) {
    run([&](RecordContext& context) {
      EXPECT_THROW(openWith(context, check), RecordStoreNoInfoAndNotEmptyException);
    });
  }
  std::vector<std::string> log;
  run([&](RecordContext& context) {
    RecordStoreOptions options;
    options.existenceCheck = StoreExistenceCheck::kNone;
    options.logger = [&](std::string_view line) { log.emplace_back(line); };
    RecordStore::open(context, testLocation(), metaData, options);
  });
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log[0].find("no info but is not empty"), std::string::npos);
}

TEST_F(RecordStoreOpenTest, IndexStateKeysAloneAreToleratedOnlyByTheirCheck) {
  run([&](RecordContext& context) {
    context.transaction().set("\x15\x05\x02Order$price\x00"s, "\x15\x01"s);
  });
  run([&](RecordContext& context) {
    EXPECT_THROW(openWith(context, StoreExistenceCheck::kErrorIfNoInfoAndNotEmpty),
                 RecordStoreNoInfoAndNotEmptyException);
  });
  run([&](RecordContext& context) {
    RecordStore store =
        openWith(context, StoreExistenceCheck::kErrorIfNoInfoAndHasRecordsOrIndexes);
    // A new store: its indexes start readable, whatever state keys were lying around.
    EXPECT_EQ(store.indexState("Order$price"), IndexState::kReadable);
  });
  EXPECT_FALSE(rawGet("\x15\x05\x02Order$price\x00"s).has_value());
}

TEST_F(RecordStoreOpenTest, FormatVersionsOutsideOneToFifteenAreRejected) {
  run([&](RecordContext& context) {
    EXPECT_THROW(openWith(context, StoreExistenceCheck::kNone, 16),
                 UnsupportedFormatVersionException);
    EXPECT_THROW(openWith(context, StoreExistenceCheck::kNone, 0),
                 UnsupportedFormatVersionException);
  });
  for (int stored : {16, 0, -1}) {
    DataStoreInfo header;
    header.set_formatversion(stored);
    header.set_metadataversion(1);
    writeHeader(header);
    run([&](RecordContext& context) {
      EXPECT_THROW(openWith(context, StoreExistenceCheck::kErrorIfNoInfoAndNotEmpty),
                   UnsupportedFormatVersionException)
          << stored;
    });
  }
}

TEST_F(RecordStoreOpenTest, FormatVersionOnlyGoesUp) {
  run([&](RecordContext& context) {
    EXPECT_EQ(openWith(context, StoreExistenceCheck::kNone, 9).formatVersion(), 9);
  });
  run([&](RecordContext& context) {
    RecordStore store = openWith(context, StoreExistenceCheck::kNone, 7);
    EXPECT_EQ(store.formatVersion(), 9);
    EXPECT_FALSE(store.headerChanged());
  });
  run([&](RecordContext& context) {
    EXPECT_EQ(openWith(context, StoreExistenceCheck::kNone, 15).formatVersion(), 15);
  });
  run([&](RecordContext& context) {
    EXPECT_EQ(RecordStore::open(context, testLocation(), metaData).header().formatversion(), 15);
  });
}

TEST_F(RecordStoreOpenTest, UpgradingAnOldUnsplitStoreKeepsItsUnsuffixedLayout) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.setSplitLongRecords(false);
  builder.setStoreRecordVersions(false);
  metaData = builder.build();
  run([&](RecordContext& context) {
    RecordStore store = openWith(context, StoreExistenceCheck::kNone, 4);
    EXPECT_TRUE(store.omitUnsplitRecordSuffix());
    store.saveRecord(makeOrder(1, "legacy"));
  });
  EXPECT_TRUE(rawGet("\x15\x01\x15\x01"s).has_value());  // (1, 1): no suffix
  run([&](RecordContext& context) {
    RecordStore store = openWith(context, StoreExistenceCheck::kNone, 7);
    EXPECT_EQ(store.formatVersion(), 7);
    EXPECT_TRUE(store.omitUnsplitRecordSuffix());
    EXPECT_TRUE(store.header().omit_unsplit_record_suffix());
    EXPECT_TRUE(store.oldVersionFormat());
    store.saveRecord(makeOrder(2, "still legacy"));
    EXPECT_EQ(store.loadRecord<Order>(fdb::Tuple{1})->record.name(), "legacy");
    auto scanned = asList(*store.scanRecords(TupleRange::all(), std::nullopt, ScanProperties()),
                          [](LoadedRecord& r) { return r.primaryKey; });
    EXPECT_EQ(scanned.values, (std::vector<fdb::Tuple>{fdb::Tuple{1}, fdb::Tuple{2}}));
  });
  EXPECT_TRUE(rawGet("\x15\x01\x15\x02"s).has_value());
  EXPECT_FALSE(rawGet("\x15\x01\x15\x02\x14"s).has_value());
}

TEST_F(RecordStoreOpenTest, UpgradingPastFormatSixMovesVersionsInline) {
  run([&](RecordContext& context) {
    openWith(context, StoreExistenceCheck::kNone, 5).saveRecord(makeOrder(1, "v"));
  });
  const std::optional<fdb::Bytes> oldVersion = rawGet("\x15\x08\x15\x01"s);
  ASSERT_TRUE(oldVersion.has_value());
  run([&](RecordContext& context) {
    RecordStore store = openWith(context, StoreExistenceCheck::kNone, 6);
    EXPECT_FALSE(store.oldVersionFormat());
    EXPECT_EQ(store.loadRecord(fdb::Tuple{1})->version->toBytes(), *oldVersion);
  });
  EXPECT_FALSE(rawGet("\x15\x08\x15\x01"s).has_value());
  EXPECT_EQ(rawGet("\x15\x01\x15\x01\x13\xfe"s), "\x33"s + *oldVersion);
}

TEST_F(RecordStoreOpenTest, StaleMetaDataIsAnError) {
  RecordMetaDataBuilder newer(Order::descriptor()->file());
  newer.setVersion(10);
  const RecordMetaData old = metaData;
  metaData = newer.build();
  run([&](RecordContext& context) {
    EXPECT_EQ(RecordStore::open(context, testLocation(), metaData).header().metadataversion(), 10);
  });
  metaData = old;
  run([&](RecordContext& context) {
    EXPECT_THROW(RecordStore::open(context, testLocation(), metaData),
                 RecordStoreStaleMetaDataVersionException);
  });
}

TEST_F(RecordStoreOpenTest, UserVersionCheckerSetsAndGuardsTheUserVersion) {
  auto openWithUserVersion = [&](RecordContext& context, int version) {
    RecordStoreOptions options;
    options.userVersionChecker.checkUserVersion = [version](int stored, int,
                                                            const RecordMetaData&) {
      return std::max(version, stored < 0 ? 0 : version);
    };
    return RecordStore::open(context, testLocation(), metaData, options);
  };
  run([&](RecordContext& context) { EXPECT_EQ(openWithUserVersion(context, 3).userVersion(), 3); });
  run([&](RecordContext& context) { EXPECT_EQ(openWithUserVersion(context, 5).userVersion(), 5); });
  run([&](RecordContext& context) {
    EXPECT_THROW(openWithUserVersion(context, 4), RecordStoreStaleUserVersionException);
  });
}

TEST_F(RecordStoreOpenTest, CacheableFlagForNewStoresAndOnRequest) {
  run([&](RecordContext& context) {
    RecordStoreOptions options;
    options.stateCacheable = true;
    EXPECT_TRUE(RecordStore::open(context, testLocation(), metaData, options).header().cacheable());
  });
  run([&](RecordContext& context) {
    RecordStoreOptions options;  // not cacheable, but existing stores are left alone
    EXPECT_TRUE(RecordStore::open(context, testLocation(), metaData, options).header().cacheable());
    options.updateCacheabilityOfExistingStores = true;
    EXPECT_FALSE(
        RecordStore::open(context, testLocation(), metaData, options).header().cacheable());
  });
}

TEST_F(RecordStoreOpenTest, FullStoreLockRefusesOpening) {
  DataStoreInfo header;
  header.set_formatversion(14);
  header.set_metadataversion(metaData.version());
  header.mutable_store_lock_state()->set_lock_state(DataStoreInfo::StoreLockState::FULL_STORE);
  header.mutable_store_lock_state()->set_reason("moving");
  writeHeader(header);
  run([&](RecordContext& context) {
    EXPECT_THROW(RecordStore::open(context, testLocation(), metaData), StoreIsLockedException);
  });
  header.mutable_store_lock_state()->set_lock_state(
      DataStoreInfo::StoreLockState::FORBID_RECORD_UPDATE);
  writeHeader(header);
  run([&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    EXPECT_THROW(store.saveRecord(makeOrder(1, "x")), StoreIsLockedException);
    EXPECT_FALSE(store.loadRecord(fdb::Tuple{1}).has_value());
  });
}

TEST_F(RecordStoreOpenTest, OpeningReadsTheHeaderAndStatesInTwoRangeReads) {
  run([&](RecordContext& context) { RecordStore::open(context, testLocation(), metaData); });
  run([&](RecordContext& context) {
    const fdb::RoundTrips before = context.transaction().roundTrips();
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    const fdb::RoundTrips after = context.transaction().roundTrips();
    EXPECT_EQ(after.rangeReads - before.rangeReads, 2);
    EXPECT_EQ(after.reads - before.reads, 0);
  });
}

TEST_F(RecordStoreOpenTest, TupleAndDirectoryLocations) {
  run([&](RecordContext& context) {
    RecordStore store =
        RecordStore::open(context, StoreLocation::tuple(fdb::Tuple{"app", 5}), metaData);
    store.saveRecord(makeOrder(1, "x"));
    EXPECT_THROW(
        RecordStore::openExisting(context, StoreLocation::directory({"no", "such"}), metaData),
        RecordStoreDoesNotExistException);
  });
  EXPECT_TRUE(rawGet(fdb::Tuple{"app", 5, 1, 1, 0}.pack()).has_value());
}

}  // namespace
}  // namespace rl::store_test
