// Property tests on random tuples: round trip, and pack(a) < pack(b) <=> a < b.
// The generator favours the edges of every type (negative integers of every width, big
// integers, -0.0, NaN, infinities, nested nulls, empty strings) and shared prefixes, so
// that compared tuples often differ late and by little.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "fdb/tuple.h"

namespace fdb {
namespace {

class TupleGenerator {
 public:
  explicit TupleGenerator(uint64_t seed) : rng_(seed) {}

  Tuple tuple(int depth = 0) {
    Tuple t;
    int size = pick(0, depth == 0 ? 5 : 3);
    for (int i = 0; i < size; ++i) t.append(element(depth));
    return t;
  }

  // A tuple near `base`: a prefix of it, with one element changed, or extended.
  Tuple neighbour(const Tuple& base) {
    Tuple t;
    size_t keep = base.empty() ? 0 : static_cast<size_t>(pick(0, static_cast<int>(base.size())));
    for (size_t i = 0; i < keep; ++i) t.append(base[i]);
    switch (pick(0, 2)) {
      case 0: break;
      case 1: t.append(element(0)); break;
      case 2:
        t.append(element(0));
        for (size_t i = keep + 1; i < base.size(); ++i) t.append(base[i]);
        break;
    }
    return t;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string smallBytes() {
    static constexpr char kAlphabet[] = {'\x00', '\x01', 'a', 'b', '\xfe', '\xff'};
    std::string s;
    int n = pick(0, 4);
    for (int i = 0; i < n; ++i) s.push_back(kAlphabet[pick(0, 5)]);
    return s;
  }

  BigInt randomInteger() {
    switch (pick(0, 4)) {
      case 0: {  // edges of every byte width, both signs
        int bytes = pick(0, 9);
        uint64_t edge =
            bytes >= 8 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << (8 * bytes)) - 1;
        BigInt value = BigInt::fromUnsigned(edge + static_cast<uint64_t>(pick(0, 1)));
        return pick(0, 1) ? value : BigInt::fromMagnitude(true, value.magnitude());
      }
      case 1: {  // big integers of 8..20 bytes
        std::string magnitude;
        int n = pick(8, 20);
        for (int i = 0; i < n; ++i) magnitude.push_back(static_cast<char>(pick(0, 255)));
        return BigInt::fromMagnitude(pick(0, 1) == 1, magnitude);
      }
      case 2:
        return BigInt(std::uniform_int_distribution<int64_t>(
            std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())(rng_));
      default: return BigInt(pick(-300, 300));
    }
  }

  double specialDouble() {
    static const double kValues[] = {0.0,
                                     -0.0,
                                     1.0,
                                     -1.0,
                                     0.5,
                                     -2.5,
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN(),
                                     -std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::denorm_min(),
                                     -std::numeric_limits<double>::denorm_min(),
                                     std::numeric_limits<double>::max(),
                                     std::numeric_limits<double>::lowest()};
    if (pick(0, 2) == 0) return std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
    return kValues[pick(0, static_cast<int>(std::size(kValues)) - 1)];
  }

  TupleElement element(int depth) {
    switch (pick(0, depth < 2 ? 10 : 9)) {
      case 0: return nullptr;
      case 1: return ByteString{smallBytes()};
      case 2: return smallBytes();  // a unicode string element holding arbitrary bytes
      case 3:
      case 4: return TupleElement(randomInteger());
      case 5: return static_cast<float>(specialDouble());
      case 6: return specialDouble();
      case 7: return pick(0, 1) == 1;
      case 8: {
        Uuid u;
        u.bytes[pick(0, 15)] = static_cast<uint8_t>(pick(0, 255));
        return u;
      }
      case 9: {
        Versionstamp::TransactionVersion tv{};
        tv[pick(0, 9)] = static_cast<uint8_t>(pick(0, 254));
        return Versionstamp::complete(tv, static_cast<uint16_t>(pick(0, 3)));
      }
      default: return tuple(depth + 1);
    }
  }

  std::mt19937_64 rng_;
};

constexpr uint64_t kSeed = 20261130;
constexpr int kIterations = 20000;

int sign(std::strong_ordering o) { return o < 0 ? -1 : (o > 0 ? 1 : 0); }

TEST(TupleProperty, UnpackInvertsPack) {
  TupleGenerator gen(kSeed);
  for (int i = 0; i < kIterations; ++i) {
    Tuple t = gen.tuple();
    Bytes packed = t.pack();
    Tuple back = Tuple::unpack(packed);
    ASSERT_EQ(back, t) << "iteration " << i << " bytes " << toHex(packed);
    ASSERT_EQ(back.pack(), packed) << "iteration " << i;
  }
}

TEST(TupleProperty, ByteOrderEqualsTupleOrder) {
  TupleGenerator gen(kSeed + 1);
  int less = 0, equal = 0, greater = 0;
  for (int i = 0; i < kIterations; ++i) {
    Tuple a = gen.tuple();
    Tuple b = (i % 2 == 0) ? gen.neighbour(a) : gen.tuple();
    int byTuple = sign(a <=> b);
    int byBytes = sign(a.pack() <=> b.pack());
    ASSERT_EQ(byTuple, byBytes) << "iteration " << i << ": " << toHex(a.pack()) << " vs "
                                << toHex(b.pack());
    (byTuple < 0 ? less : byTuple == 0 ? equal : greater)++;
  }
  // The generator must exercise every outcome, ties included.
  EXPECT_GT(less, kIterations / 10);
  EXPECT_GT(greater, kIterations / 10);
  EXPECT_GT(equal, 0);
}

TEST(TupleProperty, RangeHoldsExactlyTheStrictExtensions) {
  TupleGenerator gen(kSeed + 2);
  for (int i = 0; i < kIterations / 4; ++i) {
    Tuple prefix = gen.tuple();
    Tuple other = gen.neighbour(prefix);
    bool extends = other.size() > prefix.size();
    for (size_t j = 0; extends && j < prefix.size(); ++j) extends = other[j] == prefix[j];
    ASSERT_EQ(prefix.range().contains(other.pack()), extends) << "iteration " << i;
  }
}

TEST(TupleProperty, PythonIntegerFormDecodesToTheSameValue) {
  // Re-encode every integer of 1..8 bytes in the 0x1d / 0x0b form and compare.
  TupleGenerator gen(kSeed + 3);
  std::mt19937_64 rng(kSeed + 3);
  for (int i = 0; i < kIterations; ++i) {
    uint64_t magnitude = rng() >> (rng() % 64);
    if (magnitude == 0) continue;
    bool negative = rng() % 2 == 1;
    Bytes be;
    for (uint64_t m = magnitude; m != 0; m >>= 8)
      be.insert(be.begin(), static_cast<char>(m & 0xff));
    Bytes python;
    if (negative) {
      python.push_back('\x0b');
      python.push_back(static_cast<char>(be.size() ^ 0xff));
      for (char c : be) python.push_back(static_cast<char>(~c));
    } else {
      python.push_back('\x1d');
      python.push_back(static_cast<char>(be.size()));
      python += be;
    }
    Tuple expected{TupleElement(BigInt::fromMagnitude(negative, be))};
    ASSERT_EQ(Tuple::unpack(python), expected) << toHex(python);
  }
}

}  // namespace
}  // namespace fdb
