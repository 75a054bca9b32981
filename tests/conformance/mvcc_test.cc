// Versions and the MVCC window (docs/semantics.md, "Versions", "Commits"): commit versions strictly
// increase; a read version covers every acknowledged commit; a read at version v sees exactly
// the commits <= v; setReadVersion's errors (2011, 2010) are deferred; reads below the 5,000,000
// version window fail with 1007 and reads from the future with 1009.

#include "conformance/backends.h"

#include <chrono>
#include <cstdint>
#include <thread>

namespace conformance {
namespace {

using fdb::KeyRange;
using fdb::KeyValue;
using fdb::Transaction;

constexpr int64_t kWindow = 5'000'000;  // MAX_READ_TRANSACTION_LIFE_VERSIONS

class MvccTest : public ConformanceTest {
 protected:
  int64_t currentReadVersion() {
    Transaction tr = db().createTransaction();
    return tr.getReadVersion().get();
  }

  // Sets `key` to `value` in a transaction of its own; returns the commit version.
  int64_t commitAt(std::string_view key, std::string_view value) {
    Transaction tr = db().createTransaction();
    tr.set(key, value);
    tr.commit().get();
    return tr.getCommittedVersion();
  }

  // A positive version older than the MVCC window (current - 6,000,000). Versions advance about
  // 1,000,000 a second (docs/semantics.md, "Versions"), so on a database younger than that this
  // waits for the versions to get there; it never asserts anything about time.
  int64_t versionOlderThanWindow() {
    int64_t current = currentReadVersion();
    for (int attempt = 0; current <= kWindow + 1'000'001 && attempt < 300; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      current = currentReadVersion();
    }
    EXPECT_GT(current, kWindow + 1'000'001) << "read versions do not advance with time";
    return current - kWindow - 1'000'000;
  }
};

TEST_P(MvccTest, CommittedVersionsStrictlyIncrease) {
  int64_t previous = 0;
  for (int i = 0; i < 20; ++i) {
    int64_t version = commitAt("k", std::to_string(i));
    EXPECT_GT(version, previous);
    previous = version;
  }
}

TEST_P(MvccTest, ReadVersionCoversEveryAcknowledgedCommit) {
  for (int i = 0; i < 10; ++i) {
    int64_t committed = commitAt("k" + std::to_string(i), "v");
    Transaction tr = db().createTransaction();
    EXPECT_GE(tr.getReadVersion().get(), committed);
    EXPECT_EQ(tr.get("k" + std::to_string(i)).get(), "v");
  }
}

// A read version is the newest committed version (docs/semantics.md, "Versions"): it moves when
// a commit batch goes through, not with time alone. An idle database still commits an empty
// batch every 2 s, so two read versions taken back to back are equal unless one of those fell
// between them.
TEST_P(MvccTest, ReadVersionsDoNotAdvanceWithoutACommit) {
  commitAt("k", "v");
  int equalPairs = 0;
  for (int i = 0; i < 20; ++i) {
    int64_t first = currentReadVersion();
    int64_t second = currentReadVersion();
    EXPECT_GE(second, first);
    if (second == first) ++equalPairs;
  }
  EXPECT_GE(equalPairs, 18) << "read versions advanced without commits";
}

TEST_P(MvccTest, ReadVersionAfterACommitIsItsVersion) {
  int64_t before = currentReadVersion();
  int64_t committed = commitAt("k", "v");
  EXPECT_GT(committed, before);
  EXPECT_EQ(currentReadVersion(), committed);
}

TEST_P(MvccTest, ReadVersionIsFixedForTheTransaction) {
  Transaction tr = db().createTransaction();
  int64_t version = tr.getReadVersion().get();
  commitAt("k", "v");
  EXPECT_EQ(tr.getReadVersion().get(), version);
  EXPECT_EQ(tr.get("k").get(), std::nullopt);
  EXPECT_EQ(tr.getReadVersion().get(), version);
}

TEST_P(MvccTest, ReadAtVersionSeesExactlyTheCommitsUpToIt) {
  int64_t c1 = commitAt("k", "first");
  int64_t c2 = commitAt("other", "second");
  ASSERT_GT(c2, c1);
  commitAt("k", "third");
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(c1);
    EXPECT_EQ(tr.getReadVersion().get(), c1);
    EXPECT_EQ(tr.get("k").get(), "first");
    EXPECT_EQ(tr.get("other").get(), std::nullopt);
    EXPECT_EQ(tr.getRange(KeyRange{"", "\xff"}).get().rows,
              (std::vector<KeyValue>{{"k", "first"}}));
  }
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(c2 - 1);
    EXPECT_EQ(tr.get("other").get(), std::nullopt);
    EXPECT_EQ(tr.get("k").get(), "first");
  }
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(c2);
    EXPECT_EQ(tr.get("other").get(), "second");
    EXPECT_EQ(tr.get("k").get(), "first");
  }
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(c1 - 1);
    EXPECT_EQ(tr.get("k").get(), std::nullopt);
  }
  EXPECT_EQ(read("k"), "third");
}

TEST_P(MvccTest, ConflictNeedsAWriteCommittedStrictlyAfterTheReadVersion) {
  int64_t c1 = commitAt("k", "v");
  {
    // The write of k is at c1 == the read version: not after it, no conflict.
    Transaction tr = db().createTransaction();
    tr.setReadVersion(c1);
    EXPECT_EQ(tr.get("k").get(), "v");
    tr.set("x", "1");
    EXPECT_NO_THROW(tr.commit().get());
  }
  {
    // Read version c1 - 1: the write at c1 is after it.
    Transaction tr = db().createTransaction();
    tr.setReadVersion(c1 - 1);
    EXPECT_EQ(tr.get("k").get(), std::nullopt);
    tr.set("x", "2");
    EXPECT_FDB_ERROR(1020, tr.commit().get());
  }
  EXPECT_EQ(read("x"), "1");
}

TEST_P(MvccTest, SetReadVersionZeroOrNegativeIsInvalid) {
  for (int64_t version : {int64_t{0}, int64_t{-1}, INT64_MIN}) {
    SCOPED_TRACE(version);
    {
      Transaction tr = db().createTransaction();
      EXPECT_NO_THROW(tr.setReadVersion(version));  // deferred
      EXPECT_FDB_ERROR(2011, tr.get("k").get());
    }
    {
      Transaction tr = db().createTransaction();
      tr.setReadVersion(version);
      tr.set("k", "v");
      EXPECT_FDB_ERROR(2011, tr.commit().get());
    }
    {
      Transaction tr = db().createTransaction();
      tr.setReadVersion(version);
      EXPECT_FDB_ERROR(2011, tr.getReadVersion().get());
    }
  }
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(MvccTest, SetReadVersionTwiceFails) {
  int64_t version = commitAt("k", "v");
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(version);
    EXPECT_NO_THROW(tr.setReadVersion(version));  // deferred
    EXPECT_FDB_ERROR(2010, tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.getReadVersion().get();
    tr.setReadVersion(version);
    EXPECT_FDB_ERROR(2010, tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.get("k").get();
    tr.setReadVersion(version);
    tr.set("k", "w");
    EXPECT_FDB_ERROR(2010, tr.commit().get());
  }
  EXPECT_EQ(read("k"), "v");
}

TEST_P(MvccTest, ResetAllowsANewReadVersion) {
  int64_t c1 = commitAt("k", "1");
  int64_t c2 = commitAt("k", "2");
  Transaction tr = db().createTransaction();
  tr.setReadVersion(c1);
  EXPECT_EQ(tr.get("k").get(), "1");
  tr.reset();
  tr.setReadVersion(c2);
  EXPECT_EQ(tr.get("k").get(), "2");
}

TEST_P(MvccTest, ReadBelowTheWindowIsTooOld) {
  int64_t old = versionOlderThanWindow();
  commitAt("k", "v");
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(old);
    EXPECT_FDB_ERROR(1007, tr.get("k").get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(old);
    EXPECT_FDB_ERROR(1007, tr.getRange(KeyRange{"", "\xff"}).get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.setReadVersion(old);
    EXPECT_FDB_ERROR(1007, tr.snapshot().get("k").get());
  }
}

TEST_P(MvccTest, BlindWriteWithReadVersionBelowTheWindowIsTooOld) {
  // The client adds a self-conflict key to the read set (docs/semantics.md, "Commits" step 4), so
  // even a transaction without reads has a read conflict range and its commit is too old.
  int64_t old = versionOlderThanWindow();
  Transaction tr = db().createTransaction();
  tr.setReadVersion(old);
  tr.set("k", "v");
  EXPECT_FDB_ERROR(1007, tr.commit().get());
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(MvccTest, OwnWritesAreReadableAtAnOldReadVersion) {
  int64_t old = versionOlderThanWindow();
  Transaction tr = db().createTransaction();
  tr.setReadVersion(old);
  tr.set("k", "mine");
  EXPECT_EQ(tr.get("k").get(), "mine");  // answered without the database
}

TEST_P(MvccTest, ReadFromTheFutureFails) {
  Transaction tr = db().createTransaction();
  tr.setReadVersion(int64_t{1} << 62);
  EXPECT_FDB_ERROR(1009, tr.get("k").get());
}

RL_CONFORMANCE_INSTANTIATE(MvccTest);

}  // namespace
}  // namespace conformance
