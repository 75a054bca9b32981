// Index scans and index fetch (docs/format.md: "VALUE index entries", "Index fetch", "Cursors"):
// index entries and primary-key reconstruction byte for byte; SCAN_AND_FETCH and USE_REMOTE_FETCH
// returning the same entries, records, order, continuations and stops on every case of the
// indexfetch fixture; continuations resumed across methods; the round trips each method makes;
// orphans; limits; stores remote fetch cannot serve; the fallback before and during iteration.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/fallback_cursor.h"
#include "rl/index/index_fetch.h"
#include "rl/index/index_fetch_method.h"
#include "rl/index/raw_index_entry.h"
#include "rl/index/remote_fetch_mapper.h"
#include "rl/record/record_version.h"
#include "rl/record/split_helper.h"
#include "test_database.h"

namespace {

using fdb::Bytes;
using fdb::fromHex;
using fdb::Tuple;
using rl::IndexedRawRecord;
using rl::IndexFetchMethod;
using rl::IndexOrphanBehavior;
using rl::NoNextReason;
using rl::RecordContext;

constexpr IndexFetchMethod kScan = IndexFetchMethod::kScanAndFetch;
constexpr IndexFetchMethod kRemote = IndexFetchMethod::kUseRemoteFetch;
constexpr IndexFetchMethod kFallback = IndexFetchMethod::kUseRemoteFetchWithFallback;

std::shared_ptr<const std::vector<int>> positions(std::vector<int> p) {
  return std::make_shared<const std::vector<int>>(std::move(p));
}

// ---- RawIndexEntry ----

TEST(RawIndexEntryTest, PrimaryKeyFromTheEntryColumnsAfterTheIndexedOnes) {
  // Index on (price), primary key (id): entry (price, id); pk column 0 sits at position 1.
  const std::vector<int> p = rl::index::entryPrimaryKeyPositions({}, 1, 1);
  ASSERT_EQ(p, std::vector<int>{1});
  const Bytes key = fromHex("0269647800") + fromHex("15071501");  // "idx" subspace, (7, 1)
  rl::RawIndexEntry entry = rl::RawIndexEntry::copyOf(key, "", 5, positions(p));
  EXPECT_EQ(entry.packedKey(), fromHex("15071501"));
  EXPECT_EQ(entry.key(), (Tuple{7, 1}));
  EXPECT_EQ(entry.value(), Tuple{});  // zero-length value: the empty tuple
  EXPECT_EQ(entry.primaryKey(), Tuple{1});
  Bytes packed;
  entry.appendPackedPrimaryKey(packed);
  EXPECT_EQ(packed, fromHex("1501"));
}

TEST(RawIndexEntryTest, TrimmedPrimaryKeyColumnsAreReadFromTheIndexedValues) {
  // Primary key (a, b); index on (b): b is trimmed from the entry, a follows the column.
  const std::vector<int> p = rl::index::entryPrimaryKeyPositions(std::vector<int>{-1, 0}, 1, 2);
  ASSERT_EQ(p, (std::vector<int>{1, 0}));
  rl::RawIndexEntry entry =
      rl::RawIndexEntry::copyOf(fromHex("15071503"), fromHex("027800"), 0,
                                positions(p));  // entry (b=7, a=3), value ("x")
  EXPECT_EQ(entry.primaryKey(), (Tuple{3, 7}));
  Bytes packed;
  entry.appendPackedPrimaryKey(packed);
  EXPECT_EQ(packed, fromHex("15031507"));
  EXPECT_EQ(entry.value(), Tuple{"x"});
}

TEST(RawIndexEntryTest, ElementsOfEveryTypeAreCopiedWhole) {
  const Tuple all{nullptr,
                  fdb::ByteString{Bytes("a\0b", 3)},
                  std::string("s\0t", 3),
                  Tuple{nullptr, "n", Tuple{1, nullptr}},
                  -5,
                  -70000,
                  int64_t{1} << 62,
                  fdb::BigInt::parse("123456789012345678901234567890"),
                  fdb::BigInt::parse("-123456789012345678901234567890"),
                  1.5f,
                  -2.25,
                  true,
                  false,
                  fdb::Uuid::parse("00112233-4455-6677-8899-aabbccddeeff"),
                  fdb::Versionstamp::complete({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 7),
                  "last"};
  std::vector<int> every;
  for (int i = static_cast<int>(all.size()) - 1; i >= 0; --i) every.push_back(i);
  rl::RawIndexEntry entry = rl::RawIndexEntry::copyOf(all.pack(), "", 0, positions(every));
  Tuple reversed;
  for (int i : every) reversed.append(all[static_cast<size_t>(i)]);
  Bytes packed;
  entry.appendPackedPrimaryKey(packed);
  EXPECT_EQ(packed, reversed.pack());
  EXPECT_EQ(entry.primaryKey(), reversed);

  rl::RawIndexEntry tooShort = rl::RawIndexEntry::copyOf(fromHex("1501"), "", 0, positions({1}));
  EXPECT_THROW(tooShort.primaryKey(), rl::RecordCoreStorageException);
  rl::RawIndexEntry unterminated =
      rl::RawIndexEntry::copyOf(fromHex("026162"), "", 0, positions({0}));
  EXPECT_THROW(unterminated.primaryKey(), rl::RecordCoreStorageException);
}

// ---- The fallback cursor ----

// Values 0..n-1, then throws.
class FailingCursor : public rl::RecordCursor<int> {
 public:
  explicit FailingCursor(int values) : values_(values) {}
  rl::CursorResult<int> next() override {
    if (position_ >= values_) throw rl::RecordCoreException("injected failure");
    ++position_;
    return rl::CursorResult<int>::withValue(
        position_ - 1, rl::Continuation::fromBytes(rl::ListCursor<int>::encodePosition(position_)));
  }

 private:
  int values_;
  int position_ = 0;
};

TEST(FallbackCursorTest, ResumesFromTheLastValueReturnedOnce) {
  std::vector<std::optional<Bytes>> resumedAt;
  std::vector<size_t> returnedBefore;
  rl::FallbackCursor<int> cursor(
      std::make_unique<FailingCursor>(3),
      [&](const std::optional<Bytes>& at, size_t returned) -> rl::CursorPtr<int> {
        resumedAt.push_back(at);
        returnedBefore.push_back(returned);
        const size_t start = at ? rl::ListCursor<int>::decodePosition(*at) : 0;
        return std::make_unique<rl::ListCursor<int>>(std::vector<int>{0, 1, 2, 3, 4, 5}, start);
      });
  auto list = rl::asList(cursor);
  EXPECT_EQ(list.values, (std::vector<int>{0, 1, 2, 3, 4, 5}));  // no gap, no duplicate
  EXPECT_EQ(list.reason, NoNextReason::kSourceExhausted);
  ASSERT_EQ(resumedAt.size(), 1u);
  EXPECT_EQ(resumedAt[0], rl::ListCursor<int>::encodePosition(3));
  EXPECT_EQ(returnedBefore[0], 3u);
  EXPECT_TRUE(cursor.fellBack());
  EXPECT_EQ(cursor.failure(), "injected failure");
}

TEST(FallbackCursorTest, FailureBeforeAnyValueStartsOverFromTheOriginalContinuation) {
  std::optional<Bytes> resumedAt = "sentinel";
  rl::FallbackCursor<int> cursor(
      std::make_unique<FailingCursor>(0),
      [&](const std::optional<Bytes>& at, size_t) -> rl::CursorPtr<int> {
        resumedAt = at;
        return std::make_unique<rl::ListCursor<int>>(std::vector<int>{7});
      },
      Bytes("original"));
  EXPECT_EQ(rl::asList(cursor).values, std::vector<int>{7});
  EXPECT_EQ(resumedAt, Bytes("original"));
}

TEST(FallbackCursorTest, ASecondFailureIsSurfaced) {
  rl::FallbackCursor<int> cursor(std::make_unique<FailingCursor>(1),
                                 [](const std::optional<Bytes>&, size_t) -> rl::CursorPtr<int> {
                                   return std::make_unique<FailingCursor>(2);
                                 });
  EXPECT_EQ(cursor.next().value(), 0);
  EXPECT_EQ(cursor.next().value(), 0);  // the fallback's first value
  EXPECT_EQ(cursor.next().value(), 1);
  try {
    cursor.next();
    FAIL() << "expected the second failure";
  } catch (const rl::FallbackCursorFailedException& e) {
    EXPECT_NE(std::string(e.what()).find("cannot fall back again"), std::string::npos);
    EXPECT_THROW(std::rethrow_if_nested(e), rl::RecordCoreException);
  }
  // fdb errors keep their code for the retry loop.
  rl::FallbackCursor<int> fdbFailure(std::make_unique<FailingCursor>(0),
                                     [](const std::optional<Bytes>&, size_t) -> rl::CursorPtr<int> {
                                       struct Throwing : rl::RecordCursor<int> {
                                         rl::CursorResult<int> next() override {
                                           throw fdb::Error(1007, "transaction_too_old");
                                         }
                                       };
                                       return std::make_unique<Throwing>();
                                     });
  try {
    fdbFailure.next();
    FAIL() << "expected fdb::Error";
  } catch (const fdb::Error& e) {
    EXPECT_EQ(e.code(), 1007);
  }
}

// ---- The indexfetch fixture ----

// Bytes that tell records and chunks apart.
Bytes payload(int id, size_t size) {
  Bytes b(size, '\0');
  for (size_t i = 0; i < size; ++i)
    b[i] = static_cast<char>((i * 13 + static_cast<size_t>(id)) & 0xff);
  return b;
}

struct FixtureOptions {
  int records = 50;
  bool split = false;     // 150,000-byte records: two chunks
  bool versions = false;  // complete inline versions
};

// What a result holds, owned, comparable across methods.
struct Row {
  Bytes indexKey;
  Bytes indexValue;
  bool hasRecord = false;
  Tuple primaryKey;
  Bytes bytes;
  std::optional<rl::RecordVersion> version;
  rl::SizeInfo sizes;
  std::optional<Bytes> continuation;

  friend bool operator==(const Row&, const Row&) = default;
};

Row toRow(const rl::CursorResult<IndexedRawRecord>& result) {
  const IndexedRawRecord& indexed = result.value();
  Row row;
  row.indexKey = Bytes(indexed.entry.rawKey());
  row.indexValue = Bytes(indexed.entry.packedValue());
  if (indexed.record) {
    row.hasRecord = true;
    row.primaryKey = indexed.record->primaryKey;
    row.bytes = indexed.record->rawRecord;
    row.version = indexed.record->version;
    row.sizes = indexed.record->sizes;
  }
  row.continuation = result.continuation().toBytes();
  return row;
}

struct Scan {
  std::vector<Row> rows;
  NoNextReason reason = NoNextReason::kSourceExhausted;
  std::optional<Bytes> continuation;
  fdb::RoundTrips trips;
};

std::ostream& operator<<(std::ostream& os, const Row& row) {
  return os << fdb::printable(row.indexKey) << (row.hasRecord ? " record " : " orphan ")
            << row.bytes.size() << " bytes";
}

class IndexFetchTest : public ::testing::Test {
 public:
  fdb::Database db = rl::tests::openTestDatabase();
  const Bytes storePrefix = Tuple{"app", 5}.pack();
  rl::IndexScanSpec spec = rl::IndexScanSpec::of(storePrefix, "price_idx",
                                                 rl::index::entryPrimaryKeyPositions({}, 1, 1));
  int records = 0;

  // Price of record `id`: a permutation of 0..n-1, so index order is not id order.
  static int priceOf(int id, int n) { return static_cast<int>((static_cast<int64_t>(id) * 7) % n); }

  static rl::RecordVersion versionOf(int id) {
    return rl::RecordVersion::complete(fromHex("00000000000000100001"), static_cast<uint16_t>(id));
  }

  // Writes `options.records` records (ids 0..n-1) and their index entries (price, id), in
  // transactions small enough for FoundationDB's 10 MB limit.
  void fill(const FixtureOptions& options) {
    records = options.records;
    const int perTransaction = options.split ? 20 : 1000;
    for (int first = 0; first < options.records; first += perTransaction) {
      rl::runInContext(db, [&](RecordContext& context) {
        for (int id = first; id < std::min(options.records, first + perTransaction); ++id) {
          saveRecord(context, Tuple{id}, recordBytes(id, options.split),
                     options.versions ? std::optional(versionOf(id)) : std::nullopt);
          addEntry(context, Tuple{priceOf(id, options.records), id});
        }
      });
    }
  }
  static Bytes recordBytes(int id, bool split) {
    return split ? payload(id, 150'000) : "order-" + std::to_string(id) + "-" + payload(id, 24);
  }
  void saveRecord(RecordContext& context, const Tuple& pk, const Bytes& bytes,
                  std::optional<rl::RecordVersion> version = std::nullopt) {
    rl::saveWithSplit(context, spec.recordsSubspace, pk, bytes, version);
  }
  void addEntry(RecordContext& context, const Tuple& entry) {
    context.transaction().set(spec.indexSubspace.pack(entry), "");
  }

  Scan scan(IndexFetchMethod method, const rl::TupleRange& range,
            const rl::ScanProperties& properties, const std::optional<Bytes>& continuation = {},
            IndexOrphanBehavior orphans = IndexOrphanBehavior::kError,
            const rl::IndexScanSpec* specOverride = nullptr) {
    RecordContext context(db);
    const fdb::RoundTrips before = context.transaction().roundTrips();
    auto cursor = rl::scanIndexRecords(context, specOverride ? *specOverride : spec, range,
                                       continuation, properties, method, orphans);
    Scan out;
    while (true) {
      auto result = cursor->next();
      if (!result.hasValue()) {
        out.reason = result.noNextReason();
        out.continuation = result.continuation().toBytes();
        break;
      }
      out.rows.push_back(toRow(result));
    }
    const fdb::RoundTrips after = context.transaction().roundTrips();
    out.trips.readVersions = after.readVersions - before.readVersions;
    out.trips.reads = after.reads - before.reads;
    out.trips.rangeReads = after.rangeReads - before.rangeReads;
    out.trips.mappedRangeReads = after.mappedRangeReads - before.mappedRangeReads;
    return out;
  }

  // Range reads of a plain index scan with these properties (the index part of
  // scan-and-fetch's reads).
  int64_t indexBatches(const rl::TupleRange& range, const rl::ScanProperties& properties,
                       const std::optional<Bytes>& continuation = {}) {
    RecordContext context(db);
    auto entries = rl::scanIndexEntries(context, spec, range, continuation, properties);
    while (entries->next().hasValue()) {
    }
    return context.transaction().roundTrips().rangeReads;
  }
};

void expectSameScan(const Scan& remote, const Scan& local) {
  ASSERT_EQ(remote.rows.size(), local.rows.size());
  for (size_t i = 0; i < remote.rows.size(); ++i) {
    ASSERT_EQ(remote.rows[i], local.rows[i]) << "row " << i;
  }
  EXPECT_EQ(remote.reason, local.reason);
  EXPECT_EQ(remote.continuation, local.continuation);
}

struct Case {
  const char* name;
  rl::TupleRange range;
  int rowLimit;
  size_t expectedRows;
};

// limit1 (the whole index, one row), rows10 (prices 10..19), all.
std::vector<Case> cases(int n) {
  return {{"limit1", rl::TupleRange::all(), 1, 1},
          {"rows10", rl::TupleRange::between(Tuple{10}, Tuple{20}), 0, 10},
          {"all", rl::TupleRange::all(), 0, static_cast<size_t>(n)}};
}

// Every case in both directions: the same rows, continuations and stops from both methods,
// in the path each method must take; records as written.
void checkEveryCase(IndexFetchTest* self, bool split, bool versions) {
  for (const Case& c : cases(self->records)) {
    for (bool reverse : {false, true}) {
      SCOPED_TRACE(std::string(c.name) + (reverse ? " reverse" : " forward"));
      rl::ExecuteProperties execute;
      execute.returnedRowLimit = c.rowLimit;
      const rl::ScanProperties properties(execute, reverse);
      Scan local = self->scan(kScan, c.range, properties);
      Scan remote = self->scan(kRemote, c.range, properties);
      Scan fallback = self->scan(kFallback, c.range, properties);
      ASSERT_EQ(local.rows.size(), c.expectedRows);
      expectSameScan(remote, local);
      expectSameScan(fallback, local);
      EXPECT_EQ(local.reason,
                c.rowLimit ? NoNextReason::kReturnLimitReached : NoNextReason::kSourceExhausted);

      // The records, in index order.
      int previousPrice = reverse ? self->records : -1;
      for (const Row& row : local.rows) {
        ASSERT_TRUE(row.hasRecord);
        const int id = static_cast<int>(row.primaryKey.getInt(0));
        const Tuple entry = self->spec.indexSubspace.unpack(row.indexKey);
        EXPECT_EQ(entry, (Tuple{IndexFetchTest::priceOf(id, self->records), id}));
        const int price = static_cast<int>(entry.getInt(0));
        EXPECT_TRUE(reverse ? price < previousPrice : price > previousPrice);
        previousPrice = price;
        EXPECT_EQ(row.bytes, IndexFetchTest::recordBytes(id, split));
        EXPECT_EQ(row.sizes.isSplit, split);
        EXPECT_EQ(row.sizes.keyCount, (split ? 2 : 1) + (versions ? 1 : 0));
        if (versions) {
          EXPECT_EQ(row.version, IndexFetchTest::versionOf(id));
        } else {
          EXPECT_FALSE(row.version);
        }
      }

      // The paths: remote fetch only mapped range reads; scan-and-fetch the index batches plus
      // its record reads (one per record; a 150,000-byte record takes two WANT_ALL reads of
      // at most 80,000 bytes each).
      EXPECT_GE(remote.trips.mappedRangeReads, 1);
      EXPECT_EQ(remote.trips.rangeReads, 0);
      EXPECT_EQ(remote.trips.reads, 0);
      EXPECT_EQ(local.trips.mappedRangeReads, 0);
      EXPECT_EQ(local.trips.reads, 0);
      // One range read per record, split or not: the load asks for the whole record.
      EXPECT_EQ(local.trips.rangeReads,
                self->indexBatches(c.range, properties) + static_cast<int64_t>(local.rows.size()));

      // Continuations resume in the other method, in a new transaction.
      for (size_t cut : {size_t{0}, local.rows.size() / 2, local.rows.size() - 1}) {
        if (cut >= local.rows.size()) continue;
        const std::optional<Bytes>& resume = local.rows[cut].continuation;
        Scan restRemote = self->scan(kRemote, c.range, properties, resume);
        Scan restLocal = self->scan(kScan, c.range, properties, remote.rows[cut].continuation);
        expectSameScan(restRemote, restLocal);
        const size_t expectedRest = c.rowLimit
                                        ? std::min<size_t>(c.rowLimit, self->records - cut - 1)
                                        : local.rows.size() - cut - 1;
        ASSERT_EQ(restLocal.rows.size(), expectedRest);
        if (!c.rowLimit) {
          for (size_t i = 0; i < expectedRest; ++i) {
            EXPECT_EQ(restLocal.rows[i].indexKey, local.rows[cut + 1 + i].indexKey);
          }
        }
      }
    }
  }
}

TEST_F(IndexFetchTest, SmallRecordsEveryCase) {
  fill({50, false, false});
  checkEveryCase(this, false, false);
}

TEST_F(IndexFetchTest, SmallRecordsWithVersionsEveryCase) {
  fill({50, false, true});
  checkEveryCase(this, false, true);
}

TEST_F(IndexFetchTest, SplitRecordsEveryCase) {
  fill({30, true, false});
  checkEveryCase(this, true, false);
}

TEST_F(IndexFetchTest, SplitRecordsWithVersionsEveryCase) {
  fill({30, true, true});
  checkEveryCase(this, true, true);
}

TEST_F(IndexFetchTest, ThousandSmallRecordsEveryCase) {
  fill({1000, false, true});
  checkEveryCase(this, false, true);
}

TEST_F(IndexFetchTest, IncompleteVersionsCommittedAreReadComplete) {
  records = 5;
  RecordContext context(db);
  for (int id = 0; id < 5; ++id) {
    saveRecord(context, Tuple{id}, recordBytes(id, false),
               rl::RecordVersion::incomplete(context.claimLocalVersion()));
    addEntry(context, Tuple{priceOf(id, 5), id});
  }
  // Not yet committed: scan-and-fetch answers from the local-version cache; remote fetch does
  // not read this transaction's writes (2039), and the fallback method falls back.
  {
    auto cursor = rl::scanIndexRecords(context, spec, rl::TupleRange::all(), std::nullopt,
                                       rl::ScanProperties(), kScan);
    auto list = rl::asList(*cursor, [](IndexedRawRecord& r) { return r.record->version; });
    ASSERT_EQ(list.values.size(), 5u);
    for (const auto& version : list.values) EXPECT_FALSE(version->isComplete());
    auto remote = rl::scanIndexRecords(context, spec, rl::TupleRange::all(), std::nullopt,
                                       rl::ScanProperties(), kRemote);
    try {
      remote->next();
      FAIL() << "expected 2039";
    } catch (const fdb::Error& e) {
      EXPECT_EQ(e.code(), 2039);
    }
    auto fallback = rl::scanIndexRecords(context, spec, rl::TupleRange::all(), std::nullopt,
                                         rl::ScanProperties(), kFallback);
    EXPECT_EQ(rl::asList(*fallback, [](IndexedRawRecord&) { return 0; }).values.size(), 5u);
  }
  context.commit();
  const Bytes stamp = *context.committedVersionstamp();
  Scan local = scan(kScan, rl::TupleRange::all(), rl::ScanProperties());
  Scan remote = scan(kRemote, rl::TupleRange::all(), rl::ScanProperties());
  expectSameScan(remote, local);
  for (const Row& row : remote.rows) {
    ASSERT_TRUE(row.version);
    EXPECT_EQ(*row.version,
              rl::RecordVersion::incomplete(static_cast<uint16_t>(row.primaryKey.getInt(0)))
                  .withCommittedVersion(stamp));
  }
}

TEST_F(IndexFetchTest, ContinuationIsTheWrappedIndexKeySuffix) {
  fill({10, false, false});
  rl::ExecuteProperties execute;
  execute.returnedRowLimit = 1;
  for (IndexFetchMethod method : {kScan, kRemote}) {
    Scan first = scan(method, rl::TupleRange::all(), rl::ScanProperties(execute));
    ASSERT_EQ(first.rows.size(), 1u);
    // Price 0 is record 0: entry (0, 0); KeyValueCursorContinuation{inner = 14 14, magic}.
    const Bytes expected = fromHex("0a021414") + fromHex("11accd7398dd42005e");
    EXPECT_EQ(first.rows[0].continuation, expected);
    EXPECT_EQ(first.continuation, expected);
  }
}

// ---- Orphans ----

class OrphanTest : public IndexFetchTest {
 protected:
  void SetUp() override {
    fill({20, false, false});
    // Entries for records 100 and 101, which do not exist, among the others.
    rl::runInContext(db, [&](RecordContext& context) {
      addEntry(context, Tuple{5, 100});
      addEntry(context, Tuple{12, 101});
    });
  }
};

TEST_F(OrphanTest, ErrorNamesThePrimaryKey) {
  for (IndexFetchMethod method : {kScan, kRemote}) {
    SCOPED_TRACE(rl::indexFetchMethodName(method));
    try {
      scan(method, rl::TupleRange::all(), rl::ScanProperties());
      FAIL() << "expected an orphan error";
    } catch (const rl::OrphanIndexEntryException& e) {
      EXPECT_NE(std::string(e.what()).find("record not found"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("primary key " + fdb::printable(Tuple{100}.pack())),
                std::string::npos)
          << e.what();
    }
  }
}

TEST_F(OrphanTest, SkipAndReturn) {
  for (bool reverse : {false, true}) {
    rl::ScanProperties properties(rl::ExecuteProperties{}, reverse);
    Scan localSkip = scan(kScan, rl::TupleRange::all(), properties, {}, IndexOrphanBehavior::kSkip);
    Scan remoteSkip =
        scan(kRemote, rl::TupleRange::all(), properties, {}, IndexOrphanBehavior::kSkip);
    expectSameScan(remoteSkip, localSkip);
    EXPECT_EQ(localSkip.rows.size(), 20u);
    for (const Row& row : localSkip.rows) EXPECT_TRUE(row.hasRecord);

    Scan localReturn =
        scan(kScan, rl::TupleRange::all(), properties, {}, IndexOrphanBehavior::kReturn);
    Scan remoteReturn =
        scan(kRemote, rl::TupleRange::all(), properties, {}, IndexOrphanBehavior::kReturn);
    expectSameScan(remoteReturn, localReturn);
    ASSERT_EQ(localReturn.rows.size(), 22u);
    std::vector<Bytes> orphans;
    for (const Row& row : localReturn.rows) {
      if (!row.hasRecord) orphans.push_back(row.indexKey);
    }
    std::vector<Bytes> expected{spec.indexSubspace.pack(Tuple{5, 100}),
                                spec.indexSubspace.pack(Tuple{12, 101})};
    if (reverse) std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(orphans, expected);
  }
  // A row limit counts entries, skipped orphans included, under both methods.
  rl::ExecuteProperties execute;
  execute.returnedRowLimit = 8;  // prices 0..5 plus (5, 100) and 6 -> 7 records
  Scan local = scan(kScan, rl::TupleRange::all(), rl::ScanProperties(execute), {},
                    IndexOrphanBehavior::kSkip);
  Scan remote = scan(kRemote, rl::TupleRange::all(), rl::ScanProperties(execute), {},
                     IndexOrphanBehavior::kSkip);
  expectSameScan(remote, local);
  EXPECT_EQ(local.rows.size(), 7u);
  EXPECT_EQ(local.reason, NoNextReason::kReturnLimitReached);
}

TEST_F(OrphanTest, ReturnedOrphanHasTheEntryPrimaryKey) {
  RecordContext context(db);
  auto cursor = rl::scanIndexRecords(context, spec, rl::TupleRange::allOf(Tuple{5}), std::nullopt,
                                     rl::ScanProperties(), kRemote, IndexOrphanBehavior::kReturn);
  auto list = rl::asList(*cursor, [](IndexedRawRecord& r) {
    return std::make_pair(r.entry.primaryKey(), r.record.has_value());
  });
  // Price 5 is record 15 (15 * 7 % 20 = 5) and the orphan 100.
  EXPECT_EQ(list.values,
            (std::vector<std::pair<Tuple, bool>>{{Tuple{15}, true}, {Tuple{100}, false}}));
}

// ---- Limits ----

TEST_F(IndexFetchTest, ScannedRecordsLimitStopsBothMethodsAtTheSameEntry) {
  fill({30, false, false});
  for (bool reverse : {false, true}) {
    rl::ExecuteProperties execute;
    execute.scannedRecordsLimit = 5;
    rl::ScanProperties properties(execute, reverse);
    Scan local = scan(kScan, rl::TupleRange::all(), properties);
    Scan remote = scan(kRemote, rl::TupleRange::all(), properties);
    expectSameScan(remote, local);
    ASSERT_EQ(local.rows.size(), 5u);
    EXPECT_EQ(local.reason, NoNextReason::kScanLimitReached);
    EXPECT_EQ(local.continuation, local.rows.back().continuation);
    // Resume under the other method.
    Scan rest =
        scan(kScan, rl::TupleRange::all(), rl::ScanProperties({}, reverse), remote.continuation);
    EXPECT_EQ(rest.rows.size(), 25u);
  }
  // The free initial pass: a limit of 0 still returns one entry.
  rl::ExecuteProperties none;
  none.scannedRecordsLimit = 0;
  for (IndexFetchMethod method : {kScan, kRemote}) {
    Scan one = scan(method, rl::TupleRange::all(), rl::ScanProperties(none));
    EXPECT_EQ(one.rows.size(), 1u);
    EXPECT_EQ(one.reason, NoNextReason::kScanLimitReached);
  }
}

// How many entries a byte limit lets through: entry i is read while the bytes before it are
// under the limit, and the first one always (the free initial pass).
size_t entriesWithin(const std::vector<int64_t>& bytesPerEntry, int64_t limit) {
  int64_t total = 0;
  size_t count = 0;
  for (int64_t bytes : bytesPerEntry) {
    if (count > 0 && total >= limit) break;
    total += bytes;
    ++count;
  }
  return count;
}

TEST_F(IndexFetchTest, ScannedBytesLimitCountsRecordBytesOnlyForRemoteFetch) {
  fill({30, false, true});
  Scan all = scan(kScan, rl::TupleRange::all(), rl::ScanProperties());
  std::vector<int64_t> indexBytes;
  std::vector<int64_t> withRecords;
  for (const Row& row : all.rows) {
    indexBytes.push_back(static_cast<int64_t>(row.indexKey.size() + row.indexValue.size()));
    withRecords.push_back(indexBytes.back() + row.sizes.keySize + row.sizes.valueSize);
  }
  for (int64_t limit : {int64_t{0}, int64_t{1}, withRecords[0] * 3, indexBytes[0] * 12}) {
    SCOPED_TRACE(limit);
    rl::ExecuteProperties execute;
    execute.scannedBytesLimit = limit;
    Scan local = scan(kScan, rl::TupleRange::all(), rl::ScanProperties(execute));
    Scan remote = scan(kRemote, rl::TupleRange::all(), rl::ScanProperties(execute));
    EXPECT_EQ(local.rows.size(), entriesWithin(indexBytes, limit));
    EXPECT_EQ(remote.rows.size(), entriesWithin(withRecords, limit));
    EXPECT_EQ(local.reason, NoNextReason::kByteLimitReached);
    EXPECT_EQ(remote.reason, NoNextReason::kByteLimitReached);
    EXPECT_EQ(remote.continuation, remote.rows.back().continuation);
    // What each returned is what the other returns up to there.
    for (size_t i = 0; i < std::min(local.rows.size(), remote.rows.size()); ++i) {
      EXPECT_EQ(local.rows[i], all.rows[i]);
      EXPECT_EQ(remote.rows[i], all.rows[i]);
    }
  }
  // The chosen limit separates the methods: the record bytes count for remote fetch.
  EXPECT_LT(entriesWithin(withRecords, indexBytes[0] * 12),
            entriesWithin(indexBytes, indexBytes[0] * 12));
}

TEST_F(IndexFetchTest, SkipAndRowLimitCountEntriesUnderBothMethods) {
  fill({30, false, false});
  for (bool reverse : {false, true}) {
    rl::ExecuteProperties execute;
    execute.skip = 3;
    execute.returnedRowLimit = 4;
    rl::ScanProperties properties(execute, reverse);
    Scan local = scan(kScan, rl::TupleRange::all(), properties);
    Scan remote = scan(kRemote, rl::TupleRange::all(), properties);
    expectSameScan(remote, local);
    ASSERT_EQ(local.rows.size(), 4u);
    const int firstPrice = reverse ? 26 : 3;
    EXPECT_EQ(spec.indexSubspace.unpack(local.rows[0].indexKey).getInt(0), firstPrice);
    EXPECT_EQ(local.reason, NoNextReason::kReturnLimitReached);
  }
}

TEST_F(IndexFetchTest, PipelineSizeDoesNotChangeTheResults) {
  fill({25, false, false});
  Scan reference = scan(kScan, rl::TupleRange::all(), rl::ScanProperties());
  for (size_t pipeline : {size_t{0}, size_t{1}, size_t{3}, size_t{100}}) {
    RecordContext context(db);
    auto cursor =
        rl::scanIndexRecords(context, spec, rl::TupleRange::all(), std::nullopt,
                             rl::ScanProperties(), kScan, IndexOrphanBehavior::kError, pipeline);
    auto list = rl::asList(*cursor, [](IndexedRawRecord& r) { return Bytes(r.entry.rawKey()); });
    ASSERT_EQ(list.values.size(), reference.rows.size());
    for (size_t i = 0; i < list.values.size(); ++i) {
      EXPECT_EQ(list.values[i], reference.rows[i].indexKey);
    }
  }
}

// ---- Stores and scans remote fetch cannot serve ----

TEST_F(IndexFetchTest, StorePrefixThatIsNotAServerTupleFallsBack) {
  // A UUID is a client tuple element the storage server cannot parse.
  const Bytes uuidPrefix = Tuple{fdb::Uuid::parse("00112233-4455-6677-8899-aabbccddeeff")}.pack();
  spec =
      rl::IndexScanSpec::of(uuidPrefix, "price_idx", rl::index::entryPrimaryKeyPositions({}, 1, 1));
  fill({20, false, false});
  try {
    scan(kRemote, rl::TupleRange::all(), rl::ScanProperties());
    FAIL() << "expected UnsupportedRemoteFetchIndexException";
  } catch (const rl::UnsupportedRemoteFetchIndexException& e) {
    EXPECT_NE(std::string(e.what()).find("store prefix"), std::string::npos) << e.what();
  }
  Scan local = scan(kScan, rl::TupleRange::all(), rl::ScanProperties());
  Scan fallback = scan(kFallback, rl::TupleRange::all(), rl::ScanProperties());
  expectSameScan(fallback, local);
  EXPECT_EQ(fallback.rows.size(), 20u);
  EXPECT_EQ(fallback.trips.mappedRangeReads, 0);
}

TEST_F(IndexFetchTest, SnapshotIsolationCannotUseRemoteFetch) {
  fill({5, false, false});
  rl::ExecuteProperties execute;
  execute.isolation = rl::IsolationLevel::kSnapshot;
  EXPECT_THROW(scan(kRemote, rl::TupleRange::all(), rl::ScanProperties(execute)),
               rl::UnsupportedRemoteFetchIndexException);
  Scan fallback = scan(kFallback, rl::TupleRange::all(), rl::ScanProperties(execute));
  EXPECT_EQ(fallback.rows.size(), 5u);
  EXPECT_EQ(fallback.trips.mappedRangeReads, 0);
}

// ---- Fallback during iteration ----

TEST_F(IndexFetchTest, FallbackInMidIterationContinuesFromTheLastResult) {
  fill({50, false, false});
  // An entry whose primary key is a UUID: the server cannot parse its key (2041).
  const Tuple uuidKey{fdb::Uuid::parse("00112233-4455-6677-8899-aabbccddeeff")};
  rl::runInContext(db, [&](RecordContext& context) {
    saveRecord(context, uuidKey, "uuid-record");
    addEntry(context, Tuple{45, uuidKey[0]});
  });
  // Small batches, so that remote fetch delivers results before it reaches that entry.
  const rl::ScanProperties properties(rl::ExecuteProperties{}, false,
                                      rl::CursorStreamingMode::kSmall);
  try {
    scan(kRemote, rl::TupleRange::all(), properties);
    FAIL() << "expected key_not_tuple";
  } catch (const fdb::Error& e) {
    EXPECT_EQ(e.code(), 2041);
  }
  Scan local = scan(kScan, rl::TupleRange::all(), properties);
  ASSERT_EQ(local.rows.size(), 51u);
  Scan fallback = scan(kFallback, rl::TupleRange::all(), properties);
  expectSameScan(fallback, local);  // no duplicate, no gap
  // Remote fetch served the first entries: fewer record loads than records.
  EXPECT_GE(fallback.trips.mappedRangeReads, 2);
  EXPECT_GT(fallback.trips.rangeReads, 0);
  EXPECT_LT(fallback.trips.rangeReads, static_cast<int64_t>(local.rows.size()));
  bool sawUuid = false;
  for (const Row& row : fallback.rows) sawUuid |= row.primaryKey == uuidKey;
  EXPECT_TRUE(sawUuid);

  // With a row limit, the fallback returns only what is left of it.
  rl::ExecuteProperties limited;
  limited.returnedRowLimit = 48;
  const rl::ScanProperties limitedProperties(limited, false, rl::CursorStreamingMode::kSmall);
  Scan limitedLocal = scan(kScan, rl::TupleRange::all(), limitedProperties);
  Scan limitedFallback = scan(kFallback, rl::TupleRange::all(), limitedProperties);
  expectSameScan(limitedFallback, limitedLocal);
  EXPECT_EQ(limitedFallback.rows.size(), 48u);
}

TEST_F(OrphanTest, SecondFailureAfterFallbackIsSurfaced) {
  // Remote fetch fails on the orphan; scan-and-fetch, resumed from the last result, fails on
  // it again: that failure is surfaced.
  try {
    scan(kFallback, rl::TupleRange::all(), rl::ScanProperties());
    FAIL() << "expected the second failure";
  } catch (const rl::FallbackCursorFailedException& e) {
    EXPECT_NE(std::string(e.what()).find("cannot fall back again"), std::string::npos);
    EXPECT_THROW(std::rethrow_if_nested(e), rl::OrphanIndexEntryException);
  }
}

}  // namespace
