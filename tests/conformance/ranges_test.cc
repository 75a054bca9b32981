// Range reads (docs/semantics.md, "Range reads"): row and byte limits (key + value + 8 bytes a row,
// the crossing row included, at least one row), `more` (true whenever a limit stopped the read,
// even at the exact end; never with zero rows), reverse reads, streaming modes that change only
// the batching, the parameter errors (2210, 2000, 2012, 2004) and inverted ranges (empty).

#include "conformance/backends.h"

#include <string>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::RangeOptions;
using fdb::RangeResult;
using fdb::StreamingMode;
using fdb::Transaction;

constexpr StreamingMode kAllModes[] = {
    StreamingMode::kWantAll, StreamingMode::kIterator, StreamingMode::kExact,
    StreamingMode::kSmall,   StreamingMode::kMedium,   StreamingMode::kLarge,
    StreamingMode::kSerial,
};

const KeyRange kEverything{"", "\xff"};

class RangesTest : public ConformanceTest {
 protected:
  // Ten rows k0..k9, each 2 + 10 + 8 = 20 bytes by the byte-limit accounting.
  void writeTenRows() {
    std::vector<KeyValue> rows;
    for (int i = 0; i < 10; ++i) {
      rows.push_back({"k" + std::to_string(i), "value-000" + std::to_string(i)});
    }
    writeAll(rows);
    tenRows_ = rows;
  }

  // Forty rows r00..r39 with 300-byte values (311 bytes each): several batches in most modes.
  std::vector<KeyValue> writeFortyLargeRows() {
    std::vector<KeyValue> rows;
    for (int i = 0; i < 40; ++i) {
      std::string key = (i < 10 ? "r0" : "r") + std::to_string(i);
      rows.push_back({key, std::string(300, static_cast<char>('a' + i % 26))});
    }
    writeAll(rows);
    return rows;
  }

  // The first `n` of the ten rows, or the last `n` in reverse order.
  std::vector<KeyValue> firstRows(size_t n) const {
    return std::vector<KeyValue>(tenRows_.begin(), tenRows_.begin() + n);
  }
  std::vector<KeyValue> lastRowsReversed(size_t n) const {
    return std::vector<KeyValue>(tenRows_.rbegin(), tenRows_.rbegin() + n);
  }

  std::vector<KeyValue> tenRows_;
};

// Reads [begin, end) to the end (or `limit` rows) the way the bindings iterate (docs/semantics.md,
// "Range reads" step 5), failing the test if a batch has no rows but says `more`.
std::vector<KeyValue> iterate(Transaction& tr, KeySelector begin, KeySelector end,
                              StreamingMode mode, bool reverse, int limit = 0) {
  std::vector<KeyValue> all;
  for (int iteration = 1;; ++iteration) {
    int remaining = limit == 0 ? 0 : limit - static_cast<int>(all.size());
    RangeResult batch =
        tr.getRange(
              begin, end,
              RangeOptions{
                  .limit = remaining, .mode = mode, .iteration = iteration, .reverse = reverse})
            .get();
    if (batch.rows.empty() && batch.more) {
      ADD_FAILURE() << "a batch with no rows has more=true (iteration " << iteration << ")";
      break;
    }
    all.insert(all.end(), batch.rows.begin(), batch.rows.end());
    if (!batch.more) break;
    if (limit != 0 && static_cast<int>(all.size()) >= limit) break;
    if (iteration > 10000) {
      ADD_FAILURE() << "iteration does not end";
      break;
    }
    if (reverse) {
      end = KeySelector::firstGreaterOrEqual(all.back().key);
    } else {
      begin = KeySelector::firstGreaterThan(all.back().key);
    }
  }
  return all;
}

TEST_P(RangesTest, UnlimitedReadReturnsEveryRowWithoutMore) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result = tr.getRange(kEverything).get();
  EXPECT_EQ(result.rows, tenRows_);
  EXPECT_FALSE(result.more);
}

TEST_P(RangesTest, RowLimitReturnsTheFirstRowsWithMore) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result = tr.getRange(kEverything, RangeOptions{.limit = 3}).get();
  EXPECT_EQ(result.rows, firstRows(3));
  EXPECT_TRUE(result.more);
  RangeResult one = tr.getRange(KeyRange{"k5", "z"}, RangeOptions{.limit = 1}).get();
  EXPECT_EQ(one.rows, (std::vector<KeyValue>{{"k5", "value-0005"}}));
  EXPECT_TRUE(one.more);
}

TEST_P(RangesTest, RowLimitReachedAtTheExactEndStillReportsMore) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result = tr.getRange(kEverything, RangeOptions{.limit = 10}).get();
  EXPECT_EQ(result.rows, tenRows_);
  EXPECT_TRUE(result.more);
  RangeResult exact =
      tr.getRange(kEverything, RangeOptions{.limit = 10, .mode = StreamingMode::kExact}).get();
  EXPECT_EQ(exact.rows, tenRows_);
  EXPECT_TRUE(exact.more);
}

TEST_P(RangesTest, RowLimitAboveTheRowCountReportsNoMore) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result = tr.getRange(kEverything, RangeOptions{.limit = 11}).get();
  EXPECT_EQ(result.rows, tenRows_);
  EXPECT_FALSE(result.more);
}

TEST_P(RangesTest, ExactModeReturnsExactlyTheLimit) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result =
      tr.getRange(kEverything, RangeOptions{.limit = 3, .mode = StreamingMode::kExact}).get();
  EXPECT_EQ(result.rows, firstRows(3));
  EXPECT_TRUE(result.more);
}

TEST_P(RangesTest, ByteLimitCountsKeyValueAndEightBytesIncludingTheCrossingRow) {
  writeTenRows();  // 20 bytes a row
  struct Case {
    int targetBytes;
    size_t rows;
  };
  for (StreamingMode mode : kAllModes) {
    for (Case c : {Case{1, 1}, Case{19, 1}, Case{20, 1}, Case{21, 2}, Case{40, 2}, Case{41, 3},
                   Case{100, 5}, Case{101, 6}}) {
      Transaction tr = db().createTransaction();
      RangeResult result =
          tr.getRange(kEverything, RangeOptions{.targetBytes = c.targetBytes, .mode = mode}).get();
      EXPECT_EQ(result.rows, firstRows(c.rows))
          << "targetBytes " << c.targetBytes << ", mode " << static_cast<int>(mode);
      EXPECT_TRUE(result.more) << "targetBytes " << c.targetBytes << ", mode "
                               << static_cast<int>(mode);
    }
  }
}

TEST_P(RangesTest, ByteLimitReachedAtTheExactEndStillReportsMore) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result =
      tr.getRange(kEverything, RangeOptions{.targetBytes = 200, .mode = StreamingMode::kExact})
          .get();
  EXPECT_EQ(result.rows, tenRows_);
  EXPECT_TRUE(result.more);
  // A new transaction: in this one the rows are known now and a second read would stop at the
  // unknown after them (docs/semantics.md, "Range reads").
  Transaction fresh = db().createTransaction();
  RangeResult above =
      fresh.getRange(kEverything, RangeOptions{.targetBytes = 201, .mode = StreamingMode::kExact})
          .get();
  EXPECT_EQ(above.rows, tenRows_);
  EXPECT_FALSE(above.more);
}

TEST_P(RangesTest, ByteLimitAlwaysReturnsAtLeastOneRow) {
  write("big", std::string(5000, 'x'));
  write("small", "y");
  Transaction tr = db().createTransaction();
  RangeResult result = tr.getRange(kEverything, RangeOptions{.targetBytes = 1}).get();
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(result.rows[0].key, "big");
  EXPECT_TRUE(result.more);
}

TEST_P(RangesTest, RowAndByteLimitsTogetherStopAtWhicheverComesFirst) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult rowsFirst =
      tr.getRange(kEverything,
                  RangeOptions{.limit = 2, .targetBytes = 100, .mode = StreamingMode::kExact})
          .get();
  EXPECT_EQ(rowsFirst.rows, firstRows(2));
  EXPECT_TRUE(rowsFirst.more);
  Transaction fresh = db().createTransaction();  // nothing known yet
  RangeResult bytesFirst =
      fresh
          .getRange(kEverything,
                    RangeOptions{.limit = 8, .targetBytes = 50, .mode = StreamingMode::kExact})
          .get();
  EXPECT_EQ(bytesFirst.rows, firstRows(3));
  EXPECT_TRUE(bytesFirst.more);
}

TEST_P(RangesTest, EmptyResultNeverReportsMore) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  for (RangeOptions options :
       {RangeOptions{}, RangeOptions{.limit = 1}, RangeOptions{.targetBytes = 1},
        RangeOptions{.limit = 1, .mode = StreamingMode::kExact},
        RangeOptions{.limit = 1, .reverse = true}}) {
    RangeResult past = tr.getRange(KeyRange{"m", "z"}, options).get();
    EXPECT_TRUE(past.rows.empty());
    EXPECT_FALSE(past.more);
    RangeResult between = tr.getRange(KeyRange{"k1a", "k2"}, options).get();
    EXPECT_TRUE(between.rows.empty());
    EXPECT_FALSE(between.more);
  }
  Transaction empty = db().createTransaction();
  empty.clearRange(kEverything);
  RangeResult none = empty.getRange(kEverything, RangeOptions{.limit = 5}).get();
  EXPECT_TRUE(none.rows.empty());
  EXPECT_FALSE(none.more);
}

TEST_P(RangesTest, ReverseReadsFromTheEnd) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult all = tr.getRange(kEverything, RangeOptions{.reverse = true}).get();
  EXPECT_EQ(all.rows, lastRowsReversed(10));
  EXPECT_FALSE(all.more);
  RangeResult limited = tr.getRange(kEverything, RangeOptions{.limit = 3, .reverse = true}).get();
  EXPECT_EQ(limited.rows, lastRowsReversed(3));
  EXPECT_TRUE(limited.more);
  RangeResult bytes =
      tr.getRange(kEverything, RangeOptions{.targetBytes = 41, .reverse = true}).get();
  EXPECT_EQ(bytes.rows, lastRowsReversed(3));
  EXPECT_TRUE(bytes.more);
  RangeResult inner = tr.getRange(KeyRange{"k2", "k5"}, RangeOptions{.reverse = true}).get();
  EXPECT_EQ(keysOf(inner.rows), (std::vector<Bytes>{"k4", "k3", "k2"}));
}

TEST_P(RangesTest, EveryStreamingModeIteratesToTheSameRows) {
  std::vector<KeyValue> rows = writeFortyLargeRows();
  std::vector<KeyValue> reversed(rows.rbegin(), rows.rend());
  KeySelector begin = KeySelector::firstGreaterOrEqual("");
  KeySelector end = KeySelector::firstGreaterOrEqual("\xff");
  for (StreamingMode mode : kAllModes) {
    SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)));
    Transaction tr = db().createTransaction();
    if (mode != StreamingMode::kExact) {  // EXACT needs a limit
      EXPECT_EQ(iterate(tr, begin, end, mode, /*reverse=*/false), rows);
      EXPECT_EQ(iterate(tr, begin, end, mode, /*reverse=*/true), reversed);
    }
    EXPECT_EQ(iterate(tr, begin, end, mode, /*reverse=*/false, /*limit=*/40), rows);
    EXPECT_EQ(iterate(tr, begin, end, mode, /*reverse=*/false, /*limit=*/15),
              std::vector<KeyValue>(rows.begin(), rows.begin() + 15));
    EXPECT_EQ(iterate(tr, begin, end, mode, /*reverse=*/true, /*limit=*/15),
              std::vector<KeyValue>(reversed.begin(), reversed.begin() + 15));
  }
}

TEST_P(RangesTest, SmallModeBatchesAreBoundedByItsByteBudget) {
  // SMALL is 256 bytes a batch: with 311-byte rows, every batch holds exactly one row.
  std::vector<KeyValue> rows = writeFortyLargeRows();
  Transaction tr = db().createTransaction();
  RangeResult batch = tr.getRange(kEverything, RangeOptions{.mode = StreamingMode::kSmall}).get();
  EXPECT_EQ(batch.rows, std::vector<KeyValue>(rows.begin(), rows.begin() + 1));
  EXPECT_TRUE(batch.more);
}

TEST_P(RangesTest, ExactModeWithoutLimitsFails) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2210,
                   tr.getRange(kEverything, RangeOptions{.mode = StreamingMode::kExact}).get());
  Transaction tr2 = db().createTransaction();
  EXPECT_FDB_ERROR(
      2210, tr2.snapshot()
                .getRange(kEverything, RangeOptions{.mode = StreamingMode::kExact, .reverse = true})
                .get());
  Transaction tr3 = db().createTransaction();
  RangeResult bytesOnly =
      tr3.getRange(kEverything, RangeOptions{.targetBytes = 30, .mode = StreamingMode::kExact})
          .get();
  EXPECT_EQ(bytesOnly.rows, firstRows(2));
}

TEST_P(RangesTest, IteratorModeNeedsIterationOfAtLeastOne) {
  writeTenRows();
  for (int iteration : {0, -1}) {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2000, tr.getRange(kEverything, RangeOptions{.mode = StreamingMode::kIterator,
                                                                 .iteration = iteration})
                               .get());
  }
  // Other modes ignore the iteration number.
  Transaction tr = db().createTransaction();
  RangeResult result =
      tr.getRange(kEverything, RangeOptions{.mode = StreamingMode::kWantAll, .iteration = 0}).get();
  EXPECT_EQ(result.rows, tenRows_);
  EXPECT_FALSE(result.more);
}

TEST_P(RangesTest, UnknownStreamingModeFails) {
  writeTenRows();
  for (int mode : {5, -3}) {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(
        2000,
        tr.getRange(kEverything, RangeOptions{.mode = static_cast<StreamingMode>(mode)}).get());
  }
}

TEST_P(RangesTest, NegativeLimitsAreInvalid) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2012, tr.getRange(kEverything, RangeOptions{.limit = -5}).get());
  Transaction tr2 = db().createTransaction();
  EXPECT_FDB_ERROR(2012, tr2.getRange(kEverything, RangeOptions{.targetBytes = -5}).get());
}

TEST_P(RangesTest, InvertedRangeIsEmptyNotAnError) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  for (RangeOptions options :
       {RangeOptions{}, RangeOptions{.limit = 2}, RangeOptions{.reverse = true}}) {
    RangeResult result = tr.getRange(KeyRange{"k7", "k2"}, options).get();
    EXPECT_TRUE(result.rows.empty());
    EXPECT_FALSE(result.more);
  }
  EXPECT_TRUE(tr.getRangeAll(KeyRange{"k7", "k2"}).empty());
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(RangesTest, EmptyRangeIsEmpty) {
  writeTenRows();
  Transaction tr = db().createTransaction();
  RangeResult result = tr.getRange(KeyRange{"k3", "k3"}).get();
  EXPECT_TRUE(result.rows.empty());
  EXPECT_FALSE(result.more);
}

TEST_P(RangesTest, GetRangeAllReadsEveryBatch) {
  std::vector<KeyValue> rows = writeFortyLargeRows();  // more than one default batch
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.getRangeAll(kEverything), rows);
  EXPECT_EQ(tr.getRangeAll(kEverything, 0, /*reverse=*/true),
            std::vector<KeyValue>(rows.rbegin(), rows.rend()));
  EXPECT_EQ(tr.getRangeAll(kEverything, 25),
            std::vector<KeyValue>(rows.begin(), rows.begin() + 25));
  EXPECT_EQ(tr.getRangeAll(kEverything, 25, /*reverse=*/true),
            std::vector<KeyValue>(rows.rbegin(), rows.rbegin() + 25));
  EXPECT_EQ(tr.getRangeAll(kEverything, 1000), rows);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"r10", "r13"}),
            std::vector<KeyValue>(rows.begin() + 10, rows.begin() + 13));
  EXPECT_EQ(tr.snapshot().getRangeAll(kEverything), rows);
}

TEST_P(RangesTest, RangeEndpointsBeyondEndOfKeySpaceFail) {
  writeTenRows();
  Transaction ok = db().createTransaction();
  EXPECT_EQ(ok.getRange(KeyRange{"", "\xff"}).get().rows, tenRows_);  // exactly \xff is allowed
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr.getRange(KeyRange{"a", keyAfter("\xff")}).get());
  Transaction tr2 = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr2.getRange(KeyRange{"\xff\x01", "\xff\x02"}).get());
  Transaction tr3 = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr3.snapshot().getRange(KeyRange{"a", "\xff\xff"}).get());
}

RL_CONFORMANCE_INSTANTIATE(RangesTest);

}  // namespace
}  // namespace conformance
