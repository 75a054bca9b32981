#include "fdb/subspace.h"

#include <gtest/gtest.h>

#include "fdb/error.h"

namespace fdb {
namespace {

TEST(Subspace, PrefixIsRawBytesThenPackedTuple) {
  Subspace s(Tuple{"app", 1}, "\xfe");
  EXPECT_EQ(toHex(s.key()),
            "fe"
            "0261707000"
            "1501");
  EXPECT_EQ(s.pack(Tuple{true}), s.key() + "\x27");
  EXPECT_EQ(s.pack(), s.key());
}

TEST(Subspace, UnpackReturnsTheTupleAfterThePrefix) {
  Subspace s(Tuple{"app"});
  Bytes key = s.pack(Tuple{"order", 7});
  EXPECT_EQ(s.unpack(key), (Tuple{"order", 7}));
  EXPECT_EQ(s.unpack(s.key()), Tuple{});
}

TEST(Subspace, UnpackOutsideIsKeyNotInSubspace) {
  Subspace s(Tuple{"app"});
  try {
    s.unpack(Tuple{"other", 1}.pack());
    FAIL() << "unpacked a key outside the subspace";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kKeyNotInSubspace);
    EXPECT_EQ(e.name(), "key_not_in_subspace");
  }
}

TEST(Subspace, UnpackOfANonTupleSuffixIsInvalidTupleData) {
  Subspace s = Subspace::fromBytes("p");
  try {
    s.unpack("p\x03");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kInvalidTupleDataType);
  }
}

TEST(Subspace, RangeAndContains) {
  Subspace s(Tuple{"app"});
  KeyRange all = s.range();
  EXPECT_EQ(all.begin, s.key() + '\x00');
  EXPECT_EQ(all.end, s.key() + '\xff');
  EXPECT_TRUE(all.contains(s.pack(Tuple{nullptr})));
  EXPECT_TRUE(all.contains(s.pack(Tuple{Versionstamp::complete({1})})));
  EXPECT_FALSE(all.contains(s.key()));
  EXPECT_TRUE(s.contains(s.key()));
  EXPECT_TRUE(s.contains(s.pack(Tuple{1})));
  EXPECT_FALSE(s.contains(Tuple{"apq"}.pack()));

  KeyRange ones = s.range(Tuple{1});
  EXPECT_TRUE(ones.contains(s.pack(Tuple{1, "x"})));
  EXPECT_FALSE(ones.contains(s.pack(Tuple{2, "x"})));
}

TEST(Subspace, NestedSubspacesConcatenatePrefixes) {
  Subspace root(Tuple{"app"});
  Subspace child = root.subspace(Tuple{"records", 2});
  EXPECT_EQ(child.key(), root.pack(Tuple{"records", 2}));
  EXPECT_EQ(child.pack(Tuple{5}), (Tuple{"app", "records", 2, 5}.pack()));
  EXPECT_EQ(root.unpack(child.pack(Tuple{5})), (Tuple{"records", 2, 5}));
  EXPECT_EQ(Subspace(Tuple{"app", "records", 2}), child);
}

TEST(Subspace, EmptySubspaceIsTheWholeKeySpace) {
  Subspace whole;
  EXPECT_EQ(whole.key(), "");
  EXPECT_TRUE(whole.contains("\xff\xff"));
  EXPECT_EQ(whole.pack(Tuple{1}), Tuple{1}.pack());
}

TEST(Subspace, PackWithVersionstampCountsThePrefix) {
  Subspace s = Subspace::fromBytes("ab");
  Bytes key = s.packWithVersionstamp(Tuple{Versionstamp::incomplete()});
  // 'a' 'b' 0x33 then the transaction version at offset 3.
  EXPECT_EQ(toHex(key), "616233ffffffffffffffffffff000003000000");
}

}  // namespace
}  // namespace fdb
