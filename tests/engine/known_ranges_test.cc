// KnownRanges: the pieces FoundationDB's snapshot cache would hold, checked on cases worked out
// by hand and on random inserts against a plain map that adds every insert at once (what the
// object defers until a lookup, and the order it adds them in, must not show).
//
//   RL_KNOWN_RANGES_SEED=<n>   base seed of the random sequences
#include "engine/known_ranges.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace fdb::engine {
namespace {

using Pieces = std::vector<std::pair<std::string, std::string>>;

Pieces piecesOf(const KnownRanges& known) {
  Pieces pieces;
  for (std::optional<KnownRanges::Piece> piece = known.firstBeginningAfter("", true); piece;
       piece = known.firstBeginningAfter(piece->begin, false)) {
    pieces.emplace_back(piece->begin, piece->end);
  }
  return pieces;
}

std::string keyAfter(const std::string& key) { return key + std::string(1, '\0'); }

TEST(KnownRanges, StartsEmpty) {
  KnownRanges known;
  EXPECT_TRUE(known.empty());
  EXPECT_EQ(known.pieceCount(), 0u);
  EXPECT_FALSE(known.containing("a"));
  EXPECT_FALSE(known.touches("", "\xff"));
}

TEST(KnownRanges, TouchingPiecesStayApart) {
  KnownRanges known;
  known.insert("a", "c");
  known.insert("c", "e");
  EXPECT_EQ(piecesOf(known), (Pieces{{"a", "c"}, {"c", "e"}}));
}

TEST(KnownRanges, RangeAbsorbsPiecesInsideIt) {
  KnownRanges known;
  known.insert("b", "c");
  known.insertKey("d");
  known.insert("a", "f");
  EXPECT_EQ(piecesOf(known), (Pieces{{"a", "f"}}));
}

// A piece the new range only overlaps keeps its part; the new piece takes the rest.
TEST(KnownRanges, OverlappedPiecesKeepTheirPart) {
  KnownRanges known;
  known.insert("a", "c");
  known.insert("e", "g");
  known.insert("b", "f");
  EXPECT_EQ(piecesOf(known), (Pieces{{"a", "c"}, {"c", "e"}, {"e", "g"}}));
}

// Unless it begins where the new range begins: then the new piece replaces it.
TEST(KnownRanges, RangeFromAPieceBeginReplacesIt) {
  KnownRanges known;
  known.insert("a", "c");
  known.insert("a", "e");
  EXPECT_EQ(piecesOf(known), (Pieces{{"a", "e"}}));
}

TEST(KnownRanges, KeyIsItsOwnPieceUnlessKnown) {
  KnownRanges known;
  known.insert("a", "c");
  known.insertKey("b");
  known.insertKey("m");
  known.insertKey("m");
  EXPECT_EQ(piecesOf(known), (Pieces{{"a", "c"}, {"m", keyAfter("m")}}));
  EXPECT_FALSE(known.containing(keyAfter("m")));
}

// A key read before a range that ends on it, or after one that begins after it, leaves the
// range's bounds alone.
TEST(KnownRanges, KeyNeverMovesARangeBound) {
  KnownRanges keyFirst;
  keyFirst.insertKey("c");
  keyFirst.insert("a", "c");
  keyFirst.insert(keyAfter("c"), "e");
  KnownRanges keyLast;
  keyLast.insert("a", "c");
  keyLast.insert(keyAfter("c"), "e");
  keyLast.insertKey("c");
  const Pieces expected{{"a", "c"}, {"c", keyAfter("c")}, {keyAfter("c"), "e"}};
  EXPECT_EQ(piecesOf(keyFirst), expected);
  EXPECT_EQ(piecesOf(keyLast), expected);
}

TEST(KnownRanges, EmptyRangeAddsNothing) {
  KnownRanges known;
  known.insert("c", "c");
  known.insert("d", "c");
  EXPECT_TRUE(known.empty());
  EXPECT_EQ(known.pieceCount(), 0u);
}

TEST(KnownRanges, EmptyKeyIsAKey) {
  KnownRanges known;
  known.insertKey("");
  EXPECT_EQ(piecesOf(known), (Pieces{{"", std::string(1, '\0')}}));
}

TEST(KnownRanges, Lookups) {
  KnownRanges known;
  known.insert("b", "d");
  known.insert("f", "h");
  ASSERT_TRUE(known.containing("b"));
  EXPECT_EQ(known.containing("c")->end, "d");
  EXPECT_FALSE(known.containing("d"));
  EXPECT_EQ(known.endingAtOrAfter("d")->begin, "b");
  EXPECT_FALSE(known.endingAtOrAfter("b"));
  EXPECT_FALSE(known.endingAtOrAfter("e"));
  EXPECT_EQ(known.lastEndingAtOrBefore("g")->begin, "b");
  EXPECT_EQ(known.lastEndingAtOrBefore("h")->begin, "f");
  EXPECT_FALSE(known.lastEndingAtOrBefore("c"));
  EXPECT_EQ(known.firstBeginningAfter("b", false)->begin, "f");
  EXPECT_EQ(known.firstBeginningAfter("b", true)->begin, "b");
  EXPECT_FALSE(known.firstBeginningAfter("f", false));
}

// touches() answers before the inserts are added (a few) and after (many), the range's end
// included.
TEST(KnownRanges, TouchesCountsTheEnd) {
  for (int extra : {0, 20}) {
    KnownRanges known;
    for (int i = 0; i < extra; ++i) known.insertKey(std::string(1 + i % 5, 'x') + "0123"[i % 4]);
    known.insert("c", "e");
    known.insertKey("m");
    EXPECT_TRUE(known.touches("a", "c"));
    EXPECT_FALSE(known.touches("a", "b"));
    EXPECT_TRUE(known.touches("d", "z"));
    EXPECT_FALSE(known.touches("e", "l"));
    EXPECT_TRUE(known.touches("e", "m"));
    EXPECT_FALSE(known.touches(keyAfter("m"), "w"));
  }
}

// Keys longer than the first block, and many of them: views stay valid as the arena grows.
TEST(KnownRanges, ViewsSurviveGrowth) {
  KnownRanges known;
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back(std::string(static_cast<size_t>(i * 7), 'k') + "!");
  known.insertKey(keys[299]);
  std::optional<KnownRanges::Piece> first = known.containing(keys[299]);
  ASSERT_TRUE(first);
  for (int i = 0; i < 299; ++i) known.insertKey(keys[static_cast<size_t>(i)]);
  EXPECT_EQ(known.pieceCount(), 300u);
  EXPECT_EQ(first->begin, keys[299]);
  EXPECT_EQ(first->end, keyAfter(keys[299]));
}

TEST(KnownRanges, ResetForgetsEverything) {
  KnownRanges known;
  known.insert("a", "z");
  EXPECT_EQ(known.pieceCount(), 1u);
  known.reset();
  EXPECT_TRUE(known.empty());
  EXPECT_FALSE(known.containing("m"));
  known.insertKey("m");
  EXPECT_EQ(piecesOf(known), (Pieces{{"m", keyAfter("m")}}));
}

// The pieces of SnapshotCache::insert, each insert added at once.
class PlainPieces {
 public:
  void insert(std::string begin, std::string end) {
    if (begin >= end) return;
    if (auto first = containing(begin); first && first->first != begin) begin = first->second;
    if (auto last = containing(end)) end = last->first;
    if (begin >= end) return;
    pieces_.erase(pieces_.lower_bound(begin), pieces_.lower_bound(end));
    pieces_.emplace(begin, end);
  }
  bool touches(const std::string& begin, const std::string& end) const {
    if (containing(begin)) return true;
    auto it = pieces_.upper_bound(begin);
    return it != pieces_.end() && it->first <= end;
  }
  Pieces pieces() const { return Pieces(pieces_.begin(), pieces_.end()); }

 private:
  std::optional<std::pair<std::string, std::string>> containing(const std::string& key) const {
    auto it = pieces_.upper_bound(key);
    if (it == pieces_.begin()) return std::nullopt;
    --it;
    if (key < it->second) return *it;
    return std::nullopt;
  }

  std::map<std::string, std::string> pieces_;
};

TEST(KnownRanges, RandomInsertsMatchImmediateInserts) {
  const char* seedText = std::getenv("RL_KNOWN_RANGES_SEED");
  const uint64_t baseSeed = seedText != nullptr ? std::strtoull(seedText, nullptr, 10) : 7;
  for (uint64_t round = 0; round < 300; ++round) {
    const uint64_t seed = baseSeed + round;
    std::mt19937_64 random(seed);
    auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint64_t>(n)); };
    auto key = [&] {
      std::string k(1, static_cast<char>('a' + pick(20)));
      if (pick(3) == 0) k.push_back(static_cast<char>('a' + pick(3)));
      if (pick(5) == 0) k.push_back('\0');
      return k;
    };
    KnownRanges known;
    PlainPieces plain;
    std::string log;
    const int steps = 1 + pick(60);
    for (int step = 0; step < steps; ++step) {
      const int kind = pick(10);
      if (kind < 4) {
        std::string k = key();
        known.insertKey(k);
        plain.insert(k, keyAfter(k));
        log += " key";
      } else if (kind < 8) {
        std::string a = key(), b = key();
        if (pick(4) != 0 && b < a) std::swap(a, b);
        known.insert(a, b);
        plain.insert(a, b);
        log += " range";
      } else if (kind < 9) {
        std::string a = key(), b = key();
        if (b < a) std::swap(a, b);
        ASSERT_EQ(known.touches(a, b), plain.touches(a, b)) << "seed " << seed << log;
        log += " touches";
      } else {
        ASSERT_EQ(piecesOf(known), plain.pieces()) << "seed " << seed << log;
        log += " pieces";
      }
    }
    ASSERT_EQ(piecesOf(known), plain.pieces()) << "seed " << seed << log;
  }
}

}  // namespace
}  // namespace fdb::engine
