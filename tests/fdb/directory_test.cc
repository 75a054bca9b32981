#include "fdb/directory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "fdb/database.h"
#include "fdb/error.h"

namespace fdb {
namespace {

// ---- Hand-derived layout (docs/directory.md) ----------------------------------------------------
// Hex of the keys the Python/Java/Go bindings write for the default directory layer
// (node subspace "\xfe", content subspace empty).
//   root node       = "\xfe" + pack((b"\xfe",))       = fe 01 fe 00
//   node(P)         = "\xfe" + pack((P,))             = fe 01 <P, 0x00 escaped as 00 ff> 00
//   node[0][name]   = node + 14 02 <utf-8 name> 00
//   node[b"layer"]  = node + 01 6c61796572 00
//   root[b"version"]= root + 01 76657273696f6e 00
//   root[b"hca"]    = root + 01 686361 00; counters = hca + 14; recent = hca + 15 01
const std::string kRoot = "fe01fe00";
const std::string kVersionKey = kRoot + "0176657273696f6e00";
const std::string kVersion100 = "010000000000000000000000";
const std::string kHca = kRoot + "0168636100";
const std::string kCounters = kHca + "14";
const std::string kRecent = kHca + "1501";
const std::string kLayerSuffix = "016c6179657200";

std::string nodeHex(const std::string& prefixHex) { return "fe01" + prefixHex + "00"; }
std::string layerKeyHex(const std::string& prefixHex) { return nodeHex(prefixHex) + kLayerSuffix; }
std::string subdirKeyHex(const std::string& nodeKeyHex, std::string_view name) {
  return nodeKeyHex + "1402" + toHex(name) + "00";
}
// 8-byte little-endian count.
std::string countHex(uint64_t n) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return toHex(out);
}

using HexRows = std::vector<std::pair<std::string, std::string>>;

HexRows rawRows(Database& db, std::string_view begin, std::string_view end) {
  return db.run([&](Transaction& tr) {
    HexRows rows;
    for (const KeyValue& kv : tr.getRangeAll(KeyRange{Bytes(begin), Bytes(end)})) {
      rows.emplace_back(toHex(kv.key), toHex(kv.value));
    }
    return rows;
  });
}

HexRows sorted(HexRows rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

void setHex(Database& db, const HexRows& rows) {
  db.run([&](Transaction& tr) {
    for (const auto& [key, value] : rows) tr.set(fromHex(key), fromHex(value));
  });
}

// A random source that returns scripted candidates and records the windows it was asked for.
struct ScriptedRandom {
  std::shared_ptr<std::deque<int64_t>> values = std::make_shared<std::deque<int64_t>>();
  std::shared_ptr<std::vector<std::pair<int64_t, int64_t>>> calls =
      std::make_shared<std::vector<std::pair<int64_t, int64_t>>>();

  ScriptedRandom() = default;
  ScriptedRandom(std::initializer_list<int64_t> script)
      : values(std::make_shared<std::deque<int64_t>>(script)) {}
  DirectoryLayer::RandomSource source() const {
    return [values = values, calls = calls](int64_t lo, int64_t hi) {
      calls->emplace_back(lo, hi);
      if (values->empty()) {
        ADD_FAILURE() << "random source script exhausted";
        return lo;
      }
      int64_t v = values->front();
      values->pop_front();
      return v;
    };
  }
};

DirectoryLayer scriptedLayer(const ScriptedRandom& random, bool manualPrefixes = false) {
  return DirectoryLayer(Subspace::fromBytes("\xfe"), Subspace(), manualPrefixes, random.source());
}

template <typename F>
void expectError(int code, F&& fn) {
  try {
    fn();
    ADD_FAILURE() << "expected fdb::Error " << code << " (" << errorName(code) << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
  }
}

class DirectoryTest : public ::testing::Test {
 protected:
  Database db = Database::open("memory:");
  DirectoryLayer directories{Subspace::fromBytes("\xfe"), Subspace(), false,
                             DirectoryLayer::seededRandom(7)};

  DirectorySubspace createOrOpen(const DirectoryPath& path, std::string_view layer = {}) {
    return db.run([&](Transaction& tr) { return directories.createOrOpen(tr, path, layer); });
  }
  DirectorySubspace open(const DirectoryPath& path, std::string_view layer = {}) {
    return db.run([&](Transaction& tr) { return directories.open(tr, path, layer); });
  }
  std::vector<std::string> list(const DirectoryPath& path = {}) {
    return db.run([&](Transaction& tr) { return directories.list(tr, path); });
  }
  bool exists(const DirectoryPath& path) {
    return db.run([&](Transaction& tr) { return directories.exists(tr, path); });
  }
};

// ---- Golden bytes: reading what another binding wrote -------------------------------------

TEST_F(DirectoryTest, GoldenOpensATreeWrittenByAnotherBinding) {
  // app -> \x15\x2a (allocator candidate 42), its children users (\x15\x07, layer
  // "\x01\x02bin"), a-second (\x15\x09) and é (\x15\x0b); zero -> \x16\x01\x00 (candidate 256,
  // whose 0x00 byte is escaped in node keys); part -> \x15\x10, a partition holding inner
  // (\x15\x10\x15\x03).
  const std::string partNode =
      "1510fe"
      "011510fe00";  // P+\xfe + pack((P+\xfe,))
  setHex(db, {
                 {kVersionKey, kVersion100},
                 {subdirKeyHex(kRoot, "app"), "152a"},
                 {subdirKeyHex(kRoot, "zero"), "160100"},
                 {subdirKeyHex(kRoot, "part"), "1510"},
                 {layerKeyHex("152a"), ""},
                 {subdirKeyHex(nodeHex("152a"), "users"), "1507"},
                 {subdirKeyHex(nodeHex("152a"), "a-second"), "1509"},
                 {subdirKeyHex(nodeHex("152a"), "\xc3\xa9"), "150b"},
                 {layerKeyHex("1507"), "0102" + toHex("bin")},
                 {layerKeyHex("1509"), ""},
                 {layerKeyHex("150b"), ""},
                 {layerKeyHex("1601"
                              "00ff"),
                  ""},
                 {layerKeyHex("1510"), toHex("partition")},
                 {partNode + "0176657273696f6e00", kVersion100},
                 {subdirKeyHex(partNode, "inner"), "15101503"},
                 {"1510fe"
                  "0115101503"
                  "00" +
                      kLayerSuffix,
                  ""},
             });

  DirectorySubspace app = open({"app"});
  EXPECT_EQ(toHex(app.key()), "152a");
  EXPECT_EQ(app.path(), (DirectoryPath{"app"}));
  EXPECT_EQ(app.layer(), "");
  EXPECT_EQ(toHex(app.pack(Tuple{1})),
            "152a"
            "1501");

  DirectorySubspace users = open({"app", "users"},
                                 "\x01\x02"
                                 "bin");
  EXPECT_EQ(toHex(users.key()), "1507");
  EXPECT_EQ(users.layer(),
            "\x01\x02"
            "bin");
  EXPECT_EQ(users.path(), (DirectoryPath{"app", "users"}));
  expectError(errors::kMismatchedLayer, [&] { open({"app", "users"}, "other"); });

  // Names in bytewise order of their packed form: "a-second" < "users" < "é".
  EXPECT_EQ(list({"app"}), (std::vector<std::string>{"a-second", "users", "\xc3\xa9"}));
  EXPECT_EQ(list(), (std::vector<std::string>{"app", "part", "zero"}));

  EXPECT_EQ(toHex(open({"zero"}).key()), "160100");

  DirectorySubspace part = open({"part"});
  EXPECT_TRUE(part.isPartition());
  EXPECT_EQ(toHex(part.prefix()), "1510");
  DirectorySubspace inner = open({"part", "inner"});
  EXPECT_EQ(toHex(inner.key()), "15101503");
  EXPECT_EQ(inner.path(), (DirectoryPath{"part", "inner"}));
  EXPECT_EQ(list({"part"}), (std::vector<std::string>{"inner"}));
  EXPECT_TRUE(exists({"part", "inner"}));
  EXPECT_FALSE(exists({"part", "missing"}));
}

// ---- Golden bytes: what this layer writes ---------------------------------------------------

TEST_F(DirectoryTest, GoldenWritesTheBindingsLayoutByteForByte) {
  ScriptedRandom random{42, 7, 3};
  DirectoryLayer layer = scriptedLayer(random);

  // One transaction: users' prefix is allocated first (42), then its missing parent app (7).
  db.run([&](Transaction& tr) { layer.create(tr, {"app", "users"}); });
  // Another: a child with a layer (3).
  db.run([&](Transaction& tr) { layer.create(tr, {"app", "blob"}, std::string("bin\x00x", 5)); });

  EXPECT_EQ(*random.calls, (std::vector<std::pair<int64_t, int64_t>>{{0, 64}, {0, 64}, {0, 64}}));
  HexRows expected = sorted({
      {kVersionKey, kVersion100},
      {kCounters + "14", countHex(3)},  // counters[0]: three allocations in window 0
      {kRecent + "1503", ""},
      {kRecent + "1507", ""},
      {kRecent + "152a", ""},
      {subdirKeyHex(kRoot, "app"), "1507"},
      {layerKeyHex("1507"), ""},
      {subdirKeyHex(nodeHex("1507"), "users"), "152a"},
      {subdirKeyHex(nodeHex("1507"), "blob"), "1503"},
      {layerKeyHex("152a"), ""},
      {layerKeyHex("1503"), toHex(std::string("bin\x00x", 5))},
  });
  EXPECT_EQ(rawRows(db, "\xfe", "\xff"), expected);
  // Nothing is written outside the node subspace.
  EXPECT_TRUE(rawRows(db, "", "\xfe").empty());

  // Spot-check two keys spelled out in full.
  EXPECT_EQ(subdirKeyHex(kRoot, "app"),
            "fe01fe00"
            "1402617070"
            "00");
  EXPECT_EQ(kCounters + "14",
            "fe01fe00"
            "0168636100"
            "14"
            "14");
}

TEST_F(DirectoryTest, GoldenManualPrefixAndPartitionLayout) {
  // Manual prefixes with 0x00 bytes, which node keys escape as 00 ff: m -> 05 00 7a (layer
  // "lay"), m/p -> 07 00 01 (a partition). Inside p, the partition's own allocator picks 5.
  ScriptedRandom random{5};
  DirectoryLayer layer = scriptedLayer(random, /*manualPrefixes=*/true);
  db.run([&](Transaction& tr) { layer.create(tr, {"m"}, "lay", Bytes("\x05\x00z", 3)); });
  db.run([&](Transaction& tr) {
    layer.create(tr, {"m", "p"}, "partition", Bytes("\x07\x00\x01", 3));
  });
  DirectorySubspace inner = db.run([&](Transaction& tr) {
    return layer.create(tr, {"m", "p", "inner"});
  });
  EXPECT_EQ(toHex(inner.key()),
            "070001"
            "1505");
  EXPECT_EQ(inner.path(), (DirectoryPath{"m", "p", "inner"}));
  EXPECT_EQ(*random.calls, (std::vector<std::pair<int64_t, int64_t>>{{0, 64}}));

  HexRows expected = sorted({
      {kVersionKey, kVersion100},
      {subdirKeyHex(kRoot, "m"), "05007a"},
      {layerKeyHex("0500ff7a"), toHex("lay")},
      {subdirKeyHex(nodeHex("0500ff7a"), "p"), "070001"},
      {layerKeyHex("0700ff01"), toHex("partition")},
  });
  EXPECT_EQ(rawRows(db, "\xfe", "\xff"), expected);

  // The partition: node subspace P + fe, root node = that + pack((P + fe,)).
  const std::string partRoot =
      "070001fe"
      "01"
      "0700ff01fe"
      "00";
  HexRows expectedPartition = sorted({
      {partRoot + "0176657273696f6e00", kVersion100},
      {partRoot + "0168636100"
                  "14"
                  "14",
       countHex(1)},
      {partRoot + "0168636100"
                  "1501"
                  "1505",
       ""},
      {subdirKeyHex(partRoot, "inner"), "0700011505"},
      {"070001fe"
       "01"
       "0700ff011505"
       "00" +
           kLayerSuffix,
       ""},
  });
  EXPECT_EQ(rawRows(db, fromHex("070001"), fromHex("070002")), expectedPartition);
}

// ---- The allocator --------------------------------------------------------------------------

TEST_F(DirectoryTest, AllocatorAdvancesTheWindowWhenHalfFull) {
  // 31 allocations fit in window [0, 64); the 32nd finds the count at 32 (= 64 / 2), moves to
  // [64, 128) and clears window 0's counter and recent candidates.
  ScriptedRandom random{};
  for (int i = 0; i < 31; ++i) random.values->push_back(i);
  random.values->push_back(100);
  DirectoryLayer layer = scriptedLayer(random);
  for (int i = 0; i < 32; ++i) {
    db.run([&](Transaction& tr) { layer.create(tr, {"d" + std::to_string(i)}); });
  }
  ASSERT_EQ(random.calls->size(), 32u);
  EXPECT_EQ(random.calls->at(30), (std::pair<int64_t, int64_t>{0, 64}));
  EXPECT_EQ(random.calls->at(31), (std::pair<int64_t, int64_t>{64, 128}));
  HexRows hca = rawRows(db, fromHex(kHca), strinc(fromHex(kHca)));
  EXPECT_EQ(hca, (HexRows{{kCounters + "1540", countHex(1)}, {kRecent + "1564", ""}}));
  DirectorySubspace last = open({"d31"});
  EXPECT_EQ(toHex(last.key()), "1564");
}

TEST_F(DirectoryTest, AllocatorRetriesACandidateAlreadyTaken) {
  ScriptedRandom random{9, 9, 9, 10};
  DirectoryLayer layer = scriptedLayer(random);
  db.run([&](Transaction& tr) { layer.create(tr, {"a"}); });
  // Same transaction: 9 is taken by its own earlier allocation.
  db.run([&](Transaction& tr) { EXPECT_EQ(toHex(layer.create(tr, {"b"}).key()), "150a"); });
  EXPECT_EQ(random.calls->size(), 4u);
}

TEST_F(DirectoryTest, AllocationsAreUniqueAndPrefixFree) {
  ScriptedRandom recorder{};
  auto seeded = DirectoryLayer::seededRandom(12345);
  DirectoryLayer layer(Subspace::fromBytes("\xfe"), Subspace(), false,
                       [&, calls = recorder.calls](int64_t lo, int64_t hi) {
                         calls->emplace_back(lo, hi);
                         return seeded(lo, hi);
                       });
  std::vector<Bytes> prefixes;
  for (int i = 0; i < 200; ++i) {
    prefixes.push_back(db.run(
        [&](Transaction& tr) { return layer.create(tr, {"dir" + std::to_string(i)}).key(); }));
  }
  std::set<Bytes> distinct(prefixes.begin(), prefixes.end());
  EXPECT_EQ(distinct.size(), prefixes.size());
  for (const Bytes& a : prefixes) {
    for (const Bytes& b : prefixes) {
      if (a != b) {
        EXPECT_FALSE(b.starts_with(a)) << toHex(a) << " prefixes " << toHex(b);
      }
    }
  }
  // Each 64-wide window hands out 31 candidates before it moves on; from 256 the window is
  // 1024 wide.
  std::map<int64_t, int> perWindow;
  for (const Bytes& prefix : prefixes) {
    int64_t candidate = Tuple::unpack(prefix).getInt(0);
    perWindow[candidate < 256 ? candidate / 64 * 64 : 256]++;
  }
  EXPECT_EQ(perWindow,
            (std::map<int64_t, int>{{0, 31}, {64, 31}, {128, 31}, {192, 31}, {256, 76}}));
  for (const auto& [lo, hi] : *recorder.calls) {
    EXPECT_EQ(hi - lo, lo < 255 ? 64 : 1024);
  }
  // Every directory reads back.
  for (int i = 0; i < 200; i += 37) {
    EXPECT_EQ(open({"dir" + std::to_string(i)}).key(), prefixes[i]);
  }
}

TEST_F(DirectoryTest, SeededRandomIsDeterministic) {
  auto a = DirectoryLayer::seededRandom(99);
  auto b = DirectoryLayer::seededRandom(99);
  for (int i = 0; i < 100; ++i) {
    int64_t x = a(64, 128);
    EXPECT_EQ(x, b(64, 128));
    EXPECT_GE(x, 64);
    EXPECT_LT(x, 128);
  }
}

TEST_F(DirectoryTest, ConcurrentCreatesWithTheSameCandidateConflict) {
  ScriptedRandom r0{1};
  db.run([&](Transaction& tr) { scriptedLayer(r0).createOrOpen(tr, {"init"}); });
  ScriptedRandom r1{50}, r2{50};
  DirectoryLayer l1 = scriptedLayer(r1), l2 = scriptedLayer(r2);
  Transaction t1 = db.createTransaction(), t2 = db.createTransaction();
  l1.create(t1, {"x"});
  l2.create(t2, {"y"});
  t1.commit().get();
  expectError(errors::kNotCommitted, [&] { t2.commit().get(); });
}

TEST_F(DirectoryTest, ConcurrentCreatesWithDifferentCandidatesBothCommit) {
  // Both see candidate 9 taken and then pick different ones; marking 9 again must not
  // conflict (NEXT_WRITE_NO_WRITE_CONFLICT_RANGE), nor must the shared counter (snapshot + ADD).
  ScriptedRandom r0{9};
  db.run([&](Transaction& tr) { scriptedLayer(r0).create(tr, {"init"}); });
  ScriptedRandom r1{9, 10}, r2{9, 11};
  DirectoryLayer l1 = scriptedLayer(r1), l2 = scriptedLayer(r2);
  Transaction t1 = db.createTransaction(), t2 = db.createTransaction();
  EXPECT_EQ(toHex(l1.create(t1, {"x"}).key()), "150a");
  EXPECT_EQ(toHex(l2.create(t2, {"y"}).key()), "150b");
  t1.commit().get();
  t2.commit().get();
  EXPECT_EQ(rawRows(db, fromHex(kCounters), strinc(fromHex(kCounters))),
            (HexRows{{kCounters + "14", countHex(3)}}));
  EXPECT_EQ(list(), (std::vector<std::string>{"init", "x", "y"}));
}

// ---- createOrOpen / open / create -----------------------------------------------------------

TEST_F(DirectoryTest, CreateOrOpenReturnsTheSameDirectory) {
  DirectorySubspace a = createOrOpen({"a"});
  DirectorySubspace again = createOrOpen({"a"});
  EXPECT_EQ(a.key(), again.key());
  EXPECT_EQ(open({"a"}).key(), a.key());
  EXPECT_TRUE(a.contains(a.pack(Tuple{"k"})));
  EXPECT_EQ(a.unpack(a.pack(Tuple{"k", 1})), (Tuple{"k", 1}));
  EXPECT_EQ(a.range(), Subspace::fromBytes(a.key()).range());
}

TEST_F(DirectoryTest, CreateMakesMissingParents) {
  DirectorySubspace z = createOrOpen({"x", "y", "z"});
  EXPECT_EQ(z.path(), (DirectoryPath{"x", "y", "z"}));
  EXPECT_TRUE(exists({"x"}));
  EXPECT_TRUE(exists({"x", "y"}));
  EXPECT_EQ(list({"x"}), (std::vector<std::string>{"y"}));
  EXPECT_EQ(open({"x", "y"}).layer(), "");
}

TEST_F(DirectoryTest, OpenMissingIsDirectoryDoesNotExist) {
  expectError(errors::kDirectoryDoesNotExist, [&] { open({"nope"}); });
  expectError(errors::kDirectoryDoesNotExist, [&] { open({"nope", "deeper"}); });
  // A failed open writes nothing, not even the version.
  EXPECT_TRUE(rawRows(db, "", "\xff").empty());
}

TEST_F(DirectoryTest, CreateExistingIsDirectoryAlreadyExists) {
  createOrOpen({"a"});
  expectError(errors::kDirectoryAlreadyExists,
              [&] { db.run([&](Transaction& tr) { directories.create(tr, {"a"}); }); });
}

TEST_F(DirectoryTest, LayerIsRecordedAndChecked) {
  DirectorySubspace a = createOrOpen({"a"}, "records");
  EXPECT_EQ(a.layer(), "records");
  EXPECT_EQ(open({"a"}).layer(), "records");  // an empty layer opens any
  EXPECT_EQ(open({"a"}, "records").layer(), "records");
  expectError(errors::kMismatchedLayer, [&] { open({"a"}, "other"); });
  expectError(errors::kMismatchedLayer, [&] { createOrOpen({"a"}, "other"); });
  createOrOpen({"b"});
  expectError(errors::kMismatchedLayer, [&] { open({"b"}, "records"); });
}

TEST_F(DirectoryTest, RootCannotBeOpened) {
  expectError(errors::kCannotOpenRootDirectory, [&] { createOrOpen({}); });
  expectError(errors::kCannotOpenRootDirectory, [&] { open({}); });
  expectError(errors::kCannotOpenRootDirectory,
              [&] { db.run([&](Transaction& tr) { directories.create(tr, {}); }); });
}

TEST_F(DirectoryTest, PrefixNotEmptyWhenKeysSitAtTheAllocatedPrefix) {
  db.run([](Transaction& tr) { tr.set(fromHex("152a01"), "squatter"); });
  ScriptedRandom random{42};
  DirectoryLayer layer = scriptedLayer(random);
  expectError(errors::kDirectoryPrefixNotEmpty,
              [&] { db.run([&](Transaction& tr) { layer.create(tr, {"a"}); }); });
}

TEST_F(DirectoryTest, AllocatedPrefixInsideAManualPrefixIsInUse) {
  ScriptedRandom random{42};
  DirectoryLayer layer = scriptedLayer(random, /*manualPrefixes=*/true);
  db.run([&](Transaction& tr) { layer.create(tr, {"manual"}, {}, Bytes("\x15")); });
  expectError(errors::kDirectoryPrefixInUse,
              [&] { db.run([&](Transaction& tr) { layer.create(tr, {"auto"}); }); });
}

TEST_F(DirectoryTest, ChildOperationsThroughADirectorySubspace) {
  DirectorySubspace app = createOrOpen({"app"});
  DirectorySubspace sub = db.run([&](Transaction& tr) { return app.createOrOpen(tr, {"sub"}); });
  EXPECT_EQ(sub.path(), (DirectoryPath{"app", "sub"}));
  EXPECT_EQ(db.run([&](Transaction& tr) { return app.list(tr); }),
            (std::vector<std::string>{"sub"}));
  EXPECT_TRUE(db.run([&](Transaction& tr) { return app.exists(tr, {"sub"}); }));
  EXPECT_EQ(db.run([&](Transaction& tr) { return app.open(tr, {"sub"}); }).key(), sub.key());
  DirectorySubspace moved = db.run([&](Transaction& tr) { return sub.moveTo(tr, {"top"}); });
  EXPECT_EQ(moved.path(), (DirectoryPath{"top"}));
  EXPECT_EQ(moved.key(), sub.key());
  db.run([&](Transaction& tr) { moved.remove(tr); });
  EXPECT_FALSE(exists({"top"}));
  EXPECT_FALSE(db.run([&](Transaction& tr) { return moved.removeIfExists(tr); }));
}

// ---- exists / list -----------------------------------------------------------------------------

TEST_F(DirectoryTest, ExistsAndListInKeyOrder) {
  EXPECT_TRUE(exists({}));
  EXPECT_EQ(list(), std::vector<std::string>{});
  for (const char* name : {"b", "a", "c", "\xc3\xa9", "B"}) createOrOpen({name});
  EXPECT_EQ(list(), (std::vector<std::string>{"B", "a", "b", "c", "\xc3\xa9"}));
  EXPECT_TRUE(exists({"a"}));
  EXPECT_FALSE(exists({"z"}));
  EXPECT_FALSE(exists({"a", "z"}));
  expectError(errors::kDirectoryDoesNotExist, [&] { list({"z"}); });
}

// ---- move --------------------------------------------------------------------------------------

TEST_F(DirectoryTest, MoveRewritesNamesAndKeepsThePrefix) {
  DirectorySubspace b = createOrOpen({"a", "b"});
  DirectorySubspace a = open({"a"});
  db.run([&](Transaction& tr) { tr.set(b.pack(Tuple{"k"}), "v"); });
  DirectorySubspace c = db.run([&](Transaction& tr) { return directories.move(tr, {"a"}, {"c"}); });
  EXPECT_EQ(c.path(), (DirectoryPath{"c"}));
  EXPECT_EQ(c.key(), a.key());
  EXPECT_FALSE(exists({"a"}));
  DirectorySubspace movedB = open({"c", "b"});
  EXPECT_EQ(movedB.key(), b.key());
  EXPECT_EQ(db.run([&](Transaction& tr) { return tr.get(movedB.pack(Tuple{"k"})).get(); }), "v");
  // Raw: the root's entry for "a" is gone, "c" names a's prefix.
  EXPECT_EQ(rawRows(db, fromHex(kRoot + "14"), fromHex(kRoot + "15")),
            (HexRows{{subdirKeyHex(kRoot, "c"), toHex(a.key())}}));

  // Into a deeper existing parent.
  createOrOpen({"d"});
  DirectorySubspace deep = db.run([&](Transaction& tr) {
    return directories.move(tr, {"c", "b"}, {"d", "e"});
  });
  EXPECT_EQ(deep.key(), b.key());
  EXPECT_EQ(list({"c"}), std::vector<std::string>{});
  EXPECT_EQ(list({"d"}), (std::vector<std::string>{"e"}));
}

TEST_F(DirectoryTest, MoveErrors) {
  createOrOpen({"a", "b"});
  createOrOpen({"c"});
  auto move = [&](const DirectoryPath& from, const DirectoryPath& to) {
    db.run([&](Transaction& tr) { directories.move(tr, from, to); });
  };
  expectError(errors::kInvalidDestinationDirectory, [&] { move({"a"}, {"a", "x"}); });
  expectError(errors::kInvalidDestinationDirectory, [&] { move({"a"}, {"a"}); });
  expectError(errors::kCannotModifyRootDirectory, [&] { move({}, {"x"}); });
  expectError(errors::kCannotModifyRootDirectory, [&] { move({"a"}, {}); });
  expectError(errors::kDirectoryDoesNotExist, [&] { move({"missing"}, {"x"}); });
  expectError(errors::kDirectoryAlreadyExists, [&] { move({"a"}, {"c"}); });
  expectError(errors::kParentDirectoryDoesNotExist, [&] { move({"a"}, {"nope", "x"}); });
  // Nothing changed.
  EXPECT_EQ(list(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(list({"a"}), (std::vector<std::string>{"b"}));
}

// ---- remove ------------------------------------------------------------------------------------

TEST_F(DirectoryTest, RemoveClearsContentsSubdirectoriesAndNodes) {
  DirectorySubspace a = createOrOpen({"a"});
  DirectorySubspace b = createOrOpen({"a", "b"});
  DirectorySubspace c = createOrOpen({"a", "b", "c"}, "lay");
  DirectorySubspace sibling = createOrOpen({"s"});
  db.run([&](Transaction& tr) {
    for (const DirectorySubspace* d : {&a, &b, &c, &sibling}) tr.set(d->pack(Tuple{1}), "x");
  });
  HexRows hcaBefore = rawRows(db, fromHex(kHca), strinc(fromHex(kHca)));

  db.run([&](Transaction& tr) { directories.remove(tr, {"a"}); });

  EXPECT_FALSE(exists({"a"}));
  EXPECT_EQ(list(), (std::vector<std::string>{"s"}));
  for (const DirectorySubspace* d : {&a, &b, &c}) {
    EXPECT_TRUE(rawRows(db, d->key(), strinc(d->key())).empty()) << toHex(d->key());
    Bytes node = fromHex(nodeHex(toHex(d->key())));
    EXPECT_TRUE(rawRows(db, node, strinc(node)).empty()) << toHex(node);
  }
  EXPECT_EQ(db.run([&](Transaction& tr) { return tr.get(sibling.pack(Tuple{1})).get(); }), "x");
  // What remains under the node subspace: version, the allocator, and s.
  HexRows expected = hcaBefore;
  expected.emplace_back(kVersionKey, kVersion100);
  expected.emplace_back(subdirKeyHex(kRoot, "s"), toHex(sibling.key()));
  expected.emplace_back(layerKeyHex(toHex(sibling.key())), "");
  EXPECT_EQ(rawRows(db, "\xfe", "\xff"), sorted(expected));

  expectError(errors::kDirectoryDoesNotExist,
              [&] { db.run([&](Transaction& tr) { directories.remove(tr, {"a"}); }); });
  EXPECT_FALSE(db.run([&](Transaction& tr) { return directories.removeIfExists(tr, {"a"}); }));
  EXPECT_TRUE(db.run([&](Transaction& tr) { return directories.removeIfExists(tr, {"s"}); }));
  expectError(errors::kCannotModifyRootDirectory,
              [&] { db.run([&](Transaction& tr) { directories.remove(tr, {}); }); });
}

// ---- partitions --------------------------------------------------------------------------------

TEST_F(DirectoryTest, PartitionHasItsOwnNodeSpaceAndIsNoSubspace) {
  DirectorySubspace p = createOrOpen({"p"}, "partition");
  ASSERT_TRUE(p.isPartition());
  EXPECT_EQ(p.directoryLayer().nodeSubspace().key(), p.prefix() + "\xfe");
  EXPECT_EQ(p.directoryLayer().contentSubspace().key(), p.prefix());
  EXPECT_EQ(p.directoryLayer().path(), (DirectoryPath{"p"}));
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.key(); });
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.pack(Tuple{1}); });
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.range(); });
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.unpack(p.prefix()); });
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.contains(p.prefix()); });
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.subspace(Tuple{1}); });
  expectError(errors::kCannotUsePartitionAsSubspace, [&] { p.asSubspace(); });

  DirectorySubspace a = createOrOpen({"p", "a"});
  DirectorySubspace b = db.run([&](Transaction& tr) { return p.createOrOpen(tr, {"b"}); });
  EXPECT_EQ(a.path(), (DirectoryPath{"p", "a"}));
  EXPECT_EQ(b.path(), (DirectoryPath{"p", "b"}));
  EXPECT_TRUE(a.key().starts_with(p.prefix()));
  EXPECT_TRUE(b.key().starts_with(p.prefix()));
  EXPECT_EQ(list({"p"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(db.run([&](Transaction& tr) { return p.list(tr); }),
            (std::vector<std::string>{"a", "b"}));
  // The children are recorded in the partition's node space, not the top-level one.
  Bytes partitionRoot = p.prefix() + "\xfe" + Tuple{ByteString{p.prefix() + "\xfe"}}.pack();
  EXPECT_EQ(rawRows(db, partitionRoot + "\x14", partitionRoot + "\x15"),
            (HexRows{{toHex(partitionRoot) + "1402" + toHex("a") + "00", toHex(a.key())},
                     {toHex(partitionRoot) + "1402" + toHex("b") + "00", toHex(b.key())}}));
  EXPECT_EQ(rawRows(db, fromHex(kRoot + "14"), fromHex(kRoot + "15")),
            (HexRows{{subdirKeyHex(kRoot, "p"), toHex(p.prefix())}}));
  EXPECT_EQ(open({"p", "a"}).key(), a.key());
  EXPECT_TRUE(exists({"p", "b"}));
}

TEST_F(DirectoryTest, PartitionMovesStayInside) {
  createOrOpen({"p"}, "partition");
  createOrOpen({"q"}, "partition");
  DirectorySubspace a = createOrOpen({"p", "a"});
  createOrOpen({"top"});
  auto move = [&](const DirectoryPath& from, const DirectoryPath& to) {
    return db.run([&](Transaction& tr) { return directories.move(tr, from, to); });
  };
  expectError(errors::kCannotMoveDirectoryBetweenPartitions, [&] { move({"p", "a"}, {"b"}); });
  expectError(errors::kCannotMoveDirectoryBetweenPartitions, [&] { move({"top"}, {"p", "top"}); });
  expectError(errors::kCannotMoveDirectoryBetweenPartitions, [&] { move({"p", "a"}, {"q", "a"}); });
  expectError(errors::kCannotMoveDirectoryBetweenPartitions, [&] {
    db.run([&](Transaction& tr) { a.moveTo(tr, {"top", "a"}); });
  });
  DirectorySubspace moved = move({"p", "a"}, {"p", "c"});
  EXPECT_EQ(moved.path(), (DirectoryPath{"p", "c"}));
  EXPECT_EQ(moved.key(), a.key());
  EXPECT_EQ(list({"p"}), (std::vector<std::string>{"c"}));
  // The partition itself moves within its parent.
  DirectorySubspace renamed = move({"p"}, {"r"});
  EXPECT_TRUE(renamed.isPartition());
  EXPECT_EQ(open({"r", "c"}).key(), a.key());
}

TEST_F(DirectoryTest, PartitionRefusesManualPrefixes) {
  DirectoryLayer manual(Subspace::fromBytes("\xfe"), Subspace(), true,
                        DirectoryLayer::seededRandom(1));
  db.run([&](Transaction& tr) { manual.create(tr, {"p"}, "partition"); });
  expectError(errors::kPrefixInPartition, [&] {
    db.run([&](Transaction& tr) { manual.create(tr, {"p", "x"}, {}, Bytes("\x01")); });
  });
}

TEST_F(DirectoryTest, RemovingAPartitionClearsEverythingInside) {
  DirectorySubspace p = createOrOpen({"p"}, "partition");
  DirectorySubspace a = createOrOpen({"p", "a"});
  db.run([&](Transaction& tr) { tr.set(a.pack(Tuple{1}), "x"); });
  db.run([&](Transaction& tr) { directories.remove(tr, {"p", "a"}); });
  EXPECT_FALSE(exists({"p", "a"}));
  EXPECT_TRUE(exists({"p"}));
  EXPECT_TRUE(rawRows(db, a.key(), strinc(a.key())).empty());
  db.run([&](Transaction& tr) { p.remove(tr); });  // removes the partition itself
  EXPECT_FALSE(exists({"p"}));
  EXPECT_TRUE(rawRows(db, p.prefix(), strinc(p.prefix())).empty());
}

// ---- version metadata --------------------------------------------------------------------------

TEST_F(DirectoryTest, VersionIsWrittenOnFirstWriteOnly) {
  EXPECT_FALSE(exists({"a"}));
  EXPECT_EQ(list(), std::vector<std::string>{});
  EXPECT_TRUE(rawRows(db, "", "\xff").empty());
  createOrOpen({"a"});
  EXPECT_EQ(db.run([&](Transaction& tr) { return tr.get(fromHex(kVersionKey)).get(); }),
            fromHex(kVersion100));
}

TEST_F(DirectoryTest, NewerMajorVersionIsRefused) {
  createOrOpen({"a"});
  setHex(db, {{kVersionKey, "020000000000000000000000"}});
  expectError(errors::kIncompatibleDirectoryVersion, [&] { open({"a"}); });
  expectError(errors::kIncompatibleDirectoryVersion, [&] { list(); });
  expectError(errors::kIncompatibleDirectoryVersion, [&] { exists({"a"}); });
  expectError(errors::kIncompatibleDirectoryVersion, [&] { createOrOpen({"b"}); });
}

TEST_F(DirectoryTest, NewerMinorVersionIsReadOnly) {
  DirectorySubspace a = createOrOpen({"a"});
  setHex(db, {{kVersionKey, "010000000100000000000000"}});
  EXPECT_EQ(open({"a"}).key(), a.key());
  EXPECT_EQ(createOrOpen({"a"}).key(), a.key());  // opening is a read
  EXPECT_EQ(list(), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(exists({"a"}));
  expectError(errors::kIncompatibleDirectoryVersion, [&] { createOrOpen({"b"}); });
  expectError(errors::kIncompatibleDirectoryVersion,
              [&] { db.run([&](Transaction& tr) { directories.remove(tr, {"a"}); }); });
  expectError(errors::kIncompatibleDirectoryVersion,
              [&] { db.run([&](Transaction& tr) { directories.move(tr, {"a"}, {"b"}); }); });
  // Newer patch versions are fine.
  setHex(db, {{kVersionKey, "010000000000000007000000"}});
  createOrOpen({"b"});
}

TEST_F(DirectoryTest, MalformedVersionIsInvalidMetadata) {
  setHex(db, {{kVersionKey, "0100"}});
  expectError(errors::kInvalidDirectoryLayerMetadata, [&] { exists({"a"}); });
}

// ---- manual prefixes ---------------------------------------------------------------------------

TEST_F(DirectoryTest, ManualPrefixesOnlyWhenEnabled) {
  expectError(errors::kManualPrefixesNotEnabled, [&] {
    db.run([&](Transaction& tr) { directories.create(tr, {"m"}, {}, Bytes("\x05")); });
  });
  DirectoryLayer manual(Subspace::fromBytes("\xfe"), Subspace(), true,
                        DirectoryLayer::seededRandom(1));
  auto create = [&](const DirectoryPath& path, std::string_view prefix) {
    return db.run([&](Transaction& tr) { return manual.create(tr, path, {}, Bytes(prefix)); });
  };
  DirectorySubspace m = create({"m"},
                               "\x05"
                               "abc");
  EXPECT_EQ(m.key(),
            "\x05"
            "abc");
  EXPECT_EQ(db.run([&](Transaction& tr) { return manual.open(tr, {"m"}); }).key(), m.key());
  expectError(errors::kDirectoryPrefixInUse, [&] {
    create({"n"},
           "\x05"
           "ab");
  });  // contains m
  expectError(errors::kDirectoryPrefixInUse, [&] {
    create({"n"},
           "\x05"
           "abcd");
  });  // inside m
  expectError(errors::kDirectoryPrefixInUse, [&] {
    create({"n"},
           "\x05"
           "abc");
  });  // equal
  expectError(errors::kDirectoryPrefixInUse, [&] {
    create({"n"},
           "\xfe"
           "x");
  });  // node space
  expectError(errors::kDirectoryPrefixInUse, [&] { create({"n"}, ""); });
  EXPECT_EQ(create({"n"},
                   "\x05"
                   "abd")
                .key(),
            "\x05"
            "abd");
}

}  // namespace
}  // namespace fdb
