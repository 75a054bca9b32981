// FdbcTransaction — one FDBTransaction behind the TransactionBackend interface.
//
// Each method is the fdb_transaction_* call of the same name. Errors of calls that return an
// fdb_error_t are thrown at once; errors of calls that return a future fail the future;
// set/clear/atomic_op return nothing, and libfdb_c defers their errors to the next future.
//
// Thread-safety: one thread at a time (the futures it returns complete on libfdb_c's network
// thread and touch nothing of the transaction).
#pragma once

#include <memory>

#include "fdb/backend.h"
#include "fdbc/c_api.h"
#include "fdbc/fdbc_database.h"

namespace fdb::fdbc {

class FdbcTransaction final : public TransactionBackend {
 public:
  // Takes ownership of `transaction`; keeps `database` (its counters) alive.
  FdbcTransaction(const CApi& api, std::shared_ptr<FdbcDatabase> database,
                  FDBTransaction* transaction);
  ~FdbcTransaction() override;
  FdbcTransaction(const FdbcTransaction&) = delete;
  FdbcTransaction& operator=(const FdbcTransaction&) = delete;

  Future<int64_t> getReadVersion() override;
  void setReadVersion(int64_t version) override;
  Future<std::optional<Bytes>> get(std::string_view key, bool snapshot) override;
  Future<Bytes> getKey(KeySelectorRef selector, bool snapshot) override;
  Future<RangeResult> getRange(KeySelectorRef begin, KeySelectorRef end,
                               const RangeOptions& options, bool snapshot) override;
  void set(std::string_view key, std::string_view value) override;
  void clear(std::string_view key) override;
  void clearRange(std::string_view begin, std::string_view end) override;
  void atomicOp(std::string_view key, std::string_view param, MutationType type) override;
  void addConflictRange(std::string_view begin, std::string_view end,
                        ConflictRangeType type) override;
  Future<MappedRangeResult> getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                           std::string_view mapper, const RangeOptions& options,
                                           bool snapshot) override;
  Future<void> watch(std::string_view key) override;
  void setOption(int code, std::optional<std::string_view> value) override;
  Future<Bytes> getVersionstamp() override;
  Future<void> commit() override;
  int64_t getCommittedVersion() override;
  Future<int64_t> getApproximateSize() override;
  Future<void> onError(const Error& error) override;
  void reset() override;
  void cancel() override;
  RoundTrips roundTrips() const override { return trips_; }

 private:
  // Counts a round trip of `kind`, and the read version it needs if none is known yet.
  void roundTrip(RoundTripKind kind);
  // Forgets the read version and writes (reset, retry).
  void forgetAttempt();

  const CApi& api_;
  std::shared_ptr<FdbcDatabase> database_;
  FDBTransaction* transaction_;
  RoundTrips trips_;
  // For counting only: whether this attempt has a read version (fetched or set) and has
  // written (a commit that writes nothing is not a round trip).
  bool readVersionKnown_ = false;
  bool wrote_ = false;
};

}  // namespace fdb::fdbc
