// The interface every backend implements: the embedded engine (src/engine/), and later
// real FoundationDB through libfdb_c (src/fdbc/). fdb::Database and fdb::Transaction are
// handles that forward to it; the semantics every implementation must have are
// FoundationDB's (docs and the conformance suite in tests/conformance/).
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/future.h"
#include "fdb/key_selector.h"
#include "fdb/types.h"

namespace fdb {

// An integer option parameter as FoundationDB passes it: 8 bytes, little-endian.
inline Bytes encodeOptionInt(int64_t value) {
  Bytes out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
  return out;
}

class TransactionBackend {
 public:
  virtual ~TransactionBackend() = default;

  virtual Future<int64_t> getReadVersion() = 0;
  virtual void setReadVersion(int64_t version) = 0;
  virtual Future<std::optional<Bytes>> get(std::string_view key, bool snapshot) = 0;
  virtual Future<Bytes> getKey(KeySelectorRef selector, bool snapshot) = 0;
  virtual Future<RangeResult> getRange(KeySelectorRef begin, KeySelectorRef end,
                                       const RangeOptions& options, bool snapshot) = 0;
  virtual void set(std::string_view key, std::string_view value) = 0;
  virtual void clear(std::string_view key) = 0;
  virtual void clearRange(std::string_view begin, std::string_view end) = 0;
  virtual void atomicOp(std::string_view key, std::string_view param, MutationType type) = 0;
  virtual void addConflictRange(std::string_view begin, std::string_view end,
                                ConflictRangeType type) = 0;
  virtual Future<MappedRangeResult> getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                                   std::string_view mapper,
                                                   const RangeOptions& options, bool snapshot) = 0;
  virtual Future<void> watch(std::string_view key) = 0;
  // `value`: nullopt for options without a parameter; integers arrive as 8 bytes
  // little-endian. Throws invalid_option (2007) for an unknown code.
  virtual void setOption(int code, std::optional<std::string_view> value) = 0;
  virtual Future<Bytes> getVersionstamp() = 0;
  virtual Future<void> commit() = 0;
  virtual int64_t getCommittedVersion() = 0;
  virtual Future<int64_t> getApproximateSize() = 0;
  virtual Future<void> onError(const Error& error) = 0;
  virtual void reset() = 0;
  virtual void cancel() = 0;
  virtual RoundTrips roundTrips() const = 0;
};

class DatabaseBackend {
 public:
  virtual ~DatabaseBackend() = default;
  virtual std::shared_ptr<TransactionBackend> createTransaction() = 0;
  virtual RoundTrips roundTrips() const = 0;
  // As TransactionBackend::setOption, for database options.
  virtual void setOption(int code, std::optional<std::string_view> value) = 0;
};

}  // namespace fdb
