// The split helper (docs/format.md, "Records", "Record versions"): key layout byte for byte,
// save/load/overwrite/delete, every unsplitter error, versions completing at commit, and scans
// assembling records.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/record/record_version.h"
#include "rl/record/split_helper.h"
#include "rl/record_core_exception.h"
#include "test_database.h"

namespace {

using fdb::Bytes;
using fdb::fromHex;
using fdb::Tuple;
using rl::RawRecord;
using rl::RecordContext;
using rl::RecordVersion;

// A store prefix P of nothing, so record keys are exactly docs/format.md's examples: (1, pk, ...).
const fdb::Subspace kRecords(Tuple{1});

// Bytes whose chunks can be told apart.
Bytes patterned(size_t size) {
  Bytes b(size, '\0');
  for (size_t i = 0; i < size; ++i) b[i] = static_cast<char>((i * 7 + i / 100000) & 0xff);
  return b;
}

class SplitHelperTest : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();

  std::vector<fdb::KeyValue> allKeys() {
    return db.run([](fdb::Transaction& tr) { return tr.getRangeAll(fdb::KeyRange{"", "\xff"}); });
  }
  std::vector<Bytes> allKeyNames() {
    std::vector<Bytes> keys;
    for (const auto& kv : allKeys()) keys.push_back(kv.key);
    return keys;
  }
  void save(const Tuple& pk, const Bytes& bytes, std::optional<RecordVersion> version = {},
            rl::SplitSaveOptions options = {}) {
    rl::runInContext(db, [&](RecordContext& context) {
      rl::saveWithSplit(context, kRecords, pk, bytes, version, options);
    });
  }
  std::optional<RawRecord> load(const Tuple& pk, rl::SplitLoadOptions options = {}) {
    return rl::runInContext(db, [&](RecordContext& context) {
      return rl::loadWithSplit(context, kRecords, pk, options);
    });
  }
  void put(const Bytes& key, const Bytes& value) {
    db.run([&](fdb::Transaction& tr) { tr.set(key, value); });
  }
};

TEST_F(SplitHelperTest, UnsplitRecordAtSuffixZero) {
  save(Tuple{42}, "hello");
  auto keys = allKeys();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].key, fromHex("1501152a14"));  // (1, 42, 0)
  EXPECT_EQ(keys[0].value, "hello");
  auto record = load(Tuple{42});
  ASSERT_TRUE(record);
  EXPECT_EQ(record->rawRecord, "hello");
  EXPECT_EQ(record->primaryKey, Tuple{42});
  EXPECT_FALSE(record->version);
  EXPECT_FALSE(record->sizes.isSplit);
  EXPECT_EQ(record->sizes.keyCount, 1);
  EXPECT_EQ(record->sizes.valueSize, 5);
  EXPECT_FALSE(load(Tuple{43}).has_value());
}

TEST_F(SplitHelperTest, LongRecordSplitsIntoHundredThousandByteChunks) {
  const Bytes big = patterned(250'000);
  rl::SizeInfo sizes;
  rl::runInContext(db, [&](RecordContext& context) {
    rl::saveWithSplit(context, kRecords, Tuple{42}, big, std::nullopt, {}, &sizes);
  });
  auto keys = allKeys();
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0].key, fromHex("1501152a1501"));  // (1, 42, 1)
  EXPECT_EQ(keys[1].key, fromHex("1501152a1502"));
  EXPECT_EQ(keys[2].key, fromHex("1501152a1503"));  // the 3rd chunk, as in docs/format.md
  EXPECT_EQ(keys[0].value.size(), 100'000u);
  EXPECT_EQ(keys[1].value.size(), 100'000u);
  EXPECT_EQ(keys[2].value.size(), 50'000u);
  EXPECT_EQ(keys[0].value + keys[1].value + keys[2].value, big);
  EXPECT_TRUE(sizes.isSplit);
  EXPECT_EQ(sizes.keyCount, 3);
  EXPECT_EQ(sizes.valueSize, 250'000);
  EXPECT_EQ(sizes.keySize, 18);
  auto record = load(Tuple{42});
  ASSERT_TRUE(record);
  EXPECT_EQ(record->rawRecord, big);
  EXPECT_TRUE(record->sizes.isSplit);
  EXPECT_EQ(record->sizes, sizes);
}

TEST_F(SplitHelperTest, ExactlyTheChunkSizeStaysUnsplit) {
  save(Tuple{1}, patterned(100'000));
  EXPECT_EQ(allKeyNames(), std::vector<Bytes>{fromHex("1501150114")});
  save(Tuple{2}, patterned(100'001));
  EXPECT_EQ(allKeyNames(), (std::vector<Bytes>{fromHex("1501150114"), fromHex("150115021501"),
                                               fromHex("150115021502")}));
  EXPECT_EQ(load(Tuple{2})->rawRecord, patterned(100'001));
}

TEST_F(SplitHelperTest, LongRecordWithoutSplittingIsRefused) {
  rl::SplitSaveOptions options;
  options.splitLongRecords = false;
  EXPECT_THROW(save(Tuple{1}, patterned(100'001), std::nullopt, options),
               rl::RecordCoreArgumentException);
  EXPECT_TRUE(allKeys().empty());
}

TEST_F(SplitHelperTest, LegacyLayoutHasNoSuffixAndNoInlineVersion) {
  rl::SplitSaveOptions options;
  options.splitLongRecords = false;
  options.omitUnsplitSuffix = true;
  save(Tuple{42}, "old", std::nullopt, options);
  EXPECT_EQ(allKeyNames(), std::vector<Bytes>{fromHex("1501152a")});  // (1, 42)
  rl::SplitLoadOptions loadOptions;
  loadOptions.splitLongRecords = false;
  loadOptions.missingUnsplitRecordSuffix = true;
  EXPECT_EQ(load(Tuple{42}, loadOptions)->rawRecord, "old");
  EXPECT_THROW(save(Tuple{43}, "x", RecordVersion::incomplete(0), options),
               rl::RecordCoreArgumentException);
  rl::runInContext(
      db, [&](RecordContext& context) { rl::deleteSplit(context, kRecords, Tuple{42}, options); });
  EXPECT_TRUE(allKeys().empty());
}

TEST_F(SplitHelperTest, CompleteInlineVersionKeyAndValue) {
  const RecordVersion version = RecordVersion::complete(fromHex("00000000000000100001"), 3);
  rl::SizeInfo sizes;
  rl::runInContext(db, [&](RecordContext& context) {
    rl::saveWithSplit(context, kRecords, Tuple{42}, "data", version, {}, &sizes);
  });
  auto keys = allKeys();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].key, fromHex("1501152a13fe"));  // (1, 42, -1) sorts first
  EXPECT_EQ(keys[0].value, fromHex("33000000000000001000010003"));
  EXPECT_EQ(keys[1].key, fromHex("1501152a14"));
  EXPECT_TRUE(sizes.isVersionedInline);
  EXPECT_EQ(sizes.keyCount, 2);
  EXPECT_EQ(sizes.valueSize, 4 + 13);
  auto record = load(Tuple{42});
  ASSERT_TRUE(record);
  EXPECT_EQ(record->version, version);
  EXPECT_TRUE(record->sizes.isVersionedInline);
  EXPECT_EQ(record->sizes, sizes);
}

TEST_F(SplitHelperTest, IncompleteVersionCompletesAtCommit) {
  RecordContext context(db);
  const uint16_t local = context.claimLocalVersion();
  ASSERT_EQ(context.claimLocalVersion(), 1);  // use local version 1 to see it in the bytes
  const RecordVersion pending = RecordVersion::incomplete(1);
  rl::saveWithSplit(context, kRecords, Tuple{42}, "data", pending);
  const Bytes versionKey = fromHex("1501152a13fe");
  auto mutation = context.versionMutation(versionKey);
  ASSERT_TRUE(mutation);
  EXPECT_EQ(mutation->first, fdb::MutationType::kSetVersionstampedValue);
  EXPECT_EQ(mutation->second, fromHex("33ffffffffffffffffffff000101000000"));
  // Read back in the same transaction: answered from the local-version cache.
  auto before = rl::loadWithSplit(context, kRecords, Tuple{42});
  ASSERT_TRUE(before);
  EXPECT_EQ(before->version, pending);
  EXPECT_EQ(before->sizes.keyCount, 2);
  EXPECT_EQ(local, 0);
  context.commit();
  const Bytes stamp = *context.committedVersionstamp();

  RecordContext later(db);
  auto after = rl::loadWithSplit(later, kRecords, Tuple{42});
  ASSERT_TRUE(after);
  ASSERT_TRUE(after->version);
  EXPECT_TRUE(after->version->isComplete());
  EXPECT_EQ(*after->version, pending.withCommittedVersion(stamp));
  EXPECT_EQ(after->version->toBytes(), stamp + fromHex("0001"));
  EXPECT_EQ(after->rawRecord, "data");
}

TEST_F(SplitHelperTest, SplitRecordOverwrittenBySmallLeavesNoStaleChunks) {
  save(Tuple{42}, patterned(250'000), RecordVersion::complete(fromHex("00000000000000010000"), 0));
  save(Tuple{42}, "small");
  EXPECT_EQ(allKeyNames(), std::vector<Bytes>{fromHex("1501152a14")});
  auto record = load(Tuple{42});
  EXPECT_EQ(record->rawRecord, "small");
  EXPECT_FALSE(record->version);
}

TEST_F(SplitHelperTest, SmallRecordOverwrittenBySplitLeavesNoStaleUnsplitValue) {
  save(Tuple{42}, "small");
  save(Tuple{42}, patterned(150'000));
  EXPECT_EQ(allKeyNames(), (std::vector<Bytes>{fromHex("1501152a1501"), fromHex("1501152a1502")}));
  EXPECT_EQ(load(Tuple{42})->rawRecord, patterned(150'000));
}

TEST_F(SplitHelperTest, LongerSplitOverwrittenByShorterSplit) {
  save(Tuple{42}, patterned(350'000));
  save(Tuple{42}, patterned(150'000));
  EXPECT_EQ(allKeyNames().size(), 2u);
  EXPECT_EQ(load(Tuple{42})->rawRecord, patterned(150'000));
}

TEST_F(SplitHelperTest, ClearingBasedOnPreviousSizeInfo) {
  for (bool unroll : {false, true}) {
    SCOPED_TRACE(unroll ? "unrolled" : "range clear");
    db.run([](fdb::Transaction& tr) { tr.clearRange("", "\xff"); });
    rl::SizeInfo previous;
    rl::runInContext(db, [&](RecordContext& context) {
      rl::saveWithSplit(context, kRecords, Tuple{7}, patterned(250'000),
                        RecordVersion::complete(fromHex("00000000000000010000"), 0), {}, &previous);
    });
    ASSERT_EQ(previous.keyCount, 4);
    rl::SplitSaveOptions options;
    options.clearBasedOnPreviousSizeInfo = true;
    options.previousSizeInfo = &previous;
    options.unrollSingleRecordDeletes = unroll;
    rl::SizeInfo now;
    rl::runInContext(db, [&](RecordContext& context) {
      rl::saveWithSplit(context, kRecords, Tuple{7}, "tiny", std::nullopt, options, &now);
    });
    EXPECT_EQ(allKeyNames(), std::vector<Bytes>{fromHex("1501150714")});
    // And back: the previous (unsplit, unversioned) record needs only (7, 0) cleared.
    options.previousSizeInfo = &now;
    save(Tuple{7}, patterned(120'000), std::nullopt, options);
    EXPECT_EQ(allKeyNames(),
              (std::vector<Bytes>{fromHex("150115071501"), fromHex("150115071502")}));
  }
}

TEST_F(SplitHelperTest, DeleteClearsEveryKeyAndAPendingVersion) {
  save(Tuple{42}, patterned(250'000), RecordVersion::complete(fromHex("00000000000000010000"), 0));
  save(Tuple{43}, "neighbour");
  rl::runInContext(db,
                   [&](RecordContext& context) { rl::deleteSplit(context, kRecords, Tuple{42}); });
  EXPECT_EQ(allKeyNames(), std::vector<Bytes>{fromHex("1501152b14")});
  EXPECT_FALSE(load(Tuple{42}).has_value());

  RecordContext context(db);
  rl::saveWithSplit(context, kRecords, Tuple{44}, "x",
                    RecordVersion::incomplete(context.claimLocalVersion()));
  rl::deleteSplit(context, kRecords, Tuple{44});
  EXPECT_EQ(context.versionMutationCount(), 0u);
  EXPECT_FALSE(rl::loadWithSplit(context, kRecords, Tuple{44}).has_value());
  context.commit();
  EXPECT_EQ(allKeyNames(), std::vector<Bytes>{fromHex("1501152b14")});
}

TEST_F(SplitHelperTest, ChunksOutOfOrderAreAnError) {
  put(fromHex("1501152a1501"), "a");
  put(fromHex("1501152a1503"), "c");
  EXPECT_THROW(load(Tuple{42}), rl::FoundSplitOutOfOrderException);
}

TEST_F(SplitHelperTest, UnsplitFollowedBySplitIsAnError) {
  put(fromHex("1501152a14"), "whole");
  put(fromHex("1501152a1501"), "chunk");
  try {
    load(Tuple{42});
    FAIL() << "expected an error";
  } catch (const rl::RecordCoreStorageException& e) {
    EXPECT_NE(std::string(e.what()).find("Unsplit value followed by split"), std::string::npos);
  }
}

TEST_F(SplitHelperTest, VersionWithoutDataIsAnError) {
  put(fromHex("1501152a13fe"),
      RecordVersion::complete(fromHex("00000000000000010000"), 0).toInlineValue());
  EXPECT_THROW(load(Tuple{42}), rl::FoundSplitWithoutStartException);
}

TEST_F(SplitHelperTest, ChunkWithoutTheFirstIsAnError) {
  put(fromHex("1501152a1502"), "b");
  EXPECT_THROW(load(Tuple{42}), rl::FoundSplitWithoutStartException);
}

TEST_F(SplitHelperTest, KeyWithMoreThanOneSuffixElementIsAnError) {
  put(fromHex("1501152a14") + fromHex("14"), "x");  // (1, 42, 0, 0)
  EXPECT_THROW(load(Tuple{42}), rl::RecordCoreStorageException);
}

// FDBMetaDataStore keeps its metadata at Tuple(null) with splitting always on: the defaults.
TEST_F(SplitHelperTest, MetaDataStoreStyleUse) {
  const fdb::Subspace metaData = fdb::Subspace::fromBytes("md");
  const Bytes big = patterned(230'000);
  rl::runInContext(db, [&](RecordContext& context) {
    rl::saveWithSplit(context, metaData, Tuple{nullptr}, big);
  });
  EXPECT_EQ(allKeyNames().front(), Bytes("md") + fromHex("001501"));  // (null, 1)
  auto back = rl::runInContext(db, [&](RecordContext& context) {
    return rl::loadWithSplit(context, metaData, Tuple{nullptr});
  });
  ASSERT_TRUE(back);
  EXPECT_EQ(back->rawRecord, big);
}

TEST_F(SplitHelperTest, OldFormatVersionsLiveAtEightPk) {
  const fdb::Subspace legacyVersions(Tuple{8});
  RecordContext context(db);
  const uint16_t local = context.claimLocalVersion();
  rl::saveOldFormatVersion(context, legacyVersions, Tuple{42}, RecordVersion::incomplete(local));
  auto mutation = context.versionMutation(fromHex("1508152a"));
  ASSERT_TRUE(mutation);
  EXPECT_EQ(mutation->second, fromHex("ffffffffffffffffffff000000000000"));
  EXPECT_EQ(rl::loadOldFormatVersion(context, legacyVersions, Tuple{42}),
            RecordVersion::incomplete(0));
  context.commit();
  const Bytes stamp = *context.committedVersionstamp();
  auto stored = allKeys();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].key, fromHex("1508152a"));
  EXPECT_EQ(stored[0].value, stamp + fromHex("0000"));
  RecordContext later(db);
  EXPECT_EQ(rl::loadOldFormatVersion(later, legacyVersions, Tuple{42}),
            RecordVersion::complete(stamp, 0));
  rl::deleteOldFormatVersion(later, legacyVersions, Tuple{42});
  later.commit();
  EXPECT_TRUE(allKeys().empty());
}

// --- Scans assembling records ---

class RecordScanTest : public SplitHelperTest {
 protected:
  void SetUp() override {
    const RecordVersion v = RecordVersion::complete(fromHex("00000000000000050000"), 0);
    save(Tuple{1}, "one");
    save(Tuple{2}, patterned(250'000), v);
    save(Tuple{3}, "three", v.next());
    save(Tuple{4}, patterned(120'000));
    save(Tuple{5}, "five");
  }

  struct Scanned {
    std::vector<int64_t> keys;
    std::vector<Bytes> bytes;
    std::vector<bool> versioned;
    rl::NoNextReason reason;
    std::optional<Bytes> continuation;
  };
  Scanned scan(const rl::ScanProperties& properties, const std::optional<Bytes>& continuation = {},
               const rl::TupleRange& range = rl::TupleRange::all()) {
    return rl::runInContext(db, [&](RecordContext& context) {
      Scanned out;
      auto cursor = rl::scanRawRecords(context, kRecords, range, properties, continuation);
      while (true) {
        auto result = cursor->next();
        if (!result.hasValue()) {
          out.reason = result.noNextReason();
          out.continuation = result.continuation().toBytes();
          return out;
        }
        out.keys.push_back(result.value().primaryKey.getInt(0));
        out.bytes.emplace_back(result.value().rawRecord.view());
        out.versioned.push_back(result.value().version.has_value());
      }
    });
  }
};

TEST_F(RecordScanTest, RecordsKeptFromAScanOutliveItsCursorAndBatches) {
  for (bool reverse : {false, true}) {
    rl::ScanProperties properties =
        reverse ? rl::ScanProperties::reverseScan() : rl::ScanProperties::forwardScan();
    properties.streamingMode = rl::CursorStreamingMode::kSmall;  // several batches
    std::vector<RawRecord> kept = rl::runInContext(db, [&](RecordContext& context) {
      std::vector<RawRecord> records;
      auto cursor = rl::scanRawRecords(context, kRecords, rl::TupleRange::all(), properties);
      for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
        records.push_back(std::move(r.value()));
      }
      return records;  // the cursor and its batches are gone; unsplit records view them
    });
    ASSERT_EQ(kept.size(), 5u) << reverse;
    if (reverse) std::reverse(kept.begin(), kept.end());
    EXPECT_EQ(kept[0].rawRecord, "one");
    EXPECT_EQ(kept[1].rawRecord, patterned(250'000));
    EXPECT_EQ(kept[2].rawRecord, "three");
    EXPECT_EQ(kept[3].rawRecord, patterned(120'000));
    EXPECT_EQ(kept[4].rawRecord, "five");
  }
}

TEST_F(RecordScanTest, ForwardAndReverseAssembleTheSameRecords) {
  Scanned forward = scan(rl::ScanProperties::forwardScan());
  EXPECT_EQ(forward.keys, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(forward.bytes[1], patterned(250'000));
  EXPECT_EQ(forward.bytes[3], patterned(120'000));
  EXPECT_EQ(forward.versioned, (std::vector<bool>{false, true, true, false, false}));
  EXPECT_EQ(forward.reason, rl::NoNextReason::kSourceExhausted);
  EXPECT_FALSE(forward.continuation);

  Scanned reverse = scan(rl::ScanProperties::reverseScan());
  EXPECT_EQ(reverse.keys, (std::vector<int64_t>{5, 4, 3, 2, 1}));
  EXPECT_EQ(reverse.bytes[3], patterned(250'000));
  EXPECT_EQ(reverse.bytes[1], patterned(120'000));
  EXPECT_EQ(reverse.versioned, (std::vector<bool>{false, false, true, true, false}));
}

TEST_F(RecordScanTest, ScanLimitStopsOnlyBetweenRecordsAndResumes) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    rl::ExecuteProperties execute;
    execute.scannedRecordsLimit = 2;
    std::vector<int64_t> all;
    std::optional<Bytes> continuation;
    int rounds = 0;
    while (true) {
      Scanned part = scan(rl::ScanProperties(execute, reverse), continuation);
      all.insert(all.end(), part.keys.begin(), part.keys.end());
      ASSERT_LT(++rounds, 10);
      if (part.reason == rl::NoNextReason::kSourceExhausted) break;
      EXPECT_EQ(part.reason, rl::NoNextReason::kScanLimitReached);
      ASSERT_TRUE(part.continuation);
      continuation = part.continuation;
    }
    EXPECT_EQ(all, reverse ? (std::vector<int64_t>{5, 4, 3, 2, 1})
                           : (std::vector<int64_t>{1, 2, 3, 4, 5}));
    EXPECT_GT(rounds, 2);
  }
}

TEST_F(RecordScanTest, RowLimitAndSkipCountRecords) {
  rl::ExecuteProperties execute;
  execute.skip = 1;
  execute.returnedRowLimit = 2;
  Scanned part = scan(rl::ScanProperties(execute));
  EXPECT_EQ(part.keys, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(part.reason, rl::NoNextReason::kReturnLimitReached);
  execute.skip = 0;
  Scanned rest = scan(rl::ScanProperties(execute), part.continuation);
  EXPECT_EQ(rest.keys, (std::vector<int64_t>{4, 5}));
}

TEST_F(RecordScanTest, PendingVersionsAreSeenInTheirTransaction) {
  rl::runInContext(db, [&](RecordContext& context) {
    rl::saveWithSplit(context, kRecords, Tuple{5}, "five again",
                      RecordVersion::incomplete(context.claimLocalVersion()));
    auto cursor = rl::scanRawRecords(context, kRecords, rl::TupleRange::allOf(Tuple{5}),
                                     rl::ScanProperties::forwardScan());
    auto result = cursor->next();
    ASSERT_TRUE(result.hasValue());
    EXPECT_EQ(result.value().version, RecordVersion::incomplete(0));
    EXPECT_EQ(result.value().rawRecord, "five again");
  });
}

TEST_F(RecordScanTest, BrokenSplitsAreErrorsInBothDirections) {
  db.run([](fdb::Transaction& tr) { tr.clear(fromHex("150115021502")); });  // (2, 2) gone
  EXPECT_THROW(scan(rl::ScanProperties::forwardScan()), rl::FoundSplitOutOfOrderException);
  EXPECT_THROW(scan(rl::ScanProperties::reverseScan()), rl::FoundSplitOutOfOrderException);
  db.run([](fdb::Transaction& tr) { tr.clear(fromHex("150115021501")); });  // (2, 1) gone too
  EXPECT_THROW(scan(rl::ScanProperties::forwardScan()), rl::FoundSplitWithoutStartException);
  EXPECT_THROW(scan(rl::ScanProperties::reverseScan()), rl::FoundSplitWithoutStartException);
}

TEST_F(RecordScanTest, UnsplitFollowedBySplitIsAnErrorInAScan) {
  put(fromHex("1501150114"), "one");
  put(fromHex("150115011501"), "chunk");  // (1, 1) next to (1, 0)
  EXPECT_THROW(scan(rl::ScanProperties::forwardScan()), rl::RecordCoreStorageException);
  EXPECT_THROW(scan(rl::ScanProperties::reverseScan()), rl::RecordCoreStorageException);
}

}  // namespace

// --- Records viewed in their read's result ---

namespace {

fdb::RangeRows rowsOf(const std::vector<fdb::KeyValue>& rows) {
  fdb::RangeRowsBuilder builder;
  for (const fdb::KeyValue& row : rows) builder.append(row.key, row.value);
  return builder.build();
}

TEST(SingleRecordUnsplitter, AnUnsplitRecordViewsItsResultAndSurvivesMovesAndCopies) {
  const Bytes prefix = kRecords.pack(Tuple{7});
  const RecordVersion version = RecordVersion::complete(fromHex("00000000000000010000"), 3);
  rl::SingleRecordUnsplitter unsplitter(kRecords.key().size(), prefix.size());
  unsplitter.add(rowsOf({{prefix + Tuple{-1}.pack(), version.toInlineValue()},
                         {prefix + Tuple{0}.pack(), "a record of some length, not inline"}}));
  std::optional<RawRecord> record = unsplitter.finish(Tuple{7});
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->rawRecord, "a record of some length, not inline");
  EXPECT_EQ(record->version, version);
  RawRecord moved = std::move(*record);
  EXPECT_TRUE(record->rawRecord.empty());  // NOLINT(bugprone-use-after-move): what a move leaves
  record.reset();
  EXPECT_EQ(moved.rawRecord, "a record of some length, not inline");
  RawRecord copy = moved;  // a copy owns its bytes
  moved = RawRecord{};
  EXPECT_EQ(copy.rawRecord, "a record of some length, not inline");
  EXPECT_EQ(copy.primaryKey, Tuple{7});
}

TEST(SingleRecordUnsplitter, ChunksOverSeveralResultsAreJoined) {
  const Bytes prefix = kRecords.pack(Tuple{8});
  const Bytes first(100, 'a');
  const Bytes second(50, 'b');
  rl::SingleRecordUnsplitter unsplitter(kRecords.key().size(), prefix.size());
  // The first chunk could be viewed in the first result; the second result replaces it.
  unsplitter.add(rowsOf({{prefix + Tuple{1}.pack(), first}}));
  unsplitter.add(rowsOf({{prefix + Tuple{2}.pack(), second}}));
  std::optional<RawRecord> record = unsplitter.finish(std::nullopt);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->rawRecord, first + second);
  EXPECT_TRUE(record->sizes.isSplit);
  EXPECT_TRUE(record->primaryKey.empty());  // not decoded when not asked for
}

TEST(SingleRecordUnsplitter, AViewKeepsASharedOwnerAlive) {
  const Bytes prefix = kRecords.pack(Tuple{9});
  auto owner = std::make_shared<std::vector<fdb::KeyValue>>(
      std::vector<fdb::KeyValue>{{prefix + Tuple{0}.pack(), Bytes(40, 'v')}});
  std::vector<fdb::KeyValueRef> refs{{(*owner)[0].key, (*owner)[0].value}};
  rl::SingleRecordUnsplitter unsplitter(kRecords.key().size(), prefix.size());
  unsplitter.add(fdb::KeyValueRefs(refs.data(), refs.size()), owner);
  std::weak_ptr<std::vector<fdb::KeyValue>> watch = owner;
  owner.reset();
  std::optional<RawRecord> record = unsplitter.finish(Tuple{9});
  ASSERT_TRUE(record.has_value());
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(record->rawRecord, Bytes(40, 'v'));
  record.reset();
  EXPECT_TRUE(watch.expired());
}

}  // namespace
