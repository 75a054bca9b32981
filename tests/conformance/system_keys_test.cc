// System and special keys (docs/semantics.md: "Key space", "Versionstamps", "Options", "Key
// selectors"): READ_SYSTEM_KEYS (302) makes ["\xff", "\xff\xff") readable, ACCESS_SYSTEM_KEYS (301)
// also writable; the end of the key space — the clamp of selectors — moves from "\xff" to
// "\xff\xff" with them; "\xff/metadataVersion" is readable by everyone and writable only by a
// versionstamped bump. (The cases without options are in deferred_errors_test, selectors_test and
// ranges_test.)
//
// System keys written here live under "\xff\x02/rl_conformance/" (\xff\x02 is the system range
// layers use, so a real cluster ignores them); durable backends keep them between tests, so
// every test that writes them clears that prefix first.

#include "conformance/backends.h"

#include <cstdint>
#include <string>

#include "fdb/key_selector.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::MutationType;
using fdb::Transaction;
using fdb::TransactionOption;

const Bytes kPrefix = "\xff\x02/rl_conformance/";
const Bytes kMetadataVersionKey = "\xff/metadataVersion";

class SystemKeysTest : public ConformanceTest {
 protected:
  KeyRange prefixRange() const { return KeyRange{kPrefix, fdb::strinc(kPrefix)}; }

  // Clears the test's system prefix and sets `rows` (keys relative to it), with system access.
  void writeSystem(const std::vector<KeyValue>& rows) {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    tr.clearRange(prefixRange());
    for (const auto& row : rows) tr.set(kPrefix + row.key, row.value);
    tr.commit().get();
  }

  Transaction systemReader() {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kReadSystemKeys);
    return tr;
  }
};

// --- READ_SYSTEM_KEYS (302) ------------------------------------------------------------------

TEST_P(SystemKeysTest, ReadSystemKeysAllowsReadsOfSystemKeys) {
  writeSystem({{"a", "1"}, {"b", "2"}});
  Transaction tr = systemReader();
  EXPECT_EQ(tr.get(kPrefix + "a").get(), "1");
  EXPECT_EQ(tr.get(kPrefix + "zz").get(), std::nullopt);
  EXPECT_EQ(tr.snapshot().get(kPrefix + "b").get(), "2");
  EXPECT_EQ(tr.get("\xff").get(), std::nullopt);
  EXPECT_EQ(tr.getRange(prefixRange()).get().rows,
            (std::vector<KeyValue>{{kPrefix + "a", "1"}, {kPrefix + "b", "2"}}));
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual(kPrefix)).get(), kPrefix + "a");
  EXPECT_EQ(tr.getKey(KeySelector::lastLessThan(fdb::strinc(kPrefix))).get(), kPrefix + "b");
  EXPECT_NO_THROW(tr.getRange(KeyRange{"\xff", "\xff\xff"}, {.limit = 1}).get());
  EXPECT_NO_THROW(tr.getRange(KeyRange{"a", "\xff\xff"}, {.limit = 1}).get());
  EXPECT_NO_THROW(tr.commit().get());
}

TEST_P(SystemKeysTest, ReadSystemKeysDoesNotAllowWrites) {
  writeSystem({{"a", "1"}});
  {
    Transaction tr = systemReader();
    EXPECT_FDB_ERROR(2004, tr.set(kPrefix + "a", "x"); tr.commit().get());
  }
  {
    Transaction tr = systemReader();
    EXPECT_FDB_ERROR(2004, tr.clear(kPrefix + "a"); tr.commit().get());
  }
  {
    Transaction tr = systemReader();
    EXPECT_FDB_ERROR(2004, tr.clearRange(prefixRange()); tr.commit().get());
  }
  {
    Transaction tr = systemReader();
    EXPECT_FDB_ERROR(2004, tr.atomicOp(kPrefix + "a", bytes({1}), MutationType::kAdd);
                     tr.commit().get());
  }
  Transaction check = systemReader();
  EXPECT_EQ(check.get(kPrefix + "a").get(), "1");
}

TEST_P(SystemKeysTest, WithoutTheOptionSystemKeysAreInvisibleAndOutOfRange) {
  writeSystem({{"a", "1"}});
  write("z", "1");
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2004, tr.get(kPrefix + "a").get());
  Transaction plain = db().createTransaction();
  EXPECT_EQ(plain.getKey(KeySelector::firstGreaterThan("z")).get(), "\xff");
  EXPECT_EQ(plain.getRange(KeyRange{"a", "\xff"}).get().rows, (std::vector<KeyValue>{{"z", "1"}}));
}

// --- The end of the key space moves with system-key access ("Key space", "Key selectors") --------

TEST_P(SystemKeysTest, SelectorsPastTheEndResolveToTheMaxReadKey) {
  write("z", "1");
  {
    Transaction tr = db().createTransaction();
    EXPECT_EQ(tr.getKey(KeySelector::lastLessOrEqual("\xff") + 1).get(), "\xff");
  }
  {
    Transaction tr = systemReader();
    EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual("\xff\xff")).get(), "\xff\xff");
    EXPECT_EQ(tr.getKey(KeySelector::lastLessOrEqual("\xff\xff") + 1).get(), "\xff\xff");
    EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual("z") + 1'000'000).get(), "\xff\xff");
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    EXPECT_EQ(tr.getKey(KeySelector::firstGreaterOrEqual("\xff\xff")).get(), "\xff\xff");
  }
}

TEST_P(SystemKeysTest, SelectorsResolveAcrossTheSystemBoundaryWithTheOption) {
  writeSystem({{"a", "1"}});
  write("z", "1");
  Transaction tr = systemReader();
  // From the normal key space into the system key space.
  KeySelector afterZ = KeySelector::firstGreaterThan("z");
  Bytes firstSystemKey = tr.getKey(afterZ).get();
  EXPECT_GE(firstSystemKey, Bytes("\xff"));
  EXPECT_LE(firstSystemKey, kPrefix + "a");
  EXPECT_EQ(tr.getKey(KeySelector::lastLessThan("\xff")).get(), "z");
  EXPECT_EQ(tr.getKey(KeySelector::firstGreaterThan(kPrefix)).get(), kPrefix + "a");
}

// --- ACCESS_SYSTEM_KEYS (301) ----------------------------------------------------------------

TEST_P(SystemKeysTest, AccessSystemKeysAllowsWritesThatCommitAndReadBack) {
  writeSystem({});
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    tr.set(kPrefix + "x", "v");
    tr.atomicOp(kPrefix + "n", bytes({5}), MutationType::kAdd);
    EXPECT_EQ(tr.get(kPrefix + "x").get(), "v");  // read-your-writes on system keys
    tr.commit().get();
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    EXPECT_EQ(tr.get(kPrefix + "x").get(), "v");
    EXPECT_EQ(tr.get(kPrefix + "n").get(), bytes({5}));
  }
  {
    Transaction tr = systemReader();
    EXPECT_EQ(tr.getRange(prefixRange()).get().rows,
              (std::vector<KeyValue>{{kPrefix + "n", bytes({5})}, {kPrefix + "x", "v"}}));
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    tr.clear(kPrefix + "x");
    tr.commit().get();
  }
  Transaction check = systemReader();
  EXPECT_EQ(check.get(kPrefix + "x").get(), std::nullopt);
  EXPECT_EQ(check.get(kPrefix + "n").get(), bytes({5}));
}

TEST_P(SystemKeysTest, SystemKeysMayBeLongerThanNormalKeys) {
  // The key limit is 30,000 bytes for keys starting with \xff (docs/semantics.md, "Size limits").
  writeSystem({});
  Bytes longKey = kPrefix + Bytes(20'000, 'k');
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    tr.set(longKey, "v");
    EXPECT_NO_THROW(tr.commit().get());
  }
  {
    Transaction tr = systemReader();
    EXPECT_EQ(tr.get(longKey).get(), "v");
  }
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    EXPECT_FDB_ERROR(2102, tr.set("\xff" + Bytes(30'000, 'k'), "v"); tr.commit().get());
  }
  writeSystem({});
}

TEST_P(SystemKeysTest, SpecialKeySpaceIsNotPartOfTheSystemKeySpace) {
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kAccessSystemKeys);
  EXPECT_FDB_ERROR(2004, tr.getRange(KeyRange{"a", keyAfter("\xff\xff")}).get());
}

// --- Special keys (docs/semantics.md, "Key space") -----------------------------------------------

TEST_P(SystemKeysTest, SpecialKeyWritesNeedEnableWrites) {
  // The binding tester clears the tenant map this way before every run: with the option it
  // reaches the tenant module, which fails the commit where tenants are disabled
  // (special_keys_test.cc has the special key space's writes).
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSpecialKeySpaceEnableWrites);
    tr.clearRange("\xff\xff/management/tenant/map/", "\xff\xff/management/tenant/map0");
    EXPECT_FDB_ERROR(2136, tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(
        2114, tr.clearRange("\xff\xff/management/tenant/map/", "\xff\xff/management/tenant/map0");
        tr.commit().get());
  }
}

// --- \xff/metadataVersion (docs/semantics.md, "Versionstamps") -----------------------------------

TEST_P(SystemKeysTest, MetadataVersionBumpStoresTheVersionstamp) {
  Bytes stamps[2];
  for (Bytes& stamp : stamps) {
    Transaction tr = db().createTransaction();  // no system-key option needed
    tr.atomicOp(kMetadataVersionKey, Bytes(14, '\0'), MutationType::kSetVersionstampedValue);
    fdb::Future<Bytes> versionstamp = tr.getVersionstamp();
    EXPECT_NO_THROW(tr.commit().get());
    stamp = versionstamp.get();
    ASSERT_EQ(stamp.size(), 10u);
    EXPECT_EQ(stamp.substr(0, 8), bigEndian64(tr.getCommittedVersion()));
    Transaction reader = db().createTransaction();
    EXPECT_EQ(reader.get(kMetadataVersionKey).get(), stamp);  // exactly the 10 stamp bytes
  }
  EXPECT_LT(stamps[0], stamps[1]);
}

TEST_P(SystemKeysTest, MetadataVersionAcceptsNoOtherWrite) {
  const Bytes nonZero = Bytes(9, '\0') + "\x01" + Bytes(4, '\0');
  struct Case {
    const char* what;
    Bytes param;
  };
  for (const Case& c :
       {Case{"15 zero bytes", Bytes(15, '\0')}, Case{"13 zero bytes", Bytes(13, '\0')},
        Case{"a non-zero template byte", nonZero}}) {
    SCOPED_TRACE(c.what);
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(
        2000, tr.atomicOp(kMetadataVersionKey, c.param, MutationType::kSetVersionstampedValue);
        tr.commit().get());
  }
  {
    Transaction tr = db().createTransaction();  // not even with system-key access
    tr.setOption(TransactionOption::kAccessSystemKeys);
    EXPECT_FDB_ERROR(2000, tr.set(kMetadataVersionKey, Bytes(10, '\0')); tr.commit().get());
  }
}

TEST_P(SystemKeysTest, MetadataVersionCanBeClearedWithSystemKeyAccess) {
  // Only a plain set is refused; a clear is an ordinary write of a system key.
  auto bump = [&] {
    Transaction tr = db().createTransaction();
    tr.atomicOp(kMetadataVersionKey, Bytes(14, '\0'), MutationType::kSetVersionstampedValue);
    tr.commit().get();
  };
  auto metadataVersion = [&] {
    Transaction tr = db().createTransaction();
    return tr.get(kMetadataVersionKey).get();
  };
  bump();
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    tr.clear(kMetadataVersionKey);
    EXPECT_NO_THROW(tr.commit().get());
  }
  EXPECT_EQ(metadataVersion(), std::nullopt);
  bump();
  {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kAccessSystemKeys);
    tr.clearRange(kMetadataVersionKey, keyAfter(kMetadataVersionKey));
    EXPECT_NO_THROW(tr.commit().get());
  }
  EXPECT_EQ(metadataVersion(), std::nullopt);
  {
    Transaction tr = db().createTransaction();  // without system-key access: outside the range
    EXPECT_FDB_ERROR(2004, tr.clear(kMetadataVersionKey); tr.commit().get());
  }
}

RL_CONFORMANCE_INSTANTIATE(SystemKeysTest);

}  // namespace
}  // namespace conformance
