#include "rl/context/record_context.h"

#include <fmt/format.h>

#include "rl/record_core_exception.h"

namespace rl {

RecordContext::RecordContext(fdb::Database db) : RecordContext(db.createTransaction()) {
  database_ = db.backend();
}

RecordContext::RecordContext(fdb::Transaction transaction)
    : transaction_(std::move(transaction)), createTime_(std::chrono::steady_clock::now()) {}

fdb::Transaction& RecordContext::transaction() {
  if (committed_) throw RecordCoreException("the record context has already committed");
  return transaction_;
}

uint16_t RecordContext::claimLocalVersion() {
  if (nextLocalVersion_ > 0xffff) {
    throw RecordCoreException("a transaction cannot claim more than 65536 local versions");
  }
  return static_cast<uint16_t>(nextLocalVersion_++);
}

void RecordContext::addVersionMutation(fdb::MutationType type, std::string_view key,
                                       std::string_view param) {
  if (type != fdb::MutationType::kSetVersionstampedKey &&
      type != fdb::MutationType::kSetVersionstampedValue) {
    throw RecordCoreArgumentException("only versionstamped mutations can be held back to commit");
  }
  auto it = versionMutations_.find(key);
  if (it == versionMutations_.end()) {
    versionMutations_.emplace(fdb::Bytes(key), std::pair(type, fdb::Bytes(param)));
  } else {
    it->second = std::pair(type, fdb::Bytes(param));
  }
}

bool RecordContext::removeVersionMutation(std::string_view key) {
  auto it = versionMutations_.find(key);
  if (it == versionMutations_.end()) return false;
  versionMutations_.erase(it);
  return true;
}

std::optional<std::pair<fdb::MutationType, fdb::Bytes>> RecordContext::versionMutation(
    std::string_view key) const {
  auto it = versionMutations_.find(key);
  if (it == versionMutations_.end()) return std::nullopt;
  return it->second;
}

void RecordContext::addToLocalVersionCache(std::string_view key, uint16_t localVersion) {
  localVersions_.insert_or_assign(fdb::Bytes(key), localVersion);
}

std::optional<uint16_t> RecordContext::localVersion(std::string_view key) const {
  auto it = localVersions_.find(key);
  if (it == localVersions_.end()) return std::nullopt;
  return it->second;
}

bool RecordContext::removeLocalVersion(std::string_view key) {
  auto it = localVersions_.find(key);
  if (it == localVersions_.end()) return false;
  localVersions_.erase(it);
  return true;
}

void RecordContext::clear(std::string_view key) {
  transaction().clear(key);
  removeVersionMutation(key);
  removeLocalVersion(key);
}

void RecordContext::clearRange(std::string_view begin, std::string_view end) {
  transaction().clearRange(begin, end);
  if (begin >= end) return;
  versionMutations_.erase(versionMutations_.lower_bound(begin), versionMutations_.lower_bound(end));
  localVersions_.erase(localVersions_.lower_bound(begin), localVersions_.lower_bound(end));
}

void RecordContext::addCommitHook(std::function<void(RecordContext&)> hook) {
  // Anonymous hooks get names no caller can give ('@' then a counter; see addCommitHook).
  commitHooks_.emplace_back(fmt::format("@anonymous-{}", anonymousHooks_++), std::move(hook));
}

void RecordContext::addCommitHook(std::string name, std::function<void(RecordContext&)> hook) {
  if (name.starts_with('@')) {
    throw RecordCoreArgumentException("commit hook names starting with '@' are reserved");
  }
  if (hasCommitHook(name)) {
    throw RecordCoreArgumentException(fmt::format("a commit hook named {} exists already", name));
  }
  commitHooks_.emplace_back(std::move(name), std::move(hook));
}

bool RecordContext::hasCommitHook(std::string_view name) const {
  for (const auto& [hookName, hook] : commitHooks_) {
    if (hookName == name) return true;
  }
  return false;
}

void RecordContext::commit() {
  fdb::Transaction& tr = transaction();
  // A hook may add another hook (or version mutations); run until none is left unrun.
  for (size_t i = 0; i < commitHooks_.size(); ++i) {
    auto hook = commitHooks_[i].second;
    hook(*this);
  }
  for (const auto& [key, mutation] : versionMutations_) {
    tr.atomicOp(key, mutation.second, mutation.first);
  }
  fdb::Future<fdb::Bytes> versionstamp = tr.getVersionstamp();
  tr.commit().get();
  committed_ = true;
  committedVersion_ = tr.getCommittedVersion();
  if (committedVersion_ >= 0) {
    versionstamp_ = versionstamp.get();
  } else {
    versionstamp_.reset();  // read-only: the versionstamp future fails with 2021
  }
}

std::optional<fdb::Bytes> RecordContext::committedVersionstamp() const {
  if (!committed_) throw RecordCoreException("the record context has not committed");
  return versionstamp_;
}

int64_t RecordContext::committedVersion() const {
  if (!committed_) throw RecordCoreException("the record context has not committed");
  return committedVersion_;
}

void RecordContext::onError(const fdb::Error& error) {
  transaction_.onError(error).get();  // rethrows what is not retryable
  resetState();
}

void RecordContext::reset() {
  transaction_.reset();
  resetState();
}

void RecordContext::resetState() {
  createTime_ = std::chrono::steady_clock::now();
  nextLocalVersion_ = 0;
  versionMutations_.clear();
  localVersions_.clear();
  commitHooks_.clear();
  anonymousHooks_ = 0;
  committed_ = false;
  versionstamp_.reset();
  committedVersion_ = -1;
}

}  // namespace rl
