// Cursor combinators: mapPipelined keeps N pending operations in flight and returns results
// in order with their continuations; skipThenLimit, filter, map and asList.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "fdb/database.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/key_value_cursor.h"
#include "test_database.h"

namespace {

using rl::CursorPtr;
using rl::ListCursor;
using rl::NoNextReason;

CursorPtr<int> numbers(int count) {
  std::vector<int> values;
  for (int i = 0; i < count; ++i) values.push_back(i);
  return std::make_unique<ListCursor<int>>(std::move(values));
}

// A pending operation that records when it was started and when it was waited on.
struct Probe {
  std::vector<int> started;
  std::vector<int> waited;
  int maxInFlight = 0;
};
struct PendingSquare {
  Probe* probe;
  int value;
  int get() {
    probe->waited.push_back(value);
    return value * value;
  }
};

TEST(MapPipelined, KeepsUpToNInFlightAndPreservesOrder) {
  Probe probe;
  auto cursor = rl::mapPipelined(
      numbers(25),
      [&](int&& v) {
        probe.started.push_back(v);
        probe.maxInFlight = std::max<int>(
            probe.maxInFlight, static_cast<int>(probe.started.size() - probe.waited.size()));
        return PendingSquare{&probe, v};
      },
      10);
  auto first = cursor->next();
  ASSERT_TRUE(first.hasValue());
  EXPECT_EQ(first.value(), 0);
  // Ten started before the first was waited on; after it, the pipeline was topped up.
  EXPECT_EQ(probe.waited, std::vector<int>{0});
  EXPECT_EQ(probe.started.size(), 11u);
  EXPECT_EQ(first.continuation().toBytes(), ListCursor<int>::encodePosition(1));
  std::vector<int> values{first.value()};
  for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) values.push_back(r.value());
  ASSERT_EQ(values.size(), 25u);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(values[i], i * i);
  EXPECT_EQ(probe.maxInFlight, 10);
  EXPECT_EQ(cursor->next().noNextReason(), NoNextReason::kSourceExhausted);
}

TEST(MapPipelined, PipelinesRealReads) {
  fdb::Database db = rl::tests::openTestDatabase();
  const fdb::Subspace space(fdb::Tuple{"p"});
  db.run([&](fdb::Transaction& tr) {
    for (int i = 0; i < 30; ++i) tr.set(space.pack(fdb::Tuple{i}), std::to_string(i * 3));
  });
  rl::RecordContext context(db);
  rl::ExecuteProperties execute;
  execute.returnedRowLimit = 20;
  auto keys = std::make_unique<rl::KeyValueCursor>(context, space, rl::TupleRange::all(),
                                                   rl::ScanProperties(execute));
  // For each key, read its value again by key (an index-entry-to-record fetch in miniature).
  auto fetched = rl::mapPipelined(
      CursorPtr<fdb::KeyValueRef>(std::move(keys)),
      [&](fdb::KeyValueRef&& row) { return context.transaction().get(row.key); }, 10);
  auto list = rl::asList(*fetched, [](std::optional<fdb::Bytes>& v) { return *v; });
  ASSERT_EQ(list.values.size(), 20u);
  EXPECT_EQ(list.values[7], "21");
  EXPECT_EQ(list.reason, NoNextReason::kReturnLimitReached);
  EXPECT_EQ(list.continuation.keySuffix(), space.pack(fdb::Tuple{19}).substr(space.key().size()));
}

TEST(SkipThenLimit, SkipsThenStopsAtTheLimitWithTheLastContinuation) {
  auto cursor = rl::skipThenLimit(numbers(10), 3, 4);
  auto list = rl::asList(*cursor);
  EXPECT_EQ(list.values, (std::vector<int>{3, 4, 5, 6}));
  EXPECT_EQ(list.reason, NoNextReason::kReturnLimitReached);
  EXPECT_EQ(list.continuation.toBytes(), ListCursor<int>::encodePosition(7));
  auto unlimited = rl::asList(*rl::skipThenLimit(numbers(5), 1, 0));
  EXPECT_EQ(unlimited.values, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(unlimited.reason, NoNextReason::kSourceExhausted);
  EXPECT_TRUE(unlimited.continuation.isEnd());
}

TEST(MapAndFilter, TransformAndSelectValues) {
  auto evens = rl::filter(numbers(10), [](const int& v) { return v % 2 == 0; });
  auto labelled = rl::map(std::move(evens), [](int&& v) { return "n" + std::to_string(v); });
  auto list = rl::asList(*labelled);
  EXPECT_EQ(list.values, (std::vector<std::string>{"n0", "n2", "n4", "n6", "n8"}));
  EXPECT_EQ(list.reason, NoNextReason::kSourceExhausted);
}

TEST(Continuation, StartAndEndHaveNoBytes) {
  EXPECT_FALSE(rl::Continuation::start().toBytes());
  EXPECT_FALSE(rl::Continuation::end().toBytes());
  EXPECT_TRUE(rl::Continuation::end().isEnd());
  EXPECT_FALSE(rl::Continuation::start().isEnd());
  EXPECT_EQ(rl::Continuation::fromBytes("abc").toBytes(), fdb::Bytes("abc"));
  EXPECT_EQ(rl::noNextReasonName(NoNextReason::kByteLimitReached), "BYTE_LIMIT_REACHED");
}

}  // namespace
