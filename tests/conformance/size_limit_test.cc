// The transaction size limit (docs/semantics.md, "Commits" step 3, "Size limits"): a commit is
// measured by what FoundationDB's read-your-writes map sends once it has merged the writes —
// one mutation per key written, clears cut around the keys written inside them — plus the
// coalesced conflict ranges. So writing a key again and again counts it once, while
// getApproximateSize keeps the running, unmerged estimate.

#include "conformance/backends.h"

#include <cstdint>
#include <string>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::MutationType;
using fdb::Transaction;
using fdb::TransactionOption;

// `value` as the 8-byte little-endian operand of an ADD.
Bytes littleEndian64(uint64_t value) {
  Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return out;
}

class SizeLimitTest : public ConformanceTest {};

TEST_P(SizeLimitTest, OneKeyWrittenManyTimesCountsOnce) {
  // 2,000 writes of 10 kB: 20 MB as issued, one 10 kB mutation once merged.
  Transaction tr = db().createTransaction();
  for (int i = 0; i < 2000; ++i) tr.set("k", Bytes(10'000, static_cast<char>('a' + i % 26)));
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), Bytes(10'000, static_cast<char>('a' + 1999 % 26)));
}

TEST_P(SizeLimitTest, ARangeClearedAndRewrittenAgainAndAgainCountsOnce) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{10'000});
  for (int round = 0; round < 50; ++round) {
    tr.clearRange("r/", "r0");
    for (int i = 0; i < 5; ++i) {
      tr.set("r/" + std::to_string(i), Bytes(100, static_cast<char>('a' + round % 26)));
    }
  }
  EXPECT_GT(tr.getApproximateSize().get(), 10'000);  // the running estimate counts every write
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(readAll().size(), 5u);
  EXPECT_EQ(read("r/4"), Bytes(100, static_cast<char>('a' + 49 % 26)));
}

TEST_P(SizeLimitTest, AtomicOperationsOnOneKeyMergeIntoOne) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{1'000});
  for (int i = 0; i < 100; ++i) tr.atomicOp("counter", littleEndian64(1), MutationType::kAdd);
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("counter"), littleEndian64(100));
}

TEST_P(SizeLimitTest, RepeatedReadsOfOneRangeCountOnce) {
  writeAll({{"a", "1"}, {"b", "2"}});
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{1'000});
  for (int i = 0; i < 100; ++i) tr.getRange(KeyRange{"a", "c"}).get();
  tr.set("x", "1");
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(SizeLimitTest, DistinctKeysStillAddUp) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{10'000});
  for (int i = 0; i < 100; ++i) tr.set("k" + std::to_string(i), Bytes(100, 'v'));
  EXPECT_FDB_ERROR(2101, tr.commit().get());
}

// Merging can also make a commit larger than the running estimate: a key written inside a
// range cleared before cuts the clear in two, each piece a mutation of its own. Here 10 empty
// sets without write conflict ranges inside a cleared range: 496 bytes as issued, 946 once
// merged (eleven clears, ten sets, one write conflict range).
TEST_P(SizeLimitTest, KeysWrittenInsideAClearedRangeCutTheClear) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{500});
  tr.clearRange("a", "z");
  for (int i = 0; i < 10; ++i) {
    tr.setOption(TransactionOption::kNextWriteNoWriteConflictRange);
    tr.set("b" + std::to_string(i), "");
  }
  EXPECT_LE(tr.getApproximateSize().get(), 500);
  EXPECT_FDB_ERROR(2101, tr.commit().get());
}

TEST_P(SizeLimitTest, ApproximateSizeCountsEveryWriteAsIssued) {
  Transaction tr = db().createTransaction();
  tr.set("k", "value");
  int64_t once = tr.getApproximateSize().get();
  tr.set("k", "value");
  EXPECT_EQ(tr.getApproximateSize().get(), 2 * once);
}

RL_CONFORMANCE_INSTANTIATE(SizeLimitTest);

}  // namespace
}  // namespace conformance
