#include "engine/durable/durable_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb::engine {
namespace {

constexpr std::string_view kLogFamily = "log";
constexpr std::string_view kMetaFamily = "meta";
constexpr std::string_view kFormatKey = "format";
constexpr std::string_view kFormat = "1";
constexpr std::string_view kBaseVersionKey = "base_version";
// A file next to RocksDB's, written once the store is initialized: a store that has it must
// have its metadata (RocksDB reads a MANIFEST that lost its last records as a shorter one).
constexpr std::string_view kMarkerFile = "RECORDLAYER";

// (RocksDB asserts that a slice's data is never null, as an empty string_view's may be.)
rocksdb::Slice slice(std::string_view bytes) {
  return bytes.data() != nullptr ? rocksdb::Slice(bytes.data(), bytes.size()) : rocksdb::Slice();
}
std::string_view view(const rocksdb::Slice& bytes) { return {bytes.data(), bytes.size()}; }

// Versions as log keys: 8 bytes big-endian, so the log sorts by version.
std::string versionKey(int64_t version) {
  std::string key(8, '\0');
  for (int i = 0; i < 8; ++i) {
    key[static_cast<size_t>(i)] =
        static_cast<char>((static_cast<uint64_t>(version) >> (56 - 8 * i)) & 0xff);
  }
  return key;
}

int64_t decodeVersion(std::string_view key, const std::string& directory) {
  if (key.size() != 8) {
    throw Error(errors::kFileCorrupt,
                fmt::format("store {}: a log key or the base version is {} bytes, not 8", directory,
                            key.size()));
  }
  uint64_t version = 0;
  for (char c : key) version = version << 8 | static_cast<uint8_t>(c);
  return static_cast<int64_t>(version);
}

// Turns a RocksDB failure into the fdb::Error the API reports. RocksDB's messages name the
// file concerned.
[[noreturn]] void fail(const rocksdb::Status& status, const std::string& directory,
                       std::string_view doing) {
  std::string message = status.ToString();
  if (status.IsIOError() && message.find("LOCK") != std::string::npos) {
    bool thisProcess = message.find("current process") != std::string::npos;
    throw Error(
        errors::kLockFileFailure,
        fmt::format("store {} is in use by {} ({})", directory,
                    thisProcess ? "another handle of this process" : "another process", message));
  }
  int code = status.IsCorruption() ? errors::kFileCorrupt : errors::kIoError;
  throw Error(code, fmt::format("store {}: {}: {}", directory, doing, message));
}

void check(const rocksdb::Status& status, const std::string& directory, std::string_view doing) {
  if (!status.ok()) fail(status, directory, doing);
}

// RocksDB's info log, remembering the last message about a corruption: RocksDB names the
// damaged write-ahead log file there, not in the status it returns.
class CorruptionWitness final : public rocksdb::LoggerWrapper {
 public:
  explicit CorruptionWitness(std::shared_ptr<rocksdb::Logger> target)
      : rocksdb::LoggerWrapper(target.get()), target_(std::move(target)) {}
  using rocksdb::LoggerWrapper::Logv;
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    va_list copy;
    va_copy(copy, ap);
    char line[512];
    int length = std::vsnprintf(line, sizeof line, format, copy);
    va_end(copy);
    if (length > 0 && std::strstr(line, "Corruption") != nullptr) {
      std::lock_guard lock(mutex_);
      last_ = line;
    }
    rocksdb::LoggerWrapper::Logv(level, format, ap);
  }
  std::string lastCorruption() {
    std::lock_guard lock(mutex_);
    return last_;
  }

 private:
  std::shared_ptr<rocksdb::Logger> target_;
  std::mutex mutex_;
  std::string last_;
};

// DB::Open's status, with what the info log said about a corruption when the status does not
// name the file.
void checkOpen(const rocksdb::Status& status, const std::string& directory,
               CorruptionWitness* witness) {
  if (status.ok()) return;
  std::string said = witness != nullptr ? witness->lastCorruption() : std::string();
  if (status.IsCorruption() && !said.empty()) {
    throw Error(errors::kFileCorrupt,
                fmt::format("store {}: open: {} ({})", directory, status.ToString(), said));
  }
  fail(status, directory, "open");
}

// Writes `path` with `content` and syncs it and its directory.
void writeSynced(const std::filesystem::path& path, std::string_view content,
                 const std::string& directory) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 &&
            ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ok = fd >= 0 && ::fsync(fd) == 0 && ok;
  if (fd >= 0) ::close(fd);
  int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ok = dir >= 0 && ::fsync(dir) == 0 && ok;
  if (dir >= 0) ::close(dir);
  if (!ok) {
    throw Error(errors::kIoError,
                fmt::format("store {}: cannot write {}", directory, path.string()));
  }
}

// Throws 1522 unless the store in `directory`, opened read-only, has its format key.
void checkMetadata(const std::string& directory, rocksdb::DBOptions options,
                   const std::vector<rocksdb::ColumnFamilyDescriptor>& families) {
  options.max_open_files = 16;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status =
      rocksdb::DB::OpenForReadOnly(options, directory, families, &handles, &raw);
  if (status.IsCorruption()) {
    checkOpen(status, directory, dynamic_cast<CorruptionWitness*>(options.info_log.get()));
  }
  std::string value;
  if (status.ok()) {
    std::unique_ptr<rocksdb::DB> db(raw);
    status = db->Get(rocksdb::ReadOptions(), handles[2], slice(kFormatKey), &value);
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    }
  }
  if (status.ok()) return;
  if (!status.IsNotFound() && !status.IsInvalidArgument()) fail(status, directory, "open");
  std::string manifest;
  std::getline(std::ifstream(std::filesystem::path(directory) / "CURRENT"), manifest);
  throw Error(errors::kFileCorrupt,
              fmt::format("store {}: its metadata is missing ({}): the MANIFEST ({}/{}) lost "
                          "records (truncated or damaged)",
                          directory, status.ToString(), directory, manifest));
}

}  // namespace

// ---- Opening and closing -----------------------------------------------------------------

DurableStore::DurableStore(std::string directory, const EngineOptions::Durable& options)
    : directory_(std::move(directory)), options_(options) {}

std::shared_ptr<DurableStore> DurableStore::open(const std::string& directory,
                                                 const EngineOptions::Durable& options) {
  std::shared_ptr<DurableStore> store(new DurableStore(directory, options));

  rocksdb::DBOptions dbOptions;
  dbOptions.create_if_missing = true;
  dbOptions.create_missing_column_families = true;
  dbOptions.paranoid_checks = true;
  // Replays the write-ahead log in full, except an incomplete last record (a write the crash
  // interrupted, never acknowledged); any other damage refuses to open, naming the file,
  // rather than silently dropping acknowledged commits after it.
  dbOptions.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  dbOptions.max_background_jobs = 2;
  dbOptions.keep_log_file_num = 4;
  std::shared_ptr<rocksdb::Logger> infoLog;
  if (rocksdb::CreateLoggerFromOptions(directory, dbOptions, &infoLog).ok()) {
    dbOptions.info_log = std::make_shared<CorruptionWitness>(std::move(infoLog));
  }
  auto* witness = dynamic_cast<CorruptionWitness*>(dbOptions.info_log.get());

  auto cache = rocksdb::NewLRUCache(static_cast<size_t>(std::max<int64_t>(options.cacheBytes, 0)));
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;  // their memory counts against the cache
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  rocksdb::ColumnFamilyOptions baseOptions;
  baseOptions.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  baseOptions.write_buffer_size = 16 << 20;
  rocksdb::ColumnFamilyOptions logOptions = baseOptions;
  rocksdb::ColumnFamilyOptions metaOptions = baseOptions;
  metaOptions.write_buffer_size = 1 << 20;

  std::vector<rocksdb::ColumnFamilyDescriptor> families{
      {rocksdb::kDefaultColumnFamilyName, baseOptions},
      {std::string(kLogFamily), logOptions},
      {std::string(kMetaFamily), metaOptions}};
  // A store that was initialized must still have its metadata. RocksDB reads a MANIFEST that
  // lost its last records as a shorter one and deletes the table files it no longer names
  // when it opens for writing, so look first, read-only.
  std::filesystem::path marker = std::filesystem::path(directory) / kMarkerFile;
  if (std::filesystem::exists(marker)) checkMetadata(directory, dbOptions, families);

  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  checkOpen(rocksdb::DB::Open(dbOptions, directory, families, &handles, &db), directory, witness);
  store->db_.reset(db);
  store->base_ = handles[0];
  store->log_ = handles[1];
  store->meta_ = handles[2];

  std::string value;
  rocksdb::Status status = db->Get(rocksdb::ReadOptions(), store->meta_, slice(kFormatKey), &value);
  if (status.IsNotFound()) {
    rocksdb::WriteBatch batch;
    batch.Put(store->meta_, slice(kFormatKey), slice(kFormat));
    batch.Put(store->meta_, slice(kBaseVersionKey), versionKey(0));
    rocksdb::WriteOptions write;
    write.sync = true;
    check(db->Write(write, &batch), directory, "initialize");
  } else {
    check(status, directory, "read the format");
    if (value != kFormat) {
      throw Error(errors::kFileCorrupt,
                  fmt::format("store {}: unknown format '{}' (this build reads format {})",
                              directory, printable(value), kFormat));
    }
  }
  if (!std::filesystem::exists(marker))
    writeSynced(marker, fmt::format("format {}\n", kFormat), directory);
  check(db->Get(rocksdb::ReadOptions(), store->meta_, slice(kBaseVersionKey), &value), directory,
        "read the base version");
  store->baseVersion_ = decodeVersion(value, directory);
  store->lastLogged_ = store->baseVersion_;
  return store;
}

bool DurableStore::existsIn(const std::string& directory) {
  std::error_code error;
  const std::filesystem::path path(directory);
  // The marker is written when a store is first initialized; RocksDB's CURRENT names its
  // manifest, for a store a build without the marker made.
  return std::filesystem::exists(path / kMarkerFile, error) ||
         std::filesystem::exists(path / "CURRENT", error);
}

namespace {
std::atomic<bool> processExiting{false};
// Keeps what a store destroyed after the exit handler gives up reachable, so that a leak
// checker running after the static destructors does not report it (never freed). Made on
// first use only: a library that is loaded and unloaded again leaves nothing behind.
void abandonAtExit(void* handle) {
  static std::mutex mutex;
  static std::vector<void*>* abandoned = nullptr;
  std::lock_guard lock(mutex);
  if (abandoned == nullptr) abandoned = new std::vector<void*>();
  abandoned->push_back(handle);
}
}  // namespace

void DurableStore::markProcessExiting() { processExiting.store(true); }

void DurableStore::syncLog() {
  if (db_) db_->FlushWAL(true).PermitUncheckedError();
}

DurableStore::~DurableStore() {
  if (!db_) return;
  if (processExiting.load()) {
    // RocksDB may be torn down already: closing would run into freed singletons.
    for (rocksdb::ColumnFamilyHandle* handle : {base_, log_, meta_}) abandonAtExit(handle);
    abandonAtExit(db_.release());
    return;
  }
  db_->FlushWAL(true).PermitUncheckedError();
  // The next open then reads tables instead of replaying the write-ahead log.
  db_->Flush(rocksdb::FlushOptions(), {base_, log_, meta_}).PermitUncheckedError();
  for (rocksdb::ColumnFamilyHandle* handle : {base_, log_, meta_}) {
    if (handle != nullptr) db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
}

// ---- The log -----------------------------------------------------------------------------

int64_t DurableStore::replayLog(FunctionRef<void(int64_t, std::string_view)> replay) {
  int64_t base = baseVersion();
  int64_t newest = base;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), log_));
  for (it->Seek(versionKey(base + 1)); it->Valid(); it->Next()) {
    newest = decodeVersion(view(it->key()), directory_);
    replay(newest, view(it->value()));
  }
  check(it->status(), directory_, "read the log");
  std::lock_guard lock(writeMutex_);
  lastLogged_ = std::max(lastLogged_, newest);
  return newest;
}

void DurableStore::writeLog(std::span<const LoggedCommit> commits) {
  rocksdb::WriteBatch batch;
  for (const LoggedCommit& commit : commits) {
    batch.Put(log_, versionKey(commit.version), slice(commit.record));
  }
  rocksdb::WriteOptions write;
  write.sync = options_.sync == EngineOptions::Durable::Sync::kOnCommit;
  std::lock_guard lock(writeMutex_);
  check(db_->Write(write, &batch), directory_, "write the log");
  if (!commits.empty()) lastLogged_ = std::max(lastLogged_, commits.back().version);
  if (write.sync) walSyncs_.fetch_add(1);
  loggedCommits_.fetch_add(static_cast<int64_t>(commits.size()));
}

void DurableStore::foldTo(int64_t version) {
  std::lock_guard lock(foldMutex_);
  int64_t base = baseVersion();
  if (version <= base) return;
  rocksdb::WriteBatch batch;
  std::string end = versionKey(version + 1);
  rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, log_));
  for (it->Seek(versionKey(base + 1)); it->Valid(); it->Next()) {
    LogRecord::forEach(view(it->value()),
                       [&](LogRecord::Op op, std::string_view key, std::string_view second) {
                         switch (op) {
                           case LogRecord::Op::kSet:
                             batch.Put(base_, slice(key), slice(second));
                             break;
                           case LogRecord::Op::kClear: batch.Delete(base_, slice(key)); break;
                           case LogRecord::Op::kClearRange:
                             if (key < second) batch.DeleteRange(base_, slice(key), slice(second));
                             break;
                         }
                       });
    batch.Delete(log_, it->key());
  }
  check(it->status(), directory_, "read the log");
  batch.Put(meta_, slice(kBaseVersionKey), versionKey(version));
  // Not synced: a later synced commit syncs it, and until then the log still holds it all.
  std::lock_guard writeLock(writeMutex_);
  check(db_->Write(rocksdb::WriteOptions(), &batch), directory_, "fold the log into the base");
  baseVersion_ = version;
}

// ---- Reads -------------------------------------------------------------------------------

std::optional<Bytes> DurableStore::getBase(std::string_view key) const {
  std::string value;
  rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), base_, slice(key), &value);
  if (status.IsNotFound()) return std::nullopt;
  check(status, directory_, "read");
  return value;
}

bool DurableStore::baseKeys(std::string_view begin, std::string_view end, size_t limit,
                            std::vector<Bytes>* keys) const {
  if (begin >= end) return true;
  rocksdb::Slice upper = slice(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, base_));
  size_t found = 0;
  for (it->Seek(slice(begin)); it->Valid(); it->Next()) {
    if (found++ == limit) return false;
    keys->emplace_back(view(it->key()));
  }
  check(it->status(), directory_, "read");
  return true;
}

std::optional<Bytes> DurableStore::get(const VersionedStore& memory, std::string_view key,
                                       int64_t version) const {
  VersionedStore::Lookup found = memory.lookup(key, version);
  switch (found.kind) {
    case VersionedStore::Lookup::Kind::kValue: return Bytes(found.value);
    case VersionedStore::Lookup::Kind::kCleared: return std::nullopt;
    case VersionedStore::Lookup::Kind::kNotHere: break;
  }
  if (memory.tombstoneAt(key, version) != nullptr) return std::nullopt;
  return getBase(key);
}

void DurableStore::scan(const VersionedStore& memory, std::string_view begin, std::string_view end,
                        int64_t version, bool reverse,
                        FunctionRef<bool(std::string_view, std::string_view)> visit,
                        BaseCursor* cursor) const {
  if (begin >= end) return;
  // One iterator for the whole operation when the caller keeps a cursor (its reads then see
  // one state of the base), else one bounded to this range.
  rocksdb::Slice lower = slice(begin);
  rocksdb::Slice upper = slice(end);
  std::unique_ptr<rocksdb::Iterator> own;
  rocksdb::Iterator* it = nullptr;
  if (cursor != nullptr) {
    if (cursor->iterator_ == nullptr) {
      cursor->iterator_ = db_->NewIterator(rocksdb::ReadOptions(), base_);
    }
    it = cursor->iterator_;
  } else {
    rocksdb::ReadOptions read;
    read.iterate_lower_bound = &lower;
    read.iterate_upper_bound = &upper;
    own.reset(db_->NewIterator(read, base_));
    it = own.get();
  }
  auto valid = [&] {
    if (!it->Valid()) return false;
    std::string_view key = view(it->key());
    return begin <= key && key < end;
  };
  if (reverse) {
    it->SeekForPrev(slice(end));
    if (it->Valid() && view(it->key()) >= end) it->Prev();
  } else {
    it->Seek(slice(begin));
  }
  bool tombstones = memory.hasTombstones();
  bool stopped = false;
  // The base's row at `it` unless a range tombstone hides it (then `it` skips the range).
  // Sets `stopped` when visit said stop.
  auto step = [&]() {
    std::string_view key = view(it->key());
    if (tombstones) {
      if (const VersionedStore::Tombstone* hidden = memory.tombstoneAt(key, version)) {
        if (reverse) {
          it->SeekForPrev(slice(hidden->begin));
          if (it->Valid() && view(it->key()) == hidden->begin) it->Prev();
        } else {
          it->Seek(slice(hidden->end));
        }
        return;
      }
    }
    if (!visit(key, view(it->value()))) {
      stopped = true;
      return;
    }
    if (reverse) {
      it->Prev();
    } else {
      it->Next();
    }
  };
  auto before = [&](std::string_view a, std::string_view b) { return reverse ? a > b : a < b; };
  memory.scanAll(begin, end, version, reverse,
                 [&](std::string_view key, const VersionedStore::Lookup& found) {
                   while (valid() && before(view(it->key()), key)) {
                     step();
                     if (stopped) return false;
                   }
                   bool inBase = valid() && view(it->key()) == key;
                   switch (found.kind) {
                     case VersionedStore::Lookup::Kind::kValue:
                       if (!visit(key, found.value)) {
                         stopped = true;
                         return false;
                       }
                       break;
                     case VersionedStore::Lookup::Kind::kCleared: break;
                     case VersionedStore::Lookup::Kind::kNotHere:
                       if (inBase) {
                         step();  // the base's row (or the tombstone over it) decides
                         return !stopped;
                       }
                       break;
                   }
                   if (inBase) {
                     if (reverse) {
                       it->Prev();
                     } else {
                       it->Next();
                     }
                   }
                   return true;
                 });
  while (!stopped && valid()) step();
  check(it->status(), directory_, "read");
}

std::optional<KeyValue> DurableStore::firstAtOrAfter(const VersionedStore& memory,
                                                     std::string_view from, std::string_view end,
                                                     int64_t version, BaseCursor* cursor) const {
  std::optional<KeyValue> found;
  scan(
      memory, from, end, version, false,
      [&](std::string_view key, std::string_view value) {
        found = KeyValue{Bytes(key), Bytes(value)};
        return false;
      },
      cursor);
  return found;
}

std::optional<KeyValue> DurableStore::lastBefore(const VersionedStore& memory,
                                                 std::string_view before, std::string_view begin,
                                                 int64_t version, BaseCursor* cursor) const {
  std::optional<KeyValue> found;
  scan(
      memory, begin, before, version, true,
      [&](std::string_view key, std::string_view value) {
        found = KeyValue{Bytes(key), Bytes(value)};
        return false;
      },
      cursor);
  return found;
}

void BaseCursor::release() {
  delete iterator_;
  iterator_ = nullptr;
}

// ---- Verification ------------------------------------------------------------------------

void DurableStore::verify() const {
  check(db_->VerifyChecksum(), directory_, "verify");
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), log_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    int64_t version = decodeVersion(view(it->key()), directory_);
    if (version <= baseVersion()) {
      throw Error(errors::kFileCorrupt,
                  fmt::format("store {}: the log holds version {} at or below the base version {}",
                              directory_, version, baseVersion()));
    }
    try {
      LogRecord::forEach(view(it->value()),
                         [](LogRecord::Op, std::string_view, std::string_view) {});
    } catch (const Error& e) {
      throw Error(errors::kFileCorrupt,
                  fmt::format("store {}: log record {}: {}", directory_, version, e.detail()));
    }
  }
  check(it->status(), directory_, "verify the log");
}

int64_t DurableStore::checkpoint(const std::string& directory) {
  rocksdb::Checkpoint* raw = nullptr;
  check(rocksdb::Checkpoint::Create(db_.get(), &raw), directory_, "checkpoint");
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  std::lock_guard lock(writeMutex_);
  check(checkpoint->CreateCheckpoint(directory), directory_, "checkpoint into " + directory);
  return lastLogged_;
}

}  // namespace fdb::engine
