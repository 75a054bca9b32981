// RankedSet (src/rl/index/ranked_set.h): its hashes, its keys and counts byte for byte as
// the Java Record Layer's RankedSet writes them (computed by hand below from its rules), and
// its answers against a sorted model under random adds and removes, with and without
// duplicates counted.
#include "rl/index/ranked_set.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/record_core_exception.h"
#include "test_database.h"

namespace rl {
namespace {

fdb::Bytes fromHex(std::string_view hex) {
  fdb::Bytes bytes;
  int nibbles = 0;
  int value = 0;
  for (char c : hex) {
    if (c == ' ') continue;
    value = value * 16 +
            (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10);
    if (++nibbles == 2) {
      bytes.push_back(static_cast<char>(value));
      nibbles = 0;
      value = 0;
    }
  }
  return bytes;
}

fdb::Bytes packed(int64_t n) { return fdb::Tuple{n}.pack(); }

TEST(RankedSetHashTest, JavaHashes) {
  // Arrays.hashCode: 31 * h + signed byte, from 1. (15 04): 31 * (31 + 21) + 4 = 1616.
  EXPECT_EQ(RankedSet::hash(RankedSet::HashFunction::kJdk, fromHex("15 04")), 1616u);
  // Signed bytes: 0xff is -1, so 31 * 1 - 1 = 30.
  EXPECT_EQ(RankedSet::hash(RankedSet::HashFunction::kJdk, fromHex("ff")), 30u);
  EXPECT_EQ(RankedSet::hash(RankedSet::HashFunction::kJdk, ""), 1u);
  // CRC-32 check value.
  EXPECT_EQ(RankedSet::hash(RankedSet::HashFunction::kCrc, "123456789"), 0xCBF43926u);
  // MurmurHash3 x86_32, seed 0: published values.
  EXPECT_EQ(RankedSet::hash(RankedSet::HashFunction::kMurmur3, ""), 0u);
  EXPECT_EQ(RankedSet::hash(RankedSet::HashFunction::kMurmur3, "hello"), 0x248bfa47u);
  // Level l > 0 holds keys whose low 4 * l bits are zero.
  EXPECT_TRUE(RankedSet::onLevel(0x123, 0));
  EXPECT_FALSE(RankedSet::onLevel(0x123, 1));
  EXPECT_TRUE(RankedSet::onLevel(0x650, 1));
  EXPECT_FALSE(RankedSet::onLevel(0x650, 2));
  EXPECT_TRUE(RankedSet::onLevel(0x700, 2));
  EXPECT_FALSE(RankedSet::onLevel(0x700, 3));
  EXPECT_EQ(RankedSet::hashFunctionNamed("MURMUR3"), RankedSet::HashFunction::kMurmur3);
  EXPECT_EQ(RankedSet::hashFunctionNamed("md5"), std::nullopt);
}

TEST(RankedSetHashTest, CountsAreEightBytesLittleEndian) {
  EXPECT_EQ(RankedSet::encodeCount(1), fromHex("01 00 00 00 00 00 00 00"));
  EXPECT_EQ(RankedSet::encodeCount(-1), fromHex("ff ff ff ff ff ff ff ff"));
  EXPECT_EQ(RankedSet::encodeCount(0x0102), fromHex("02 01 00 00 00 00 00 00"));
  EXPECT_EQ(RankedSet::decodeCount(fromHex("02 01 00 00 00 00 00 00")), 0x0102);
  EXPECT_THROW(RankedSet::decodeCount("abc"), RecordCoreException);
}

class RankedSetTest : public ::testing::Test {
 protected:
  fdb::Database db = rl::tests::openTestDatabase();

  template <typename F>
  auto withSet(const RankedSet::Config& config, F&& fn) {
    return runInContext(db, [&](RecordContext& context) {
      RankedSet set(context.transaction(), "P", config);
      if (set.initNeeded()) set.init();
      return fn(set);
    });
  }
  std::vector<fdb::KeyValue> all() {
    return runInContext(db, [](RecordContext& context) {
      return context.transaction().getRangeAll(fdb::KeyRange{"", "\xff"});
    });
  }
};

// Keys 1, 4, 7, 180 (packed 15 01, 15 04, 15 07, 15 b4), 4 added twice. JDK hashes:
// 1612 + n, so 4 -> 0x650 (levels 0-1), 180 -> 0x700 (levels 0-2), 1 and 7 level 0 only.
// Each level starts with the empty key; a count spans its key to the level's next key.
std::vector<std::pair<std::string, std::string>> expectedFixture(bool countDuplicates) {
  const std::string one = "01 00 00 00 00 00 00 00";
  const std::string four = countDuplicates ? "05 00 00 00 00 00 00 00" : "04 00 00 00 00 00 00 00";
  std::vector<std::pair<std::string, std::string>> rows = {
      {"50 14 01 00", "00 00 00 00 00 00 00 00"},
      {"50 14 01 15 01 00", one},
      {"50 14 01 15 04 00", countDuplicates ? "02 00 00 00 00 00 00 00" : one},
      {"50 14 01 15 07 00", one},
      {"50 14 01 15 b4 00", one},
      {"50 15 01 01 00", one},  // "" spans 1
      {"50 15 01 01 15 04 00",
       countDuplicates ? "03 00 00 00 00 00 00 00" : "02 00 00 00 00 00 00 00"},
      {"50 15 01 01 15 b4 00", one},
      {"50 15 02 01 00", countDuplicates ? "04 00 00 00 00 00 00 00" : "03 00 00 00 00 00 00 00"},
      {"50 15 02 01 15 b4 00", one},
      {"50 15 03 01 00", four},
      {"50 15 04 01 00", four},
      {"50 15 05 01 00", four},
  };
  return rows;
}

void expectFixture(const std::vector<fdb::KeyValue>& rows, bool countDuplicates) {
  const auto expected = expectedFixture(countDuplicates);
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(fdb::printable(rows[i].key), fdb::printable(fromHex(expected[i].first))) << i;
    EXPECT_EQ(fdb::printable(rows[i].value), fdb::printable(fromHex(expected[i].second))) << i;
  }
}

TEST_F(RankedSetTest, GoldenKeysAndCounts) {
  for (bool countDuplicates : {false, true}) {
    db = rl::tests::openTestDatabase();
    RankedSet::Config config;
    config.countDuplicates = countDuplicates;
    // One transaction per add, in an order that splits spans after they were counted.
    for (int64_t n : {7, 1, 180, 4, 4}) {
      withSet(config, [&](RankedSet& set) { return set.add(packed(n)); });
    }
    expectFixture(all(), countDuplicates);
    withSet(config, [&](RankedSet& set) {
      EXPECT_EQ(set.size(), countDuplicates ? 5 : 4);
      EXPECT_EQ(set.rank(packed(180)), countDuplicates ? 4 : 3);
      EXPECT_EQ(set.rank(packed(5)), std::nullopt);
      EXPECT_EQ(set.rank(packed(5), false), countDuplicates ? 3 : 2);
      EXPECT_EQ(set.getNth(2), countDuplicates ? packed(4) : packed(7));
      EXPECT_EQ(set.count(packed(4)), countDuplicates ? 2 : 1);
      return 0;
    });
  }
}

TEST_F(RankedSetTest, RemovingRestoresTheLayout) {
  RankedSet::Config config;
  for (int64_t n : {7, 1, 180, 4})
    withSet(config, [&](RankedSet& set) { return set.add(packed(n)); });
  const std::vector<fdb::KeyValue> before = all();
  withSet(config, [&](RankedSet& set) {
    EXPECT_TRUE(set.add(packed(100)));
    EXPECT_TRUE(set.add(packed(20)));  // 1632 = 0x660: on level 1
    EXPECT_FALSE(set.add(packed(20)));
    return 0;
  });
  withSet(config, [&](RankedSet& set) {
    EXPECT_TRUE(set.remove(packed(20)));
    EXPECT_TRUE(set.remove(packed(100)));
    EXPECT_FALSE(set.remove(packed(100)));
    return 0;
  });
  EXPECT_EQ(all(), before);
}

TEST_F(RankedSetTest, RefusesEmptyKeysAndBadLevels) {
  withSet({}, [&](RankedSet& set) {
    EXPECT_THROW(set.add(""), RecordCoreArgumentException);
    EXPECT_THROW(set.remove(""), RecordCoreArgumentException);
    EXPECT_EQ(set.getNth(0), std::nullopt);
    EXPECT_EQ(set.getNth(-1), std::nullopt);
    EXPECT_EQ(set.size(), 0);
    return 0;
  });
  runInContext(db, [](RecordContext& context) {
    RankedSet::Config config;
    config.nlevels = 9;
    EXPECT_THROW(RankedSet(context.transaction(), "P", config), RecordCoreArgumentException);
    config.nlevels = 1;
    EXPECT_THROW(RankedSet(context.transaction(), "P", config), RecordCoreArgumentException);
    return 0;
  });
}

// Random adds and removes against a sorted multiset, every answer checked after every step.
void randomized(fdb::Database& db, const RankedSet::Config& config, uint32_t seed) {
  std::map<fdb::Bytes, int64_t> committed;  // packed key -> copies, as committed
  std::map<fdb::Bytes, int64_t> model;      // the same in the transaction being tried
  std::mt19937 random(seed);
  // Keys over a range wide enough for several levels (1- and 2-byte integers).
  auto randomKey = [&] { return packed(static_cast<int64_t>(random() % 1200)); };
  auto check = [&](RankedSet& set) {
    std::vector<fdb::Bytes> sorted;
    int64_t before = 0;
    for (const auto& [key, copies] : model) {
      ASSERT_EQ(set.rank(key), before) << fdb::printable(key);
      ASSERT_EQ(set.count(key), copies);
      before += copies;
      for (int64_t i = 0; i < copies; ++i) sorted.push_back(key);
    }
    ASSERT_EQ(set.size(), static_cast<int64_t>(sorted.size()));
    for (size_t i = 0; i < sorted.size(); ++i) {
      ASSERT_EQ(set.getNth(static_cast<int64_t>(i)), sorted[i]) << i;
    }
    ASSERT_EQ(set.getNth(static_cast<int64_t>(sorted.size())), std::nullopt);
    for (int probe = 0; probe < 5; ++probe) {
      const fdb::Bytes key = randomKey();
      int64_t less = 0;
      for (const auto& [k, copies] : model) {
        if (std::string_view(k) < std::string_view(key)) less += copies;
      }
      ASSERT_EQ(set.rank(key, false), less) << fdb::printable(key);
      if (!model.contains(key)) {
        ASSERT_EQ(set.rank(key), std::nullopt);
      }
    }
  };
  // Every answer after every step on the embedded engine; after each transaction's steps
  // elsewhere, where each read is a real round trip.
  const bool everyStep = rl::tests::onEmbeddedEngine();
  for (int batch = 0; batch < 30; ++batch) {
    runInContext(db, [&](RecordContext& context) {
      // A retried transaction starts again from what was committed, with the same steps.
      model = committed;
      random.seed(seed * 1000 + static_cast<uint32_t>(batch));
      RankedSet set(context.transaction(), "P", config);
      if (set.initNeeded()) set.init();
      for (int op = 0; op < 8; ++op) {
        const bool add = model.empty() || random() % 3 != 0;
        fdb::Bytes key = randomKey();
        if (!add) {
          auto it = model.begin();
          std::advance(it, random() % model.size());
          key = it->first;
        }
        if (add) {
          const bool expectAdded = config.countDuplicates || !model.contains(key);
          EXPECT_EQ(set.add(key), expectAdded);
          if (expectAdded) model[key] += 1;
        } else {
          EXPECT_TRUE(set.remove(key));
          if (--model[key] == 0) model.erase(key);
        }
        if (everyStep) check(set);
      }
      if (!everyStep) check(set);
      return 0;
    });
    committed = model;
  }
  // And in a fresh transaction, from what was committed.
  runInContext(db, [&](RecordContext& context) {
    RankedSet set(context.transaction(), "P", config);
    check(set);
    return 0;
  });
}

TEST_F(RankedSetTest, RandomizedAgainstASortedModel) {
  RankedSet::Config config;
  randomized(db, config, 1);
}

TEST_F(RankedSetTest, RandomizedAgainstASortedModelCountingDuplicates) {
  RankedSet::Config config;
  config.countDuplicates = true;
  randomized(db, config, 2);
}

TEST_F(RankedSetTest, RandomizedWithOtherHashesAndLevels) {
  RankedSet::Config config;
  config.hashFunction = RankedSet::HashFunction::kCrc;
  config.nlevels = 3;
  randomized(db, config, 3);
  db = rl::tests::openTestDatabase();
  config.hashFunction = RankedSet::HashFunction::kMurmur3;
  config.nlevels = 8;
  config.countDuplicates = true;
  randomized(db, config, 4);
  db = rl::tests::openTestDatabase();
  config.hashFunction = RankedSet::HashFunction::kRandom;
  config.nlevels = 2;
  randomized(db, config, 5);
}

}  // namespace
}  // namespace rl
