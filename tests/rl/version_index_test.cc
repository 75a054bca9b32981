// VERSION indexes: entries holding the record's version, written with SET_VERSIONSTAMPED_KEY
// for a record saved in this transaction and completed at commit; updates and deletes move
// them; "changed since V" scans; validation; online builds and the store checker.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "record_store_test_util.h"
#include "rl/index/version_index.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/online_indexer.h"
#include "rl/store/record_store_exception.h"
#include "rl/store/store_checker.h"

namespace rl::store_test {
namespace {

using namespace std::string_literals;

constexpr char kByName[] = "vidx";  // concat(name, version())
constexpr char kSince[] = "since";  // version()

RecordMetaData versionMetaData(bool withIndexes = true) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  if (withIndexes) {
    builder.addIndex("Order", Index(kByName, concat(field("name"), version()), Index::kVersion));
    builder.addIndex("Order", Index(kSince, version(), Index::kVersion));
  }
  return builder.build();
}

fdb::Bytes bytes(std::initializer_list<int> values) {
  fdb::Bytes out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

class VersionIndexTest : public RecordStoreTest {
 protected:
  VersionIndexTest() { metaData = versionMetaData(); }

  std::vector<fdb::Tuple> indexKeys(std::string_view index, TupleRange range = TupleRange::all()) {
    return withStore([&](RecordStore& store) {
      return asList(*store.scanIndex(index, range, std::nullopt, ScanProperties()),
                    [](IndexEntry& entry) { return entry.key; })
          .values;
    });
  }

  // Runs `fn` on a store in one transaction, commits, and returns the commit's versionstamp.
  template <typename F>
  fdb::Bytes commitOnce(F&& fn) {
    RecordContext context(db);
    RecordStore store = RecordStore::open(context, testLocation(), metaData);
    fn(store, context);
    context.commit();
    return *context.committedVersionstamp();
  }

  CheckReport check() { return StoreChecker(db, testLocation(), metaData).run(); }
};

// Golden bytes written from the Java Record Layer's layout (docs/format.md, "VERSION index
// entries"): (2, "vidx", "ab", versionstamp, 42), the versionstamp 0x33 then its 12 bytes.
TEST_F(VersionIndexTest, EntryOfACompleteVersionHasTheJavaLayout) {
  const RecordVersion version =
      RecordVersion::complete(std::string("\x00\x00\x00\x00\x00\x01\x02\x03\x00\x04", 10), 5);
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(42, "ab"), SaveMode::kInsertOrUpdate, version);
  });
  const fdb::Bytes key =
      bytes({0x15, 0x02, 0x02, 'v',  'i',  'd',  'x',  0x00, 0x02, 'a',  'b',  0x00, 0x33, 0x00,
             0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x00, 0x04, 0x00, 0x05, 0x15, 0x2A});
  const std::optional<fdb::Bytes> value = rawGet(key);
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(*value, "");
  const fdb::Bytes since =
      bytes({0x15, 0x02, 0x02, 's',  'i',  'n',  'c',  'e',  0x00, 0x33, 0x00, 0x00,
             0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x00, 0x04, 0x00, 0x05, 0x15, 0x2A});
  EXPECT_TRUE(rawGet(since).has_value());
  EXPECT_EQ(keysWithPrefix(fdb::Tuple{2, kByName}.pack()).size(), 1u);
}

// The operand of SET_VERSIONSTAMPED_KEY: the key with ten 0xff bytes where the commit's
// versionstamp goes, then their offset as 4 little-endian bytes.
TEST_F(VersionIndexTest, IncompleteEntryKeyIsTheVersionstampedKeyOperand) {
  const fdb::Bytes prefix = bytes({0x15, 0x02, 0x02, 'v', 'i', 'd', 'x', 0x00});
  const fdb::Bytes operand = versionIndexEntryKey(
      prefix, fdb::Tuple{"ab", fdb::Versionstamp::incomplete(7)}, fdb::Tuple{42});
  fdb::Bytes expected = prefix;
  expected += bytes({0x02, 'a', 'b', 0x00, 0x33});
  expected += fdb::Bytes(10, '\xff');
  expected += bytes({0x00, 0x07, 0x15, 0x2A, 13, 0, 0, 0});
  EXPECT_EQ(operand, expected);
}

TEST_F(VersionIndexTest, ASaveHoldsBackAVersionstampedKeyThatCommitCompletes) {
  StoredRecord saved;
  const fdb::Bytes versionstamp = commitOnce([&](RecordStore& store, RecordContext& context) {
    saved = store.saveRecord(makeOrder(42, "ab"));
    ASSERT_TRUE(saved.version && !saved.version->isComplete());
    const fdb::Bytes operand =
        versionIndexEntryKey(fdb::Tuple{2, kByName}.pack(),
                             fdb::Tuple{"ab", saved.version->toVersionstamp()}, fdb::Tuple{42});
    const auto mutation = context.versionMutation(operand);
    ASSERT_TRUE(mutation.has_value());
    EXPECT_EQ(mutation->first, fdb::MutationType::kSetVersionstampedKey);
    EXPECT_EQ(mutation->second, "");
    // Nothing is readable before commit.
    EXPECT_TRUE(
        asList(*store.scanIndex(kByName, TupleRange::all(), std::nullopt, {})).values.empty());
  });
  const RecordVersion complete = saved.version->withCommittedVersion(versionstamp);
  const std::optional<RecordVersion> stored =
      withStore([&](RecordStore& store) { return store.loadRecordVersion(fdb::Tuple{42}); });
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(*stored, complete);
  EXPECT_EQ(indexKeys(kByName),
            (std::vector<fdb::Tuple>{fdb::Tuple{"ab", complete.toVersionstamp(), 42}}));
  EXPECT_EQ(indexKeys(kSince),
            (std::vector<fdb::Tuple>{fdb::Tuple{complete.toVersionstamp(), 42}}));
  // The raw key: the prefix, the name, the record's version bytes, the primary key.
  fdb::Bytes key = fdb::Tuple{2, kByName, "ab"}.pack();
  key += '\x33';
  key += complete.toBytes();
  key += bytes({0x15, 0x2A});
  EXPECT_TRUE(rawGet(key).has_value());
  EXPECT_TRUE(check().ok());
}

TEST_F(VersionIndexTest, SavesAndDeletesInOneTransactionLeaveOnlyTheLastEntry) {
  StoredRecord last;
  const fdb::Bytes versionstamp = commitOnce([&](RecordStore& store, RecordContext&) {
    store.saveRecord(makeOrder(1, "a"));
    store.saveRecord(makeOrder(1, "b"));
    last = store.saveRecord(makeOrder(1, "b", 5));  // same name: the entry is rewritten
    store.saveRecord(makeOrder(2, "gone"));
    store.deleteRecord(fdb::Tuple{2});
  });
  const RecordVersion complete = last.version->withCommittedVersion(versionstamp);
  EXPECT_EQ(complete.localVersion(), 2);
  EXPECT_EQ(indexKeys(kByName),
            (std::vector<fdb::Tuple>{fdb::Tuple{"b", complete.toVersionstamp(), 1}}));
  EXPECT_EQ(keysWithPrefix(fdb::Tuple{2, kSince}.pack()).size(), 1u);
  EXPECT_TRUE(check().ok());
}

// Clearing the index's range in the saving transaction drops the held-back entries too.
TEST_F(VersionIndexTest, RangeClearsDropHeldBackEntries) {
  commitOnce([&](RecordStore& store, RecordContext&) {
    store.saveRecord(makeOrder(1, "a"));
    store.deleteAllRecords();
    store.saveRecord(makeOrder(2, "b"));
  });
  ASSERT_EQ(indexKeys(kByName).size(), 1u);
  EXPECT_EQ(indexKeys(kByName)[0][0], fdb::TupleElement("b"));
  commitOnce([&](RecordStore& store, RecordContext&) {
    store.saveRecord(makeOrder(3, "c"));
    store.markIndexDisabled(kSince);
  });
  EXPECT_TRUE(keysWithPrefix(fdb::Tuple{2, kSince}.pack()).empty());
  EXPECT_EQ(indexKeys(kByName).size(), 2u);
}

TEST_F(VersionIndexTest, UpdatesMoveTheEntryAndDeletesRemoveIt) {
  StoredRecord first;
  const fdb::Bytes v1 = commitOnce(
      [&](RecordStore& store, RecordContext&) { first = store.saveRecord(makeOrder(1, "a")); });
  const RecordVersion version1 = first.version->withCommittedVersion(v1);
  StoredRecord second;
  const fdb::Bytes v2 = commitOnce(
      [&](RecordStore& store, RecordContext&) { second = store.saveRecord(makeOrder(1, "a")); });
  const RecordVersion version2 = second.version->withCommittedVersion(v2);
  EXPECT_LT(version1, version2);
  // Saving the same record again moves its entry to the new version.
  EXPECT_EQ(indexKeys(kByName),
            (std::vector<fdb::Tuple>{fdb::Tuple{"a", version2.toVersionstamp(), 1}}));
  EXPECT_EQ(indexKeys(kSince), (std::vector<fdb::Tuple>{fdb::Tuple{version2.toVersionstamp(), 1}}));
  // A save with a given complete version keeps it; the old entry goes.
  const RecordVersion given = RecordVersion::firstInDBVersion(5);
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(1, "z"), SaveMode::kInsertOrUpdate, given);
  });
  EXPECT_EQ(indexKeys(kByName),
            (std::vector<fdb::Tuple>{fdb::Tuple{"z", given.toVersionstamp(), 1}}));
  withStore([&](RecordStore& store) { store.deleteRecord(fdb::Tuple{1}); });
  EXPECT_TRUE(indexKeys(kByName).empty());
  EXPECT_TRUE(indexKeys(kSince).empty());
  EXPECT_TRUE(check().ok());
}

TEST_F(VersionIndexTest, DefinitionsJavaRefusesAreRefused) {
  auto refused = [&](Index index, bool storeVersions, std::string_view words) {
    SCOPED_TRACE(std::string(words));
    RecordMetaDataBuilder builder(Order::descriptor()->file());
    builder.setStoreRecordVersions(storeVersions);
    builder.addIndex("Order", std::move(index));
    metaData = builder.build();
    try {
      withStore([](RecordStore&) {});
      ADD_FAILURE() << "the store opened";
    } catch (const MetaDataException& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(Index("v", field("name"), Index::kVersion), true, "exactly one version() column");
  refused(Index("v", concat(version(), version()), Index::kVersion), true,
          "exactly one version() column");
  refused(Index("v", version(), Index::kVersion, {{"unique", "true"}}), true, "cannot be unique");
  refused(Index("v", version().groupBy(field("name")), Index::kVersion), true, "cannot be grouped");
  refused(Index("v", version(), Index::kVersion), false, "store_record_versions");
}

// Random saves and deletes in random transactions against a model of each record's name and
// committed version; the index, "since V" scans and continuations follow the model, and the
// checker finds the store clean, then finds planted corruption.
TEST_F(VersionIndexTest, RandomSavesAndDeletesFollowAModelOrderedByCommitVersion) {
  std::mt19937 random(22);
  struct Entry {
    std::string name;
    RecordVersion version;
  };
  std::map<int64_t, Entry> model;
  const std::vector<std::string> names = {"a", "b", "c"};
  for (int round = 0; round < 30; ++round) {
    std::map<int64_t, std::optional<std::pair<std::string, RecordVersion>>> pending;
    const fdb::Bytes versionstamp = commitOnce([&](RecordStore& store, RecordContext&) {
      const int ops = 1 + static_cast<int>(random() % 6);
      for (int i = 0; i < ops; ++i) {
        const int64_t id = static_cast<int64_t>(random() % 12);
        if (random() % 4 == 0) {
          store.deleteRecord(fdb::Tuple{id});
          pending[id] = std::nullopt;
        } else {
          const std::string& name = names[random() % names.size()];
          const StoredRecord saved = store.saveRecord(makeOrder(id, name));
          pending[id] = std::pair(name, *saved.version);
        }
      }
    });
    for (auto& [id, change] : pending) {
      if (change) {
        model.insert_or_assign(
            id, Entry{change->first, change->second.withCommittedVersion(versionstamp)});
      } else {
        model.erase(id);
      }
    }
    std::vector<fdb::Tuple> byName;
    std::vector<std::pair<RecordVersion, int64_t>> byVersion;
    for (const auto& [id, entry] : model) {
      byName.push_back(fdb::Tuple{entry.name, entry.version.toVersionstamp(), id});
      byVersion.emplace_back(entry.version, id);
    }
    std::sort(byName.begin(), byName.end());
    std::sort(byVersion.begin(), byVersion.end());
    ASSERT_EQ(indexKeys(kByName), byName) << "round " << round;
    std::vector<fdb::Tuple> since;
    for (const auto& [version, id] : byVersion)
      since.push_back(fdb::Tuple{version.toVersionstamp(), id});
    ASSERT_EQ(indexKeys(kSince), since) << "round " << round;
    // Every record changed since a version V: everything after (V) in the index.
    if (!byVersion.empty()) {
      const size_t at = random() % byVersion.size();
      TupleRange after;
      after.low = fdb::Tuple{byVersion[at].first.toVersionstamp()};
      after.lowEndpoint = EndpointType::kRangeExclusive;
      const std::vector<fdb::Tuple> expected(since.begin() + static_cast<long>(at) + 1,
                                             since.end());
      ASSERT_EQ(indexKeys(kSince, after), expected) << "round " << round;
    }
  }
  // Read two entries per transaction, resuming from the continuation.
  std::vector<fdb::Tuple> resumed;
  std::optional<fdb::Bytes> continuation;
  int transactions = 0;
  do {
    ExecuteProperties execute;
    execute.returnedRowLimit = 2;
    auto page = withStore([&](RecordStore& store) {
      return asList(
          *store.scanIndex(kSince, TupleRange::all(), continuation, ScanProperties(execute)),
          [](IndexEntry& entry) { return entry.key; });
    });
    resumed.insert(resumed.end(), page.values.begin(), page.values.end());
    continuation = page.continuation.toBytes();
    ++transactions;
  } while (continuation);
  EXPECT_EQ(resumed, indexKeys(kSince));
  EXPECT_GE(transactions, static_cast<int>(model.size() / 2));

  const CheckReport clean = check();
  EXPECT_TRUE(clean.ok()) << clean.summary();
  EXPECT_NE(std::find(clean.indexesChecked.begin(), clean.indexesChecked.end(), kSince),
            clean.indexesChecked.end());
  ASSERT_FALSE(model.empty());
  // Planted: one record's entry cleared; an entry at a version its record does not have.
  const auto& [id, entry] = *model.begin();
  const fdb::Bytes real = fdb::Tuple{2, kSince, entry.version.toVersionstamp(), id}.pack();
  ASSERT_TRUE(rawGet(real).has_value());
  run([&](RecordContext& context) { context.transaction().clear(real); });
  const fdb::Bytes bogus =
      fdb::Tuple{2, kSince, RecordVersion::firstInDBVersion(1).toVersionstamp(), id}.pack();
  run([&](RecordContext& context) { context.transaction().set(bogus, ""); });
  const CheckReport corrupt = check();
  EXPECT_EQ(corrupt.count(CheckProblemKind::kMissingIndexEntry), 1) << corrupt.summary();
  EXPECT_EQ(corrupt.count(CheckProblemKind::kDanglingIndexEntry), 1) << corrupt.summary();
}

TEST_F(VersionIndexTest, OnlineBuildIndexesEachRecordAtItsStoredVersion) {
  metaData = versionMetaData(/*withIndexes=*/false);
  for (int first = 0; first < 300; first += 150) {
    withStore([&](RecordStore& store) {
      for (int i = first; i < first + 150; ++i)
        store.saveRecord(makeOrder(i, std::string(1, static_cast<char>('a' + i % 3))));
    });
  }
  metaData = versionMetaData();
  // Too many records to build at open: the new indexes start DISABLED.
  EXPECT_EQ(withStore([&](RecordStore& store) { return store.indexState(kSince); }),
            IndexState::kDisabled);
  OnlineIndexerOptions options;
  options.recordsPerTransaction = 100;
  const IndexBuildReport report =
      OnlineIndexer(db, testLocation(), metaData, kSince, options).run();
  EXPECT_EQ(report.recordsIndexed, 300);
  EXPECT_EQ(report.state, IndexState::kReadable);
  std::vector<fdb::Tuple> expected;
  withStore([&](RecordStore& store) {
    for (int i = 0; i < 300; ++i) {
      expected.push_back(fdb::Tuple{store.loadRecordVersion(fdb::Tuple{i})->toVersionstamp(), i});
    }
  });
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(indexKeys(kSince), expected);
  OnlineIndexer(db, testLocation(), metaData, kByName, options).run();
  const CheckReport report2 = check();
  EXPECT_TRUE(report2.ok()) << report2.summary();
  EXPECT_EQ(report2.indexesSkipped.size(), 0u) << report2.summary();
}

TEST_F(VersionIndexTest, IndexStatesWorkAsForValueIndexes) {
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(1, "a")); });
  // DISABLED: its entries are cleared and saves write none.
  withStore([&](RecordStore& store) { EXPECT_TRUE(store.markIndexDisabled(kSince)); });
  EXPECT_TRUE(keysWithPrefix(fdb::Tuple{2, kSince}.pack()).empty());
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(2, "b")); });
  EXPECT_TRUE(keysWithPrefix(fdb::Tuple{2, kSince}.pack()).empty());
  // WRITE_ONLY: saves write entries (at commit), scans are refused.
  withStore([&](RecordStore& store) { EXPECT_TRUE(store.markIndexWriteOnly(kSince)); });
  withStore([&](RecordStore& store) { store.saveRecord(makeOrder(3, "c")); });
  EXPECT_EQ(keysWithPrefix(fdb::Tuple{2, kSince}.pack()).size(), 1u);
  withStore([&](RecordStore& store) {
    EXPECT_THROW(store.scanIndex(kSince, TupleRange::all(), std::nullopt, {}),
                 ScanNonReadableIndexException);
    // A rebuild indexes every record at its stored version and makes it READABLE.
    store.rebuildIndex(kSince);
  });
  std::vector<fdb::Tuple> expected;
  withStore([&](RecordStore& store) {
    for (int64_t id = 1; id <= 3; ++id) {
      expected.push_back(fdb::Tuple{store.loadRecordVersion(fdb::Tuple{id})->toVersionstamp(), id});
    }
  });
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(indexKeys(kSince), expected);
  EXPECT_TRUE(check().ok());
}

TEST_F(VersionIndexTest, SmallStoresBuildTheIndexAtOpen) {
  metaData = versionMetaData(/*withIndexes=*/false);
  withStore([&](RecordStore& store) {
    for (int i = 0; i < 5; ++i) store.saveRecord(makeOrder(i, "n"));
  });
  metaData = versionMetaData();
  withStore(
      [&](RecordStore& store) { EXPECT_EQ(store.indexState(kByName), IndexState::kReadable); });
  EXPECT_EQ(indexKeys(kByName).size(), 5u);
  EXPECT_TRUE(check().ok());
}

}  // namespace
}  // namespace rl::store_test
