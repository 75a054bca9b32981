// EngineTransaction — a transaction on the embedded engine: FoundationDB's client-side
// transaction (read-your-writes, conflict ranges, deferred errors, the retry state machine
// of on_error) over an Engine.
//
// Thread-safety: one thread at a time, like every fdb::Transaction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "engine/write_map.h"
#include "fdb/backend.h"

namespace fdb::engine {

class EngineTransaction final : public TransactionBackend {
 public:
  explicit EngineTransaction(std::shared_ptr<Engine> engine);

  Future<int64_t> getReadVersion() override;
  void setReadVersion(int64_t version) override;
  Future<std::optional<Bytes>> get(std::string_view key, bool snapshot) override;
  Future<Bytes> getKey(const KeySelector& selector, bool snapshot) override;
  Future<RangeResult> getRange(const KeySelector& begin, const KeySelector& end,
                               const RangeOptions& options, bool snapshot) override;
  void set(std::string_view key, std::string_view value) override;
  void clear(std::string_view key) override;
  void clearRange(std::string_view begin, std::string_view end) override;
  void atomicOp(std::string_view key, std::string_view param, MutationType type) override;
  void addConflictRange(std::string_view begin, std::string_view end,
                        ConflictRangeType type) override;
  Future<void> commit() override;
  int64_t getCommittedVersion() override { return committedVersion_; }
  Future<int64_t> getApproximateSize() override;
  Future<void> onError(const Error& error) override;
  void reset() override;
  void cancel() override;

 private:
  // The error every future-returning operation must fail with now, if any.
  std::optional<Error> blockingError(bool allowedAfterCommit);
  // For void operations: false when the transaction is poisoned or already committed
  // (poisoning it with used_during_commit).
  bool acceptWrite();
  void deferError(Error error);
  int64_t readVersion();
  void addReadConflict(std::string_view begin, std::string_view end);
  void addWriteConflict(std::string_view begin, std::string_view end);
  // The read conflict range of a serializable range read (spec §2.5).
  void addRangeReadConflict(const KeySelector& begin, const KeySelector& end, const Bytes& beginKey,
                            const Bytes& endKey, const RangeResult& result, bool reverse,
                            bool ranOffStart, bool ranOffEnd);
  // Clears everything an attempt accumulated (reset() and a retry share this).
  void clearAttempt();

  // The merged view: the database at the read version overlaid with this transaction's
  // writes, over keys in ["", maxKey).
  std::optional<KeyValue> nextVisible(const Engine::Reader& reader, std::string_view from) const;
  std::optional<KeyValue> previousVisible(const Engine::Reader& reader,
                                          std::string_view before) const;
  std::optional<Bytes> valueOf(const Engine::Reader& reader, std::string_view key) const;
  // Resolves a normalized selector (orEqual already folded into the key). Sets
  // *ranOffStart when it ran out of keys going back (result ""), *ranOffEnd when it ran
  // out going forward with more than one step left (FoundationDB's readToBegin and
  // readThroughEnd); leaves them alone otherwise.
  Bytes resolve(const Engine::Reader& reader, std::string_view key, int offset, bool* ranOffStart,
                bool* ranOffEnd) const;

  std::shared_ptr<Engine> engine_;
  WriteMap writes_;
  std::optional<int64_t> readVersion_;
  std::vector<KeyRange> readConflicts_;
  std::vector<KeyRange> writeConflicts_;
  int64_t approximateSize_ = 0;
  std::optional<Error> deferredError_;
  std::optional<Error> poison_;  // cancelled (1025) or used during commit (2017)
  bool commitCalled_ = false;
  int64_t committedVersion_ = -1;

  // Retry state: survives onError, not reset().
  int retries_ = 0;
  double backoffSeconds_;
};

}  // namespace fdb::engine
