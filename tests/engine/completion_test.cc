// EngineTransaction's Completion overloads (the C library's path): exactly one of value(),
// error(), later() or deferred() is called, at once when nothing holds the outcome back, with
// what the Future overload of the same operation returns; under simulated delay, later() with
// a future that completes once the round trips are over; for a commit that waits to be sent,
// deferred() with a lazy future that sends it when asked.
#include <gtest/gtest.h>

#include <optional>
#include <variant>

#include "engine/test_support.h"

#include "engine/engine_transaction.h"
#include "engine/memory_database.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

// Records the one call an operation makes.
template <typename T>
class Recorder final : public EngineTransaction::Completion<T> {
 public:
  using Value = typename EngineTransaction::Completion<T>::Value;

  void value(Value&& value) override { record(std::move(value)); }
  void error(const Error& error) override { record(error.code()); }
  void later(Future<T> future) override { record(std::move(future)); }
  void deferred(Future<T> future) override {
    lazy = true;
    record(std::move(future));
  }

  int calls = 0;
  bool lazy = false;  // the future came through deferred()
  // Nothing yet, the value, the error's code, or the pending future.
  std::variant<std::monostate, Value, int, Future<T>> outcome;

 private:
  template <typename Outcome>
  void record(Outcome&& got) {
    ++calls;
    outcome = std::forward<Outcome>(got);
  }
};

class Completion : public ::testing::Test {
 protected:
  Completion() {
    EngineTransaction seed(db->engine(), db->settings());
    seed.set("a", "1");
    seed.set("b", "2");
    seed.set("c", "3");
    seed.commit().get();
  }
  EngineTransaction transaction() { return EngineTransaction(db->engine(), db->settings()); }

  std::shared_ptr<MemoryDatabase> db = openMemoryDatabase("");
};

TEST_F(Completion, AReadVersionIsGivenAtOnce) {
  EngineTransaction tr = transaction();
  Recorder<int64_t> done;
  tr.getReadVersion(done);
  EXPECT_EQ(done.calls, 1);
  ASSERT_TRUE(std::holds_alternative<int64_t>(done.outcome));
  EXPECT_EQ(std::get<int64_t>(done.outcome), tr.getReadVersion().get());
}

TEST_F(Completion, AGetGivesTheValueOrAbsentAndReadsItsOwnWrites) {
  EngineTransaction tr = transaction();
  Recorder<std::optional<Bytes>> present, absent, own;
  tr.get("b", false, present);
  tr.get("zz", true, absent);
  tr.set("new", "mine");
  tr.get("new", false, own);
  for (auto* done : {&present, &absent, &own}) {
    EXPECT_EQ(done->calls, 1);
    ASSERT_TRUE(std::holds_alternative<std::optional<Bytes>>(done->outcome));
  }
  EXPECT_EQ(std::get<std::optional<Bytes>>(present.outcome), std::optional<Bytes>("2"));
  EXPECT_EQ(std::get<std::optional<Bytes>>(absent.outcome), std::nullopt);
  EXPECT_EQ(std::get<std::optional<Bytes>>(own.outcome), std::optional<Bytes>("mine"));
}

TEST_F(Completion, ASerializableGetAddsItsReadConflictASnapshotGetDoesNot) {
  EngineTransaction serializable = transaction(), snapshot = transaction();
  Recorder<std::optional<Bytes>> first, second;
  serializable.get("a", false, first);
  snapshot.get("a", true, second);
  serializable.set("x", "1");
  snapshot.set("y", "1");
  EngineTransaction writer = transaction();
  writer.set("a", "changed");
  writer.commit().get();
  EXPECT_EQ(test_support::errorCode([&] { serializable.commit().get(); }), 1020);
  EXPECT_NO_THROW(snapshot.commit().get());
}

TEST_F(Completion, ErrorsAreGivenAsCodes) {
  EngineTransaction tr = transaction();
  Recorder<std::optional<Bytes>> system;
  tr.get("\xff/x", false, system);  // the system space without access
  EXPECT_EQ(system.calls, 1);
  ASSERT_TRUE(std::holds_alternative<int>(system.outcome));
  EXPECT_EQ(std::get<int>(system.outcome), errors::kKeyOutsideLegalRange);

  tr.cancel();
  Recorder<int64_t> version;
  tr.getReadVersion(version);
  ASSERT_TRUE(std::holds_alternative<int>(version.outcome));
  EXPECT_EQ(std::get<int>(version.outcome), errors::kTransactionCancelled);
  Recorder<void> commit;
  tr.commit(commit);
  EXPECT_EQ(commit.calls, 1);
  ASSERT_TRUE(std::holds_alternative<int>(commit.outcome));
  EXPECT_EQ(std::get<int>(commit.outcome), errors::kTransactionCancelled);
}

TEST_F(Completion, ARangeGivesItsRowsAndWhetherThereAreMore) {
  EngineTransaction tr = transaction();
  RangeOptions options;
  options.limit = 2;
  Recorder<RangeResult> done;
  tr.getRange(KeySelectorRef::firstGreaterOrEqual("a"), KeySelectorRef::firstGreaterOrEqual("z"),
              options, false, done);
  EXPECT_EQ(done.calls, 1);
  ASSERT_TRUE(std::holds_alternative<RangeResult>(done.outcome));
  const RangeResult& rows = std::get<RangeResult>(done.outcome);
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.rows[0].key, "a");
  EXPECT_EQ(rows.rows[1].value, "2");
  EXPECT_TRUE(rows.more);

  Recorder<RangeResult> negative;  // a negative limit: range_limits_invalid (docs/semantics.md)
  options.limit = -1;
  tr.getRange(KeySelectorRef::firstGreaterOrEqual("a"), KeySelectorRef::firstGreaterOrEqual("z"),
              options, false, negative);
  EXPECT_EQ(negative.calls, 1);
  ASSERT_TRUE(std::holds_alternative<int>(negative.outcome));
  EXPECT_EQ(std::get<int>(negative.outcome), errors::kRangeLimitsInvalid);
}

TEST_F(Completion, ACommitWithItsReadVersionIsGivenAtOnceAndItsWritesLand) {
  EngineTransaction tr = transaction();
  tr.getReadVersion().get();
  tr.set("d", "4");
  Recorder<void> done;
  tr.commit(done);
  EXPECT_EQ(done.calls, 1);
  EXPECT_TRUE(std::holds_alternative<detail::Done>(done.outcome));
  EXPECT_GT(tr.getCommittedVersion(), 0);
  EXPECT_EQ(transaction().get("d", false).get(), std::optional<Bytes>("4"));

  Recorder<void> readOnly;
  EngineTransaction reader = transaction();
  reader.get("a", false).get();
  reader.commit(readOnly);
  EXPECT_TRUE(std::holds_alternative<detail::Done>(readOnly.outcome));
}

// docs/semantics.md, "When a commit is sent".
TEST_F(Completion, ACommitWithoutAReadVersionIsSentWhenItsOutcomeIsAskedFor) {
  EngineTransaction tr = transaction();
  tr.set("d", "4");
  Recorder<void> done;
  tr.commit(done);
  EXPECT_EQ(done.calls, 1);
  EXPECT_TRUE(done.lazy);
  ASSERT_TRUE(std::holds_alternative<Future<void>>(done.outcome));
  EXPECT_EQ(transaction().get("d", false).get(), std::nullopt);  // not sent yet
  EXPECT_EQ(tr.getCommittedVersion(), -1);
  EXPECT_TRUE(std::get<Future<void>>(done.outcome).isReady());  // asking sent it
  EXPECT_GT(tr.getCommittedVersion(), 0);
  EXPECT_EQ(transaction().get("d", false).get(), std::optional<Bytes>("4"));
}

TEST(CompletionUnderDelay, TheOutcomeComesLaterThroughAFuture) {
  auto clock = std::make_shared<ManualVersionClock>();
  EngineOptions options;
  options.oneWayDelayMicros = 500;  // a round trip: 1000 us
  MemoryDatabase db(std::make_shared<Engine>(clock, options));
  EngineTransaction tr(db.engine(), db.settings());
  tr.set("k", "v");

  // Its own write is known without a round trip: given at once.
  Recorder<std::optional<Bytes>> own;
  tr.get("k", false, own);
  ASSERT_TRUE(std::holds_alternative<std::optional<Bytes>>(own.outcome));
  EXPECT_EQ(std::get<std::optional<Bytes>>(own.outcome), std::optional<Bytes>("v"));

  // Another key goes to the database: two round trips (read version, then the read).
  Recorder<std::optional<Bytes>> read;
  tr.get("other", false, read);
  EXPECT_EQ(read.calls, 1);
  ASSERT_TRUE(std::holds_alternative<Future<std::optional<Bytes>>>(read.outcome));
  Future<std::optional<Bytes>> value = std::get<Future<std::optional<Bytes>>>(read.outcome);
  EXPECT_FALSE(value.isReady());
  clock->advanceMicros(2000);
  EXPECT_EQ(value.get(), std::nullopt);  // completed by the timer thread

  Recorder<void> commit;
  tr.commit(commit);
  ASSERT_TRUE(std::holds_alternative<Future<void>>(commit.outcome));
  Future<void> committed = std::get<Future<void>>(commit.outcome);
  EXPECT_FALSE(committed.isReady());
  clock->advanceMicros(1000);
  EXPECT_NO_THROW(committed.get());
}

}  // namespace
}  // namespace fdb::engine
