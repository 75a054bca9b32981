// RecordContext: local versions, the version-mutation cache applied at commit, commit hooks,
// the committed versionstamp and the record-level retry loop.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "rl/context/record_context.h"
#include "rl/record/record_version.h"
#include "rl/record_core_exception.h"
#include "test_database.h"

namespace {

using fdb::Bytes;
using fdb::fromHex;
using rl::RecordContext;
using rl::RecordVersion;

std::optional<Bytes> readKey(fdb::Database& db, const Bytes& key) {
  return db.run([&](fdb::Transaction& tr) { return tr.get(key).get(); });
}

Bytes bigEndian64(int64_t v) {
  Bytes out;
  for (int i = 7; i >= 0; --i)
    out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  return out;
}

TEST(RecordContext, ClaimsLocalVersionsInOrder) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  EXPECT_EQ(context.claimLocalVersion(), 0);
  EXPECT_EQ(context.claimLocalVersion(), 1);
  EXPECT_EQ(context.claimLocalVersion(), 2);
}

TEST(RecordContext, VersionMutationsAreWrittenAtCommit) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  const uint16_t local = context.claimLocalVersion();
  context.claimLocalVersion();
  const uint16_t second = context.claimLocalVersion();
  ASSERT_EQ(second, 2);
  context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, "v",
                             RecordVersion::incomplete(second).toInlineValue());
  context.addToLocalVersionCache("v", second);
  EXPECT_EQ(context.versionMutationCount(), 1u);
  EXPECT_EQ(context.localVersion("v"), std::optional<uint16_t>(2));
  // Held back: nothing in the transaction yet.
  EXPECT_FALSE(context.transaction().get("v").get().has_value());
  context.commit();
  ASSERT_TRUE(context.isCommitted());
  const std::optional<Bytes> stamp = context.committedVersionstamp();
  ASSERT_TRUE(stamp.has_value());
  ASSERT_EQ(stamp->size(), 10u);
  EXPECT_EQ(stamp->substr(0, 8), bigEndian64(context.committedVersion()));
  // 0x33, the commit's versionstamp, then the local version 2 big-endian.
  EXPECT_EQ(readKey(db, "v"), fromHex("33") + *stamp + fromHex("0002"));
  EXPECT_EQ(RecordVersion::fromInlineValue(*readKey(db, "v")),
            RecordVersion::incomplete(local + 2).withCommittedVersion(*stamp));
}

TEST(RecordContext, ALaterMutationOfTheSameKeyReplacesTheFirst) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, "v",
                             RecordVersion::incomplete(0).toOldFormatValue());
  context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, "v",
                             RecordVersion::incomplete(5).toOldFormatValue());
  EXPECT_EQ(context.versionMutationCount(), 1u);
  context.commit();
  EXPECT_EQ(readKey(db, "v"), *context.committedVersionstamp() + fromHex("0005"));
}

TEST(RecordContext, RemovedAndClearedMutationsAreNotWritten) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  const Bytes param = RecordVersion::incomplete(0).toOldFormatValue();
  for (const char* key : {"a", "b1", "b2", "c"}) {
    context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, key, param);
    context.addToLocalVersionCache(key, 0);
  }
  EXPECT_TRUE(context.removeVersionMutation("a"));
  EXPECT_FALSE(context.removeVersionMutation("a"));
  context.clearRange("b", "c");  // b1, b2
  EXPECT_FALSE(context.localVersion("b1").has_value());
  EXPECT_TRUE(context.localVersion("c").has_value());
  context.transaction().set("other", "x");
  context.commit();
  EXPECT_FALSE(readKey(db, "a").has_value());
  EXPECT_FALSE(readKey(db, "b1").has_value());
  EXPECT_FALSE(readKey(db, "b2").has_value());
  EXPECT_TRUE(readKey(db, "c").has_value());
}

TEST(RecordContext, OnlyVersionstampedMutationsAreHeldBack) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  EXPECT_THROW(context.addVersionMutation(fdb::MutationType::kAdd, "k", "x"),
               rl::RecordCoreArgumentException);
}

TEST(RecordContext, CommitHooksRunInOrderBeforeTheCommit) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  std::vector<std::string> ran;
  context.addCommitHook("first", [&](RecordContext& c) {
    ran.push_back("first");
    c.transaction().set("hooked", "yes");
  });
  context.addCommitHook([&](RecordContext&) { ran.push_back("anonymous"); });
  EXPECT_TRUE(context.hasCommitHook("first"));
  EXPECT_THROW(context.addCommitHook("first", [](RecordContext&) {}),
               rl::RecordCoreArgumentException);
  EXPECT_TRUE(ran.empty());
  context.commit();
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "anonymous"}));
  EXPECT_EQ(readKey(db, "hooked"), Bytes("yes"));
}

TEST(RecordContext, AHookThatThrowsFailsTheCommit) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  context.transaction().set("k", "v");
  context.addCommitHook(
      "unique", [](RecordContext&) { throw rl::RecordCoreException("uniqueness violated"); });
  EXPECT_THROW(context.commit(), rl::RecordCoreException);
  EXPECT_FALSE(context.isCommitted());
  EXPECT_FALSE(readKey(db, "k").has_value());
}

TEST(RecordContext, ReadOnlyCommitHasNoVersionstamp) {
  fdb::Database db = rl::tests::openTestDatabase();
  RecordContext context(db);
  EXPECT_THROW(context.committedVersionstamp(), rl::RecordCoreException);
  context.transaction().get("nothing").get();
  context.commit();
  EXPECT_FALSE(context.committedVersionstamp().has_value());
  EXPECT_EQ(context.committedVersion(), -1);
  EXPECT_THROW(context.transaction(), rl::RecordCoreException);
}

TEST(RecordContext, RunInContextRetriesAConflictWithAFreshState) {
  fdb::Database db = rl::tests::openTestDatabase();
  db.run([](fdb::Transaction& tr) { tr.set("x", "0"); });
  int attempts = 0;
  std::vector<uint16_t> firstLocalVersions;
  std::vector<size_t> pendingAtStart;
  const Bytes result = rl::runInContext(db, [&](RecordContext& context) {
    ++attempts;
    pendingAtStart.push_back(context.versionMutationCount());
    firstLocalVersions.push_back(context.claimLocalVersion());
    context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, "stamp",
                               RecordVersion::incomplete(0).toOldFormatValue());
    Bytes seen = *context.transaction().get("x").get();
    if (attempts == 1) {
      // Another writer commits between our read and our commit: not_committed, retried.
      db.run([](fdb::Transaction& tr) { tr.set("x", "1"); });
    }
    context.transaction().set("y", seen);
    return seen;
  });
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(result, "1");
  EXPECT_EQ(firstLocalVersions, (std::vector<uint16_t>{0, 0}));
  EXPECT_EQ(pendingAtStart, (std::vector<size_t>{0, 0}));
  EXPECT_EQ(readKey(db, "y"), Bytes("1"));
  EXPECT_TRUE(readKey(db, "stamp").has_value());
}

TEST(RecordContext, RunInContextRethrowsWhatIsNotRetryable) {
  fdb::Database db = rl::tests::openTestDatabase();
  int attempts = 0;
  EXPECT_THROW(rl::runInContext(db,
                                [&](RecordContext&) {
                                  ++attempts;
                                  throw fdb::Error(fdb::errors::kClientInvalidOperation);
                                }),
               fdb::Error);
  EXPECT_EQ(attempts, 1);
  attempts = 0;
  EXPECT_THROW(rl::runInContext(db,
                                [&](RecordContext&) {
                                  ++attempts;
                                  throw rl::RecordCoreException("not an fdb error");
                                }),
               rl::RecordCoreException);
  EXPECT_EQ(attempts, 1);
}

}  // namespace
