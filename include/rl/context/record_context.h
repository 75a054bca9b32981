// rl::RecordContext — the Record Layer's transaction.
//
// Wraps one fdb::Transaction and adds what records need on top of it: local versions for
// the saves of this transaction, the version-mutation cache (versionstamped writes held back
// until commit, so that a later save or delete in the same transaction can still replace
// them and a read can still answer them), commit hooks (checks run just before commit, such
// as uniqueness checks), and the committed versionstamp afterwards. One context can serve
// several record stores and raw key-value operations at once.
//
//   fdb::Database db = fdb::Database::open("memory:");
//   rl::runInContext(db, [&](rl::RecordContext& context) {
//     uint16_t local = context.claimLocalVersion();
//     context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, key,
//                                rl::RecordVersion::incomplete(local).toInlineValue());
//     context.transaction().set("other", "value");
//   });
//
// Retries: runInContext runs the function in a fresh context state each attempt and retries
// exactly what fdb::Transaction::onError retries (FoundationDB's retryable errors), as
// fdb::Database::run does.
//
// Thread-safety: one thread at a time, as fdb::Transaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/transaction.h"
#include "fdb/types.h"

namespace rl {

class RecordContext {
 public:
  // A context on a new transaction of `db`.
  explicit RecordContext(fdb::Database db);
  // A context on an existing transaction (which it shares, as fdb::Transaction copies do).
  explicit RecordContext(fdb::Transaction transaction);

  RecordContext(const RecordContext&) = delete;
  RecordContext& operator=(const RecordContext&) = delete;
  RecordContext(RecordContext&&) = default;
  RecordContext& operator=(RecordContext&&) = default;

  // The transaction, for raw key-value work. Throws RecordCoreException once the context has
  // committed.
  fdb::Transaction& transaction();

  // The database the context was made on (null for a context on a bare transaction): whose
  // observations adaptive index fetch uses (rl/index/index_fetch_chooser.h).
  const std::shared_ptr<fdb::DatabaseBackend>& databaseBackend() const { return database_; }

  // When this attempt of the context began: the start of scan time limits.
  std::chrono::steady_clock::time_point createTime() const { return createTime_; }

  // The next local version of this transaction: 0, 1, 2, ... Throws RecordCoreException
  // after 65536 claims (a local version is 2 bytes).
  uint16_t claimLocalVersion();

  // --- The version-mutation cache ---
  // Holds back a versionstamped mutation (SET_VERSIONSTAMPED_KEY / _VALUE) of `key` until
  // commit; a later call for the same key replaces it.
  void addVersionMutation(fdb::MutationType type, std::string_view key, std::string_view param);
  // Drops the pending mutation of `key`; returns whether there was one.
  bool removeVersionMutation(std::string_view key);
  // The pending mutation of `key`, if any.
  std::optional<std::pair<fdb::MutationType, fdb::Bytes>> versionMutation(
      std::string_view key) const;
  size_t versionMutationCount() const { return versionMutations_.size(); }

  // Remembers that `key` will hold the incomplete version with local version
  // `localVersion` once this transaction commits, so reads before commit can answer it.
  void addToLocalVersionCache(std::string_view key, uint16_t localVersion);
  std::optional<uint16_t> localVersion(std::string_view key) const;
  bool removeLocalVersion(std::string_view key);
  // Whether any local version is cached (a cheap test before building keys to look up).
  bool hasLocalVersions() const { return !localVersions_.empty(); }

  // Clears `key` / [begin, end) in the transaction together with any pending version
  // mutation and cached local version there.
  void clear(std::string_view key);
  void clearRange(std::string_view begin, std::string_view end);
  void clearRange(const fdb::KeyRange& range) { clearRange(range.begin, range.end); }

  // --- Commit ---
  // Adds a hook run (in the order added) at the start of commit(), before the version
  // mutations are written; a hook that throws fails the commit. A named hook replaces
  // nothing: adding a name twice throws RecordCoreArgumentException.
  void addCommitHook(std::function<void(RecordContext&)> hook);
  void addCommitHook(std::string name, std::function<void(RecordContext&)> hook);
  bool hasCommitHook(std::string_view name) const;

  // Runs the hooks, writes the held-back version mutations and commits. Throws fdb::Error
  // (retryable ones included: pass them to onError) or what a hook throws.
  void commit();
  bool isCommitted() const { return committed_; }
  // The 10-byte versionstamp of the commit; nullopt when it committed read-only. Throws
  // RecordCoreException before a successful commit.
  std::optional<fdb::Bytes> committedVersionstamp() const;
  // The database version the commit got; -1 for a read-only commit. Throws before commit.
  int64_t committedVersion() const;

  // For a retryable error: waits the backoff, resets the transaction and this context's
  // state (local versions, caches, hooks) for another attempt. Otherwise throws `error`.
  void onError(const fdb::Error& error);
  // Back to a fresh transaction and state.
  void reset();

 private:
  void resetState();

  fdb::Transaction transaction_;
  std::shared_ptr<fdb::DatabaseBackend> database_;
  std::chrono::steady_clock::time_point createTime_;
  uint32_t nextLocalVersion_ = 0;
  std::map<fdb::Bytes, std::pair<fdb::MutationType, fdb::Bytes>, std::less<>> versionMutations_;
  std::map<fdb::Bytes, uint16_t, std::less<>> localVersions_;
  std::vector<std::pair<std::string, std::function<void(RecordContext&)>>> commitHooks_;
  size_t anonymousHooks_ = 0;
  bool committed_ = false;
  std::optional<fdb::Bytes> versionstamp_;
  int64_t committedVersion_ = -1;
};

// The record-level retry loop: runs fn(context) and commits, retrying what onError retries;
// returns what fn returns. Each attempt starts with a fresh context state.
template <typename F>
std::invoke_result_t<F, RecordContext&> runInContext(fdb::Database db, F&& fn) {
  RecordContext context(db);
  while (true) {
    try {
      if constexpr (std::is_void_v<std::invoke_result_t<F, RecordContext&>>) {
        fn(context);
        context.commit();
        return;
      } else {
        auto result = fn(context);
        context.commit();
        return result;
      }
    } catch (const fdb::Error& e) {
      context.onError(e);
    }
  }
}

}  // namespace rl
