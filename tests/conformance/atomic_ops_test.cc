// Atomic operations (docs/semantics.md, "Atomic operations", "Versionstamps"), byte for byte. Each
// case is checked three ways: a blind op committed and read back by a new transaction; the op read
// back within its own transaction (RYW over an unknown base from the database), then committed; and
// the op issued after a set/clear of the base in the same transaction (a known base).
//
// Notation of the cases: E = existing value (nullopt = absent; "" = present but empty),
// P = param, R = result (nullopt = absent).

#include "conformance/backends.h"

#include <cstdint>
#include <string>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::MutationType;
using fdb::Transaction;

struct Case {
  std::optional<Bytes> existing;
  Bytes param;
  std::optional<Bytes> expected;
};

std::string describe(const std::optional<Bytes>& value) {
  return value ? "\"" + fdb::printable(*value) + "\"" : std::string("absent");
}

class AtomicOpsTest : public ConformanceTest {
 protected:
  void check(MutationType type, const std::vector<Case>& cases) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      SCOPED_TRACE("op " + std::to_string(static_cast<int>(type)) + ", case " + std::to_string(i) +
                   ": E=" + describe(c.existing) + " P=" + describe(c.param) +
                   " expected R=" + describe(c.expected));
      std::string prefix = "op" + std::to_string(static_cast<int>(type)) + "/" + std::to_string(i);
      checkBlind(prefix + "/blind", type, c);
      checkReadInTransaction(prefix + "/ryw", type, c);
      checkKnownBase(prefix + "/known", type, c);
    }
  }

 private:
  void writeBase(const std::string& key, const Case& c) {
    Transaction tr = db().createTransaction();
    if (c.existing) {
      tr.set(key, *c.existing);
    } else {
      tr.clear(key);
    }
    tr.commit().get();
  }

  void checkBlind(const std::string& key, MutationType type, const Case& c) {
    writeBase(key, c);
    Transaction tr = db().createTransaction();
    tr.atomicOp(key, c.param, type);
    tr.commit().get();
    EXPECT_EQ(read(key), c.expected) << "blind op, committed";
  }

  void checkReadInTransaction(const std::string& key, MutationType type, const Case& c) {
    writeBase(key, c);
    Transaction tr = db().createTransaction();
    tr.atomicOp(key, c.param, type);
    EXPECT_EQ(tr.get(key).get(), c.expected) << "read in the transaction, base in the database";
    tr.commit().get();
    EXPECT_EQ(read(key), c.expected) << "read in the transaction, then committed";
  }

  void checkKnownBase(const std::string& key, MutationType type, const Case& c) {
    Transaction tr = db().createTransaction();
    if (c.existing) {
      tr.set(key, *c.existing);
    } else {
      tr.clear(key);
    }
    tr.atomicOp(key, c.param, type);
    EXPECT_EQ(tr.get(key).get(), c.expected) << "base set in the same transaction";
    tr.commit().get();
    EXPECT_EQ(read(key), c.expected) << "base set in the same transaction, committed";
  }
};

const std::optional<Bytes> kAbsent = std::nullopt;

TEST_P(AtomicOpsTest, Add) {
  check(
      MutationType::kAdd,
      {
          {kAbsent, bytes({0x01, 0x00}), bytes({0x01, 0x00})},
          {Bytes(), bytes({0x05}), bytes({0x05})},
          {bytes({0x01}), bytes({0x01}), bytes({0x02})},
          {bytes({0xff}), bytes({0x01}), bytes({0x00})},                    // overflow discarded
          {bytes({0xff, 0x00}), bytes({0x01, 0x00}), bytes({0x00, 0x01})},  // carry
          {bytes({0xff, 0xff}), bytes({0x01, 0x00}), bytes({0x00, 0x00})},
          {bytes({0xff}), bytes({0x01, 0x00}), bytes({0x00, 0x01})},              // E extended
          {bytes({0x01, 0x02, 0x03}), bytes({0x01, 0x00}), bytes({0x02, 0x02})},  // E truncated
          {bytes({0x01}), bytes({0x01, 0x00, 0x00}), bytes({0x02, 0x00, 0x00})},
          {bytes({0x01, 0x02}), Bytes(), Bytes()},  // P empty -> empty value
          {kAbsent, Bytes(), Bytes()},
          // Two's complement: 5 + (-1) = 4 over 8 bytes.
          {bytes({5, 0, 0, 0, 0, 0, 0, 0}), bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
           bytes({4, 0, 0, 0, 0, 0, 0, 0})},
      });
}

const std::vector<Case> kAndCases = {
    {kAbsent, bytes({0x0f}), bytes({0x0f})},  // V2: absent -> P
    {bytes({0xff, 0x0f}), bytes({0x0f, 0xff}), bytes({0x0f, 0x0f})},
    {bytes({0xff}), bytes({0xff, 0xff}), bytes({0xff, 0x00})},  // missing E bytes are 0
    {bytes({0xff, 0xff, 0xff}), bytes({0x0f}), bytes({0x0f})},  // E truncated
    {Bytes(), bytes({0xff}), bytes({0x00})},                    // present empty is not absent
    {bytes({0xff}), Bytes(), Bytes()},
};

TEST_P(AtomicOpsTest, BitAnd) { check(MutationType::kBitAnd, kAndCases); }
TEST_P(AtomicOpsTest, AndV2) { check(MutationType::kAndV2, kAndCases); }

TEST_P(AtomicOpsTest, BitOr) {
  check(MutationType::kBitOr, {
                                  {kAbsent, bytes({0x10}), bytes({0x10})},
                                  {Bytes(), bytes({0x10}), bytes({0x10})},
                                  {bytes({0x01, 0x02}), bytes({0x10}), bytes({0x11})},
                                  {bytes({0x01}), bytes({0x10, 0x20}), bytes({0x11, 0x20})},
                                  {bytes({0x01}), Bytes(), Bytes()},
                              });
}

TEST_P(AtomicOpsTest, BitXor) {
  check(MutationType::kBitXor, {
                                   {kAbsent, bytes({0x0f}), bytes({0x0f})},
                                   {Bytes(), bytes({0x0f}), bytes({0x0f})},
                                   {bytes({0xff, 0x0f}), bytes({0x0f, 0x0f}), bytes({0xf0, 0x00})},
                                   {bytes({0x01}), bytes({0x01, 0x01}), bytes({0x00, 0x01})},
                                   {bytes({0x01, 0x02, 0x03}), bytes({0xff}), bytes({0xfe})},
                                   {bytes({0x01}), Bytes(), Bytes()},
                               });
}

TEST_P(AtomicOpsTest, AppendIfFits) {
  check(MutationType::kAppendIfFits,
        {
            {kAbsent, "cd", "cd"},
            {Bytes(), "cd", "cd"},
            {"ab", "cd", "abcd"},
            {"ab", Bytes(), "ab"},
            {Bytes(99'998, 'x'), "yz", Bytes(99'998, 'x') + "yz"},  // exactly 100,000 fits
            {Bytes(99'999, 'x'), "yz", Bytes(99'999, 'x')},         // too long: E unchanged
            {kAbsent, Bytes(100'000, 'p'), Bytes(100'000, 'p')},
        });
}

TEST_P(AtomicOpsTest, Max) {
  check(MutationType::kMax,
        {
            {kAbsent, bytes({0x01, 0x00}), bytes({0x01, 0x00})},
            {Bytes(), bytes({0x01, 0x00}), bytes({0x01, 0x00})},
            {bytes({0x02}), Bytes(), Bytes()},
            {bytes({0x02, 0x00}), bytes({0x01, 0x00}), bytes({0x02, 0x00})},
            {bytes({0x00, 0x01}), bytes({0xff, 0x00}), bytes({0x00, 0x01})},        // little-endian
            {bytes({0x80}), bytes({0x7f}), bytes({0x80})},                          // unsigned
            {bytes({0x05, 0x00, 0x01}), bytes({0x04, 0x00}), bytes({0x05, 0x00})},  // E truncated
            {bytes({0x00, 0x00, 0x09}), bytes({0x01, 0x00}), bytes({0x01, 0x00})},
            {bytes({0x05}), bytes({0x04, 0x00}), bytes({0x05, 0x00})},  // E zero-extended
            {bytes({0x01}), bytes({0x02, 0x00}), bytes({0x02, 0x00})},
        });
}

const std::vector<Case> kMinCases = {
    {kAbsent, bytes({0x05, 0x00}), bytes({0x05, 0x00})},  // V2: absent -> P
    {Bytes(), bytes({0x05}), bytes({0x00})},              // present empty counts as zeros
    {bytes({0x02}), Bytes(), Bytes()},
    {bytes({0x02, 0x00}), bytes({0x01, 0x00}), bytes({0x01, 0x00})},
    {bytes({0x00, 0x01}), bytes({0xff, 0x00}), bytes({0xff, 0x00})},        // little-endian
    {bytes({0x7f}), bytes({0x80}), bytes({0x7f})},                          // unsigned
    {bytes({0x03, 0x00, 0x01}), bytes({0x04, 0x00}), bytes({0x03, 0x00})},  // E truncated
    {bytes({0x09, 0x00, 0x00, 0x01}), bytes({0x01, 0x00}), bytes({0x01, 0x00})},
    {bytes({0x03}), bytes({0x04, 0x00}), bytes({0x03, 0x00})},  // E zero-extended
};

TEST_P(AtomicOpsTest, Min) { check(MutationType::kMin, kMinCases); }
TEST_P(AtomicOpsTest, MinV2) { check(MutationType::kMinV2, kMinCases); }

TEST_P(AtomicOpsTest, ByteMin) {
  check(MutationType::kByteMin, {
                                    {kAbsent, "abd", "abd"},
                                    {"abc", "abd", "abc"},
                                    {"abd", "abc", "abc"},
                                    {"ab", "abc", "ab"},  // a prefix is smaller
                                    {"abc", "ab", "ab"},
                                    {Bytes(), "a", Bytes()},
                                    {"b", Bytes(), Bytes()},
                                    {bytes({0xff}), bytes({0x01}), bytes({0x01})},  // unsigned
                                });
}

TEST_P(AtomicOpsTest, ByteMax) {
  check(MutationType::kByteMax, {
                                    {kAbsent, "abd", "abd"},
                                    {"abc", "abd", "abd"},
                                    {"abd", "abc", "abd"},
                                    {"abc", "ab", "abc"},
                                    {"ab", "abc", "abc"},
                                    {Bytes(), "a", "a"},
                                    {"b", Bytes(), "b"},
                                    {bytes({0x01}), bytes({0xff}), bytes({0xff})},  // unsigned
                                });
}

TEST_P(AtomicOpsTest, CompareAndClear) {
  check(MutationType::kCompareAndClear, {
                                            {"x", "x", kAbsent},
                                            {"x", "y", "x"},
                                            {"xy", "x", "xy"},
                                            {kAbsent, "x", kAbsent},
                                            {Bytes(), Bytes(), kAbsent},
                                            {kAbsent, Bytes(), kAbsent},
                                            {"x", Bytes(), "x"},
                                        });
}

TEST_P(AtomicOpsTest, ConsecutiveOpsOnOneKeyCompose) {
  write("n", bytes({10}));
  Transaction tr = db().createTransaction();
  tr.atomicOp("n", bytes({1}), MutationType::kAdd);
  tr.atomicOp("n", bytes({2}), MutationType::kAdd);
  tr.atomicOp("n", bytes({3}), MutationType::kAdd);
  tr.atomicOp("n", bytes({0x0c}), MutationType::kMin);  // min(16, 12)
  tr.atomicOp("n", bytes({0x01}), MutationType::kBitXor);
  tr.commit().get();
  EXPECT_EQ(read("n"), bytes({0x0d}));
}

TEST_P(AtomicOpsTest, OpsFromSeparateTransactionsAccumulate) {
  for (int i = 0; i < 300; ++i) {
    Transaction tr = db().createTransaction();
    tr.atomicOp("counter", bytes({1, 0}), MutationType::kAdd);
    tr.commit().get();
  }
  EXPECT_EQ(read("counter"), bytes({300 & 0xff, 300 >> 8}));
}

TEST_P(AtomicOpsTest, AtomicOpResultAppearsInRangeReads) {
  writeAll({{"a", "1"}, {"b", "same"}});
  Transaction tr = db().createTransaction();
  tr.atomicOp("b", "same", MutationType::kCompareAndClear);
  tr.atomicOp("c", bytes({7}), MutationType::kAdd);
  tr.atomicOp("a", "2", MutationType::kByteMax);
  std::vector<fdb::KeyValue> expected{{"a", "2"}, {"c", bytes({7})}};
  EXPECT_EQ(tr.getRange(KeyRange{"", "\xff"}).get().rows, expected);
  tr.commit().get();
  EXPECT_EQ(readAll(), expected);
}

TEST_P(AtomicOpsTest, InvalidMutationTypeFails) {
  for (int type : {0, 1, 3, 4, 5, 10, 11, 21, -1}) {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2018, tr.atomicOp("k", bytes({1}), static_cast<MutationType>(type));
                     tr.commit().get())
        << "type " << type;
  }
  EXPECT_EQ(read("k"), std::nullopt);
}

TEST_P(AtomicOpsTest, SizeAndKeySpaceLimitsApply) {
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2102, tr.atomicOp(Bytes(10'001, 'k'), bytes({1}), MutationType::kAdd);
                     tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2103, tr.atomicOp("k", Bytes(100'001, 'p'), MutationType::kBitOr);
                     tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2004, tr.atomicOp("\xff/k", bytes({1}), MutationType::kAdd);
                     tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    tr.atomicOp(Bytes(10'000, 'k'), Bytes(100'000, 'p'), MutationType::kBitOr);
    EXPECT_NO_THROW(tr.commit().get());
  }
  EXPECT_EQ(read(Bytes(10'000, 'k')), Bytes(100'000, 'p'));
}

TEST_P(AtomicOpsTest, VersionstampedValueHoldsTheCommitVersion) {
  Transaction tr = db().createTransaction();
  Bytes param = "pre" + Bytes(10, '\0') + "post" + littleEndian32(3);
  tr.atomicOp("vs", param, MutationType::kSetVersionstampedValue);
  tr.commit().get();
  int64_t committed = tr.getCommittedVersion();
  std::optional<Bytes> value = read("vs");
  ASSERT_TRUE(value.has_value());
  ASSERT_EQ(value->size(), 3u + 10u + 4u);
  EXPECT_EQ(value->substr(0, 3), "pre");
  EXPECT_EQ(value->substr(3, 8), bigEndian64(committed));
  EXPECT_EQ(value->substr(13), "post");
}

TEST_P(AtomicOpsTest, VersionstampedKeyHoldsTheCommitVersion) {
  Transaction tr = db().createTransaction();
  Bytes key = "vs/" + Bytes(10, '\0') + "/suffix" + littleEndian32(3);
  tr.atomicOp(key, "value", MutationType::kSetVersionstampedKey);
  tr.commit().get();
  int64_t committed = tr.getCommittedVersion();
  std::vector<fdb::KeyValue> rows = readAll();
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].key.size(), 3u + 10u + 7u);
  EXPECT_EQ(rows[0].key.substr(0, 3), "vs/");
  EXPECT_EQ(rows[0].key.substr(3, 8), bigEndian64(committed));
  EXPECT_EQ(rows[0].key.substr(13), "/suffix");
  EXPECT_EQ(rows[0].value, "value");
}

TEST_P(AtomicOpsTest, VersionstampsIncreaseWithCommits) {
  Bytes param = Bytes(10, '\0') + littleEndian32(0);
  std::vector<Bytes> stamps;
  for (int i = 0; i < 3; ++i) {
    Transaction tr = db().createTransaction();
    tr.atomicOp("vs" + std::to_string(i), param, MutationType::kSetVersionstampedValue);
    tr.commit().get();
    std::optional<Bytes> value = read("vs" + std::to_string(i));
    ASSERT_TRUE(value.has_value());
    ASSERT_EQ(value->size(), 10u);
    stamps.push_back(*value);
  }
  EXPECT_LT(stamps[0], stamps[1]);
  EXPECT_LT(stamps[1], stamps[2]);
}

TEST_P(AtomicOpsTest, VersionstampedValueIsUnreadableInItsTransaction) {
  Transaction tr = db().createTransaction();
  tr.atomicOp("vs", Bytes(10, '\0') + littleEndian32(0), MutationType::kSetVersionstampedValue);
  EXPECT_FDB_ERROR(1036, tr.get("vs").get());
}

TEST_P(AtomicOpsTest, VersionstampOffsetOutsideTheTemplateFails) {
  {
    Transaction tr = db().createTransaction();  // p + 10 > len - 4
    EXPECT_FDB_ERROR(
        2000, tr.atomicOp("ab" + littleEndian32(0), "v", MutationType::kSetVersionstampedKey);
        tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2000, tr.atomicOp("vs", Bytes(10, '\0') + littleEndian32(1),
                                       MutationType::kSetVersionstampedValue);
                     tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();  // fewer than 4 bytes
    EXPECT_FDB_ERROR(2000, tr.atomicOp("vs", "abc", MutationType::kSetVersionstampedValue);
                     tr.commit().get());
  }
}

RL_CONFORMANCE_INSTANTIATE(AtomicOpsTest);

}  // namespace
}  // namespace conformance
