// Range reads that stop early (docs/semantics.md, "Range reads"): inside a transaction, a read
// with a byte limit (every streaming mode but EXACT, or an explicit target_bytes) that already
// holds a row stops where it reaches a piece the transaction knows nothing about, and says
// `more` although rows follow. What the transaction knows: ranges and keys it read before
// (snapshot or not), keys it set, ranges it cleared. Clients that follow `more` see every row.

#include "conformance/backends.h"

#include <string>
#include <vector>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::RangeOptions;
using fdb::RangeResult;
using fdb::StreamingMode;
using fdb::Transaction;
using fdb::TransactionOption;

// The modes with a byte limit of their own: all but EXACT.
constexpr StreamingMode kByteLimitedModes[] = {
    StreamingMode::kWantAll, StreamingMode::kIterator, StreamingMode::kSmall,
    StreamingMode::kMedium,  StreamingMode::kLarge,    StreamingMode::kSerial,
};

std::vector<Bytes> keysOf(const RangeResult& result) {
  std::vector<Bytes> keys;
  for (const fdb::KeyValueRef& row : result.rows) keys.emplace_back(row.key);
  return keys;
}

class RangeEarlyStopTest : public ConformanceTest {
 protected:
  void writeCD() {
    write("c", "3");
    write("d", "4");
  }
};

// A key set inside a stretch the transaction knows nothing about does not stop the read: the
// first read of the database covers the whole stretch, past the written key.
TEST_P(RangeEarlyStopTest, WrittenKeyInsideTheRangeIsReadPast) {
  writeCD();
  Transaction tr = db().createTransaction();
  tr.set("b", "2");
  RangeResult all = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(all), (std::vector<Bytes>{"b", "c", "d"}));
  EXPECT_FALSE(all.more);
}

// A read that begins on a key the transaction wrote takes it, then stops at the unknown rest,
// in every mode with a byte limit.
TEST_P(RangeEarlyStopTest, ReadFromAWrittenKeyStopsAfterItInEveryByteLimitedMode) {
  writeCD();
  for (StreamingMode mode : kByteLimitedModes) {
    Transaction tr = db().createTransaction();
    tr.set("b", "2");
    RangeResult first = tr.getRange(KeyRange{"b", "z"}, {.mode = mode}).get();
    EXPECT_EQ(keysOf(first), (std::vector<Bytes>{"b"})) << "mode " << static_cast<int>(mode);
    EXPECT_TRUE(first.more) << "mode " << static_cast<int>(mode);
  }
}

// EXACT has a byte limit only with target_bytes: without it the read goes on.
TEST_P(RangeEarlyStopTest, ExactModeStopsOnlyWithTargetBytes) {
  writeCD();
  Transaction tr = db().createTransaction();
  tr.set("b", "2");
  RangeResult rowsOnly =
      tr.getRange(KeyRange{"b", "z"}, {.limit = 10, .mode = StreamingMode::kExact}).get();
  EXPECT_EQ(keysOf(rowsOnly), (std::vector<Bytes>{"b", "c", "d"}));
  EXPECT_FALSE(rowsOnly.more);

  Transaction bytes = db().createTransaction();
  bytes.set("b", "2");
  RangeResult withBytes =
      bytes
          .getRange(KeyRange{"b", "z"},
                    {.limit = 10, .targetBytes = 100000, .mode = StreamingMode::kExact})
          .get();
  EXPECT_EQ(keysOf(withBytes), (std::vector<Bytes>{"b"}));
  EXPECT_TRUE(withBytes.more);
}

// Reverse reads stop the same way, from the top.
TEST_P(RangeEarlyStopTest, ReverseReadFromAWrittenKeyStopsAfterIt) {
  writeCD();
  Transaction tr = db().createTransaction();
  tr.set("y", "25");
  RangeResult first =
      tr.getRange(KeySelector::firstGreaterOrEqual("a"), KeySelector::firstGreaterThan("y"),
                  {.mode = StreamingMode::kWantAll, .reverse = true})
          .get();
  EXPECT_EQ(keysOf(first), (std::vector<Bytes>{"y"}));
  EXPECT_TRUE(first.more);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"a", "z"}, 0, /*reverse=*/true).size(), 3u);
}

// A cleared range longer than one key ends the first read of the database: forward, the rows
// before it; reverse, the rows after it.
TEST_P(RangeEarlyStopTest, ClearedRangeStopsTheReadInBothDirections) {
  write("a", "1");
  write("c", "3");
  write("e", "5");
  Transaction forward = db().createTransaction();
  forward.clearRange("c", "d");
  RangeResult up = forward.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kSerial}).get();
  EXPECT_EQ(keysOf(up), (std::vector<Bytes>{"a"}));
  EXPECT_TRUE(up.more);

  Transaction reverse = db().createTransaction();
  reverse.clearRange("c", "d");
  RangeResult down =
      reverse.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kSerial, .reverse = true}).get();
  EXPECT_EQ(keysOf(down), (std::vector<Bytes>{"e"}));
  EXPECT_TRUE(down.more);
}

// What a read learnt counts, serializable or snapshot, and either way round.
TEST_P(RangeEarlyStopTest, EarlierReadsOfEitherKindCount) {
  write("a", "1");
  write("c", "3");
  write("e", "5");
  Transaction serializableFirst = db().createTransaction();
  EXPECT_EQ(serializableFirst.getRange(KeyRange{"c", "d"}).get().rows.size(), 1u);
  RangeResult snapshotRead = serializableFirst.snapshot()
                                 .getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll})
                                 .get();
  EXPECT_EQ(keysOf(snapshotRead), (std::vector<Bytes>{"a", "c"}));
  EXPECT_TRUE(snapshotRead.more);

  Transaction snapshotFirst = db().createTransaction();
  EXPECT_EQ(snapshotFirst.snapshot().get("c").get(), "3");
  RangeResult serializableRead =
      snapshotFirst.getRange(KeyRange{"c", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(serializableRead), (std::vector<Bytes>{"c"}));
  EXPECT_TRUE(serializableRead.more);
}

// A read of a range the transaction read with a small limit before stops where that read did.
TEST_P(RangeEarlyStopTest, RereadingARangeReadInPartStopsWhereThePartEnded) {
  for (char k = 'a'; k <= 'j'; ++k) write(std::string(1, k), std::string(100, k));
  Transaction tr = db().createTransaction();
  RangeResult part = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kSmall}).get();
  EXPECT_EQ(keysOf(part), (std::vector<Bytes>{"a", "b", "c"}));  // 109 bytes a row, 256 bytes
  RangeResult again = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(again), (std::vector<Bytes>{"a", "b", "c"}));
  EXPECT_TRUE(again.more);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"a", "z"}).size(), 10u);
}

// With snapshot read-your-writes off, a snapshot read ignores the writes (they are not known to
// it) but not what earlier reads learnt.
TEST_P(RangeEarlyStopTest, SnapshotReadsWithoutRywCountOnlyEarlierReads) {
  writeCD();
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSnapshotRywDisable);
  tr.set("b", "2");
  RangeResult past =
      tr.snapshot().getRange(KeyRange{"b", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(past), (std::vector<Bytes>{"c", "d"}));
  EXPECT_FALSE(past.more);

  Transaction other = db().createTransaction();
  other.setOption(TransactionOption::kSnapshotRywDisable);
  EXPECT_EQ(other.snapshot().get("c").get(), "3");
  RangeResult first =
      other.snapshot().getRange(KeyRange{"c", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(first), (std::vector<Bytes>{"c"}));
  EXPECT_TRUE(first.more);
}

// A read that stopped early depends only on the rows it returned: a later write after them
// does not conflict with it.
TEST_P(RangeEarlyStopTest, StoppedReadConflictsOnlyUpToItsLastRow) {
  writeCD();
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.get("c").get(), "3");
  RangeResult first = tr.getRange(KeyRange{"c", "z"}, {.mode = StreamingMode::kWantAll}).get();
  ASSERT_EQ(keysOf(first), (std::vector<Bytes>{"c"}));
  ASSERT_TRUE(first.more);
  write("x", "24");
  tr.set("out", "1");
  EXPECT_NO_THROW(tr.commit().get());
}

// Clients that follow `more` get every row: getRangeAll, forward and reverse.
TEST_P(RangeEarlyStopTest, FollowingMoreReadsEveryRow) {
  writeCD();
  write("f", "6");
  Transaction tr = db().createTransaction();
  tr.set("b", "2");
  tr.clearRange("dd", "e");
  EXPECT_EQ(tr.getRangeAll(KeyRange{"b", "z"}).size(), 4u);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"a", "z"}, 0, /*reverse=*/true).size(), 4u);
}

// What a transaction knew is forgotten on reset.
TEST_P(RangeEarlyStopTest, ResetForgetsWhatWasKnown) {
  writeCD();
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.get("c").get(), "3");
  EXPECT_TRUE(tr.getRange(KeyRange{"c", "z"}, {.mode = StreamingMode::kWantAll}).get().more);
  tr.reset();
  RangeResult all = tr.getRange(KeyRange{"c", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(all), (std::vector<Bytes>{"c", "d"}));
  EXPECT_FALSE(all.more);
}

RL_CONFORMANCE_INSTANTIATE(RangeEarlyStopTest);

}  // namespace
}  // namespace conformance
