// The keys a failed commit conflicted on (docs/semantics.md, "Conflicting keys"): with
// REPORT_CONFLICTING_KEYS, a commit that fails with not_committed reports its read conflict
// ranges that met a later write under \xff\xff/transaction/conflicting_keys/, each range's begin
// with "1" and its end with "0". The special key space answers even after the commit, which
// ordinary reads cannot (2017); onError keeps the report, reset() drops it.

#include "conformance/backends.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::Error;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::RangeOptions;
using fdb::Transaction;
using fdb::TransactionOption;

const Bytes kPrefix = "\xff\xff/transaction/conflicting_keys/";
const KeyRange kConflictingKeys{kPrefix, kPrefix + "\xff\xff"};

KeyValue marker(std::string_view key, std::string_view value) {
  return KeyValue{kPrefix + Bytes(key), Bytes(value)};
}

class ConflictingKeysTest : public ConformanceTest {
 protected:
  // Every row of the conflicting keys range, read by `tr`.
  static std::vector<KeyValue> conflictingKeys(Transaction& tr) {
    return tr.getRangeAll(kConflictingKeys);
  }

  // Commits a write of each of `keys` from a transaction of its own.
  void writeKeys(std::initializer_list<std::string_view> keys) {
    Transaction tr = db().createTransaction();
    for (std::string_view key : keys) tr.set(key, "theirs");
    tr.commit().get();
  }

  // A transaction that has its read version (so that later writes conflict with its reads),
  // reports conflicting keys and writes one key.
  Transaction reporting() {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kReportConflictingKeys);
    tr.getReadVersion().get();
    tr.set("mine", "1");
    return tr;
  }
};

TEST_P(ConflictingKeysTest, AFailedCommitReportsTheReadRangesThatConflicted) {
  Transaction tr = reporting();
  tr.get("k1").get();
  tr.getRange(KeyRange{"r", "s"}).get();
  tr.get("untouched").get();
  writeKeys({"k1", "r5"});
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  EXPECT_EQ(conflictingKeys(tr),
            (std::vector<KeyValue>{marker("k1", "1"), marker(keyAfter("k1"), "0"), marker("r", "1"),
                                   marker("s", "0")}));
  // Single keys too: a marker's value, nothing between them.
  EXPECT_EQ(tr.get(kPrefix + "k1").get(), "1");
  EXPECT_EQ(tr.get(kPrefix + keyAfter("k1")).get(), "0");
  EXPECT_EQ(tr.get(kPrefix + "r5").get(), std::nullopt);
  // Ordinary reads stay refused after the commit was called.
  EXPECT_FDB_ERROR(2017, tr.get("k1").get());
  EXPECT_EQ(read("mine"), std::nullopt);
}

TEST_P(ConflictingKeysTest, TouchingAndOverlappingReadRangesAreReportedMerged) {
  Transaction tr = reporting();
  tr.addReadConflictRange("a", "c");
  tr.addReadConflictRange("b", "d");
  tr.addReadConflictRange("d", "e");  // touches [b, d)
  tr.addReadConflictRange("x", "y");  // apart, and not written
  writeKeys({"a"});
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  EXPECT_EQ(conflictingKeys(tr), (std::vector<KeyValue>{marker("a", "1"), marker("e", "0")}));
}

TEST_P(ConflictingKeysTest, WithoutReadYourWritesOnlyTheRangesThatConflictedAreReported) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kReadYourWritesDisable);
  tr.setOption(TransactionOption::kReportConflictingKeys);
  tr.getReadVersion().get();
  tr.addReadConflictRange("a", "c");
  tr.addReadConflictRange("b", "d");  // sent as it is: does not contain "a"
  tr.set("mine", "1");
  writeKeys({"a"});
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  EXPECT_EQ(conflictingKeys(tr), (std::vector<KeyValue>{marker("a", "1"), marker("c", "0")}));
}

TEST_P(ConflictingKeysTest, RangeReadsOfTheReportHonourLimitsReverseAndSelectors) {
  Transaction tr = reporting();
  tr.get("k1").get();
  tr.get("k2").get();
  writeKeys({"k1", "k2"});
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  fdb::RangeResult first = tr.getRange(kConflictingKeys, RangeOptions{.limit = 1}).get();
  EXPECT_EQ(keysOf(first.rows), (std::vector<Bytes>{kPrefix + "k1"}));
  EXPECT_TRUE(first.more);
  fdb::RangeResult last =
      tr.getRange(kConflictingKeys, RangeOptions{.limit = 1, .reverse = true}).get();
  EXPECT_EQ(keysOf(last.rows), (std::vector<Bytes>{kPrefix + keyAfter("k2")}));
  EXPECT_EQ(tr.getRange(kConflictingKeys, RangeOptions{.reverse = true}).get().rows.size(), 4u);
  // From the row after the first marker to the one before the last.
  fdb::RangeResult middle = tr.getRange(KeySelector::firstGreaterThan(kPrefix + "k1"),
                                        KeySelector::lastLessOrEqual(kPrefix + "k2"))
                                .get();
  EXPECT_EQ(keysOf(middle.rows), (std::vector<Bytes>{kPrefix + keyAfter("k1")}));
}

TEST_P(ConflictingKeysTest, NothingIsReportedWithoutTheOption) {
  Transaction tr = db().createTransaction();
  tr.getReadVersion().get();
  tr.get("k1").get();
  tr.set("mine", "1");
  writeKeys({"k1"});
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  EXPECT_TRUE(conflictingKeys(tr).empty());
  Transaction fresh = db().createTransaction();
  EXPECT_TRUE(conflictingKeys(fresh).empty());
}

TEST_P(ConflictingKeysTest, OnErrorKeepsTheReportAndResetDropsIt) {
  Transaction tr = reporting();
  tr.get("k1").get();
  writeKeys({"k1"});
  EXPECT_FDB_ERROR(1020, tr.commit().get());
  const std::vector<KeyValue> reported{marker("k1", "1"), marker(keyAfter("k1"), "0")};
  EXPECT_EQ(conflictingKeys(tr), reported);
  tr.onError(Error(1020)).get();
  EXPECT_EQ(conflictingKeys(tr), reported);  // FoundationDB's retry keeps its transaction state
  tr.reset();
  EXPECT_TRUE(conflictingKeys(tr).empty());
}

RL_CONFORMANCE_INSTANTIATE(ConflictingKeysTest);

}  // namespace
}  // namespace conformance
