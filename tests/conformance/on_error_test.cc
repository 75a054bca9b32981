// onError and the retry loop (docs/semantics.md: "onError", "Transactions", "Errors"): onError
// retries exactly the retryable codes — it completes and resets the transaction for another attempt
// — and returns every other code, leaving the transaction cancelled (1025) until reset().

#include "conformance/backends.h"

#include <stdexcept>
#include <string>

namespace conformance {
namespace {

using fdb::Error;
using fdb::KeyRange;
using fdb::Transaction;

// Codes onError retries after a backoff (docs/semantics.md, "onError" step 3): the RETRYABLE
// predicate's codes except 1039, plus 1079 blob_granule_request_failed.
constexpr int kRetriedCodes[] = {1020, 1021, 1038, 1042, 1078, 1037,
                                 1051, 1213, 1079, 1223, 1007, 1009};

// Codes onError returns (a sample of docs/semantics.md's "anything else" in "onError" and of the
// codes no predicate of "Errors" includes).
constexpr int kNotRetriedCodes[] = {1000, 1004, 1025, 1031, 1036, 1101, 2000, 2004,
                                    2005, 2017, 2101, 2102, 2103, 2210, 4000};

class OnErrorTest : public ConformanceTest {
 protected:
  // The transaction fails every kind of operation with transaction_cancelled (1025).
  void expectCancelled(Transaction& tr) {
    EXPECT_FDB_ERROR(1025, tr.get("k").get());
    EXPECT_FDB_ERROR(1025, tr.getReadVersion().get());
    EXPECT_FDB_ERROR(1025, tr.getRange(KeyRange{"a", "z"}).get());
    EXPECT_FDB_ERROR(1025, tr.commit().get());
    EXPECT_FDB_ERROR(1025, tr.onError(Error(1020)).get());
  }
};

TEST_P(OnErrorTest, RetryableCodesCompleteAndResetTheTransaction) {
  for (int code : kRetriedCodes) {
    SCOPED_TRACE(code);
    std::string key = "k" + std::to_string(code);
    Transaction tr = db().createTransaction();
    tr.set(key, "v");
    EXPECT_NO_THROW(tr.onError(Error(code)).get());
    EXPECT_EQ(tr.get(key).get(), std::nullopt);  // the write is gone
    tr.set("after", "1");
    EXPECT_NO_THROW(tr.commit().get());
    EXPECT_EQ(read(key), std::nullopt);
    EXPECT_EQ(read("after"), "1");
  }
}

TEST_P(OnErrorTest, ClusterVersionChangedCompletes) {
  // 1039 is retried immediately (docs/semantics.md, "onError"); whether it resets the transaction
  // is not stated.
  Transaction tr = db().createTransaction();
  EXPECT_NO_THROW(tr.onError(Error(1039)).get());
}

TEST_P(OnErrorTest, RetryGetsANewReadVersion) {
  Transaction tr = db().createTransaction();
  int64_t first = tr.getReadVersion().get();
  Transaction other = db().createTransaction();
  other.set("k", "v");
  other.commit().get();
  int64_t committed = other.getCommittedVersion();
  ASSERT_GT(committed, first);
  tr.onError(Error(1020)).get();
  EXPECT_GE(tr.getReadVersion().get(), committed);
  EXPECT_EQ(tr.get("k").get(), "v");
}

TEST_P(OnErrorTest, RetryAfterConflictCanCommit) {
  Transaction tr = db().createTransaction();
  tr.get("k").get();
  Transaction other = db().createTransaction();
  other.set("k", "theirs");
  other.commit().get();
  tr.set("k", "mine");
  try {
    tr.commit().get();
    FAIL() << "expected not_committed";
  } catch (const Error& e) {
    ASSERT_EQ(e.code(), 1020);
    EXPECT_NO_THROW(tr.onError(e).get());
  }
  EXPECT_EQ(tr.get("k").get(), "theirs");
  tr.set("k", "mine");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "mine");
}

TEST_P(OnErrorTest, SuccessfulRetryClearsTheDeferredError) {
  Transaction tr = db().createTransaction();
  tr.set("\xff", "x");  // deferred key_outside_legal_range
  EXPECT_NO_THROW(tr.onError(Error(1020)).get());
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(OnErrorTest, OtherCodesAreReturnedAndCancelTheTransaction) {
  for (int code : kNotRetriedCodes) {
    SCOPED_TRACE(code);
    Transaction tr = db().createTransaction();
    tr.set("k", "v");
    EXPECT_FDB_ERROR(code, tr.onError(Error(code)).get());
    expectCancelled(tr);
    tr.reset();
    EXPECT_EQ(tr.get("k").get(), std::nullopt);
    tr.set("k2", "v");
    EXPECT_NO_THROW(tr.commit().get());
  }
  EXPECT_EQ(read("k"), std::nullopt);
  EXPECT_EQ(read("k2"), "v");
}

TEST_P(OnErrorTest, SuccessCodeIsAnInvalidOperation) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2000, tr.onError(Error(0)).get());
}

TEST_P(OnErrorTest, CodesOutsideTheErrorRangeBecomeUnknownError) {
  for (int code : {30001, 1'000'000, -1, -1020}) {
    SCOPED_TRACE(code);
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(4000, tr.onError(Error(code)).get());
  }
}

TEST_P(OnErrorTest, CancelledTransactionReturnsCancelled) {
  Transaction tr = db().createTransaction();
  tr.cancel();
  EXPECT_FDB_ERROR(1025, tr.onError(Error(1020)).get());
  EXPECT_FDB_ERROR(1025, tr.get("k").get());
}

TEST_P(OnErrorTest, UseAfterCommitSticksThroughOnError) {
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  tr.commit().get();
  EXPECT_FDB_ERROR(2017, tr.get("k").get());
  EXPECT_FDB_ERROR(2017, tr.onError(Error(1020)).get());
  EXPECT_FDB_ERROR(2017, tr.get("k").get());
  tr.reset();
  EXPECT_EQ(tr.get("k").get(), "v");
}

TEST_P(OnErrorTest, RunRetriesAConflictAndReturnsTheValue) {
  write("k", "1");
  int attempts = 0;
  std::string result = db().run([&](Transaction& tr) -> std::string {
    ++attempts;
    std::optional<fdb::Bytes> value = tr.get("k").get();
    if (attempts == 1) {
      Transaction other = db().createTransaction();  // conflicts with this attempt's read
      other.set("k", "2");
      other.commit().get();
    }
    tr.set("seen", *value);
    return *value;
  });
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(result, "2");
  EXPECT_EQ(read("seen"), "2");
}

TEST_P(OnErrorTest, RunRetriesRetryableErrorsThrownByTheBody) {
  int attempts = 0;
  int result = db().run([&](Transaction& tr) {
    ++attempts;
    tr.set("k", std::to_string(attempts));
    if (attempts == 1) throw Error(1021);
    if (attempts == 2) throw Error(1007);
    return attempts;
  });
  EXPECT_EQ(result, 3);
  EXPECT_EQ(read("k"), "3");
}

TEST_P(OnErrorTest, RunThrowsTheFirstErrorItDoesNotRetry) {
  int attempts = 0;
  EXPECT_FDB_ERROR(2004, db().run([&](Transaction& tr) {
    if (++attempts > 1) throw std::logic_error("run retried a non-retryable error");
    tr.set("k", "v");
    tr.set("\xff/k", "v");
  }));
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(read("k"), std::nullopt);
}

RL_CONFORMANCE_INSTANTIATE(OnErrorTest);

}  // namespace
}  // namespace conformance
