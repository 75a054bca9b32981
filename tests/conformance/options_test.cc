// Transaction and database options (docs/semantics.md: "Options", "Transactions",
// "Snapshot reads", "Read-your-writes", "Conflict ranges", "Size limits", "onError"):
// parameter encoding and value ranges, the timeout, retry limit and size
// limit, read-your-writes and snapshot-RYW switches, suppressed write conflict ranges, which
// options survive onError and reset(), and database options as transaction defaults.
//
// Parameter rules: an unknown code fails synchronously with invalid_option (2007); every other
// option error (a bad value: invalid_option_value 2006) is deferred to the next
// future-returning call, so those checks wrap the setOption and a later call together.
// Timeout checks never depend on scheduling: a timeout shorter than a sleep that already
// happened fires at once, because the clock runs from creation / reset() (docs/semantics.md,
// "Transactions").

#include "conformance/backends.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::DatabaseOption;
using fdb::Error;
using fdb::KeyRange;
using fdb::KeyValue;
using fdb::Transaction;
using fdb::TransactionOption;

void sleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// An Int option parameter as the C API passes it: 8 bytes little-endian.
Bytes littleEndian64(int64_t value) {
  Bytes out;
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff));
  }
  return out;
}

class OptionsTest : public ConformanceTest {
 protected:
  // Commits one set of a `valueBytes`-byte value (well over a size limit of 100..1000).
  void commitValueOf(Transaction& tr, size_t valueBytes) {
    tr.set("big", Bytes(valueBytes, 'v'));
    tr.commit().get();
  }
};

// --- Parameter encoding and unknown codes (docs/semantics.md, "Options") -------------------------

TEST_P(OptionsTest, UnknownTransactionOptionFailsSynchronously) {
  Transaction tr = db().createTransaction();
  auto unknown = static_cast<TransactionOption>(12345);
  EXPECT_FDB_ERROR(2007, tr.setOption(unknown));
  EXPECT_FDB_ERROR(2007, tr.setOption(unknown, int64_t{1}));
  EXPECT_FDB_ERROR(2007, tr.setOption(unknown, std::string_view("abc")));
  // Synchronous, not deferred: the transaction is unaffected.
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(OptionsTest, UnknownDatabaseOptionFailsSynchronously) {
  auto unknown = static_cast<DatabaseOption>(12345);
  EXPECT_FDB_ERROR(2007, db().setOption(unknown));
  EXPECT_FDB_ERROR(2007, db().setOption(unknown, int64_t{1}));
  EXPECT_FDB_ERROR(2007, db().setOption(unknown, std::string_view("abc")));
  write("k", "v");  // the database is unaffected
  EXPECT_EQ(read("k"), "v");
}

TEST_P(OptionsTest, IntParameterMustBeEightBytes) {
  for (TransactionOption option : {TransactionOption::kTimeout, TransactionOption::kRetryLimit,
                                   TransactionOption::kSizeLimit}) {
    SCOPED_TRACE(static_cast<int>(option));
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2006, tr.setOption(option, std::string_view("\x10\x00\x00", 3));
                     tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();  // nine bytes are not eight either
    EXPECT_FDB_ERROR(2006, tr.setOption(TransactionOption::kSizeLimit, littleEndian64(1000) + "x");
                     tr.set("k", "v"); tr.commit().get());
  }
}

TEST_P(OptionsTest, IntParameterAsEightLittleEndianBytesIsTheInteger) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, std::string_view(littleEndian64(1000)));
  EXPECT_FDB_ERROR(2101, commitValueOf(tr, 2000));
}

TEST_P(OptionsTest, InvalidOptionValueIsDeferredAndSticksUntilReset) {
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.setOption(TransactionOption::kSizeLimit, int64_t{31}));  // not at the call
  EXPECT_FDB_ERROR(2006, tr.get("k").get());
  EXPECT_FDB_ERROR(2006, tr.commit().get());
  tr.reset();
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
}

// --- SIZE_LIMIT (503): Int in [32, 10,000,000] (docs/semantics.md, "Commits", "Size limits") -----

TEST_P(OptionsTest, SizeLimitOutsideItsRangeIsInvalid) {
  for (int64_t value : {int64_t{31}, int64_t{0}, int64_t{-1}, int64_t{10'000'001}}) {
    SCOPED_TRACE(value);
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2006, tr.setOption(TransactionOption::kSizeLimit, value); tr.set("k", "v");
                     tr.commit().get());
  }
  for (int64_t value : {int64_t{32}, int64_t{10'000'000}}) {
    SCOPED_TRACE(value);
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSizeLimit, value);
    EXPECT_NO_THROW(tr.get("k").get());  // accepted: no deferred error
  }
}

TEST_P(OptionsTest, SizeLimitMakesALargerCommitFail) {
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSizeLimit, int64_t{100});
    EXPECT_FDB_ERROR(2101, commitValueOf(tr, 200));
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSizeLimit, int64_t{1000});
    tr.set("small", "v");
    EXPECT_NO_THROW(tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSizeLimit, int64_t{1000});
    EXPECT_FDB_ERROR(2101, commitValueOf(tr, 2000));
  }
  EXPECT_EQ(read("big"), std::nullopt);
  EXPECT_EQ(read("small"), "v");
}

TEST_P(OptionsTest, SizeLimitIsNotPersistentAcrossOnError) {
  // Only timeout, retry limit and max retry delay survive a retry (docs/semantics.md, "onError"
  // step 4).
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{100});
  tr.onError(Error(1020)).get();
  EXPECT_NO_THROW(commitValueOf(tr, 2000));
  EXPECT_EQ(read("big"), Bytes(2000, 'v'));
}

TEST_P(OptionsTest, SizeLimitIsClearedByReset) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSizeLimit, int64_t{100});
  tr.reset();
  EXPECT_NO_THROW(commitValueOf(tr, 2000));
}

// --- RETRY_LIMIT (501): Int in [-1, INT_MAX], persistent (docs/semantics.md, "onError" step 2) ---

TEST_P(OptionsTest, RetryLimitZeroMakesTheFirstOnErrorReturnItsError) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kRetryLimit, int64_t{0});
  EXPECT_FDB_ERROR(1020, tr.onError(Error(1020)).get());
  // Left cancelled until reset.
  EXPECT_FDB_ERROR(1025, tr.get("k").get());
  EXPECT_FDB_ERROR(1025, tr.commit().get());
  EXPECT_FDB_ERROR(1025, tr.onError(Error(1020)).get());
  tr.reset();
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(OptionsTest, RetryLimitCountsRetriesAndPersistsAcrossOnError) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kRetryLimit, int64_t{2});
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  EXPECT_NO_THROW(tr.onError(Error(1007)).get());
  EXPECT_FDB_ERROR(1021, tr.onError(Error(1021)).get());  // the input error comes back
  EXPECT_FDB_ERROR(1025, tr.get("k").get());
}

TEST_P(OptionsTest, RetryLimitAndRetryCountAreClearedByReset) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kRetryLimit, int64_t{1});
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  tr.reset();  // clears the limit: unlimited again
  for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  tr.reset();  // clears the retry count too: a limit of 1 allows one more retry
  tr.setOption(TransactionOption::kRetryLimit, int64_t{1});
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  EXPECT_FDB_ERROR(1020, tr.onError(Error(1020)).get());
}

TEST_P(OptionsTest, RetryLimitMinusOneIsUnlimited) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kRetryLimit, int64_t{0});
  tr.setOption(TransactionOption::kRetryLimit, int64_t{-1});
  for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(tr.onError(Error(1020)).get());
}

TEST_P(OptionsTest, RetryLimitBelowMinusOneIsInvalid) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2006, tr.setOption(TransactionOption::kRetryLimit, int64_t{-2});
                   tr.get("k").get());
}

// --- TIMEOUT (500): Int ms in [0, INT_MAX], persistent, from creation/reset ("Transactions") ---

TEST_P(OptionsTest, TimeoutFiresRetroactivelyAndSticksUntilReset) {
  write("k", "v");
  Transaction tr = db().createTransaction();
  tr.set("mine", "1");
  sleepMs(50);
  tr.setOption(TransactionOption::kTimeout, int64_t{1});  // 50 ms old: fires at once
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
  EXPECT_FDB_ERROR(1031, tr.getRange(KeyRange{"a", "z"}).get());
  EXPECT_FDB_ERROR(1031, tr.getReadVersion().get());
  EXPECT_FDB_ERROR(1031, tr.commit().get());
  EXPECT_FDB_ERROR(1031, tr.onError(Error(1020)).get());  // poisoned: onError returns it
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
  EXPECT_EQ(read("mine"), std::nullopt);
  tr.reset();  // clears the timeout and restarts the clock
  EXPECT_EQ(tr.get("k").get(), "v");
  tr.set("after", "1");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("after"), "1");
}

TEST_P(OptionsTest, TimeoutZeroDisablesButCannotUnfire) {
  {
    Transaction tr = db().createTransaction();
    sleepMs(20);
    tr.setOption(TransactionOption::kTimeout, int64_t{0});  // 0 = no timeout, not "0 ms"
    EXPECT_NO_THROW(tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kTimeout, int64_t{1});
    sleepMs(20);
    EXPECT_FDB_ERROR(1031, tr.get("k").get());
    tr.setOption(TransactionOption::kTimeout, int64_t{0});  // already fired: stays fired
    EXPECT_FDB_ERROR(1031, tr.get("k").get());
  }
}

// The timeout's timer fires at the deadline whether or not anything looks: changing the
// option afterwards, to 0 or to a longer timeout, or cancelling, cannot undo it.
TEST_P(OptionsTest, TimeoutThatFiredUnobservedStaysFired) {
  Transaction removed = db().createTransaction();
  Transaction lengthened = db().createTransaction();
  Transaction cancelled = db().createTransaction();
  for (Transaction* tr : {&removed, &lengthened, &cancelled}) {
    tr->setOption(TransactionOption::kTimeout, int64_t{100});
    tr->set("mine", "1");
  }
  sleepMs(1000);  // ten times the timeout: it has fired
  removed.setOption(TransactionOption::kTimeout, int64_t{0});
  EXPECT_FDB_ERROR(1031, removed.commit().get());
  lengthened.setOption(TransactionOption::kTimeout, int64_t{3'600'000});
  EXPECT_FDB_ERROR(1031, lengthened.commit().get());
  cancelled.cancel();  // the first poison stays
  EXPECT_FDB_ERROR(1031, cancelled.commit().get());
  EXPECT_EQ(read("mine"), std::nullopt);
}

TEST_P(OptionsTest, TimeoutPersistsAcrossOnError) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kTimeout, int64_t{500});
  tr.onError(Error(1020)).get();
  sleepMs(600);
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
}

TEST_P(OptionsTest, OnErrorDoesNotRestartTheTimeoutClock) {
  Transaction tr = db().createTransaction();
  sleepMs(200);
  tr.onError(Error(1020)).get();
  // Measured from creation (200+ ms ago), not from the retry.
  tr.setOption(TransactionOption::kTimeout, int64_t{100});
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
}

TEST_P(OptionsTest, TimeoutOutsideItsRangeIsInvalid) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2006, tr.setOption(TransactionOption::kTimeout, int64_t{-1}); tr.get("k").get());
}

// --- MAX_RETRY_DELAY (502): Int ms in [0, INT32_MAX] ------------------------------------------

TEST_P(OptionsTest, MaxRetryDelayIsAccepted) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kMaxRetryDelay, int64_t{0});
  for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  tr.setOption(TransactionOption::kMaxRetryDelay, int64_t{5000});
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(OptionsTest, MaxRetryDelayOutsideItsRangeIsInvalid) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2006, tr.setOption(TransactionOption::kMaxRetryDelay, int64_t{-1});
                   tr.get("k").get());
}

// --- READ_YOUR_WRITES_DISABLE (51) (docs/semantics.md, "Read-your-writes") -----------------------

TEST_P(OptionsTest, ReadYourWritesDisableMakesReadsIgnoreOwnWrites) {
  writeAll({{"a", "old"}, {"c", "old"}});
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kReadYourWritesDisable);
  tr.set("a", "mine");
  tr.set("b", "mine");
  tr.clear("c");
  EXPECT_EQ(tr.get("a").get(), "old");
  EXPECT_EQ(tr.get("b").get(), std::nullopt);
  EXPECT_EQ(tr.get("c").get(), "old");
  EXPECT_EQ(tr.snapshot().get("a").get(), "old");
  EXPECT_EQ(tr.getRange(KeyRange{"a", "z"}).get().rows,
            (std::vector<KeyValue>{{"a", "old"}, {"c", "old"}}));
  tr.commit().get();  // the writes still commit
  EXPECT_EQ(readAll(), (std::vector<KeyValue>{{"a", "mine"}, {"b", "mine"}}));
}

TEST_P(OptionsTest, ReadYourWritesDisableAfterAReadIsInvalid) {
  Transaction tr = db().createTransaction();
  tr.get("k").get();
  EXPECT_FDB_ERROR(2000, tr.setOption(TransactionOption::kReadYourWritesDisable);
                   tr.get("k").get());
}

TEST_P(OptionsTest, ReadYourWritesDisableAfterAWriteIsInvalid) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  EXPECT_FDB_ERROR(2000, tr.setOption(TransactionOption::kReadYourWritesDisable);
                   tr.commit().get());
  EXPECT_EQ(read("k"), std::nullopt);
}

// --- SNAPSHOT_RYW_ENABLE / DISABLE (600 / 601): a counter starting at 1 ("Snapshot reads") -------

TEST_P(OptionsTest, SnapshotRywDisableHidesOwnWritesFromSnapshotReadsOnly) {
  write("k", "old");
  Transaction tr = db().createTransaction();
  tr.set("k", "new");
  tr.set("n", "new");
  tr.setOption(TransactionOption::kSnapshotRywDisable);
  EXPECT_EQ(tr.snapshot().get("k").get(), "old");
  EXPECT_EQ(tr.snapshot().get("n").get(), std::nullopt);
  EXPECT_EQ(tr.snapshot().getRange(KeyRange{"a", "z"}).get().rows,
            (std::vector<KeyValue>{{"k", "old"}}));
  EXPECT_EQ(tr.get("k").get(), "new");  // serializable reads still see them
  EXPECT_EQ(tr.get("n").get(), "new");
  tr.setOption(TransactionOption::kSnapshotRywEnable);
  EXPECT_EQ(tr.snapshot().get("k").get(), "new");
  EXPECT_EQ(tr.snapshot().get("n").get(), "new");
}

TEST_P(OptionsTest, SnapshotRywIsACounter) {
  write("k", "old");
  {
    Transaction tr = db().createTransaction();
    tr.set("k", "new");
    tr.setOption(TransactionOption::kSnapshotRywDisable);  // 0
    tr.setOption(TransactionOption::kSnapshotRywDisable);  // -1
    tr.setOption(TransactionOption::kSnapshotRywEnable);   // 0: still disabled
    EXPECT_EQ(tr.snapshot().get("k").get(), "old");
    tr.setOption(TransactionOption::kSnapshotRywEnable);  // 1
    EXPECT_EQ(tr.snapshot().get("k").get(), "new");
  }
  {
    Transaction tr = db().createTransaction();
    tr.set("k", "new");
    tr.setOption(TransactionOption::kSnapshotRywEnable);   // 2
    tr.setOption(TransactionOption::kSnapshotRywDisable);  // 1: still enabled
    EXPECT_EQ(tr.snapshot().get("k").get(), "new");
  }
}

TEST_P(OptionsTest, DatabaseSnapshotRywDisableSetsTheStartingCounter) {
  write("k", "old");
  db().setOption(DatabaseOption::kSnapshotRywDisable);  // new transactions start at 0
  Transaction tr = db().createTransaction();
  tr.set("k", "new");
  EXPECT_EQ(tr.snapshot().get("k").get(), "old");
  EXPECT_EQ(tr.get("k").get(), "new");
  tr.setOption(TransactionOption::kSnapshotRywEnable);  // 1
  EXPECT_EQ(tr.snapshot().get("k").get(), "new");
}

// --- NEXT_WRITE_NO_WRITE_CONFLICT_RANGE (30) (docs/semantics.md, "Conflict ranges") --------------

TEST_P(OptionsTest, NextWriteNoWriteConflictRangeSuppressesTheNextWritesConflict) {
  write("k", "old");
  Transaction reader = db().createTransaction();
  EXPECT_EQ(reader.get("k").get(), "old");
  {
    Transaction writer = db().createTransaction();
    writer.setOption(TransactionOption::kNextWriteNoWriteConflictRange);
    writer.set("k", "new");
    writer.commit().get();
  }
  EXPECT_EQ(read("k"), "new");  // the write itself happened
  reader.set("x", "1");
  EXPECT_NO_THROW(reader.commit().get());
}

TEST_P(OptionsTest, NextWriteNoWriteConflictRangeAppliesOnlyToTheNextWrite) {
  write("k", "old");
  Transaction reader = db().createTransaction();
  EXPECT_EQ(reader.get("k").get(), "old");
  {
    Transaction writer = db().createTransaction();
    writer.setOption(TransactionOption::kNextWriteNoWriteConflictRange);
    writer.set("other", "1");  // consumes the option
    writer.set("k", "new");    // has its write conflict range
    writer.commit().get();
  }
  reader.set("x", "1");
  EXPECT_FDB_ERROR(1020, reader.commit().get());
}

TEST_P(OptionsTest, NextWriteNoWriteConflictRangeAppliesToAClear) {
  write("k", "old");
  Transaction reader = db().createTransaction();
  EXPECT_EQ(reader.get("k").get(), "old");
  {
    Transaction writer = db().createTransaction();
    writer.setOption(TransactionOption::kNextWriteNoWriteConflictRange);
    writer.clear("k");
    writer.commit().get();
  }
  EXPECT_EQ(read("k"), std::nullopt);
  reader.set("x", "1");
  EXPECT_NO_THROW(reader.commit().get());
}

// --- Options with no observable effect on an embedded engine (docs/semantics.md, "Options") ------

TEST_P(OptionsTest, NoOpOptionsAreAccepted) {
  Transaction tr = db().createTransaction();
  for (TransactionOption option : {
           TransactionOption::kCausalWriteRisky,
           TransactionOption::kCausalReadRisky,
           TransactionOption::kCausalReadDisable,
           TransactionOption::kIncludePortInAddress,
           TransactionOption::kCommitOnFirstProxy,
           TransactionOption::kCheckWritesEnable,
           TransactionOption::kReadAheadDisable,
           TransactionOption::kDurabilityDatacenter,
           TransactionOption::kDurabilityRisky,
           TransactionOption::kPrioritySystemImmediate,
           TransactionOption::kPriorityBatch,
           TransactionOption::kBypassStorageQuota,
           TransactionOption::kServerRequestTracing,
           TransactionOption::kReadServerSideCacheEnable,
           TransactionOption::kReadServerSideCacheDisable,
           TransactionOption::kReadPriorityNormal,
           TransactionOption::kReadPriorityLow,
           TransactionOption::kReadPriorityHigh,
           TransactionOption::kLockAware,
           TransactionOption::kReadLockAware,
           TransactionOption::kUseProvisionalProxies,
           TransactionOption::kReportConflictingKeys,
           TransactionOption::kExpensiveClearCostEstimationEnable,
           TransactionOption::kUseGrvCache,
       }) {
    SCOPED_TRACE(static_cast<int>(option));
    EXPECT_NO_THROW(tr.setOption(option));
  }
  tr.setOption(TransactionOption::kDebugTransactionIdentifier, std::string_view("conformance"));
  tr.setOption(TransactionOption::kLogTransaction);  // allowed once an identifier is set
  tr.setOption(TransactionOption::kTransactionLoggingMaxFieldLength, int64_t{1000});
  tr.setOption(TransactionOption::kTag, std::string_view("tag1"));
  tr.setOption(TransactionOption::kAutoThrottleTag, std::string_view("tag2"));
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(OptionsTest, CausalWriteRiskyCommitsNormally) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kCausalWriteRisky);
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_GT(tr.getCommittedVersion(), 0);
  EXPECT_EQ(read("k"), "v");
}

TEST_P(OptionsTest, DebugTransactionIdentifierNeedsOneToHundredBytes) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(
        2006, tr.setOption(TransactionOption::kDebugTransactionIdentifier, std::string_view());
        tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2006,
                     tr.setOption(TransactionOption::kDebugTransactionIdentifier, Bytes(101, 'i'));
                     tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kDebugTransactionIdentifier, Bytes(100, 'i'));
    EXPECT_NO_THROW(tr.get("k").get());
  }
}

TEST_P(OptionsTest, LogTransactionNeedsAnIdentifierFirst) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2000, tr.setOption(TransactionOption::kLogTransaction); tr.get("k").get());
}

TEST_P(OptionsTest, LoggingMaxFieldLengthZeroIsInvalid) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2006,
                     tr.setOption(TransactionOption::kTransactionLoggingMaxFieldLength, int64_t{0});
                     tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kTransactionLoggingMaxFieldLength, int64_t{-1});
    EXPECT_NO_THROW(tr.get("k").get());
  }
}

TEST_P(OptionsTest, TagsAreLimitedInLengthAndNumber) {
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kTag, Bytes(16, 't'));  // 16 is the maximum
    EXPECT_NO_THROW(tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2110, tr.setOption(TransactionOption::kTag, Bytes(17, 't'));
                     tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    for (int i = 0; i < 5; ++i) tr.setOption(TransactionOption::kTag, "tag" + std::to_string(i));
    EXPECT_NO_THROW(tr.get("k").get());
    EXPECT_FDB_ERROR(2109, tr.setOption(TransactionOption::kTag, std::string_view("tag5"));
                     tr.get("k").get());
  }
}

// --- Database options (docs/semantics.md, "Options") ---------------------------------------------

TEST_P(OptionsTest, DatabaseOptionsOfThePythonUnitTestAreAccepted) {
  // bindings/python/tests/unit_tests.py test_db_options, in its order.
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kLocationCacheSize, int64_t{100001}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kMaxWatches, int64_t{100001}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kDatacenterId, std::string_view("dc_id")));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kMachineId, std::string_view("machine_id")));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kSnapshotRywEnable));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kSnapshotRywDisable));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionLoggingMaxFieldLength, int64_t{1000}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionTimeout, int64_t{100000}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionTimeout, int64_t{0}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionTimeout, int64_t{0}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionMaxRetryDelay, int64_t{100}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionSizeLimit, int64_t{100000}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionRetryLimit, int64_t{10}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionRetryLimit, int64_t{-1}));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionCausalReadRisky));
  EXPECT_NO_THROW(db().setOption(DatabaseOption::kTransactionIncludePortInAddress));
  // Transactions still work afterwards (no deferred error in the database).
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
  // The snapshot-RYW counter is back at 1 (+1 -1).
  Transaction check = db().createTransaction();
  check.set("k", "mine");
  EXPECT_EQ(check.snapshot().get("k").get(), "mine");
}

TEST_P(OptionsTest, DatabaseRetryLimitIsTheDefaultOfNewTransactions) {
  db().setOption(DatabaseOption::kTransactionRetryLimit, int64_t{1});
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  EXPECT_FDB_ERROR(1020, tr.onError(Error(1020)).get());  // still limited after a retry
  tr.reset();  // default re-applied, retry count back to 0
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  EXPECT_FDB_ERROR(1020, tr.onError(Error(1020)).get());
}

TEST_P(OptionsTest, TransactionRetryLimitOverridesTheDatabaseDefault) {
  db().setOption(DatabaseOption::kTransactionRetryLimit, int64_t{0});
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kRetryLimit, int64_t{-1});
  for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(tr.onError(Error(1020)).get());
}

TEST_P(OptionsTest, DatabaseSizeLimitAppliesToNewResetAndRetriedTransactions) {
  db().setOption(DatabaseOption::kTransactionSizeLimit, int64_t{100});
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2101, commitValueOf(tr, 2000));
  }
  {
    Transaction tr = db().createTransaction();
    tr.reset();
    EXPECT_FDB_ERROR(2101, commitValueOf(tr, 2000));
  }
  {
    // A transaction-level size limit is cleared by onError; the database default is re-applied.
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSizeLimit, int64_t{10'000'000});
    tr.onError(Error(1020)).get();
    EXPECT_FDB_ERROR(2101, commitValueOf(tr, 2000));
  }
  EXPECT_EQ(read("big"), std::nullopt);
}

TEST_P(OptionsTest, DatabaseDefaultsDoNotChangeExistingTransactionsUntilReset) {
  Transaction tr = db().createTransaction();
  db().setOption(DatabaseOption::kTransactionSizeLimit, int64_t{100});
  tr.set("big", Bytes(2000, 'v'));
  EXPECT_NO_THROW(tr.commit().get());
  tr.reset();
  EXPECT_FDB_ERROR(2101, commitValueOf(tr, 3000));
  EXPECT_EQ(read("big"), Bytes(2000, 'v'));
}

TEST_P(OptionsTest, DatabaseTimeoutIsTheDefaultOfNewAndResetTransactions) {
  db().setOption(DatabaseOption::kTransactionTimeout, int64_t{1});
  Transaction tr = db().createTransaction();
  sleepMs(20);
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
  tr.reset();  // the default comes back with a restarted clock
  sleepMs(20);
  EXPECT_FDB_ERROR(1031, tr.get("k").get());
  db().setOption(DatabaseOption::kTransactionTimeout, int64_t{0});
  tr.reset();
  sleepMs(20);
  EXPECT_NO_THROW(tr.get("k").get());
}

TEST_P(OptionsTest, DatabaseTimeoutCanBeOverriddenByTheTransaction) {
  db().setOption(DatabaseOption::kTransactionTimeout, int64_t{500});
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kTimeout, int64_t{0});  // long before the 500 ms are up
  sleepMs(600);
  EXPECT_NO_THROW(tr.get("k").get());
}

RL_CONFORMANCE_INSTANTIATE(OptionsTest);

}  // namespace
}  // namespace conformance
