// Range reads over keys a transaction has touched (docs/semantics.md, "Range reads"): where
// FoundationDB's read-your-writes layer stops early, checked on cases worked out by hand and on
// random transactions against the reference model (reference_model.h), which rebuilds the
// segments from scratch at every step.
//
//   RL_EARLY_STOP_SEED=<n>        base seed (transaction i runs with seed n + i)
//   RL_EARLY_STOP_TRANSACTIONS=<n> number of random transactions (default 1000)
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/reference_model.h"
#include "fdb/database.h"
#include "fdb/error.h"

namespace fdb::engine {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

Rows rowsOf(const RangeResult& result) {
  Rows rows;
  for (const KeyValueRef& row : result.rows) rows.emplace_back(row.key, row.value);
  return rows;
}

std::vector<std::string> keysOf(const RangeResult& result) {
  std::vector<std::string> keys;
  for (const KeyValueRef& row : result.rows) keys.emplace_back(row.key);
  return keys;
}

class TouchedRangeRead : public ::testing::Test {
 protected:
  TouchedRangeRead() : db_(Database::open("memory:")) {}

  void write(std::vector<std::string> keys) {
    db_.run([&](Transaction& tr) {
      for (const std::string& key : keys) tr.set(key, "v");
    });
  }

  Database db_;
};

// A read that meets nothing the transaction knows reads the database in one go.
TEST_F(TouchedRangeRead, UntouchedRangeReadsEverything) {
  write({"a", "c", "e"});
  Transaction tr = db_.createTransaction();
  tr.set("x", "1");
  RangeResult all = tr.getRange(KeyRange{"a", "f"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(all), (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_FALSE(all.more);
}

// The first unknown piece is read with the pieces a walk passes: keys the transaction set are
// passed over, so a read that starts before them reads on past them.
TEST_F(TouchedRangeRead, WrittenKeysInsideAnUnknownStretchAreReadOver) {
  write({"c", "d"});
  Transaction tr = db_.createTransaction();
  tr.set("b", "mine");
  RangeResult all = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(all), (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_FALSE(all.more);
}

// A read that starts on a key it knows takes that row, and stops at the unknown after it.
TEST_F(TouchedRangeRead, ReadStartingOnAWrittenKeyStopsAfterIt) {
  write({"c", "d"});
  Transaction tr = db_.createTransaction();
  tr.set("b", "mine");
  RangeResult first = tr.getRange(KeyRange{"b", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(first), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(first.more);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"b", "z"}).size(), 3u);
}

// A cleared range longer than one key stops the walk: the read ends before it, and the rows
// before it are all the first answer has.
TEST_F(TouchedRangeRead, ClearedRangeEndsTheFirstRead) {
  write({"a", "c", "e"});
  Transaction tr = db_.createTransaction();
  tr.clearRange("c", "d");
  RangeResult forward = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(forward), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(forward.more);
  Transaction other = db_.createTransaction();  // nothing known yet
  other.clearRange("c", "d");
  RangeResult reverse =
      other.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll, .reverse = true}).get();
  EXPECT_EQ(keysOf(reverse), (std::vector<std::string>{"e"}));
  EXPECT_TRUE(reverse.more);
  // In the first transaction [a, c) is known now: a reverse read takes it without stopping.
  RangeResult again =
      tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll, .reverse = true}).get();
  EXPECT_EQ(keysOf(again), (std::vector<std::string>{"e", "a"}));
  EXPECT_FALSE(again.more);
}

// A one-key clear does not stop the walk.
TEST_F(TouchedRangeRead, OneKeyClearIsWalkedOver) {
  write({"a", "c", "e"});
  Transaction tr = db_.createTransaction();
  tr.clear("c");
  RangeResult all = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(all), (std::vector<std::string>{"a", "e"}));
  EXPECT_FALSE(all.more);
}

// Without a byte limit (EXACT with a row limit only) a read never stops early.
TEST_F(TouchedRangeRead, NoByteLimitNoEarlyStop) {
  write({"a", "c", "e"});
  Transaction tr = db_.createTransaction();
  tr.clearRange("c", "d");
  RangeResult all =
      tr.getRange(KeyRange{"a", "z"}, {.limit = 10, .mode = StreamingMode::kExact}).get();
  EXPECT_EQ(keysOf(all), (std::vector<std::string>{"a", "e"}));
  EXPECT_FALSE(all.more);
}

// The walk looks at 100 segments: with 60 keys set in an unknown stretch (each one a segment,
// with the unknown gap after it), the first read ends at the 51st key's gap and the answer
// stops after the 51st key.
TEST_F(TouchedRangeRead, WalkStopsAfterOneHundredSegments) {
  Transaction tr = db_.createTransaction();
  std::vector<std::string> keys;
  for (int i = 0; i < 60; ++i) {
    keys.push_back("k" + std::to_string(100 + i));
    tr.set(keys.back(), "v");
  }
  RangeResult first = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(first.rows.size(), 51u);
  EXPECT_EQ(std::string(first.rows.back().key), keys[50]);
  EXPECT_TRUE(first.more);
  EXPECT_EQ(tr.getRangeAll(KeyRange{"a", "z"}).size(), 60u);
}

// Ranges read before are known, and so are keys read with get.
TEST_F(TouchedRangeRead, EarlierReadsMakePiecesKnown) {
  write({"a", "c", "e", "g"});
  Transaction tr = db_.createTransaction();
  EXPECT_EQ(tr.getRange(KeyRange{"c", "d"}).get().rows.size(), 1u);
  RangeResult afterRange = tr.getRange(KeyRange{"a", "z"}, {.mode = StreamingMode::kWantAll}).get();
  EXPECT_EQ(keysOf(afterRange), (std::vector<std::string>{"a", "c"}));
  EXPECT_TRUE(afterRange.more);

  Transaction other = db_.createTransaction();
  EXPECT_EQ(other.get("e").get(), "v");
  RangeResult afterGet = other.getRange(KeyRange{"e", "z"}, {.mode = StreamingMode::kSmall}).get();
  EXPECT_EQ(keysOf(afterGet), (std::vector<std::string>{"e"}));
  EXPECT_TRUE(afterGet.more);
}

// reset() forgets what was known.
TEST_F(TouchedRangeRead, ResetForgetsKnownPieces) {
  write({"a", "c", "e"});
  Transaction tr = db_.createTransaction();
  tr.get("a").get();
  EXPECT_EQ(tr.getRange(KeyRange{"a", "z"}).get().rows.size(), 1u);
  tr.reset();
  EXPECT_EQ(tr.getRange(KeyRange{"a", "z"}).get().rows.size(), 3u);
}

// With read-your-writes off, reads go to the database as they are and learn nothing.
TEST_F(TouchedRangeRead, ReadYourWritesDisabledNeverStopsEarly) {
  write({"a", "c", "e"});
  Transaction tr = db_.createTransaction();
  tr.setOption(TransactionOption::kReadYourWritesDisable);
  tr.get("a").get();
  RangeResult all = tr.getRange(KeyRange{"a", "z"}).get();
  EXPECT_EQ(all.rows.size(), 3u);
  EXPECT_FALSE(all.more);
}

// ---- Random transactions against the reference model --------------------------------

uint64_t envOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? fallback : std::strtoull(value, nullptr, 10);
}

struct RandomRun {
  int reads = 0;
  int earlyStops = 0;  // `more` with neither limit reached
  int reverseEarlyStops = 0;
};

// One transaction of random writes, clears, point reads and range reads, each range read's rows
// and `more` compared with the model's. Returns an empty string or the first difference.
std::string runTransaction(uint64_t seed, RandomRun* run) {
  std::mt19937_64 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint64_t>(n)); };
  auto key = [&]() {
    std::string k = "k" + std::to_string(100 + pick(70));
    if (pick(6) == 0) k.push_back('\0');
    return k;
  };
  auto value = [&]() {
    return std::string(static_cast<size_t>(1 + pick(pick(4) == 0 ? 400 : 40)), 'x');
  };

  Database db = Database::open("memory:");
  refmodel::ModelDatabase modelDb;
  {
    refmodel::ModelTransaction fill(&modelDb);
    Transaction tr = db.createTransaction();
    for (int i = pick(60); i > 0; --i) {
      std::string k = key(), v = value();
      fill.set(k, v);
      tr.set(k, v);
    }
    tr.commit().get();
    fill.commit();
  }
  refmodel::ModelTransaction model(&modelDb);
  Transaction tr = db.createTransaction();
  const int steps = 10 + pick(40);
  std::string log;
  for (int step = 0; step < steps; ++step) {
    const int kind = pick(100);
    if (kind < 25) {
      // A burst of sets sometimes: enough segments for the walk's limit.
      for (int n = pick(8) == 0 ? 30 + pick(40) : 1; n > 0; --n) {
        std::string k = key(), v = value();
        model.set(k, v);
        tr.set(k, v);
        log += " set";
      }
    } else if (kind < 32) {
      std::string k = key();
      model.clear(k);
      tr.clear(k);
      log += " clear";
    } else if (kind < 40) {
      std::string a = key(), b = key();
      if (b < a) std::swap(a, b);
      model.clearRange(a, b);
      tr.clearRange(a, b);
      log += " clearRange";
    } else if (kind < 46) {
      std::string k = key();
      model.atomicOp(k, std::string(1, '\x01'), refmodel::AtomicOp::kAdd);
      tr.atomicOp(k, std::string(1, '\x01'), MutationType::kAdd);
      log += " add";
    } else if (kind < 58) {
      std::string k = key();
      const bool snapshot = pick(3) == 0;
      std::optional<std::string> expected = model.get(k, snapshot);
      std::optional<Bytes> actual = snapshot ? tr.snapshot().get(k).get() : tr.get(k).get();
      if (expected != actual) return "get differs after" + log;
      log += " get";
    } else {
      std::string a = key(), b = key();
      if (b < a) std::swap(a, b);
      if (pick(4) == 0) a = "a";
      if (pick(4) == 0) b = "z";
      if (a == b) b.push_back('\x01');
      static constexpr StreamingMode kModes[] = {StreamingMode::kWantAll, StreamingMode::kIterator,
                                                 StreamingMode::kExact,   StreamingMode::kSmall,
                                                 StreamingMode::kMedium,  StreamingMode::kLarge,
                                                 StreamingMode::kSerial};
      RangeOptions options;
      options.mode = kModes[pick(7)];
      options.iteration = 1 + pick(12);
      options.limit = pick(3) == 0 ? 1 + pick(20) : 0;
      options.targetBytes = pick(3) == 0 ? 1 + pick(3000) : 0;
      if (options.mode == StreamingMode::kExact && options.limit == 0 && options.targetBytes == 0) {
        options.limit = 1 + pick(20);
      }
      options.reverse = pick(2) == 0;
      const bool snapshot = pick(3) == 0;
      refmodel::RangeRequest request;
      request.begin = {a, false, 1};
      request.end = {b, false, 1};
      request.limit = options.limit;
      request.targetBytes = options.targetBytes;
      request.mode = static_cast<refmodel::Mode>(static_cast<int>(options.mode));
      request.iteration = options.iteration;
      request.reverse = options.reverse;
      refmodel::RangeReadResult expected = model.getRange(request, snapshot);
      RangeResult actual = snapshot ? tr.snapshot().getRange(KeyRange{a, b}, options).get()
                                    : tr.getRange(KeyRange{a, b}, options).get();
      ++run->reads;
      if (rowsOf(actual) != expected.rows || actual.more != expected.more) {
        return "range read [" + a + ", " + b + ") differs (model " +
               std::to_string(expected.rows.size()) +
               " rows more=" + std::to_string(expected.more) + ", engine " +
               std::to_string(actual.rows.size()) + " rows more=" + std::to_string(actual.more) +
               ") after" + log;
      }
      int64_t bytes = 0;
      for (const auto& [k, v] : expected.rows)
        bytes += static_cast<int64_t>(k.size() + v.size() + 8);
      const int byteLimit = refmodel::effectiveByteLimit(request);
      const bool rowLimitReached =
          options.limit > 0 && expected.rows.size() >= static_cast<size_t>(options.limit);
      if (expected.more && !rowLimitReached && bytes < byteLimit) {
        ++run->earlyStops;
        if (options.reverse) ++run->reverseEarlyStops;
      }
      log += options.reverse ? " rangeRev" : " range";
    }
  }
  return std::string();
}

TEST(TouchedRangeReadRandom, MatchesTheReferenceModel) {
  const uint64_t baseSeed = envOr("RL_EARLY_STOP_SEED", 20240611);
  const int transactions = static_cast<int>(envOr("RL_EARLY_STOP_TRANSACTIONS", 1000));
  RandomRun run;
  for (int i = 0; i < transactions; ++i) {
    const uint64_t seed = baseSeed + static_cast<uint64_t>(i);
    std::string difference = runTransaction(seed, &run);
    ASSERT_TRUE(difference.empty()) << "seed " << seed << " (RL_EARLY_STOP_SEED=" << seed
                                    << " RL_EARLY_STOP_TRANSACTIONS=1 reproduces): " << difference;
  }
  std::cout << "[early stop] " << run.reads << " range reads, " << run.earlyStops
            << " stopped early (" << run.reverseEarlyStops << " reverse)\n";
  // The generator must keep exercising the rule in both directions.
  if (transactions >= 1000) {
    EXPECT_GT(run.earlyStops, 1000);
    EXPECT_GT(run.reverseEarlyStops, 400);
  }
}

}  // namespace
}  // namespace fdb::engine
