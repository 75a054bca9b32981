// The backup file format (src/cli/backup_file.h, docs/backup.md): what is written reads back
// exactly, and every truncation and every changed byte of a file is refused.
#include "backup_file.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace rl::cli {
namespace {

class BackupFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rl-backup-file-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static BackupHeader header() {
    BackupHeader h;
    h.scope = "store";
    h.store = "(\"s\",)";
    h.source = "memory:test";
    h.version = 123456789;
    h.created = "2024-01-02T03:04:05Z";
    h.ranges = {fdb::KeyRange{"a", "b"}, fdb::KeyRange{"k", "l"}};
    return h;
  }

  // Rows in both ranges, including empty values, binary bytes and a large value.
  static std::vector<fdb::KeyValue> rows() {
    std::vector<fdb::KeyValue> out;
    out.push_back({"a", ""});
    out.push_back({std::string("a\x00\xff", 3), std::string("\x00\x01", 2)});
    for (int i = 0; i < 30; ++i) out.push_back({"a" + std::to_string(100 + i), "v"});
    out.push_back({"k", std::string(100'000, 'x')});
    out.push_back({"k\xfe", "last"});
    return out;
  }

  std::string writeBackup(const std::string& name, const std::vector<fdb::KeyValue>& data) {
    BackupWriter writer(path(name), header());
    for (const fdb::KeyValue& row : data) writer.add(row.key, row.value);
    const BackupSummary summary = writer.finish();
    EXPECT_EQ(summary.keys, static_cast<int64_t>(data.size()));
    EXPECT_EQ(summary.fileBytes, static_cast<int64_t>(std::filesystem::file_size(path(name))));
    return path(name);
  }

  static std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void writeBytes(const std::string& file, const std::string& bytes) const {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  }

  std::filesystem::path dir_;
};

TEST_F(BackupFileTest, WhatIsWrittenReadsBackExactly) {
  const std::vector<fdb::KeyValue> data = rows();
  const std::string file = writeBackup("b.rlb", data);
  BackupReader reader(file);
  EXPECT_EQ(reader.header().scope, "store");
  EXPECT_EQ(reader.header().store, "(\"s\",)");
  EXPECT_EQ(reader.header().source, "memory:test");
  EXPECT_EQ(reader.header().version, 123456789);
  EXPECT_EQ(reader.header().created, "2024-01-02T03:04:05Z");
  EXPECT_EQ(reader.header().ranges, header().ranges);
  std::vector<fdb::KeyValue> back;
  while (auto batch = reader.nextBatch()) back.insert(back.end(), batch->begin(), batch->end());
  EXPECT_EQ(back, data);
  EXPECT_EQ(reader.summary().keys, static_cast<int64_t>(data.size()));
  EXPECT_EQ(BackupReader(file).verify().keys, static_cast<int64_t>(data.size()));
}

TEST_F(BackupFileTest, AnEmptyBackupIsValid) {
  const std::string file = writeBackup("empty.rlb", {});
  EXPECT_EQ(BackupReader(file).verify().keys, 0);
}

TEST_F(BackupFileTest, DataComesInFramesOfAboutAMegabyte) {
  // 3 MB of values: several data frames, each verified, read back in order.
  std::vector<fdb::KeyValue> data;
  for (int i = 0; i < 300; ++i) {
    data.push_back({"a" + std::to_string(1000 + i), std::string(10'000, static_cast<char>(i))});
  }
  const std::string file = writeBackup("big.rlb", data);
  BackupReader reader(file);
  int batches = 0;
  std::vector<fdb::KeyValue> back;
  while (auto batch = reader.nextBatch()) {
    ++batches;
    back.insert(back.end(), batch->begin(), batch->end());
  }
  EXPECT_GE(batches, 3);
  EXPECT_EQ(back, data);
}

TEST_F(BackupFileTest, TheWriterRefusesKeysOutOfOrderOrOutsideItsRanges) {
  BackupWriter writer(path("w.rlb"), header());
  writer.add("a1", "");
  EXPECT_THROW(writer.add("a1", ""), std::logic_error);
  EXPECT_THROW(writer.add("a0", ""), std::logic_error);
  EXPECT_THROW(writer.add("c", ""), std::logic_error);
  EXPECT_THROW(BackupWriter(path("w.rlb"), header()), std::runtime_error);  // exists
}

TEST_F(BackupFileTest, EveryTruncationIsRefused) {
  const std::string bytes = read(writeBackup("b.rlb", rows()));
  const std::string cut = path("cut.rlb");
  for (size_t length = 0; length < bytes.size(); length += (length < 200 ? 1 : 997)) {
    writeBytes(cut, bytes.substr(0, length));
    EXPECT_THROW(BackupReader(cut).verify(), BackupFormatError) << "length " << length;
  }
  writeBytes(cut, bytes.substr(0, bytes.size() - 1));
  EXPECT_THROW(BackupReader(cut).verify(), BackupFormatError);
}

TEST_F(BackupFileTest, EveryChangedByteIsRefused) {
  // A small backup, so every byte can be tried: each one flipped in turn.
  std::vector<fdb::KeyValue> data = {{"a1", "one"}, {"a2", "two"}, {"k", "kay"}};
  const std::string bytes = read(writeBackup("small.rlb", data));
  const std::string bad = path("bad.rlb");
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (const unsigned char mask : {0x01, 0x80}) {
      std::string changed = bytes;
      changed[i] = static_cast<char>(static_cast<unsigned char>(changed[i]) ^ mask);
      writeBytes(bad, changed);
      EXPECT_THROW(BackupReader(bad).verify(), BackupFormatError) << "byte " << i;
    }
  }
  writeBytes(bad, bytes + "x");
  EXPECT_THROW(BackupReader(bad).verify(), BackupFormatError);
}

TEST_F(BackupFileTest, MessagesNameWhatIsWrongAndWhere) {
  const std::string bytes = read(writeBackup("b.rlb", {{"a1", "one"}}));
  auto message = [&](const std::string& contents) -> std::string {
    writeBytes(path("m.rlb"), contents);
    try {
      BackupReader(path("m.rlb")).verify();
    } catch (const BackupFormatError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message("hello"), "not an rl backup: it does not start with RLBACKUP");
  std::string version2 = bytes;
  version2[8] = 2;
  EXPECT_EQ(message(version2),
            "backup format version 2, which this rl does not read (it reads version 1)");
  EXPECT_EQ(message(bytes.substr(0, 12)), "truncated: the file ends at byte 12 with no end frame");
  // The data frame follows the header frame.
  const size_t dataAt = bytes.find(std::string("D\x0d\x00\x00\x00", 5), 12);
  ASSERT_NE(dataAt, std::string::npos);
  std::string flipped = bytes;
  flipped[dataAt + 7] ^= 1;
  EXPECT_EQ(message(flipped), "corrupt: the checksum of the data frame at byte " +
                                  std::to_string(dataAt) + " does not match");
  EXPECT_EQ(message(bytes.substr(0, dataAt + 3)),
            "truncated: the file ends at byte " + std::to_string(dataAt + 3) +
                ", inside the frame at byte " + std::to_string(dataAt));
  EXPECT_EQ(message(bytes.substr(0, dataAt + 9)),
            "truncated: the file ends at byte " + std::to_string(dataAt + 9) +
                ", inside the data frame at byte " + std::to_string(dataAt));
  EXPECT_EQ(message(bytes + "zz"),
            "corrupt: 2 bytes follow the end frame at byte " + std::to_string(bytes.size() - 29));
}

}  // namespace
}  // namespace rl::cli
