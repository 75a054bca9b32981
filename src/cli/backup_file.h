// rl::cli::BackupWriter and BackupReader — the file `rl backup` writes and `rl restore` reads
// (docs/backup.md, "rl backup format 1"): key-values of one or more key ranges, read at one
// version, in checksummed frames.
//
//   BackupHeader header{.scope = "store", .store = "(\"shop\",)", .source = "file:/x",
//                       .version = 42, .ranges = {{begin, end}}};
//   BackupWriter writer(path, header);
//   writer.add(key, value);            // in ascending key order, inside the ranges
//   BackupSummary written = writer.finish();
//
//   BackupReader reader(path);         // reads the header
//   BackupSummary verified = reader.verify();   // every frame, checksum and count
//   BackupReader again(path);
//   while (std::optional<std::vector<fdb::KeyValue>> rows = again.nextBatch()) { ... }
//
// Layout: the 8 bytes "RLBACKUP", the format version (4 bytes, little-endian), then frames,
// each a type byte ('H' header, 'D' data, 'E' end), the payload's length (4 bytes LE), the
// payload and the CRC-32 (zlib's, 4 bytes LE) of the type, length and payload. One 'H' frame
// first (JSON), then 'D' frames (key-values: key length 4 bytes LE, key, value length, value),
// then one 'E' frame (key count 8 bytes LE, key and value bytes 8 bytes LE, CRC-32 of every
// byte of the file before the 'E' frame) and nothing after it.
//
// Every malformed, truncated or corrupted file is refused with BackupFormatError, whose message
// names the frame and its byte offset; verify() reads the whole file first, so a restore that
// verifies before writing writes nothing from a bad file.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/types.h"

namespace rl::cli {

inline constexpr uint32_t kBackupFormatVersion = 1;

// A file that is not a backup this rl reads: the message says what and at which byte.
class BackupFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BackupHeader {
  std::string scope;                  // "store" (one record store and its metadata) or "database"
  std::string store;                  // scope "store": the store's tuple, in the rl tuple syntax
  std::string source;                 // the address backed up
  int64_t version = 0;                // the database version every key-value was read at
  std::string created;                // UTC, ISO 8601: "2024-05-01T12:00:00Z"
  std::vector<fdb::KeyRange> ranges;  // ascending, disjoint; every key lies in one
};

struct BackupSummary {
  int64_t keys = 0;
  int64_t bytes = 0;      // keys and values
  int64_t fileBytes = 0;  // the file's size
};

class BackupWriter {
 public:
  // Creates `path` (which must not exist: the caller writes to a temporary name and renames).
  // Throws std::runtime_error when it cannot.
  BackupWriter(const std::string& path, const BackupHeader& header);
  ~BackupWriter();

  // REQUIRES: keys ascending, each inside one of the header's ranges (checked: throws
  // std::logic_error otherwise, so a bug never writes a backup that restore would refuse).
  void add(std::string_view key, std::string_view value);
  // Writes the last data frame and the end frame, flushes and syncs the file to disk.
  BackupSummary finish();
  int64_t keys() const { return summary_.keys; }
  int64_t bytes() const { return summary_.bytes; }

 private:
  void writeFrame(char type, std::string_view payload);
  void flushData();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<fdb::KeyRange> ranges_;
  std::string data_;  // the data frame being filled
  std::optional<std::string> lastKey_;
  uint32_t fileCrc_ = 0;  // of every byte written so far
  BackupSummary summary_;
};

class BackupReader {
 public:
  // Opens `path` and reads its header. Throws std::runtime_error when it cannot be opened,
  // BackupFormatError when it does not start as a backup of this format.
  explicit BackupReader(const std::string& path);

  const BackupHeader& header() const { return header_; }
  int64_t fileBytes() const { return fileBytes_; }
  int64_t offset() const { return offset_; }  // bytes read so far

  // The key-values of the next data frame; nullopt after the end frame, which is checked
  // (counts, the whole file's checksum, nothing after it). Throws BackupFormatError.
  std::optional<std::vector<fdb::KeyValue>> nextBatch();
  // Reads every frame to the end; the counts the end frame holds.
  BackupSummary verify();
  // What was read so far (after the end frame: the counts it holds, and the file's size).
  const BackupSummary& summary() const { return seen_; }

 private:
  // One frame: its type and payload. Throws BackupFormatError.
  char readFrame(std::string& payload);
  void readExactly(char* out, size_t size, const std::string& where);
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  std::ifstream in_;
  int64_t fileBytes_ = 0;
  int64_t offset_ = 0;
  uint32_t fileCrc_ = 0;  // of every byte read before the current frame
  BackupHeader header_;
  std::optional<std::string> lastKey_;
  BackupSummary seen_;
  bool ended_ = false;
};

}  // namespace rl::cli
