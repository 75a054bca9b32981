// getMappedRange (docs/semantics.md, "Mapped range reads", "Conflict ranges"): a range read of
// index entries that, for each entry, also reads the secondary range its mapper builds, in one
// operation at the read version.
//
// The data of these tests: records ("records", pk, field) -> data and index entries
// ("index", name, pk) -> "" (all packed tuples). The mapper ("records", "{K[2]}", "{...}")
// takes element 2 of each index key (the pk) and reads every record row under
// ("records", pk): the secondary range [P, strinc(P)) with P = pack("records", pk).

#include "conformance/backends.h"

#include <functional>
#include <string>
#include <vector>

#include "fdb/tuple.h"

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::ByteString;
using fdb::KeyRange;
using fdb::KeySelector;
using fdb::KeyValue;
using fdb::MappedKeyValue;
using fdb::MappedRangeResult;
using fdb::RangeOptions;
using fdb::StreamingMode;
using fdb::Transaction;
using fdb::TransactionOption;
using fdb::Tuple;

Bytes idx(std::string_view name, int64_t pk) { return Tuple{"index", name, pk}.pack(); }
Bytes rec(int64_t pk, std::string_view field) { return Tuple{"records", pk, field}.pack(); }

const RangeOptions kAll{.mode = StreamingMode::kWantAll};

class MappedRangeTest : public ConformanceTest {
 protected:
  // Records of pk 1 (two fields), 2 (one) and 4 (not indexed); index entries for 1, 2 and 3
  // (3 has no record rows).
  void writeRecordsAndIndex() {
    writeAll({
        {rec(1, "age"), "30"},
        {rec(1, "name"), "alice"},
        {rec(2, "name"), "bob"},
        {rec(4, "name"), "dave"},
        {idx("alice", 1), ""},
        {idx("bob", 2), ""},
        {idx("carol", 3), ""},
    });
  }

  static Bytes byPk() { return Tuple{"records", "{K[2]}", "{...}"}.pack(); }
  static KeyRange indexRange() { return Tuple{"index"}.range(); }

  MappedRangeResult mapped(Transaction& tr, const KeyRange& range, std::string_view mapper,
                           const RangeOptions& options = kAll) {
    return tr
        .getMappedRange(KeySelector::firstGreaterOrEqual(range.begin),
                        KeySelector::firstGreaterOrEqual(range.end), mapper, options)
        .get();
  }

  // Checks one entry: its index row, its secondary range (P, strinc(P)) and the rows in it.
  static void expectEntry(const MappedKeyValue& entry, const Bytes& key, const Bytes& value,
                          const Bytes& prefix, const std::vector<KeyValue>& rows) {
    SCOPED_TRACE("entry " + fdb::printable(key));
    EXPECT_EQ(fdb::printable(entry.key), fdb::printable(key));
    EXPECT_EQ(entry.value, value);
    EXPECT_EQ(fdb::printable(entry.rangeBegin), fdb::printable(prefix));
    EXPECT_EQ(fdb::printable(entry.rangeEnd), fdb::printable(fdb::strinc(prefix)));
    EXPECT_EQ(entry.rangeRows, rows);
  }

  static Bytes recordPrefix(int64_t pk) { return Tuple{"records", pk}.pack(); }

  void expectAlice(const MappedKeyValue& entry) {
    expectEntry(entry, idx("alice", 1), "", recordPrefix(1),
                {{rec(1, "age"), "30"}, {rec(1, "name"), "alice"}});
  }
  void expectBob(const MappedKeyValue& entry) {
    expectEntry(entry, idx("bob", 2), "", recordPrefix(2), {{rec(2, "name"), "bob"}});
  }
  void expectCarol(const MappedKeyValue& entry) {
    expectEntry(entry, idx("carol", 3), "", recordPrefix(3), {});
  }
};

// --- Results (docs/semantics.md, "Mapped range reads") -------------------------------------------

TEST_P(MappedRangeTest, ReturnsEachIndexEntryWithItsSecondaryRows) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  MappedRangeResult result = mapped(tr, indexRange(), byPk());
  ASSERT_EQ(result.rows.size(), 3u);
  expectAlice(result.rows[0]);
  expectBob(result.rows[1]);
  expectCarol(result.rows[2]);  // an empty secondary range: still returned, with no rows
  EXPECT_FALSE(result.more);
}

TEST_P(MappedRangeTest, EntriesWhoseSecondaryRangesAreAllEmptyAreReturned) {
  writeAll({{idx("x", 10), ""}, {idx("y", 11), ""}});
  Transaction tr = db().createTransaction();
  MappedRangeResult result = mapped(tr, indexRange(), byPk());
  ASSERT_EQ(result.rows.size(), 2u);
  expectEntry(result.rows[0], idx("x", 10), "", recordPrefix(10), {});
  expectEntry(result.rows[1], idx("y", 11), "", recordPrefix(11), {});
  EXPECT_FALSE(result.more);
}

TEST_P(MappedRangeTest, EmptyPrimaryRangeGivesNoEntries) {
  writeAll({{rec(1, "name"), "alice"}});
  Transaction tr = db().createTransaction();
  MappedRangeResult result = mapped(tr, indexRange(), byPk());
  EXPECT_TRUE(result.rows.empty());
  EXPECT_FALSE(result.more);
}

TEST_P(MappedRangeTest, ValueElementsComeFromTheIndexValue) {
  writeRecordsAndIndex();
  writeAll({{Tuple{"byname", "alice"}.pack(), Tuple{1}.pack()},
            {Tuple{"byname", "bob"}.pack(), Tuple{2}.pack()}});
  Transaction tr = db().createTransaction();
  MappedRangeResult result =
      mapped(tr, Tuple{"byname"}.range(), Tuple{"records", "{V[0]}", "{...}"}.pack());
  ASSERT_EQ(result.rows.size(), 2u);
  expectEntry(result.rows[0], Tuple{"byname", "alice"}.pack(), Tuple{1}.pack(), recordPrefix(1),
              {{rec(1, "age"), "30"}, {rec(1, "name"), "alice"}});
  expectEntry(result.rows[1], Tuple{"byname", "bob"}.pack(), Tuple{2}.pack(), recordPrefix(2),
              {{rec(2, "name"), "bob"}});
}

TEST_P(MappedRangeTest, KeyElementsKeepTheirEncodedType) {
  // {K[1]} copies the unicode string "alice" as it is encoded: byte-string rows do not match.
  writeRecordsAndIndex();
  writeAll({{Tuple{"records", "alice", "f"}.pack(), "unicode"},
            {Tuple{"records", ByteString{"alice"}, "f"}.pack(), "bytes"}});
  Transaction tr = db().createTransaction();
  MappedRangeResult result = mapped(tr, KeyRange{idx("alice", 1), keyAfter(idx("alice", 1))},
                                    Tuple{"records", "{K[1]}", "{...}"}.pack());
  ASSERT_EQ(result.rows.size(), 1u);
  expectEntry(result.rows[0], idx("alice", 1), "", Tuple{"records", "alice"}.pack(),
              {{Tuple{"records", "alice", "f"}.pack(), "unicode"}});
}

TEST_P(MappedRangeTest, EscapedBracesMakeByteStringLiterals) {
  // "rec{{x}}" is the literal "rec{x}", re-encoded as a byte string (type 0x01).
  writeAll({{idx("alice", 1), ""},
            {Tuple{ByteString{"rec{x}"}, 1, "f"}.pack(), "escaped"},
            {Tuple{"rec{x}", 1, "f"}.pack(), "unicode"},
            {Tuple{ByteString{"rec{{x}}"}, 1, "f"}.pack(), "raw"}});
  Transaction tr = db().createTransaction();
  MappedRangeResult result = mapped(tr, indexRange(), Tuple{"rec{{x}}", "{K[2]}", "{...}"}.pack());
  ASSERT_EQ(result.rows.size(), 1u);
  expectEntry(result.rows[0], idx("alice", 1), "", Tuple{ByteString{"rec{x}"}, 1}.pack(),
              {{Tuple{ByteString{"rec{x}"}, 1, "f"}.pack(), "escaped"}});
}

TEST_P(MappedRangeTest, OtherLiteralElementsAreCopiedAsTheyAre) {
  writeAll({{idx("alice", 1), ""},
            {Tuple{"records", 7, nullptr, 1, "f"}.pack(), "v"},
            {Tuple{"records", 7, nullptr, 2, "f"}.pack(), "other pk"}});
  Transaction tr = db().createTransaction();
  MappedRangeResult result =
      mapped(tr, indexRange(), Tuple{"records", 7, nullptr, "{K[2]}", "{...}"}.pack());
  ASSERT_EQ(result.rows.size(), 1u);
  expectEntry(result.rows[0], idx("alice", 1), "", Tuple{"records", 7, nullptr, 1}.pack(),
              {{Tuple{"records", 7, nullptr, 1, "f"}.pack(), "v"}});
}

// --- The primary range behaves as getRange (docs/semantics.md, "Mapped range reads") -------------

TEST_P(MappedRangeTest, RowLimitAppliesToIndexEntries) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  MappedRangeResult result = mapped(tr, indexRange(), byPk(), RangeOptions{.limit = 2});
  ASSERT_EQ(result.rows.size(), 2u);
  expectAlice(result.rows[0]);
  expectBob(result.rows[1]);
  EXPECT_TRUE(result.more);
}

TEST_P(MappedRangeTest, ReverseReadsIndexEntriesFromTheEnd) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  {
    MappedRangeResult result = mapped(
        tr, indexRange(), byPk(), RangeOptions{.mode = StreamingMode::kWantAll, .reverse = true});
    ASSERT_EQ(result.rows.size(), 3u);
    expectCarol(result.rows[0]);
    expectBob(result.rows[1]);
    expectAlice(result.rows[2]);  // secondary rows stay in ascending order
    EXPECT_FALSE(result.more);
  }
  {
    MappedRangeResult result =
        mapped(tr, indexRange(), byPk(), RangeOptions{.limit = 2, .reverse = true});
    ASSERT_EQ(result.rows.size(), 2u);
    expectCarol(result.rows[0]);
    expectBob(result.rows[1]);
    EXPECT_TRUE(result.more);
  }
}

TEST_P(MappedRangeTest, SelectorsResolveAsInGetRange) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  MappedRangeResult result =
      tr.getMappedRange(KeySelector::firstGreaterThan(idx("alice", 1)),
                        KeySelector::lastLessOrEqual(idx("bob", 2)) + 1, byPk(), kAll)
          .get();
  ASSERT_EQ(result.rows.size(), 1u);
  expectBob(result.rows[0]);
}

TEST_P(MappedRangeTest, ByteLimitStopsEarlyAndContinuationReadsTheRest) {
  std::vector<KeyValue> rows;
  for (int pk = 0; pk < 30; ++pk) {
    rows.push_back({idx("n" + std::to_string(100 + pk), pk), ""});
    rows.push_back({rec(pk, "name"), Bytes(50, 'd')});
  }
  writeAll(rows);
  Transaction tr = db().createTransaction();
  MappedRangeResult first = mapped(tr, indexRange(), byPk(), RangeOptions{.targetBytes = 100});
  ASSERT_GE(first.rows.size(), 1u);
  ASSERT_LT(first.rows.size(), 30u);
  EXPECT_TRUE(first.more);
  std::vector<Bytes> keys;
  for (const auto& entry : first.rows) keys.emplace_back(entry.key);
  MappedRangeResult rest =
      tr.getMappedRange(KeySelector::firstGreaterThan(first.rows.back().key),
                        KeySelector::firstGreaterOrEqual(indexRange().end), byPk(), kAll)
          .get();
  for (const auto& entry : rest.rows) keys.emplace_back(entry.key);
  ASSERT_EQ(keys.size(), 30u);
  for (int pk = 0; pk < 30; ++pk) {
    EXPECT_EQ(keys[pk], idx("n" + std::to_string(100 + pk), pk));
  }
  for (const auto& entry : first.rows) EXPECT_EQ(entry.rangeRows.size(), 1u);
}

TEST_P(MappedRangeTest, ReadsAtTheTransactionsReadVersion) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  tr.getReadVersion().get();
  writeAll({{rec(2, "name"), "robert"}, {idx("dave", 4), ""}});
  MappedRangeResult result = mapped(tr, indexRange(), byPk());
  ASSERT_EQ(result.rows.size(), 3u);
  expectBob(result.rows[1]);  // the old row, not "robert"; no "dave" entry
}

// --- Errors (docs/semantics.md, "Mapped range reads") --------------------------------------------

TEST_P(MappedRangeTest, SnapshotMappedReadIsUnsupported) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(
      2108, tr.snapshot()
                .getMappedRange(KeySelector::firstGreaterOrEqual(indexRange().begin),
                                KeySelector::firstGreaterOrEqual(indexRange().end), byPk(), kAll)
                .get());
  // The serializable read of the same range works.
  EXPECT_EQ(mapped(tr, indexRange(), byPk()).rows.size(), 3u);
}

TEST_P(MappedRangeTest, ReadYourWritesDisabledIsUnsupported) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kReadYourWritesDisable);
  EXPECT_FDB_ERROR(2108, mapped(tr, indexRange(), byPk()));
}

TEST_P(MappedRangeTest, RangeDescriptorMustBeLast) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2032, mapped(tr, indexRange(), Tuple{"records", "{...}", "{K[2]}"}.pack()));
  EXPECT_FDB_ERROR(2032, mapped(tr, indexRange(), Tuple{"{...}", "{...}"}.pack()));
}

TEST_P(MappedRangeTest, BadIndexInTheMapper) {
  writeRecordsAndIndex();
  for (const char* element : {"{K[x]}", "{K[9]}", "{K[3]}", "{K[-1]}", "{V[0]}", "{V[y]}"}) {
    SCOPED_TRACE(element);
    Transaction tr = db().createTransaction();  // index values are "" (an empty tuple)
    EXPECT_FDB_ERROR(2030, mapped(tr, indexRange(), Tuple{"records", element, "{...}"}.pack()));
  }
}

TEST_P(MappedRangeTest, IndexKeyThatIsNotATupleFails) {
  // 0xfe is no type code; 0x30 (UUID) is one the server-side parser does not know ("Mapped range
  // reads").
  writeAll({{Tuple{"bad1"}.pack() + "\xfe", ""},
            {Tuple{"bad2", fdb::Uuid::parse("00112233445566778899aabbccddeeff")}.pack(), ""}});
  for (const char* prefix : {"bad1", "bad2"}) {
    SCOPED_TRACE(prefix);
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2041,
                     mapped(tr, Tuple{prefix}.range(), Tuple{"records", "{K[1]}", "{...}"}.pack()));
  }
}

TEST_P(MappedRangeTest, IndexValueThatIsNotATupleFailsWhenTheMapperUsesIt) {
  writeAll({{Tuple{"bad", 1}.pack(), "\xfe"}, {Tuple{"nested", 1}.pack(), Tuple{Tuple{1}}.pack()}});
  for (const char* prefix : {"bad", "nested"}) {
    SCOPED_TRACE(prefix);
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2042,
                     mapped(tr, Tuple{prefix}.range(), Tuple{"records", "{V[0]}", "{...}"}.pack()));
  }
  // A mapper that only uses the key never parses the value.
  Transaction tr = db().createTransaction();
  MappedRangeResult result =
      mapped(tr, Tuple{"bad"}.range(), Tuple{"records", "{K[1]}", "{...}"}.pack());
  ASSERT_EQ(result.rows.size(), 1u);
  expectEntry(result.rows[0], Tuple{"bad", 1}.pack(), "\xfe", recordPrefix(1), {});
}

TEST_P(MappedRangeTest, MapperThatIsNotATupleFails) {
  writeRecordsAndIndex();
  for (const Bytes& mapper : {Bytes("\xfe"), Tuple{"records", Tuple{1}, "{...}"}.pack()}) {
    SCOPED_TRACE(fdb::printable(mapper));
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2043, mapped(tr, indexRange(), mapper));
  }
}

TEST_P(MappedRangeTest, ExactModeWithoutLimitsFails) {
  writeRecordsAndIndex();
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2210,
                   mapped(tr, indexRange(), byPk(), RangeOptions{.mode = StreamingMode::kExact}));
}

TEST_P(MappedRangeTest, EndpointsOutsideTheKeySpaceFail) {
  writeRecordsAndIndex();
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2004, mapped(tr, KeyRange{indexRange().begin, "\xff\x01"}, byPk()));
  }
  {
    Transaction tr = db().createTransaction();  // begin in the special key space
    EXPECT_FDB_ERROR(2000, mapped(tr, KeyRange{"\xff\xff/a", "\xff\xff/b"}, byPk()));
  }
}

TEST_P(MappedRangeTest, ReadingOwnWritesIsUnsupported) {
  writeRecordsAndIndex();
  struct Write {
    const char* what;
    std::function<void(Transaction&)> apply;
  };
  std::vector<Write> touching = {
      {"new index entry", [](Transaction& tr) { tr.set(idx("dave", 4), ""); }},
      {"cleared index entry", [](Transaction& tr) { tr.clear(idx("bob", 2)); }},
      {"record row of an entry", [](Transaction& tr) { tr.set(rec(1, "name"), "x"); }},
      {"new row in an empty secondary range", [](Transaction& tr) { tr.set(rec(3, "n"), "x"); }},
      {"clear over a secondary range",
       [](Transaction& tr) {
         tr.clearRange(Tuple{"records", 2}.range());
       }},
      {"atomic op on a record row",
       [](Transaction& tr) { tr.atomicOp(rec(2, "name"), "!", fdb::MutationType::kAppendIfFits); }},
  };
  for (const Write& write : touching) {
    SCOPED_TRACE(write.what);
    Transaction tr = db().createTransaction();
    write.apply(tr);
    EXPECT_FDB_ERROR(2039, mapped(tr, indexRange(), byPk()));
  }
  // Writes that touch neither the index range nor a secondary range are fine.
  Transaction tr = db().createTransaction();
  tr.set("elsewhere", "x");
  tr.set(rec(4, "name"), "x");  // pk 4 is not indexed
  MappedRangeResult result = mapped(tr, indexRange(), byPk());
  ASSERT_EQ(result.rows.size(), 3u);
  expectAlice(result.rows[0]);
}

// --- Read conflict ranges (docs/semantics.md, "Mapped range reads") ------------------------------

class MappedRangeConflictsTest : public MappedRangeTest {
 protected:
  // A transaction reads the index through the mapper, `change` commits in another
  // transaction, then the reader writes and commits: its outcome.
  bool readerCommits(const std::function<void(Transaction&)>& change,
                     const RangeOptions& options = kAll) {
    Transaction reader = db().createTransaction();
    mapped(reader, indexRange(), byPk(), options);
    {
      Transaction other = db().createTransaction();
      change(other);
      other.commit().get();
    }
    reader.set("x", "1");
    try {
      reader.commit().get();
      return true;
    } catch (const fdb::Error& e) {
      EXPECT_EQ(e.code(), 1020);
      return false;
    }
  }
};

TEST_P(MappedRangeConflictsTest, ChangedSecondaryRowConflicts) {
  writeRecordsAndIndex();
  EXPECT_FALSE(readerCommits([](Transaction& tr) { tr.set(rec(1, "name"), "alicia"); }));
}

TEST_P(MappedRangeConflictsTest, RowInsertedIntoAnEmptySecondaryRangeConflicts) {
  writeRecordsAndIndex();
  EXPECT_FALSE(readerCommits([](Transaction& tr) { tr.set(rec(3, "name"), "carol"); }));
}

TEST_P(MappedRangeConflictsTest, ChangedIndexEntryConflicts) {
  writeRecordsAndIndex();
  EXPECT_FALSE(readerCommits([](Transaction& tr) { tr.set(idx("bob", 2), "x"); }));
}

TEST_P(MappedRangeConflictsTest, InsertedIndexEntryConflicts) {
  writeRecordsAndIndex();
  EXPECT_FALSE(readerCommits([](Transaction& tr) { tr.set(idx("bz", 9), ""); }));
}

TEST_P(MappedRangeConflictsTest, ChangesOutsideThePrimaryAndSecondaryRangesDoNotConflict) {
  writeRecordsAndIndex();
  EXPECT_TRUE(readerCommits([](Transaction& tr) {
    tr.set(rec(4, "name"), "david");  // a record no index entry maps to
    tr.set(Tuple{"records", 5}.pack(), "x");
    tr.set("elsewhere", "x");
  }));
}

TEST_P(MappedRangeConflictsTest, LimitedReadDoesNotConflictPastItsLastEntry) {
  writeRecordsAndIndex();
  EXPECT_TRUE(readerCommits(
      [](Transaction& tr) {
        tr.set(idx("bz", 9), "");         // after the last returned entry (bob)
        tr.set(rec(3, "name"), "carol");  // the secondary range of an entry not returned
      },
      RangeOptions{.limit = 2}));
}

RL_CONFORMANCE_INSTANTIATE(MappedRangeTest);
RL_CONFORMANCE_INSTANTIATE(MappedRangeConflictsTest);

}  // namespace
}  // namespace conformance
