// KeyValueCursor (docs/format.md, "Cursor continuations"): ranges for every endpoint type, both
// directions, skip, limits and each NoNextReason, the free initial pass, continuations (bytes and
// resumption in a new transaction, wrapped and raw), isolation, and batching.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/key_value_cursor.h"
#include "rl/record_core_exception.h"
#include "test_database.h"

namespace {

using fdb::Bytes;
using fdb::fromHex;
using fdb::Tuple;
using rl::EndpointType;
using rl::KeyValueCursor;
using rl::NoNextReason;
using rl::RecordContext;
using rl::ScanProperties;
using rl::TupleRange;

const fdb::Subspace kSpace(Tuple{"kv"});  // prefix 02 6b 76 00

struct Scan {
  std::vector<Tuple> keys;
  NoNextReason reason = NoNextReason::kSourceExhausted;
  rl::Continuation continuation = rl::Continuation::start();
};

class KeyValueCursorTest : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();

  void SetUp() override {
    db.run([](fdb::Transaction& tr) {
      for (int i = 0; i < 10; ++i) tr.set(kSpace.pack(Tuple{i}), "v" + std::to_string(i));
      tr.set(kSpace.pack(Tuple{5, "x"}), "nested");
      tr.set(kSpace.pack(Tuple{"apple"}), "");
      tr.set(kSpace.pack(Tuple{"apricot"}), "");
      tr.set(kSpace.pack(Tuple{"banana"}), "");
      tr.set(fdb::Subspace(Tuple{"kw"}).pack(Tuple{0}), "outside");
    });
  }

  Scan scanIn(RecordContext& context, const TupleRange& range, const ScanProperties& properties,
              const std::optional<Bytes>& continuation = {},
              rl::ContinuationFormat format = rl::ContinuationFormat::kWrapped) {
    KeyValueCursor cursor(context, kSpace, range, properties, continuation, format);
    Scan scan;
    while (true) {
      auto result = cursor.next();
      if (!result.hasValue()) {
        scan.reason = result.noNextReason();
        scan.continuation = result.continuation();
        // Asking again gives the same answer.
        auto again = cursor.next();
        EXPECT_FALSE(again.hasValue());
        EXPECT_EQ(again.noNextReason(), scan.reason);
        EXPECT_EQ(again.continuation(), scan.continuation);
        return scan;
      }
      scan.keys.push_back(kSpace.unpack(result.value().key));
    }
  }
  Scan scan(const TupleRange& range, const ScanProperties& properties,
            const std::optional<Bytes>& continuation = {},
            rl::ContinuationFormat format = rl::ContinuationFormat::kWrapped) {
    RecordContext context(db);
    return scanIn(context, range, properties, continuation, format);
  }
  // Every key of the range, a few at a time, each part in a new transaction.
  std::vector<Tuple> scanInParts(const TupleRange& range, bool reverse, int rowLimit,
                                 rl::ContinuationFormat format = rl::ContinuationFormat::kWrapped) {
    rl::ExecuteProperties execute;
    execute.returnedRowLimit = rowLimit;
    std::vector<Tuple> all;
    std::optional<Bytes> continuation;
    for (int part = 0; part < 50; ++part) {
      Scan s = scan(range, ScanProperties(execute, reverse), continuation, format);
      all.insert(all.end(), s.keys.begin(), s.keys.end());
      if (s.reason == NoNextReason::kSourceExhausted) return all;
      EXPECT_EQ(s.reason, NoNextReason::kReturnLimitReached);
      continuation = s.continuation.toBytes();
      EXPECT_TRUE(continuation.has_value());
    }
    ADD_FAILURE() << "the scan did not end";
    return all;
  }
};

std::vector<Tuple> ints(std::initializer_list<int> values) {
  std::vector<Tuple> out;
  for (int v : values) out.push_back(Tuple{v});
  return out;
}

std::vector<Tuple> reversed(std::vector<Tuple> keys) {
  std::reverse(keys.begin(), keys.end());
  return keys;
}

TEST_F(KeyValueCursorTest, TreeStartToTreeEndIsTheWholeSubspace) {
  Scan forward = scan(TupleRange::all(), ScanProperties::forwardScan());
  ASSERT_EQ(forward.keys.size(), 14u);
  EXPECT_EQ(forward.keys.front(), Tuple{"apple"});  // strings sort before integers
  EXPECT_EQ(forward.keys.back(), Tuple{9});
  EXPECT_EQ(forward.reason, NoNextReason::kSourceExhausted);
  EXPECT_TRUE(forward.continuation.isEnd());
  EXPECT_FALSE(forward.continuation.toBytes());
  EXPECT_EQ(scan(TupleRange::all(), ScanProperties::reverseScan()).keys, reversed(forward.keys));
}

TEST_F(KeyValueCursorTest, InclusiveRangeIncludesEndsAndWhatTheyPrefix) {
  TupleRange range = TupleRange::betweenInclusive(Tuple{3}, Tuple{5});
  std::vector<Tuple> expected = {Tuple{3}, Tuple{4}, Tuple{5}, Tuple{5, "x"}};
  EXPECT_EQ(scan(range, ScanProperties::forwardScan()).keys, expected);
  EXPECT_EQ(scan(range, ScanProperties::reverseScan()).keys, reversed(expected));
  EXPECT_EQ(range.toRange(kSpace),
            (fdb::KeyRange{kSpace.pack(Tuple{3}), kSpace.pack(Tuple{5}) + fromHex("ff")}));
}

TEST_F(KeyValueCursorTest, ExclusiveRangeExcludesEndsAndWhatTheyPrefix) {
  TupleRange range{Tuple{3}, Tuple{5}, EndpointType::kRangeExclusive,
                   EndpointType::kRangeExclusive};
  EXPECT_EQ(scan(range, ScanProperties::forwardScan()).keys, ints({4}));
  TupleRange low{Tuple{4}, Tuple{6}, EndpointType::kRangeExclusive, EndpointType::kRangeInclusive};
  std::vector<Tuple> expected = {Tuple{5}, Tuple{5, "x"}, Tuple{6}};
  EXPECT_EQ(scan(low, ScanProperties::forwardScan()).keys, expected);
  EXPECT_EQ(scan(low, ScanProperties::reverseScan()).keys, reversed(expected));
}

TEST_F(KeyValueCursorTest, BetweenIsInclusiveLowExclusiveHigh) {
  TupleRange range = TupleRange::between(Tuple{7}, std::nullopt);
  EXPECT_EQ(scan(range, ScanProperties::forwardScan()).keys, ints({7, 8, 9}));
  TupleRange upTo = TupleRange::between(std::nullopt, Tuple{0});
  std::vector<Tuple> strings = {Tuple{"apple"}, Tuple{"apricot"}, Tuple{"banana"}};
  EXPECT_EQ(scan(upTo, ScanProperties::forwardScan()).keys, strings);
  EXPECT_EQ(scan(upTo, ScanProperties::reverseScan()).keys, reversed(strings));
}

TEST_F(KeyValueCursorTest, AllOfAPrefix) {
  std::vector<Tuple> expected = {Tuple{5}, Tuple{5, "x"}};
  EXPECT_EQ(scan(TupleRange::allOf(Tuple{5}), ScanProperties::forwardScan()).keys, expected);
  EXPECT_EQ(scan(TupleRange::allOf(Tuple{5}), ScanProperties::reverseScan()).keys,
            reversed(expected));
}

TEST_F(KeyValueCursorTest, PrefixString) {
  std::vector<Tuple> expected = {Tuple{"apple"}, Tuple{"apricot"}};
  EXPECT_EQ(scan(TupleRange::prefixedBy("ap"), ScanProperties::forwardScan()).keys, expected);
  EXPECT_EQ(scan(TupleRange::prefixedBy("ap"), ScanProperties::reverseScan()).keys,
            reversed(expected));
  // Packed "ap" is 02 61 70 00: the range is [02 61 70, 02 61 71).
  EXPECT_EQ(TupleRange::prefixedBy("ap").toRange(kSpace),
            (fdb::KeyRange{kSpace.key() + fromHex("026170"), kSpace.key() + fromHex("026171")}));
  EXPECT_EQ(scanInParts(TupleRange::prefixedBy("ap"), false, 1), expected);
  EXPECT_EQ(scanInParts(TupleRange::prefixedBy("ap"), true, 1), reversed(expected));
}

TEST_F(KeyValueCursorTest, MismatchedEndpointsAreRefused) {
  TupleRange bad{Tuple{"a"}, Tuple{"b"}, EndpointType::kPrefixString, EndpointType::kTreeEnd};
  EXPECT_THROW(bad.toRange(kSpace), rl::RecordCoreArgumentException);
  TupleRange different{Tuple{"a"}, Tuple{"b"}, EndpointType::kPrefixString,
                       EndpointType::kPrefixString};
  EXPECT_THROW(different.toRange(kSpace), rl::RecordCoreArgumentException);
}

TEST_F(KeyValueCursorTest, SkipUsesKeySelectorsInBothDirections) {
  rl::ExecuteProperties execute;
  execute.skip = 2;
  TupleRange range = TupleRange::between(Tuple{0}, Tuple{5});
  EXPECT_EQ(scan(range, ScanProperties(execute)).keys, ints({2, 3, 4}));
  EXPECT_EQ(scan(range, ScanProperties(execute, true)).keys, ints({2, 1, 0}));
  execute.returnedRowLimit = 2;
  EXPECT_EQ(scan(range, ScanProperties(execute)).keys, ints({2, 3}));
}

// A continuation outside the scan's range (another scan's, or arbitrary bytes) resumes at
// the range's edge: the scan never returns a key outside its range.
TEST_F(KeyValueCursorTest, AContinuationOutsideTheRangeResumesAtItsEdge) {
  rl::ExecuteProperties execute;
  const TupleRange range = TupleRange::between(Tuple{3}, Tuple{6});
  // Raw suffixes after what every key of the range shares (the subspace and the integer type
  // code 0x15): (1) and (8).
  const Bytes below = fromHex("01");
  const Bytes above = fromHex("08");
  const rl::ContinuationFormat raw = rl::ContinuationFormat::kRaw;
  EXPECT_EQ(scan(range, ScanProperties(execute), below, raw).keys,
            (std::vector<Tuple>{Tuple{3}, Tuple{4}, Tuple{5}, Tuple{5, "x"}}));
  EXPECT_EQ(scan(range, ScanProperties(execute), above, raw).keys, std::vector<Tuple>{});
  EXPECT_EQ(scan(range, ScanProperties(execute, true), above, raw).keys,
            (std::vector<Tuple>{Tuple{5, "x"}, Tuple{5}, Tuple{4}, Tuple{3}}));
  EXPECT_EQ(scan(range, ScanProperties(execute, true), below, raw).keys, std::vector<Tuple>{});
  // Inside the range it resumes just after the position, as always.
  EXPECT_EQ(scan(range, ScanProperties(execute), fromHex("04"), raw).keys,
            (std::vector<Tuple>{Tuple{5}, Tuple{5, "x"}}));
}

TEST_F(KeyValueCursorTest, ReturnLimitVersusSourceExhausted) {
  rl::ExecuteProperties execute;
  execute.returnedRowLimit = 3;
  TupleRange range = TupleRange::between(Tuple{0}, Tuple{5});
  Scan limited = scan(range, ScanProperties(execute));
  EXPECT_EQ(limited.keys, ints({0, 1, 2}));
  EXPECT_EQ(limited.reason, NoNextReason::kReturnLimitReached);
  EXPECT_FALSE(limited.continuation.isEnd());
  // A limit equal to what is left still reports the limit (the range read stopped there).
  execute.returnedRowLimit = 5;
  EXPECT_EQ(scan(range, ScanProperties(execute)).reason, NoNextReason::kReturnLimitReached);
  execute.returnedRowLimit = 6;
  Scan all = scan(range, ScanProperties(execute));
  EXPECT_EQ(all.keys.size(), 5u);
  EXPECT_EQ(all.reason, NoNextReason::kSourceExhausted);
  EXPECT_TRUE(all.continuation.isEnd());
}

TEST_F(KeyValueCursorTest, ScannedRecordsLimitIsOutOfBand) {
  rl::ExecuteProperties execute;
  execute.scannedRecordsLimit = 3;
  Scan s = scan(TupleRange::between(Tuple{0}, Tuple{9}), ScanProperties(execute));
  EXPECT_EQ(s.keys, ints({0, 1, 2}));
  EXPECT_EQ(s.reason, NoNextReason::kScanLimitReached);
  EXPECT_TRUE(rl::isOutOfBand(s.reason));
  EXPECT_FALSE(rl::isOutOfBand(NoNextReason::kReturnLimitReached));
  EXPECT_FALSE(rl::isOutOfBand(NoNextReason::kSourceExhausted));
}

TEST_F(KeyValueCursorTest, FreeInitialPassReturnsOneValueDespiteAZeroLimit) {
  rl::ExecuteProperties execute;
  execute.scannedRecordsLimit = 0;
  Scan s = scan(TupleRange::all(), ScanProperties(execute));
  EXPECT_EQ(s.keys.size(), 1u);
  EXPECT_EQ(s.reason, NoNextReason::kScanLimitReached);
}

TEST_F(KeyValueCursorTest, ScannedBytesLimit) {
  rl::ExecuteProperties execute;
  execute.scannedBytesLimit = 1;  // the free pass reads one row; then the bytes are spent
  Scan s = scan(TupleRange::between(Tuple{0}, Tuple{9}), ScanProperties(execute));
  EXPECT_EQ(s.keys, ints({0}));
  EXPECT_EQ(s.reason, NoNextReason::kByteLimitReached);
  // Key (0) is 6 bytes and "v0" 2: 20 bytes allow three rows (8, 16, then the 3rd reads 24).
  execute.scannedBytesLimit = 20;
  EXPECT_EQ(scan(TupleRange::between(Tuple{0}, Tuple{9}), ScanProperties(execute)).keys,
            ints({0, 1, 2}));
}

TEST_F(KeyValueCursorTest, TimeLimit) {
  RecordContext context(db);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  rl::ExecuteProperties execute;
  execute.timeLimitMillis = 1;  // already over since the context began
  Scan s = scanIn(context, TupleRange::all(), ScanProperties(execute));
  EXPECT_EQ(s.keys.size(), 1u);  // the free initial pass
  EXPECT_EQ(s.reason, NoNextReason::kTimeLimitReached);
  EXPECT_TRUE(rl::isOutOfBand(s.reason));
}

TEST_F(KeyValueCursorTest, FailOnScanLimitThrowsInstead) {
  rl::ExecuteProperties execute;
  execute.scannedRecordsLimit = 2;
  execute.failOnScanLimitReached = true;
  EXPECT_THROW(scan(TupleRange::all(), ScanProperties(execute)), rl::ScanLimitReachedException);
}

TEST_F(KeyValueCursorTest, SharedLimitsAcrossCursors) {
  rl::ExecuteProperties execute;
  execute.scannedRecordsLimit = 4;
  ScanProperties shared(execute.shareLimits());
  RecordContext context(db);
  KeyValueCursor a(context, kSpace, TupleRange::between(Tuple{0}, Tuple{3}), shared);
  KeyValueCursor b(context, kSpace, TupleRange::between(Tuple{5}, Tuple{9}), shared);
  EXPECT_TRUE(a.next().hasValue());
  EXPECT_TRUE(a.next().hasValue());
  EXPECT_TRUE(a.next().hasValue());
  EXPECT_TRUE(b.next().hasValue());  // the 4th scan of the shared limit
  auto stop = b.next();
  ASSERT_FALSE(stop.hasValue());
  EXPECT_EQ(stop.noNextReason(), NoNextReason::kScanLimitReached);
  EXPECT_EQ(a.next().noNextReason(), NoNextReason::kScanLimitReached);
}

// Continuation = last key minus the common prefix of the packed ends, wrapped as
// KeyValueCursorContinuation{inner_continuation = 1, magic_number = 2}.
TEST_F(KeyValueCursorTest, ContinuationBytes) {
  rl::ExecuteProperties execute;
  execute.returnedRowLimit = 1;
  TupleRange range = TupleRange::between(Tuple{3}, Tuple{9});
  RecordContext context(db);
  KeyValueCursor cursor(context, kSpace, range, ScanProperties(execute));
  EXPECT_EQ(cursor.prefixLength(), 5u);  // 02 6b 76 00 15: (3) and (9) share the int code
  auto first = cursor.next();
  ASSERT_TRUE(first.hasValue());
  EXPECT_EQ(first.value().key, kSpace.pack(Tuple{3}));
  EXPECT_EQ(first.value().value, "v3");
  EXPECT_EQ(first.continuation().keySuffix(), fromHex("03"));
  EXPECT_EQ(first.continuation().toBytes(), fromHex("0a0103"
                                                    "11accd7398dd42005e"));
  EXPECT_EQ(cursor.next().continuation().toBytes(), fromHex("0a0103"
                                                            "11accd7398dd42005e"));

  KeyValueCursor raw(context, kSpace, range, ScanProperties(execute), std::nullopt,
                     rl::ContinuationFormat::kRaw);
  EXPECT_EQ(raw.next().continuation().toBytes(), fromHex("03"));

  KeyValueCursor whole(context, kSpace, TupleRange::all(), ScanProperties(execute));
  EXPECT_EQ(whole.prefixLength(), 4u);
  auto apple = whole.next();
  EXPECT_EQ(apple.continuation().toBytes(),
            fromHex("0a07") + fromHex("026170706c6500") + fromHex("11accd7398dd42005e"));

  KeyValueCursor nested(context, kSpace, TupleRange::allOf(Tuple{5}), ScanProperties(execute));
  EXPECT_EQ(nested.prefixLength(), 6u);  // the whole of (5)
  nested.next();
  EXPECT_EQ(nested.next().continuation().keySuffix(), Bytes());  // (5) itself: empty suffix
}

TEST_F(KeyValueCursorTest, ResumingInANewTransactionGivesExactlyTheRest) {
  const std::vector<TupleRange> ranges = {
      TupleRange::all(),
      TupleRange::betweenInclusive(Tuple{3}, Tuple{5}),
      TupleRange{Tuple{2}, Tuple{8}, EndpointType::kRangeExclusive, EndpointType::kRangeExclusive},
      TupleRange::between(Tuple{1}, std::nullopt),
      TupleRange::between(std::nullopt, Tuple{4}),
      TupleRange::allOf(Tuple{5}),
      TupleRange::prefixedBy("a"),
  };
  for (const TupleRange& range : ranges) {
    for (bool reverse : {false, true}) {
      for (int limit : {1, 2, 3}) {
        SCOPED_TRACE(::testing::Message()
                     << rl::endpointTypeName(range.lowEndpoint) << "/"
                     << rl::endpointTypeName(range.highEndpoint)
                     << (reverse ? " reverse" : " forward") << " limit " << limit);
        const std::vector<Tuple> expected =
            scan(range, reverse ? ScanProperties::reverseScan() : ScanProperties::forwardScan())
                .keys;
        ASSERT_FALSE(expected.empty());
        EXPECT_EQ(scanInParts(range, reverse, limit), expected);
        EXPECT_EQ(scanInParts(range, reverse, limit, rl::ContinuationFormat::kRaw), expected);
      }
    }
  }
}

TEST_F(KeyValueCursorTest, RawOldFormatContinuationIsAccepted) {
  // What an older Java Record Layer handed out: just the key suffix, here 15 03 of (3) (the
  // packed (0) = 14 and (9) = 15 09 share no byte after the subspace).
  TupleRange range = TupleRange::between(Tuple{0}, Tuple{9});
  const std::vector<Tuple> after3 = {Tuple{4}, Tuple{5}, Tuple{5, "x"},
                                     Tuple{6}, Tuple{7}, Tuple{8}};
  EXPECT_EQ(scan(range, ScanProperties::forwardScan(), fromHex("1503")).keys, after3);
  EXPECT_EQ(scan(range, ScanProperties::reverseScan(), fromHex("1503")).keys, ints({2, 1, 0}));
  // A wrapped one with another magic number is taken as raw bytes (and so resumes elsewhere).
  EXPECT_EQ(scan(range, ScanProperties::forwardScan(),
                 fromHex("0a0103"
                         "110000000000000000"))
                .keys.front(),
            Tuple{0});
}

TEST_F(KeyValueCursorTest, SerializableScansConflictAndSnapshotScansDoNot) {
  for (auto isolation : {rl::IsolationLevel::kSerializable, rl::IsolationLevel::kSnapshot}) {
    RecordContext context(db);
    rl::ExecuteProperties execute;
    execute.isolation = isolation;
    scanIn(context, TupleRange::between(Tuple{0}, Tuple{5}), ScanProperties(execute));
    context.transaction().set("written", "x");
    db.run([](fdb::Transaction& tr) { tr.set(kSpace.pack(Tuple{2}), "changed"); });
    if (isolation == rl::IsolationLevel::kSerializable) {
      try {
        context.commit();
        ADD_FAILURE() << "expected not_committed";
      } catch (const fdb::Error& e) {
        EXPECT_EQ(e.code(), fdb::errors::kNotCommitted);
      }
    } else {
      EXPECT_NO_THROW(context.commit());
    }
  }
}

TEST_F(KeyValueCursorTest, ReadsInBatchesAndAsksForTheNextEarly) {
  const fdb::Subspace many(Tuple{"many"});
  db.run([&](fdb::Transaction& tr) {
    for (int i = 0; i < 3000; ++i) tr.set(many.pack(Tuple{i}), Bytes(100, 'x'));
  });
  for (bool reverse : {false, true}) {
    RecordContext context(db);
    KeyValueCursor cursor(context, many, TupleRange::all(),
                          reverse ? ScanProperties::reverseScan() : ScanProperties::forwardScan());
    EXPECT_EQ(cursor.batchesRequested(), 1);  // issued when the cursor is built
    auto first = cursor.next();
    ASSERT_TRUE(first.hasValue());
    EXPECT_EQ(many.unpack(first.value().key), Tuple{reverse ? 2999 : 0});
    EXPECT_EQ(cursor.batchesRequested(), 2);  // the next batch is already on its way
    int count = 1;
    int expected = reverse ? 2998 : 1;
    for (auto r = cursor.next(); r.hasValue(); r = cursor.next(), ++count) {
      ASSERT_EQ(many.unpack(r.value().key), Tuple{expected});
      expected += reverse ? -1 : 1;
    }
    EXPECT_EQ(count, 3000);
    EXPECT_GT(cursor.batchesRequested(), 3);
  }
}

TEST_F(KeyValueCursorTest, WantAllAndExactStreamingModes) {
  rl::ExecuteProperties execute;
  execute.defaultStreamingMode = rl::CursorStreamingMode::kWantAll;
  EXPECT_EQ(scan(TupleRange::all(), ScanProperties(execute)).keys.size(), 14u);
  execute.returnedRowLimit = 4;  // becomes EXACT
  EXPECT_EQ(rl::toFdbStreamingMode(rl::CursorStreamingMode::kWantAll, 4),
            fdb::StreamingMode::kExact);
  EXPECT_EQ(rl::toFdbStreamingMode(rl::CursorStreamingMode::kWantAll, 0),
            fdb::StreamingMode::kWantAll);
  Scan s = scan(TupleRange::all(), ScanProperties(execute));
  EXPECT_EQ(s.keys.size(), 4u);
  EXPECT_EQ(s.reason, NoNextReason::kReturnLimitReached);
}

}  // namespace
