// Damaged and truncated files of a durable store: opening, reading or verifying it fails with
// fdb::Error 1522 (file_corrupt) or 1510 (io_error) naming the file, and never crashes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "fdb/database.h"
#include "fdb/durable.h"
#include "fdb/error.h"
#include "fdb/transaction.h"

namespace fdb {
namespace {

namespace fs = std::filesystem;

class DurableCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("durable-corrupt-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    EngineOptions options;
    options.durable.sync = EngineOptions::Durable::Sync::kRelaxed;
    Database db = Database::open("file:" + dir_.string(), options);
    for (int batch = 0; batch < 6; ++batch) {
      db.run([&](Transaction& tr) {
        for (int i = 0; i < 500; ++i) {
          char key[16];
          std::snprintf(key, sizeof key, "k%06d", batch * 500 + i);
          tr.set(key, std::string(100, static_cast<char>('a' + i % 26)));
        }
      });
    }
  }  // closed: folded into the base and flushed into table files
  void TearDown() override { fs::remove_all(dir_); }

  // The largest file whose name ends with `suffix` (or starts with it, for "MANIFEST").
  fs::path largest(std::string_view pattern) {
    fs::path best;
    uintmax_t bestSize = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
      std::string name = entry.path().filename().string();
      if (name.find(pattern) == std::string::npos || !entry.is_regular_file()) continue;
      if (entry.file_size() >= bestSize) {
        best = entry.path();
        bestSize = entry.file_size();
      }
    }
    return best;
  }

  static void garble(const fs::path& file, uintmax_t offset, size_t length) {
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(offset));
    for (size_t i = 0; i < length; ++i) out.put(static_cast<char>(0xa5 ^ i));
  }

  // Opens the store, reads every row and verifies it; returns the first fdb::Error.
  std::optional<Error> openReadVerify() {
    try {
      Database db = Database::open("file:" + dir_.string());
      db.run([](Transaction& tr) { return tr.getRangeAll({"", "\xff"}).size(); });
      verifyDurableStore(dir_.string());
    } catch (const Error& e) {
      std::cout << "[corruption] " << e.what() << "\n";
      return e;
    }
    return std::nullopt;
  }

  fs::path dir_;
};

TEST_F(DurableCorruption, ATruncatedTableFileIsReportedByName) {
  fs::path table = largest(".sst");
  ASSERT_FALSE(table.empty());
  fs::resize_file(table, fs::file_size(table) / 2);
  std::optional<Error> error = openReadVerify();
  ASSERT_TRUE(error.has_value());
  EXPECT_TRUE(error->code() == errors::kFileCorrupt || error->code() == errors::kIoError)
      << error->code();
  EXPECT_NE(error->detail().find(table.filename().string()), std::string::npos) << error->detail();
}

TEST_F(DurableCorruption, AGarbledTableFileIsReportedByName) {
  fs::path table = largest(".sst");
  ASSERT_FALSE(table.empty());
  garble(table, fs::file_size(table) / 3, 64);
  std::optional<Error> error = openReadVerify();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), errors::kFileCorrupt);
  EXPECT_NE(error->detail().find(table.filename().string()), std::string::npos) << error->detail();
}

// RocksDB reads a MANIFEST cut short as one whose last edits were interrupted; the store's
// own marker file tells that the metadata it then lacks is lost, not new.
TEST_F(DurableCorruption, VerifyPassesOnAHealthyStoreAndNamesAGarbledTable) {
  EXPECT_NO_THROW(verifyDurableStore(dir_.string()));
  fs::path table = largest(".sst");
  ASSERT_FALSE(table.empty());
  garble(table, fs::file_size(table) / 3, 64);
  try {
    verifyDurableStore(dir_.string());  // opens fine: only the data block is damaged
    ADD_FAILURE() << "verify passed a damaged table";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kFileCorrupt);
    EXPECT_NE(e.detail().find(table.filename().string()), std::string::npos) << e.detail();
  }
}

// RocksDB reads a MANIFEST cut short as one whose last edits were interrupted; the store's
TEST_F(DurableCorruption, ATruncatedManifestIsReportedByName) {
  fs::path manifest = largest("MANIFEST");
  ASSERT_FALSE(manifest.empty());
  fs::resize_file(manifest, fs::file_size(manifest) / 5);
  std::optional<Error> error = openReadVerify();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->detail().find("MANIFEST"), std::string::npos) << error->detail();
}

// (A damaged last record reads as an interrupted write: docs/durable.md.)
TEST_F(DurableCorruption, AGarbledManifestIsReportedByName) {
  fs::path manifest = largest("MANIFEST");
  ASSERT_FALSE(manifest.empty());
  garble(manifest, fs::file_size(manifest) / 4, 16);
  std::optional<Error> error = openReadVerify();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->detail().find("MANIFEST"), std::string::npos) << error->detail();
}

TEST_F(DurableCorruption, AGarbledCurrentFileIsReportedByName) {
  std::ofstream(dir_ / "CURRENT", std::ios::trunc) << "MANIFEST-999999";
  std::optional<Error> error = openReadVerify();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->detail().find("CURRENT"), std::string::npos) << error->detail();
}

TEST_F(DurableCorruption, AMissingTableFileIsReportedByName) {
  fs::path table = largest(".sst");
  ASSERT_FALSE(table.empty());
  fs::remove(table);
  std::optional<Error> error = openReadVerify();
  ASSERT_TRUE(error.has_value());
  // (RocksDB names the file it looked for last: 000013.ldb for a missing 000013.sst.)
  EXPECT_NE(error->detail().find(table.stem().string()), std::string::npos) << error->detail();
}

// A store as a crash leaves it: a copy of its directory taken while it is open, with its
// last commits only in the write-ahead log.
class DurableWalCorruption : public DurableCorruption {
 protected:
  void SetUp() override {
    DurableCorruption::SetUp();
    crashed_ = fs::path(dir_.string() + "-crashed");
    fs::remove_all(crashed_);
    Database db = Database::open("file:" + dir_.string());
    for (int i = 0; i < 200; ++i) {
      db.run([&](Transaction& tr) { tr.set("wal/" + std::to_string(i), std::string(200, 'w')); });
    }
    fs::copy(dir_, crashed_, fs::copy_options::recursive);
  }
  void TearDown() override {
    fs::remove_all(crashed_);
    DurableCorruption::TearDown();
  }

  fs::path wal() {
    fs::path best;
    for (const fs::directory_entry& entry : fs::directory_iterator(crashed_)) {
      if (entry.path().extension() == ".log" &&
          (best.empty() || entry.file_size() > fs::file_size(best))) {
        best = entry.path();
      }
    }
    return best;
  }

  size_t walRows() {
    Database db = Database::open("file:" + crashed_.string());
    return db.run([](Transaction& tr) { return tr.getRangeAll({"wal/", "wal0"}).size(); });
  }

  fs::path crashed_;
};

TEST_F(DurableWalCorruption, TheCrashedCopyRecoversEveryCommit) { EXPECT_EQ(walRows(), 200u); }

TEST_F(DurableWalCorruption, AGarbledLogRecordRefusesToOpenNamingTheFile) {
  fs::path log = wal();
  ASSERT_FALSE(log.empty());
  ASSERT_GT(fs::file_size(log), 20000u);
  garble(log, fs::file_size(log) / 2, 32);
  try {
    walRows();
    ADD_FAILURE() << "a damaged write-ahead log opened";
  } catch (const Error& e) {
    std::cout << "[corruption] " << e.what() << "\n";
    EXPECT_EQ(e.code(), errors::kFileCorrupt);
    EXPECT_NE(e.detail().find(log.filename().string()), std::string::npos) << e.detail();
  }
}

// A log cut inside its last record reads as a write a crash interrupted: the commits before
// it are there, whole (docs/durable.md: what truncation can and cannot be told from a crash).
TEST_F(DurableWalCorruption, ALogCutInsideItsLastRecordKeepsTheCommitsBeforeIt) {
  fs::path log = wal();
  ASSERT_FALSE(log.empty());
  fs::resize_file(log, fs::file_size(log) - 100);
  EXPECT_EQ(walRows(), 199u);
}

}  // namespace
}  // namespace fdb
