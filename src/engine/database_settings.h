// DatabaseSettings — a database handle's options (docs/semantics.md, "Options"): the defaults
// every transaction starts from (and returns to on reset and retry), database-wide limits,
// and what the handle was opened with (its connection record).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace fdb::engine {

// What a transaction's options are before it sets any (FDB_DB_OPTION_TRANSACTION_*).
struct TransactionDefaults {
  int64_t timeoutMillis = 0;  // 0: none
  int64_t retryLimit = -1;    // -1: unlimited
  int64_t maxRetryDelayMillis = 1000;
  int64_t sizeLimit = 10000000;
  int snapshotRyw = 1;  // snapshot reads see own writes while > 0
  bool bypassUnreadable = false;
  bool usedDuringCommitProtectionDisable = false;
  // Commits carry an idempotency id: a commit_unknown_result is resolved to committed or
  // not_committed before it reaches the caller.
  bool automaticIdempotency = false;
};

// What a database handle was opened with, as the special keys \xff\xff/connection_string and
// \xff\xff/cluster_file_path report it (docs/semantics.md, "Special keys"): the address, and for
// the C library the cluster file that named it.
struct ConnectionRecord {
  std::string connectionString;
  std::string clusterFilePath;
};

class DatabaseSettings {
 public:
  TransactionDefaults transactionDefaults() const;
  int64_t maxWatches() const;
  ConnectionRecord connectionRecord() const;
  void setConnectionRecord(ConnectionRecord record);
  // Applies FDB_DB_OPTION `code`. Throws fdb::Error 2007 for an unknown code and 2006 for
  // a bad value.
  void setOption(int code, std::optional<std::string_view> value);

 private:
  mutable std::mutex mutex_;
  TransactionDefaults defaults_;
  int64_t maxWatches_ = 10000;
  ConnectionRecord connection_;
};

// Applies transaction option `transactionCode` when it is one a database can default
// (timeout, retry limit, max retry delay, size limit, automatic idempotency, snapshot RYW,
// used-during-commit protection, bypass unreadable, logging field length). Returns false
// for any other code. Throws fdb::Error 2006 for a bad value.
bool applyDefaultableOption(TransactionDefaults& defaults, int transactionCode,
                            std::optional<std::string_view> value);

// The integer of an Int option parameter (8 bytes, little-endian). Throws fdb::Error 2006
// (invalid_option_value) when the parameter is missing or not 8 bytes.
int64_t optionInt(std::optional<std::string_view> value);
// Throws 2006 unless lo <= v <= hi.
int64_t optionIntIn(std::optional<std::string_view> value, int64_t lo, int64_t hi);

}  // namespace fdb::engine
