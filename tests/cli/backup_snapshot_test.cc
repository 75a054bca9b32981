// rl backup's snapshot read (src/cli/backup_snapshot.h): every row of the ranges once, in
// order, across many transactions at one read version, so commits made during the read are
// not seen; a read version that ages out of the MVCC window fails the read unless the reader
// is the database's only writer.
#include "backup_snapshot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdb/error.h"

namespace rl::cli {
namespace {

std::string keyOf(int i) {
  std::string key = "k" + std::to_string(100000 + i);
  return key;
}

void fill(fdb::Database& db, int count) {
  for (int first = 0; first < count; first += 100) {
    db.run([&](fdb::Transaction& tr) {
      for (int i = first; i < std::min(count, first + 100); ++i) {
        tr.set(keyOf(i), std::string(50, static_cast<char>('a' + i % 26)));
      }
      tr.set("a-outside", "x");
      tr.set("z-outside", "x");
    });
  }
}

std::vector<fdb::KeyValue> contents(fdb::Database& db, const fdb::KeyRange& range) {
  return db.run([&](fdb::Transaction& tr) { return tr.getRangeAll(range); });
}

SnapshotOptions small() {
  SnapshotOptions options;
  options.readBytesPerTransaction = 2'000;  // about 30 rows
  options.rowsPerRead = 7;
  return options;
}

struct Read {
  std::vector<fdb::KeyValue> rows;
  SnapshotStats stats;
};

Read readAll(fdb::Database& db, const SnapshotOptions& options,
             const std::vector<fdb::KeyRange>& ranges,
             const std::function<void(const SnapshotStats&)>& afterRead = {}) {
  Read read;
  fdb::Transaction first = db.createTransaction();
  const int64_t version = first.getReadVersion().get();
  read.stats = readSnapshot(
      db, first, version, options, ranges,
      [&](const fdb::KeyValueRef& row) { read.rows.push_back(fdb::KeyValue(row)); }, afterRead);
  return read;
}

TEST(BackupSnapshot, EveryRowOfEveryRangeOnceInKeyOrder) {
  fdb::Database db = fdb::Database::open("memory:");
  fill(db, 500);
  const std::vector<fdb::KeyRange> ranges = {{keyOf(10), keyOf(200)}, {keyOf(300), keyOf(450)}};
  const Read read = readAll(db, small(), ranges);
  std::vector<fdb::KeyValue> expected = contents(db, ranges[0]);
  for (fdb::KeyValue& row : contents(db, ranges[1])) expected.push_back(std::move(row));
  EXPECT_EQ(read.rows, expected);
  EXPECT_EQ(read.stats.keys, 190 + 150);
  EXPECT_GT(read.stats.transactions, 5);
  EXPECT_EQ(read.stats.newReadVersions, 0);
}

TEST(BackupSnapshot, CommitsDuringTheReadAreNotSeen) {
  fdb::Database db = fdb::Database::open("memory:");
  fill(db, 400);
  const fdb::KeyRange range{"k", "l"};
  const std::vector<fdb::KeyValue> before = contents(db, range);
  bool wrote = false;
  const Read read = readAll(db, small(), {range}, [&](const SnapshotStats&) {
    if (wrote) return;
    wrote = true;  // after the first read: change rows the read has not reached yet
    db.run([&](fdb::Transaction& tr) {
      tr.set(keyOf(350), "changed");
      tr.clear(keyOf(360));
      tr.set(keyOf(370) + "-new", "new");
    });
  });
  EXPECT_EQ(read.rows, before);
  EXPECT_NE(contents(db, range), before);
  EXPECT_GT(read.stats.transactions, 5);
}

TEST(BackupSnapshot, AReadVersionTooOldFailsTheReadUnlessItIsTheSoleWriter) {
  fdb::EngineOptions faulty;
  faulty.faults.enabled = true;
  faulty.faults.seed = 11;
  faulty.faults.readVersionTooOld = 0.2;
  fdb::Database db = fdb::Database::open("memory:", faulty);
  fill(db, 300);
  const fdb::KeyRange range{"k", "l"};
  try {
    readAll(db, small(), {range});
    ADD_FAILURE() << "the read did not fail";
  } catch (const fdb::Error& e) {
    EXPECT_EQ(e.code(), fdb::errors::kTransactionTooOld);
    EXPECT_NE(std::string(e.what()).find("within FoundationDB's 5-second MVCC window"),
              std::string::npos)
        << e.what();
  }
  SnapshotOptions sole = small();
  sole.soleWriter = true;
  const Read read = readAll(db, sole, {range});
  EXPECT_EQ(read.rows, contents(db, range));
  EXPECT_GT(read.stats.newReadVersions, 0);
}

}  // namespace
}  // namespace rl::cli
