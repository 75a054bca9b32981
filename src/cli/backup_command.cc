// `rl backup` and `rl restore`: a record store (with its metadata) or every user key of a
// database to one file and back, through the client API, so on every backend (docs/backup.md).
//
//   rl backup --db file:/tmp/shop [--path '("shop", "orders")'] [--force] [--json] FILE
//   rl restore --db file:/tmp/copy [--overwrite] [--json] FILE
//   rl restore --verify-only FILE
//
// A backup is one snapshot: every key-value is read at one read version V (backup_snapshot.h),
// in transactions of a few megabytes each set to read at V. On fdb: that holds while V is
// inside FoundationDB's MVCC window (5 s); a backup that outlasts it fails with
// transaction_too_old and writes no file. On memory: and file: this process is the only writer
// (a file: store is opened by one process at a time), so when V leaves the window the backup
// goes on at a new read version, which sees the same data.
//
// A restore verifies the whole file (every checksum, the counts, the end) before it writes
// anything, refuses a target that holds keys in the backup's ranges unless --overwrite (which
// clears those ranges first), then writes in transactions of at most kRestoreBatchBytes.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "backup_file.h"
#include "backup_snapshot.h"
#include "commands.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "progress.h"
#include "store.h"
#include "table.h"

namespace rl::cli {
namespace {

// Key-values one restore transaction writes (FoundationDB allows 10 MB).
constexpr int64_t kRestoreBatchBytes = 1'000'000;
constexpr int64_t kRestoreBatchKeys = 10'000;

struct BackupOptions {
  StoreArguments store;  // --db, and --path when one store is backed up
  std::string file;
  bool force = false;
  bool json = false;
};

struct RestoreOptions {
  std::string db;
  std::string path;  // a store backup restored as this store instead (empty: where it was)
  std::string file;
  bool overwrite = false;
  bool json = false;
  bool verifyOnly = false;
};

// Ranges sorted and merged where they overlap or touch.
std::vector<fdb::KeyRange> normalized(std::vector<fdb::KeyRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const fdb::KeyRange& a, const fdb::KeyRange& b) { return a.begin < b.begin; });
  std::vector<fdb::KeyRange> out;
  for (fdb::KeyRange& range : ranges) {
    if (!out.empty() && range.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, range.end);
    } else {
      out.push_back(std::move(range));
    }
  }
  return out;
}

// A key for people: its tuple when it decodes, else FoundationDB's printable bytes.
std::string shownKey(std::string_view key) {
  try {
    return fdb::formatTuple(fdb::Tuple::unpack(key));
  } catch (const fdb::Error&) {
    return "`" + fdb::printable(key) + "'";
  }
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// What a backup holds, for its summary lines: "the record store ("shop",) and its metadata".
std::string storeScopeText(const std::string& store) {
  return fmt::format("the record store {} and its metadata", store);
}
std::string scopeText(const BackupHeader& header) {
  if (header.scope == "store") return storeScopeText(header.store);
  return "every key below \\xff";
}

// Makes `temporary` the file `path`: without `replace`, only if `path` does not exist (a
// hard link fails then), atomically either way; the directory is synced.
void publish(const std::string& temporary, const std::string& path, bool replace) {
  if (replace) {
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      throw std::runtime_error(
          fmt::format("cannot rename {} to {}: {}", temporary, path, std::strerror(errno)));
    }
  } else {
    if (::link(temporary.c_str(), path.c_str()) != 0) {
      const int error = errno;
      if (error == EEXIST) {
        throw std::runtime_error(
            fmt::format("{} exists: rl backup does not replace a file without --force", path));
      }
      throw std::runtime_error(fmt::format("cannot create {}: {}", path, std::strerror(error)));
    }
    ::unlink(temporary.c_str());
  }
  std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (directory.empty()) directory = ".";
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Removes the temporary file unless the backup was published.
struct TemporaryFile {
  std::string path;
  bool keep = false;
  ~TemporaryFile() {
    if (!keep) ::unlink(path.c_str());
  }
};

void runBackup(const BackupOptions& options) {
  const StoreArguments& args = options.store;
  if (args.db.empty()) {
    throw std::invalid_argument(
        "--db ADDRESS is required: memory:<name>, file:<dir>, a directory path, fdb:<cluster "
        "file> or fdb:");
  }
  BackupHeader header;
  std::optional<fdb::KeyRange> metaDataRange;
  if (!args.path.empty()) {
    header.scope = "store";
    header.store = fdb::formatTuple(storeTuple(args));
    metaDataRange = fdb::prefixRange(metaDataTuple(args).pack());
    header.ranges = normalized({*metaDataRange, fdb::prefixRange(storeTuple(args).pack())});
  } else {
    header.scope = "database";
    header.ranges = {fdb::KeyRange{"", "\xff"}};
  }
  if (!options.force && std::filesystem::exists(options.file)) {
    throw std::runtime_error(
        fmt::format("{} exists: rl backup does not replace a file without --force", options.file));
  }
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const bool embedded = !args.db.starts_with("fdb:");
  header.source = args.db;
  header.created = utcNow();

  // The snapshot's version: the first transaction's read version, which every read uses.
  fdb::Transaction first = db.createTransaction();
  while (true) {
    try {
      header.version = first.getReadVersion().get();
      if (metaDataRange) {
        fdb::RangeOptions one;
        one.limit = 1;
        if (first.snapshot().getRange(*metaDataRange, one).get().rows.empty()) {
          throw std::runtime_error(
              fmt::format("no record store at {} (no metadata at {}): nothing to back up",
                          header.store, fdb::formatTuple(metaDataTuple(args))));
        }
      }
      break;
    } catch (const fdb::Error& e) {
      first.onError(e).get();
    }
  }

  TemporaryFile temporary{fmt::format("{}.partial-{}", options.file, ::getpid())};
  ::unlink(temporary.path.c_str());  // a leftover of an earlier run with this process id
  std::optional<Progress> progress;
  if (::isatty(STDERR_FILENO) == 1) progress.emplace("backing up", 0);
  SnapshotStats read;
  BackupSummary written;
  {
    BackupWriter writer(temporary.path, header);
    SnapshotOptions snapshot;
    snapshot.soleWriter = embedded;
    try {
      read = readSnapshot(
          db, first, header.version, snapshot, header.ranges,
          [&](const fdb::KeyValueRef& row) { writer.add(row.key, row.value); },
          [&](const SnapshotStats& stats) {
            if (progress) {
              progress->update(stats.keys, fmt::format("keys, {}", formatBytes(stats.bytes)));
            }
          });
    } catch (const fdb::Error& e) {
      throw fdb::Error(e.code(), std::string(e.detail().empty() ? e.description() : e.detail()) +
                                     "; no file was written");
    }
    written = writer.finish();
  }
  if (progress) progress->finish();
  publish(temporary.path, options.file, options.force);
  temporary.keep = true;

  if (options.json) {
    nlohmann::ordered_json out = {{"file", options.file}, {"scope", header.scope}};
    if (header.scope == "store") out["store"] = header.store;
    out["source"] = header.source;
    out["version"] = header.version;
    out["keys"] = written.keys;
    out["bytes"] = written.bytes;
    out["file_bytes"] = written.fileBytes;
    out["transactions"] = read.transactions;
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("Backed up {} in {} at version {}: {} ({}) in {}, to {} ({}).\n", scopeText(header),
             header.source, header.version, plural(written.keys, "key", "keys"),
             formatBytes(written.bytes), plural(read.transactions, "transaction", "transactions"),
             options.file, formatBytes(written.fileBytes));
}

// Opens and verifies the backup; a bad file is one line naming it and what is wrong (and,
// when `restoring`, that nothing was restored).
BackupSummary verifyBackup(const std::string& file, BackupHeader& header, bool restoring) {
  try {
    BackupReader reader(file);
    header = reader.header();
    std::optional<Progress> progress;
    if (::isatty(STDERR_FILENO) == 1) progress.emplace("verifying", reader.fileBytes());
    while (reader.nextBatch()) {
      if (progress) progress->update(reader.offset(), "bytes");
    }
    if (progress) {
      // The last batch ends before the file's trailer: the whole file is verified now.
      progress->update(reader.fileBytes(), "bytes");
      progress->finish();
    }
    return reader.summary();
  } catch (const BackupFormatError& e) {
    throw std::runtime_error(fmt::format("{} is not a valid backup: {}{}", file, e.what(),
                                         restoring ? "; nothing was restored" : ""));
  }
}

void printVerified(const std::string& file, const BackupHeader& header,
                   const BackupSummary& summary, bool json) {
  if (json) {
    nlohmann::ordered_json out = {{"file", file}, {"valid", true}, {"scope", header.scope}};
    if (header.scope == "store") out["store"] = header.store;
    out["source"] = header.source;
    out["version"] = header.version;
    out["created"] = header.created;
    out["keys"] = summary.keys;
    out["bytes"] = summary.bytes;
    out["file_bytes"] = summary.fileBytes;
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{} is a valid backup of {} in {} at version {} (made {}): {} ({}).\n", file,
             scopeText(header), header.source, header.version, header.created,
             plural(summary.keys, "key", "keys"), formatBytes(summary.bytes));
}

// Where a store backup's keys go when it is restored as another store: the store's prefix and
// its metadata store's prefix, each replaced by the new store's.
class Retarget {
 public:
  Retarget(const BackupHeader& header, const std::string& newPath) {
    if (header.scope != "store") {
      throw std::invalid_argument(
          "--path restores a store backup as another store; this file is a backup of every key "
          "below \\xff (restore it without --path)");
    }
    StoreArguments from{"", header.store}, to{"", newPath};
    from_ = {metaDataTuple(from).pack(), storeTuple(from).pack()};
    to_ = {metaDataTuple(to).pack(), storeTuple(to).pack()};
    store_ = fdb::formatTuple(storeTuple(to));
    // Each key must belong to exactly one of the two ranges, on both sides.
    for (const auto& [metaData, store] : {from_, to_}) {
      if (metaData.starts_with(store) || store.starts_with(metaData)) {
        throw std::invalid_argument(
            fmt::format("cannot restore {} as {}: a store's range and its metadata's would "
                        "overlap",
                        header.store, store_));
      }
    }
    ranges_ = normalized({fdb::prefixRange(to_.first), fdb::prefixRange(to_.second)});
  }

  const std::string& store() const { return store_; }
  const std::vector<fdb::KeyRange>& ranges() const { return ranges_; }

  // REQUIRES: `key` is in the backup's ranges (the reader checks that).
  void apply(fdb::Bytes& key) const {
    const bool metaData = key.starts_with(from_.first);
    const fdb::Bytes& from = metaData ? from_.first : from_.second;
    const fdb::Bytes& to = metaData ? to_.first : to_.second;
    key.replace(0, from.size(), to);
  }

 private:
  std::pair<fdb::Bytes, fdb::Bytes> from_, to_;  // (metadata prefix, store prefix)
  std::string store_;
  std::vector<fdb::KeyRange> ranges_;
};

void runRestore(const RestoreOptions& options) {
  if (!options.verifyOnly && options.db.empty()) {
    throw std::invalid_argument(
        "--db ADDRESS is required: where to restore (memory:<name>, file:<dir>, a directory "
        "path, fdb:<cluster file> or fdb:); --verify-only checks the file alone");
  }
  BackupHeader header;
  const BackupSummary summary = verifyBackup(options.file, header, !options.verifyOnly);
  if (options.verifyOnly) {
    if (!options.path.empty())
      throw std::invalid_argument("--verify-only writes nothing: no --path");
    printVerified(options.file, header, summary, options.json);
    return;
  }
  std::optional<Retarget> retarget;
  if (!options.path.empty()) retarget.emplace(header, options.path);
  const std::vector<fdb::KeyRange>& targetRanges = retarget ? retarget->ranges() : header.ranges;
  const std::string targetScope = retarget ? storeScopeText(retarget->store()) : scopeText(header);

  fdb::Database db = fdb::Database::open(options.db);
  // The target's ranges hold nothing, or --overwrite clears them: one transaction.
  db.run([&](fdb::Transaction& tr) {
    fdb::RangeOptions one;
    one.limit = 1;
    for (const fdb::KeyRange& range : targetRanges) {
      const fdb::RangeResult first = tr.getRange(range, one).get();
      if (first.rows.empty()) continue;
      if (!options.overwrite) {
        throw std::runtime_error(fmt::format(
            "{} is not empty where the backup restores ({}): it has the key {}; restore into an "
            "empty database, or --overwrite to clear those keys first",
            options.db, targetScope, shownKey(first.rows[0].key)));
      }
      tr.clearRange(range);
    }
  });

  std::optional<Progress> progress;
  if (::isatty(STDERR_FILENO) == 1) progress.emplace("restoring", summary.keys);
  BackupReader reader(options.file);
  std::vector<fdb::KeyValue> batch;
  int64_t batchBytes = 0;
  int64_t restored = 0;
  int64_t transactions = 0;
  auto commit = [&] {
    if (batch.empty()) return;
    db.run([&](fdb::Transaction& tr) {
      for (const fdb::KeyValue& row : batch) tr.set(row.key, row.value);
    });
    transactions += 1;
    restored += static_cast<int64_t>(batch.size());
    batch.clear();
    batchBytes = 0;
    if (progress) progress->update(restored, "keys");
  };
  try {
    while (std::optional<std::vector<fdb::KeyValue>> rows = reader.nextBatch()) {
      for (fdb::KeyValue& row : *rows) {
        if (retarget) retarget->apply(row.key);
        batchBytes += static_cast<int64_t>(row.key.size() + row.value.size());
        batch.push_back(std::move(row));
        if (batchBytes >= kRestoreBatchBytes ||
            static_cast<int64_t>(batch.size()) >= kRestoreBatchKeys) {
          commit();
        }
      }
    }
    commit();
  } catch (const BackupFormatError& e) {
    // The file changed since it was verified.
    throw std::runtime_error(fmt::format(
        "{} changed while it was restored: {}; {} of {} keys are restored, the rest are not",
        options.file, e.what(), groupDigits(restored), groupDigits(summary.keys)));
  } catch (const fdb::Error& e) {
    throw fdb::Error(e.code(), fmt::format("{}; {} of {} keys are restored (restore again "
                                           "with --overwrite)",
                                           e.detail().empty() ? e.description() : e.detail(),
                                           groupDigits(restored), groupDigits(summary.keys)));
  }
  if (progress) progress->finish();

  if (options.json) {
    nlohmann::ordered_json out = {{"file", options.file}, {"scope", header.scope}};
    if (header.scope == "store") out["store"] = header.store;
    out["source"] = header.source;
    out["version"] = header.version;
    out["target"] = options.db;
    if (retarget) out["target_store"] = retarget->store();
    out["keys"] = summary.keys;
    out["bytes"] = summary.bytes;
    out["transactions"] = transactions;
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("Restored {} ({}) into {} in {}, from {}: {} in {} at version {}{}.\n",
             plural(summary.keys, "key", "keys"), formatBytes(summary.bytes), options.db,
             plural(transactions, "transaction", "transactions"), options.file, scopeText(header),
             header.source, header.version,
             retarget ? fmt::format(", as the record store {}", retarget->store()) : "");
}

}  // namespace

void addBackupCommands(CLI::App& app) {
  auto backupOptions = std::make_shared<BackupOptions>();
  CLI::App* backup = app.add_subcommand(
      "backup",
      "Back up a record store and its metadata (--path), or every key of the database below "
      "\\xff, to a file: one consistent snapshot, checksummed (docs/backup.md)");
  backup->add_option("--db", backupOptions->store.db,
                     "The database (required): memory:<name>, file:<dir>, a directory path or "
                     "fdb:<cluster file>");
  backup->add_option("--path", backupOptions->store.path,
                     "The record store: its tuple, e.g. '(\"shop\", \"orders\")' (default: "
                     "the whole database)");
  backup->add_flag("--force", backupOptions->force, "Replace FILE if it exists");
  backup->add_flag("--json", backupOptions->json, "Print the summary as JSON");
  backup->add_option("file", backupOptions->file, "The backup file to write")->required();
  backup->callback([backupOptions] { runBackup(*backupOptions); });

  auto restoreOptions = std::make_shared<RestoreOptions>();
  CLI::App* restore = app.add_subcommand(
      "restore",
      "Restore a backup made by rl backup: verify the whole file, then write its keys into a "
      "database where they are absent (--overwrite replaces them)");
  restore->add_option("--db", restoreOptions->db,
                      "Where to restore (required unless --verify-only): memory:<name>, "
                      "file:<dir>, a directory path or fdb:<cluster file>");
  restore->add_option("--path", restoreOptions->path,
                      "Restore a store backup as this record store instead (its tuple, e.g. "
                      "'(\"shop\", \"copy\")'): the store's keys and its metadata's move there");
  restore->add_flag("--overwrite", restoreOptions->overwrite,
                    "Clear the backup's key ranges in the target first, instead of refusing a "
                    "target that has keys there");
  restore->add_flag("--verify-only", restoreOptions->verifyOnly,
                    "Check the file (every checksum and count) and say what it holds; write "
                    "nothing");
  restore->add_flag("--json", restoreOptions->json, "Print the summary as JSON");
  restore->add_option("file", restoreOptions->file, "The backup file")->required();
  restore->callback([restoreOptions] { runRestore(*restoreOptions); });
}

}  // namespace rl::cli
