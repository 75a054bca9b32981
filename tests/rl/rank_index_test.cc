// RANK indexes (src/rl/index/rank_index.h): entries and ranked sets byte for byte as the Java
// Record Layer writes them (written by hand below), the store's rank functions and scans by
// rank against a model under random saves and deletes, the checker clean after them and
// reporting planted corruption, the online build, and the index states.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "record_store_test_util.h"
#include "rl/index/index_maintainer.h"
#include "rl/index/rank_index.h"
#include "rl/index/ranked_set.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/query/queried_record.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_planner.h"
#include "rl/record_core_exception.h"
#include "rl/store/online_indexer.h"
#include "rl/store/record_store_state.h"
#include "rl/store/store_checker.h"
#include "test_database.h"

namespace rl::store_test {
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

std::vector<int64_t> scoresOf(CursorPtr<IndexEntry> cursor, size_t scoreColumn) {
  std::vector<int64_t> scores;
  for (const IndexEntry& entry : asList(*cursor).values) {
    scores.push_back(entry.key.getInt(scoreColumn));
  }
  return scores;
}

class RankIndexTest : public RecordStoreTest {
 protected:
  // "LB": rank of price; "LBG": rank of price grouped by name.
  void useIndexes(std::map<std::string, std::string> options = {}) {
    RecordMetaDataBuilder builder(Order::descriptor()->file());
    builder.addIndex("Order", Index("LB", field("price"), Index::kRank, options));
    builder.addIndex("Order",
                     Index("LBG", concat(field("name"), field("price")), Index::kRank, options));
    metaData = builder.build();
  }
  CheckReport check() { return StoreChecker(db, testLocation(), metaData).run(); }
  void rawSet(std::string_view key, std::string_view value) {
    run([&](RecordContext& context) { context.transaction().set(key, value); });
  }
  void rawClear(std::string_view key) {
    run([&](RecordContext& context) { context.transaction().clear(key); });
  }
  std::vector<fdb::KeyValue> rowsWithPrefix(std::string_view prefix) {
    std::vector<fdb::KeyValue> rows;
    for (const fdb::KeyValue& row : allKeyValues()) {
      if (std::string_view(row.key).starts_with(prefix)) rows.push_back(row);
    }
    return rows;
  }
};

// Prices 1, 4, 180, 4, 7 (ids 1-5) in "LB". The ranked set at (3, "LB") = 15 03 02 4c 42 00,
// keys (level, packed score): the packed scores 15 01, 15 04, 15 07, 15 b4 have Java array
// hashes 1612 + n, so 4 (0x650) is on levels 0-1, 180 (0x700) on 0-2; each level starts with
// the empty key; a count spans its key up to the level's next key. Duplicates are not counted.
TEST_F(RankIndexTest, GoldenEntriesAndRankedSet) {
  useIndexes();
  withStore([&](RecordStore& store) {
    const int64_t prices[] = {1, 4, 180, 4, 7};
    for (int64_t id = 1; id <= 5; ++id) store.saveRecord(makeOrder(id, "a", prices[id - 1]));
  });
  const std::string one = "01 00 00 00 00 00 00 00";
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"15 03 02 4c 42 00 14 01 00", "00 00 00 00 00 00 00 00"},
      {"15 03 02 4c 42 00 14 01 15 01 00", one},
      {"15 03 02 4c 42 00 14 01 15 04 00", one},
      {"15 03 02 4c 42 00 14 01 15 07 00", one},
      {"15 03 02 4c 42 00 14 01 15 b4 00", one},
      {"15 03 02 4c 42 00 15 01 01 00", one},
      {"15 03 02 4c 42 00 15 01 01 15 04 00", "02 00 00 00 00 00 00 00"},
      {"15 03 02 4c 42 00 15 01 01 15 b4 00", one},
      {"15 03 02 4c 42 00 15 02 01 00", "03 00 00 00 00 00 00 00"},
      {"15 03 02 4c 42 00 15 02 01 15 b4 00", one},
      {"15 03 02 4c 42 00 15 03 01 00", "04 00 00 00 00 00 00 00"},
      {"15 03 02 4c 42 00 15 04 01 00", "04 00 00 00 00 00 00 00"},
      {"15 03 02 4c 42 00 15 05 01 00", "04 00 00 00 00 00 00 00"},
  };
  const std::vector<fdb::KeyValue> stored = rowsWithPrefix(fromHex("15 03 02 4c 42 00"));
  ASSERT_EQ(stored.size(), sets.size());
  for (size_t i = 0; i < sets.size(); ++i) {
    EXPECT_EQ(fdb::printable(stored[i].key), fdb::printable(fromHex(sets[i].first))) << i;
    EXPECT_EQ(fdb::printable(stored[i].value), fdb::printable(fromHex(sets[i].second))) << i;
  }
  // Entries as a VALUE index's: (2, "LB", price, id) -> empty.
  const std::vector<std::string> entries = {
      "15 02 02 4c 42 00 15 01 15 01", "15 02 02 4c 42 00 15 04 15 02",
      "15 02 02 4c 42 00 15 04 15 04", "15 02 02 4c 42 00 15 07 15 05",
      "15 02 02 4c 42 00 15 b4 15 03"};
  const std::vector<fdb::KeyValue> storedEntries = rowsWithPrefix(fromHex("15 02 02 4c 42 00"));
  ASSERT_EQ(storedEntries.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(fdb::printable(storedEntries[i].key), fdb::printable(fromHex(entries[i])));
    EXPECT_EQ(storedEntries[i].value, "");
  }
  // The grouped index's set lives under the group: (3, "LBG", "a", 0, "") first.
  EXPECT_TRUE(rawGet(fromHex("15 03 02 4c 42 47 00 02 61 00 14 01 00")).has_value());
  // A score leaves the set with its last record.
  withStore([&](RecordStore& store) { store.deleteRecord(fdb::Tuple{2}); });
  EXPECT_EQ(rowsWithPrefix(fromHex("15 03 02 4c 42 00")).size(), sets.size());
  withStore([&](RecordStore& store) { store.deleteRecord(fdb::Tuple{4}); });
  EXPECT_FALSE(rawGet(fromHex("15 03 02 4c 42 00 14 01 15 04 00")).has_value());
  EXPECT_FALSE(rawGet(fromHex("15 03 02 4c 42 00 15 01 01 15 04 00")).has_value());
  EXPECT_EQ(rawGet(fromHex("15 03 02 4c 42 00 15 01 01 00")),
            fromHex("02 00 00 00 00 00 00 00"));  // "" now spans 1 and 7
  EXPECT_TRUE(check().ok()) << check().summary();
}

TEST_F(RankIndexTest, CountingDuplicatesCountsEachRecord) {
  useIndexes({{"rankCountDuplicates", "true"}});
  withStore([&](RecordStore& store) {
    for (int64_t id = 1; id <= 4; ++id) store.saveRecord(makeOrder(id, "a", id <= 3 ? 10 : 20));
  });
  EXPECT_EQ(rawGet(fdb::Tuple{3, "LB"}.pack() +
                   fdb::Tuple{0, fdb::ByteString{fdb::Tuple{10}.pack()}}.pack()),
            fromHex("03 00 00 00 00 00 00 00"));
  withStore([&](RecordStore& store) {
    EXPECT_EQ(store.rank("LB", makeOrder(4, "a", 20)), 3);
    EXPECT_EQ(store.scoreForRank("LB", {}, 2), fdb::Tuple{10});
    EXPECT_EQ(store.scoreForRank("LB", {}, 3), fdb::Tuple{20});
    store.deleteRecord(fdb::Tuple{1});
    EXPECT_EQ(store.rank("LB", makeOrder(4, "a", 20)), 2);
  });
  EXPECT_TRUE(check().ok()) << check().summary();
}

TEST_F(RankIndexTest, RanksScoresAndScansByGroup) {
  useIndexes();
  withStore([&](RecordStore& store) {
    // Group a: 10, 20, 20, 30; group b: 5.
    store.saveRecord(makeOrder(1, "a", 20));
    store.saveRecord(makeOrder(2, "a", 10));
    store.saveRecord(makeOrder(3, "a", 30));
    store.saveRecord(makeOrder(4, "a", 20));
    store.saveRecord(makeOrder(5, "b", 5));
  });
  withStore([&](RecordStore& store) {
    EXPECT_EQ(store.rank("LBG", makeOrder(2, "a", 10)), 0);
    EXPECT_EQ(store.rank("LBG", makeOrder(1, "a", 20)), 1);
    EXPECT_EQ(store.rank("LBG", makeOrder(4, "a", 20)), 1);  // ties share a rank
    EXPECT_EQ(store.rank("LBG", makeOrder(3, "a", 30)), 2);
    EXPECT_EQ(store.rank("LBG", makeOrder(5, "b", 5)), 0);
    EXPECT_EQ(store.rank("LB", makeOrder(5, "b", 5)), 0);
    EXPECT_EQ(store.rank("LB", makeOrder(3, "a", 30)), 3);
    EXPECT_EQ(store.rank("LBG", makeOrder(9, "a", 25)), std::nullopt);  // no such score
    EXPECT_EQ(store.scoreForRank("LBG", fdb::Tuple{"a"}, 2), fdb::Tuple{30});
    EXPECT_EQ(store.scoreForRank("LBG", fdb::Tuple{"a"}, 3), std::nullopt);
    EXPECT_EQ(store.scoreForRank("LBG", fdb::Tuple{"zzz"}, 0), std::nullopt);
    EXPECT_EQ(store.rankForScore("LBG", fdb::Tuple{"a"}, fdb::Tuple{25}), 2);
    EXPECT_EQ(store.rankForScore("LBG", fdb::Tuple{"a"}, fdb::Tuple{20}), 1);
    EXPECT_EQ(store.rankForScore("LBG", fdb::Tuple{"a"}, fdb::Tuple{99}), 3);
    EXPECT_EQ(store.rankForScore("LBG", fdb::Tuple{"a"}, fdb::Tuple{1}), 0);

    auto byRank = [&](const TupleRange& range) {
      return scoresOf(store.scanIndexByRank("LBG", range, std::nullopt, {}), 1);
    };
    EXPECT_EQ(byRank(TupleRange::betweenInclusive(fdb::Tuple{"a", 1}, fdb::Tuple{"a", 2})),
              (std::vector<int64_t>{20, 20, 30}));
    EXPECT_EQ(byRank(TupleRange::between(fdb::Tuple{"a", 0}, fdb::Tuple{"a", 2})),
              (std::vector<int64_t>{10, 20, 20}));
    EXPECT_EQ(byRank(TupleRange::betweenInclusive(fdb::Tuple{"a", 2}, fdb::Tuple{"a", 9})),
              (std::vector<int64_t>{30}));
    EXPECT_EQ(byRank(TupleRange::betweenInclusive(fdb::Tuple{"a", 3}, fdb::Tuple{"a", 9})),
              (std::vector<int64_t>{}));
    EXPECT_EQ(byRank(TupleRange::between(fdb::Tuple{"a", 0}, fdb::Tuple{"a", 0})),
              (std::vector<int64_t>{}));
    EXPECT_EQ(byRank(TupleRange::allOf(fdb::Tuple{"b"})), (std::vector<int64_t>{5}));
    EXPECT_EQ(scoresOf(store.scanIndexByRank(
                           "LB", TupleRange::betweenInclusive(fdb::Tuple{0}, fdb::Tuple{1}),
                           std::nullopt, {}),
                       0),
              (std::vector<int64_t>{5, 10}));
    // The records at rank 1 of group a.
    auto fetched = asList(*store.scanIndexRecordsByRank(
        "LBG", TupleRange::betweenInclusive(fdb::Tuple{"a", 1}, fdb::Tuple{"a", 1}), std::nullopt,
        {}));
    ASSERT_EQ(fetched.values.size(), 2u);
    EXPECT_EQ(fetched.values[0].record->primaryKey, fdb::Tuple{1});
    EXPECT_EQ(fetched.values[1].record->primaryKey, fdb::Tuple{4});

    EXPECT_THROW(byRank(TupleRange::betweenInclusive(fdb::Tuple{"a", 0}, fdb::Tuple{"b", 1})),
                 RecordCoreException);
    EXPECT_THROW(byRank(TupleRange::all()), RecordCoreException);
    EXPECT_THROW(store.rank("Order$price", makeOrder(1, "a", 20)), RecordCoreArgumentException);
  });
  // A record moving between groups and scores.
  withStore([&](RecordStore& store) {
    store.saveRecord(makeOrder(3, "b", 1));
    EXPECT_EQ(store.rank("LBG", makeOrder(3, "b", 1)), 0);
    EXPECT_EQ(store.rank("LBG", makeOrder(5, "b", 5)), 1);
    EXPECT_EQ(store.scoreForRank("LBG", fdb::Tuple{"a"}, 2), std::nullopt);
  });
  EXPECT_TRUE(check().ok()) << check().summary();
}

// Random saves and deletes, each group's ranks checked against a model after every
// transaction, and the checker clean at the end.
void randomized(RankIndexTest& test, fdb::Database& db, const RecordMetaData& metaData,
                bool countDuplicates, uint32_t seed) {
  std::mt19937 random(seed);
  std::map<int64_t, std::pair<std::string, int64_t>> committed;  // id -> (group, price)
  std::map<int64_t, std::pair<std::string, int64_t>> model;      // in the transaction tried
  for (int round = 0; round < 25; ++round) {
    runInContext(db, [&](RecordContext& context) {
      // A retried transaction starts again from what was committed, with the same steps.
      model = committed;
      random.seed(seed * 1000 + static_cast<uint32_t>(round));
      RecordStore store = RecordStore::open(context, testLocation(), metaData);
      for (int op = 0; op < 6; ++op) {
        const int64_t id = static_cast<int64_t>(random() % 30);
        if (random() % 4 == 0) {
          store.deleteRecord(fdb::Tuple{id});
          model.erase(id);
        } else {
          std::string group = random() % 2 == 0 ? "a" : "b";
          const int64_t price = static_cast<int64_t>(random() % 12);
          store.saveRecord(makeOrder(id, group, price));
          model[id] = {group, price};
        }
      }
      for (const std::string group : {"a", "b"}) {
        std::vector<int64_t> scores;
        for (const auto& [id, record] : model) {
          if (record.first == group) scores.push_back(record.second);
        }
        std::sort(scores.begin(), scores.end());
        if (!countDuplicates) scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
        for (size_t r = 0; r < scores.size(); ++r) {
          ASSERT_EQ(store.scoreForRank("LBG", fdb::Tuple{group}, static_cast<int64_t>(r)),
                    fdb::Tuple{scores[r]})
              << group << " rank " << r;
        }
        ASSERT_EQ(store.scoreForRank("LBG", fdb::Tuple{group}, static_cast<int64_t>(scores.size())),
                  std::nullopt);
        for (const auto& [id, record] : model) {
          if (record.first != group) continue;
          const auto expected =
              std::lower_bound(scores.begin(), scores.end(), record.second) - scores.begin();
          ASSERT_EQ(store.rank("LBG", makeOrder(id, group, record.second)), expected);
        }
        // Ranks 1 and 2 by scan: the records whose scores have them.
        std::set<int64_t> ranked;
        for (size_t r = 1; r <= 2 && r < scores.size(); ++r) ranked.insert(scores[r]);
        std::vector<int64_t> expected;
        for (const auto& [id, record] : model) {
          if (record.first == group && ranked.contains(record.second)) {
            expected.push_back(record.second);
          }
        }
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(scoresOf(store.scanIndexByRank("LBG",
                                                 TupleRange::betweenInclusive(fdb::Tuple{group, 1},
                                                                              fdb::Tuple{group, 2}),
                                                 std::nullopt, {}),
                           1),
                  expected);
      }
    });
    committed = model;
  }
  const CheckReport report = StoreChecker(db, testLocation(), metaData).run();
  EXPECT_TRUE(report.ok()) << report.summary();
  (void)test;
}

TEST_F(RankIndexTest, RandomizedAgainstAModel) {
  useIndexes();
  randomized(*this, db, metaData, false, 11);
}

TEST_F(RankIndexTest, RandomizedAgainstAModelCountingDuplicates) {
  useIndexes({{"rankCountDuplicates", "true"}, {"rankHashFunction", "MURMUR3"}});
  randomized(*this, db, metaData, true, 12);
}

TEST_F(RankIndexTest, CheckerReportsPlantedCorruption) {
  useIndexes();
  withStore([&](RecordStore& store) {
    for (int64_t id = 1; id <= 40; ++id) store.saveRecord(makeOrder(id, "a", id * 3));
  });
  CheckReport report = check();
  ASSERT_TRUE(report.ok()) << report.summary();
  const fdb::Bytes set = fdb::Tuple{3, "LB"}.pack();
  // A level-1 count off by one.
  const fdb::Bytes levelOneFirst = set + fdb::Tuple{1, fdb::ByteString{""}}.pack();
  const std::optional<fdb::Bytes> count = rawGet(levelOneFirst);
  ASSERT_TRUE(count.has_value());
  rawSet(levelOneFirst, RankedSet::encodeCount(RankedSet::decodeCount(*count) + 1));
  report = check();
  // The count itself, and the level above whose count no longer sums it.
  EXPECT_EQ(report.count(CheckProblemKind::kBadRankedSet), 2) << report.summary();
  EXPECT_EQ(report.problems.size(), 2u) << report.summary();
  ASSERT_FALSE(report.problems.empty());
  EXPECT_EQ(report.problems[0].key, levelOneFirst);
  rawSet(levelOneFirst, *count);
  // A score missing from level 0.
  rawClear(set + fdb::Tuple{0, fdb::ByteString{fdb::Tuple{9}.pack()}}.pack());
  report = check();
  EXPECT_GE(report.count(CheckProblemKind::kBadRankedSet), 1) << report.summary();
  EXPECT_NE(report.summary().find("score"), std::string::npos) << report.summary();
}

// A rank index added to a store of 250 records is left DISABLED, refused to scans until
// built, then built online while saves change records built and not yet built; its ranks then
// match the records and the checker finds it clean, with and without duplicates counted.
TEST_F(RankIndexTest, BuiltOnlineUnderConcurrentSaves) {
  for (bool countDuplicates : {false, true}) {
    db = rl::tests::openTestDatabase();
    metaData = testMetaData();
    std::map<int64_t, std::pair<std::string, int64_t>> model;
    for (int first = 0; first < 250; first += 125) {
      withStore([&](RecordStore& store) {
        for (int64_t id = first; id < first + 125; ++id) {
          model[id] = {id % 2 == 0 ? "a" : "b", id % 17};
          store.saveRecord(makeOrder(id, model[id].first, model[id].second));
        }
      });
    }
    std::map<std::string, std::string> options;
    if (countDuplicates) options["rankCountDuplicates"] = "true";
    useIndexes(options);
    withStore([&](RecordStore& store) {
      EXPECT_EQ(store.indexState("LBG"), IndexState::kDisabled);
      EXPECT_THROW(
          store.scanIndexByRank("LBG", TupleRange::allOf(fdb::Tuple{"a"}), std::nullopt, {}),
          ScanNonReadableIndexException);
      EXPECT_THROW(store.scoreForRank("LBG", fdb::Tuple{"a"}, 0), ScanNonReadableIndexException);
    });
    std::mt19937 random(countDuplicates ? 7 : 8);
    OnlineIndexerOptions small;
    small.recordsPerTransaction = 40;
    const IndexBuildReport report =
        OnlineIndexer(db, testLocation(), metaData, "LBG", small).run([&](const IndexBuildReport&) {
          // The step's changes drawn first, applied to the model once committed (a retried
          // transaction makes the same ones).
          std::vector<std::pair<int64_t, std::optional<std::pair<std::string, int64_t>>>> changes;
          for (int i = 0; i < 5; ++i) {
            const int64_t id = static_cast<int64_t>(random() % 260);
            if (random() % 3 == 0) {
              changes.emplace_back(id, std::nullopt);
            } else {
              std::string group = random() % 2 == 0 ? "a" : "b";
              changes.emplace_back(id, std::pair{group, static_cast<int64_t>(random() % 17)});
            }
          }
          withStore([&](RecordStore& store) {
            for (const auto& [id, change] : changes) {
              if (change) {
                store.saveRecord(makeOrder(id, change->first, change->second));
              } else {
                store.deleteRecord(fdb::Tuple{id});
              }
            }
          });
          for (const auto& [id, change] : changes) {
            if (change) {
              model[id] = *change;
            } else {
              model.erase(id);
            }
          }
        });
    EXPECT_EQ(report.state, IndexState::kReadable);
    EXPECT_GT(report.transactions, 3);
    withStore([&](RecordStore& store) {
      for (const std::string group : {"a", "b"}) {
        std::vector<int64_t> scores;
        for (const auto& [id, record] : model) {
          if (record.first == group) scores.push_back(record.second);
        }
        std::sort(scores.begin(), scores.end());
        if (!countDuplicates) scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
        for (size_t r = 0; r < scores.size(); ++r) {
          ASSERT_EQ(store.scoreForRank("LBG", fdb::Tuple{group}, static_cast<int64_t>(r)),
                    fdb::Tuple{scores[r]});
        }
        EXPECT_EQ(store.scoreForRank("LBG", fdb::Tuple{group}, static_cast<int64_t>(scores.size())),
                  std::nullopt);
      }
    });
    const CheckReport checked = check();
    EXPECT_TRUE(checked.ok()) << checked.summary();
  }
}

TEST_F(RankIndexTest, BadOptionsAreRefusedAtOpen) {
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"rankNLevels", "9"}, {"rankNLevels", "x"}, {"rankHashFunction", "SHA1"}}) {
    useIndexes({{option, value}});
    EXPECT_THROW(withStore([](RecordStore&) {}), MetaDataException) << option << "=" << value;
  }
  useIndexes({{"rankNLevels", "3"}, {"rankHashFunction", "CRC"}});
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 5));
    EXPECT_EQ(store.scoreForRank("LB", {}, 0), fdb::Tuple{5});
  });
  // Three levels: (3, "LB", 0..2, "") and nothing at level 3.
  EXPECT_TRUE(rawGet(fdb::Tuple{3, "LB"}.pack() + fdb::Tuple{2, fdb::ByteString{""}}.pack()));
  EXPECT_FALSE(rawGet(fdb::Tuple{3, "LB"}.pack() + fdb::Tuple{3, fdb::ByteString{""}}.pack()));
}

// Rank comparisons planned to BY_RANK scans: their shapes, their rows against a model, and
// the queries no rank scan answers.
TEST_F(RankIndexTest, RankComparisonsArePlannedToRankScans) {
  useIndexes();
  std::map<int64_t, std::pair<std::string, int64_t>> model;
  withStore([&](RecordStore& store) {
    for (int64_t id = 1; id <= 30; ++id) {
      model[id] = {id % 3 == 0 ? "a" : "b", (id * 7) % 11};
      Order order = makeOrder(id, model[id].first, model[id].second);
      if (id % 4 == 0) order.set_email("e" + std::to_string(id));
      store.saveRecord(order);
    }
  });
  // The ids whose price has rank [low, high) among `group`'s distinct prices (all: no group).
  auto expectedIds = [&](std::optional<std::string> group, int64_t low, int64_t high) {
    std::set<int64_t> prices;
    for (const auto& [id, r] : model) {
      if (!group || r.first == *group) prices.insert(r.second);
    }
    std::vector<int64_t> sorted(prices.begin(), prices.end());
    std::vector<std::pair<int64_t, int64_t>> rows;  // (price, id)
    for (const auto& [id, r] : model) {
      if (group && r.first != *group) continue;
      const auto rank = std::lower_bound(sorted.begin(), sorted.end(), r.second) - sorted.begin();
      if (rank >= low && rank < high) rows.emplace_back(r.second, id);
    }
    std::sort(rows.begin(), rows.end());
    std::vector<int64_t> ids;
    for (const auto& row : rows) ids.push_back(row.second);
    return ids;
  };
  auto run = [&](const RecordQuery& query, std::string* explain = nullptr) {
    return withStore([&](RecordStore& store) {
      std::shared_ptr<const RecordQueryPlan> plan = store.planQuery(query);
      if (explain != nullptr) *explain = plan->explain();
      std::vector<int64_t> ids;
      auto cursor = store.executeQuery(*plan, std::nullopt, ExecuteProperties{});
      for (const QueriedRecord& row : asList(*cursor).values)
        ids.push_back(row.primaryKey.getInt(0));
      return ids;
    });
  };
  std::string explain;
  EXPECT_EQ(run({.recordTypes = {"Order"}, .filter = Query::rank("price").lessThan(3)}, &explain),
            expectedIds(std::nullopt, 0, 3));
  EXPECT_EQ(explain, "Index(LB ([null],[3]) BY_RANK)");
  EXPECT_EQ(
      run({.recordTypes = {"Order"}, .filter = Query::rank("price").equalsValue(4)}, &explain),
      expectedIds(std::nullopt, 4, 5));
  EXPECT_EQ(explain, "Index(LB [[4],[4]] BY_RANK)");
  EXPECT_EQ(run({.recordTypes = {"Order"}, .filter = Query::rank("price").greaterThanOrEquals(8)}),
            expectedIds(std::nullopt, 8, 100));
  // Within a group: the group's equality bounds the scan.
  const QueryComponent inGroup =
      Query::allOf(Query::field("name").equalsValue("a"),
                   Query::rank(field("price").groupBy(field("name"))).lessThanOrEquals(1));
  EXPECT_EQ(run({.recordTypes = {"Order"}, .filter = inGroup}, &explain), expectedIds("a", 0, 2));
  EXPECT_EQ(explain, "Index(LBG ([a, null],[a, 1]] BY_RANK)");
  // The rest of the filter over the scan, and a parameter for the rank.
  const QueryComponent withRest = Query::allOf(Query::rank("price").lessThan(parameter("top")),
                                               Query::field("email").notNull());
  std::vector<int64_t> withEmail;
  for (int64_t id : expectedIds(std::nullopt, 0, 5)) {
    if (id % 4 == 0) withEmail.push_back(id);
  }
  withStore([&](RecordStore& store) {
    std::shared_ptr<const RecordQueryPlan> plan =
        store.planQuery({.recordTypes = {"Order"}, .filter = withRest});
    EXPECT_EQ(plan->explain(), "Index(LB [[LESS_THAN $top]] BY_RANK) | email NOT_NULL");
    Bindings bindings;
    bindings.set("top", 5);
    std::vector<int64_t> ids;
    auto cursor = store.executeQuery(*plan, bindings, std::nullopt, ExecuteProperties{});
    for (const QueriedRecord& row : asList(*cursor).values) ids.push_back(row.primaryKey.getInt(0));
    EXPECT_EQ(ids, withEmail);
  });
  // Sorted by the score it ranks, descending.
  std::vector<int64_t> top = expectedIds(std::nullopt, 0, 2);
  std::vector<int64_t> reversed = run({.recordTypes = {"Order"},
                                       .filter = Query::rank("price").lessThan(2),
                                       .sort = field("price"),
                                       .sortReverse = true},
                                      &explain);
  EXPECT_EQ(explain, "Index(LB ([null],[2]) BY_RANK REVERSE)");
  std::vector<int64_t> topPrices, reversedPrices;
  for (int64_t id : top) topPrices.push_back(model[id].second);
  for (int64_t id : reversed) reversedPrices.push_back(model[id].second);
  std::reverse(topPrices.begin(), topPrices.end());
  EXPECT_EQ(reversedPrices, topPrices);

  // Two bounds of one rank, one scan.
  EXPECT_EQ(run({.recordTypes = {"Order"},
                 .filter = Query::allOf(Query::rank("price").greaterThanOrEquals(2),
                                        Query::rank("price").lessThan(5))},
                &explain),
            expectedIds(std::nullopt, 2, 5));
  EXPECT_EQ(explain, "Index(LB [[2],[5]) BY_RANK)");
  // Without a rank comparison a rank index is a value index on its whole key.
  EXPECT_EQ(run({.recordTypes = {"Order"},
                 .filter = Query::field("price").lessThan(3),
                 .allowedIndexes = std::vector<std::string>{"LB"}},
                &explain)
                .size(),
            static_cast<size_t>(std::count_if(model.begin(), model.end(), [](const auto& entry) {
              return entry.second.second < 3;
            })));
  EXPECT_EQ(explain, "Index(LB ([null],[3]))");

  // What no rank scan answers.
  auto unplannable = [&](const RecordQuery& query) {
    withStore([&](RecordStore& store) {
      EXPECT_THROW(store.planQuery(query), UnplannableQueryException)
          << (query.filter ? query.filter->toString() : "");
    });
  };
  unplannable({.recordTypes = {"Order"}, .filter = Query::rank("name").lessThan(3)});
  unplannable({.recordTypes = {"Order"},
               .filter = Query::rank(field("price").groupBy(field("name"))).lessThan(3)});
  unplannable({.recordTypes = {"Order"},
               .filter = Query::anyOf(Query::rank("price").lessThan(3),
                                      Query::field("name").equalsValue("a"))});
  unplannable({.recordTypes = {"Order"},
               .filter = Query::rank("price").lessThan(3),
               .sort = field("name")});
  unplannable({.recordTypes = {"Order"},
               .filter = Query::allOf(Query::rank("price").equalsValue(3),
                                      Query::rank("price").lessThan(5))});
  unplannable(
      {.recordTypes = {"Order"},
       .filter = Query::allOf(Query::rank("price").lessThan(3), Query::rank("name").lessThan(5))});
  withStore([&](RecordStore& store) {
    EXPECT_THROW(
        store.planQuery({.recordTypes = {"Order"}, .filter = Query::rank("nope").lessThan(3)}),
        InvalidQueryException);
    store.markIndexWriteOnly("LB");
    EXPECT_THROW(
        store.planQuery({.recordTypes = {"Order"}, .filter = Query::rank("price").lessThan(3)}),
        UnplannableQueryException);
  });
  EXPECT_EQ(Query::rank("price").lessThan(3).toString(), "rank(field(price)) LESS_THAN 3");
  EXPECT_THROW(Query::rank("price").lessThan(3).eval(nullptr, Bindings{}), RecordCoreException);
}

TEST_F(RankIndexTest, AUniqueRankIndexRefusesASecondRecordWithAScore) {
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.addIndex("Order", Index("LB", field("price"), Index::kRank,
                                  {{std::string(Index::kUniqueOption), "true"}}));
  metaData = builder.build();
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 10));
    store.saveRecord(makeOrder(2, "a", 20));
  });
  EXPECT_THROW(withStore([](RecordStore& store) { store.saveRecord(makeOrder(3, "a", 10)); }),
               RecordIndexUniquenessViolation);
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(2, "a", 5));  // a record moving to a free score
    EXPECT_EQ(store.rank("LB", makeOrder(2, "a", 5)), 0);
    EXPECT_EQ(store.rank("LB", makeOrder(1, "a", 10)), 1);
  });
  EXPECT_TRUE(check().ok()) << check().summary();
}

TEST_F(RankIndexTest, DeleteRecordsWhereClearsWholeGroups) {
  // Grouped by the primary key's first column, so a primary-key prefix names whole groups.
  RecordMetaDataBuilder builder(Order::descriptor()->file());
  builder.removeIndex("Order$name");
  builder.removeIndex("Order$price");
  builder.removeIndex("Order$email");
  builder.addIndex("Order", Index("by_id", field("price").groupBy(field("id")), Index::kRank));
  metaData = builder.build();
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 10));
    store.saveRecord(makeOrder(2, "a", 20));
  });
  withStore([](RecordStore& store) { store.deleteRecordsWhere(fdb::Tuple{1}); });
  EXPECT_TRUE(keysWithPrefix(fdb::Tuple{3, "by_id", 1}.pack()).empty());
  EXPECT_FALSE(keysWithPrefix(fdb::Tuple{3, "by_id", 2}.pack()).empty());
  EXPECT_TRUE(keysWithPrefix(fdb::Tuple{2, "by_id", 1}.pack()).empty());
  withStore([](RecordStore& store) {
    EXPECT_EQ(store.scoreForRank("by_id", fdb::Tuple{1}, 0), std::nullopt);
    EXPECT_EQ(store.scoreForRank("by_id", fdb::Tuple{2}, 0), fdb::Tuple{20});
  });
  EXPECT_TRUE(check().ok()) << check().summary();
}

TEST_F(RankIndexTest, AggregatesOverOneGroup) {
  useIndexes();
  withStore([](RecordStore& store) {
    store.saveRecord(makeOrder(1, "a", 10));
    store.saveRecord(makeOrder(2, "a", 10));
    store.saveRecord(makeOrder(3, "a", 30));
    store.saveRecord(makeOrder(4, "b", 5));
    RecordStore::State& state = RecordStoreAccess::state(store);
    IndexMaintainer& maintainer = state.maintainer(state.storeIndex("LBG"));
    const KeyExpression root = state.metaData.index("LBG").rootExpression();
    auto one = [](const fdb::Tuple& t) { return TupleRange::betweenInclusive(t, t); };
    EXPECT_TRUE(maintainer.canEvaluateAggregate({"count_distinct", root}));
    EXPECT_FALSE(maintainer.canEvaluateAggregate({"sum", root}));
    EXPECT_EQ(maintainer.evaluateAggregate({"count_distinct", root}, one(fdb::Tuple{"a"}),
                                           IsolationLevel::kSerializable),
              fdb::Tuple{2});
    EXPECT_EQ(maintainer.evaluateAggregate({"score_for_rank", root}, one(fdb::Tuple{"a", 1}),
                                           IsolationLevel::kSerializable),
              fdb::Tuple{30});
    EXPECT_EQ(maintainer.evaluateAggregate({"rank_for_score", root}, one(fdb::Tuple{"a", 20}),
                                           IsolationLevel::kSerializable),
              fdb::Tuple{1});
    EXPECT_THROW(maintainer.evaluateAggregate({"sum", root}, one(fdb::Tuple{"a"}),
                                              IsolationLevel::kSerializable),
                 RecordCoreArgumentException);
  });
}

}  // namespace
}  // namespace rl::store_test
