// Transactions: every fdb_transaction_* entry point over the engine's transaction. Errors of
// the void operations are deferred by the transaction itself (docs/semantics.md, "Deferred
// errors"); future-returning calls never throw across the boundary: a failure is a failed
// future.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "capi/export.h"
#include "capi/fdb_c_api.h"
#include "capi/future.h"
#include "capi/handles.h"
#include "fdb/error.h"
#include "fdb/transaction.h"

using fdb::Bytes;
using fdb::capi::currentErrorCode;
using fdb::capi::failedFuture;
using fdb::capi::KeyArrayResult;
using fdb::capi::KeyResult;
using fdb::capi::KeyValueArrayResult;
using fdb::capi::MappedKeyValueArrayResult;
using fdb::capi::readyFuture;
using fdb::capi::Result;
using fdb::capi::StringArrayResult;
using fdb::capi::ValueResult;
using fdb::capi::wrap;
using fdb::engine::EngineTransaction;

namespace {

std::string_view view(const uint8_t* bytes, int length) {
  return {reinterpret_cast<const char*>(bytes), length > 0 ? static_cast<size_t>(length) : 0};
}

const uint8_t* bytesOf(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

// A view of the caller's key: the read copies what it keeps during the call.
fdb::KeySelectorRef selector(const uint8_t* key, int length, fdb_bool_t orEqual, int offset) {
  return fdb::KeySelectorRef{view(key, length), orEqual != 0, offset};
}

fdb::RangeOptions rangeOptions(int limit, int targetBytes, FDBStreamingMode mode, int iteration,
                               fdb_bool_t reverse) {
  fdb::RangeOptions options;
  options.limit = limit;
  options.targetBytes = targetBytes;
  options.mode = static_cast<fdb::StreamingMode>(fdb::capi::codeOf(mode));
  options.iteration = iteration;
  options.reverse = reverse != 0;
  return options;
}

FDBKeyValue keyValue(std::string_view key, std::string_view value) {
  FDBKeyValue kv;
  kv.key = bytesOf(key);
  kv.key_length = static_cast<int>(key.size());
  kv.value = bytesOf(value);
  kv.value_length = static_cast<int>(value.size());
  return kv;
}

// Runs `operation` under the transaction's lock; an exception becomes a failed future.
template <typename Operation>
FDBFuture* guarded(FDBTransaction* tr, Operation operation) {
  try {
    std::lock_guard lock(tr->mutex);
    return operation(tr->tr);
  } catch (...) {
    return failedFuture(currentErrorCode());
  }
}

// An engine operation's Completion that fills a C future cell with convert(value): at once
// when the outcome is there (born ready, no fdb::Future made), else from the network thread,
// or, for an operation that waits to be started, when the cell is first asked.
template <typename T, typename Convert>
class CellCompletion final : public EngineTransaction::Completion<T> {
 public:
  using Value = typename EngineTransaction::Completion<T>::Value;
  CellCompletion(FDB_future* cell, Convert convert) : cell_(cell), convert_(std::move(convert)) {}

  void value(Value&& value) override {
    if constexpr (std::is_void_v<T>) {
      cell_->completeUnshared(Result{});
    } else {
      cell_->completeUnsharedWith([&] { return convert_(std::move(value)); });
    }
    settled_ = true;
  }
  void error(const fdb::Error& error) override {
    cell_->failUnshared(error.code());
    settled_ = true;
  }
  void later(fdb::Future<T> future) override {
    fdb::capi::completeLater(cell_, std::move(future), convert_);
    settled_ = true;
  }
  void deferred(fdb::Future<T> future) override {
    fdb::capi::completeWhenAsked(cell_, std::move(future), convert_);
    settled_ = true;
  }
  bool settled() const { return settled_; }

 private:
  FDB_future* cell_;
  Convert convert_;
  bool settled_ = false;
};

// Runs `operation(transaction, completion)` under the transaction's lock, the completion
// filling a new future cell with convert(T); an exception the operation throws before it
// completes the cell fails it.
template <typename T, typename Convert, typename Operation>
FDBFuture* completing(FDBTransaction* tr, Convert convert, Operation operation) {
  try {
    FDB_future* cell = new FDB_future();
    CellCompletion<T, Convert> done(cell, std::move(convert));
    try {
      std::lock_guard lock(tr->mutex);
      operation(tr->tr, done);
    } catch (...) {
      if (!done.settled()) cell->failUnshared(currentErrorCode());
    }
    return cell;
  } catch (...) {
    return failedFuture(currentErrorCode());
  }
}

template <typename Operation>
void guardedVoid(FDBTransaction* tr, Operation operation) {
  try {
    std::lock_guard lock(tr->mutex);
    operation(tr->tr);
  } catch (...) {
    // The transaction defers the errors of void operations; nothing else is expected here.
  }
}

// The C arrays point into the rows' own storage, which moves of the result (into the
// future) do not relocate: vectors and blocks hand over their buffers.
KeyValueArrayResult keyValueArray(fdb::RangeResult rows) {
  KeyValueArrayResult result;
  result.more = rows.more;
  result.array = std::move(rows.rows).intoArray<FDBKeyValue>(
      [](const fdb::KeyValueRef& row, FDBKeyValue& kv) { kv = keyValue(row.key, row.value); });
  return result;
}

FDBKeySelector firstGreaterOrEqual(std::string_view key) {
  FDBKeySelector s;
  s.key.key = bytesOf(key);
  s.key.key_length = static_cast<int>(key.size());
  s.orEqual = 0;
  s.offset = 1;
  return s;
}

Result mappedKeyValueArray(fdb::MappedRangeResult rows) {
  MappedKeyValueArrayResult result;
  result.more = rows.more;
  result.rows = std::move(rows);
  result.rangeRows.reserve(result.rows.rows.size());
  result.array.reserve(result.rows.rows.size());
  for (const auto& entry : result.rows.rows) {
    std::vector<FDBKeyValue>& secondary = result.rangeRows.emplace_back();
    secondary.reserve(entry.rangeRows.size());
    for (const auto& row : entry.rangeRows) secondary.push_back(keyValue(row.key, row.value));
    FDBMappedKeyValue mapped;
    std::memset(&mapped, 0, sizeof(mapped));  // the reserved buffer reads as zeros
    mapped.key.key = bytesOf(entry.key);
    mapped.key.key_length = static_cast<int>(entry.key.size());
    mapped.value.key = bytesOf(entry.value);
    mapped.value.key_length = static_cast<int>(entry.value.size());
    mapped.getRange.begin = firstGreaterOrEqual(entry.rangeBegin);
    mapped.getRange.end = firstGreaterOrEqual(entry.rangeEnd);
    mapped.getRange.data = secondary.data();
    mapped.getRange.m_size = static_cast<int>(secondary.size());
    mapped.getRange.m_capacity = static_cast<int>(secondary.size());
    result.array.push_back(mapped);
  }
  return result;
}

// Every row of `range`, read as a snapshot (no conflict ranges) batch by batch, as
// fdb::Transaction reads them: through one that views `t` without owning it.
std::vector<fdb::KeyValue> snapshotRows(EngineTransaction& t, const fdb::KeyRange& range) {
  fdb::Transaction viewing(std::shared_ptr<fdb::TransactionBackend>(std::shared_ptr<void>(), &t));
  return viewing.snapshot().getRangeAll(range);
}

}  // namespace

RL_C_EXPORT void fdb_transaction_destroy(FDBTransaction* tr) {
  // The last handle going cancels the transaction: operations still in flight fail with
  // transaction_cancelled (1025), pending watches and versionstamps too.
  delete tr;
}

RL_C_EXPORT void fdb_transaction_cancel(FDBTransaction* tr) {
  guardedVoid(tr, [](EngineTransaction& t) { t.cancel(); });
}

RL_C_EXPORT fdb_error_t fdb_transaction_set_option(FDBTransaction* tr, FDBTransactionOption option,
                                                   uint8_t const* value, int value_length) {
  try {
    std::lock_guard lock(tr->mutex);
    std::optional<std::string_view> parameter;
    if (value != nullptr) parameter = view(value, value_length);
    tr->tr.setOption(fdb::capi::codeOf(option), parameter);
    return 0;
  } catch (...) {
    return currentErrorCode();
  }
}

RL_C_EXPORT void fdb_transaction_set_read_version(FDBTransaction* tr, int64_t version) {
  guardedVoid(tr, [&](EngineTransaction& t) { t.setReadVersion(version); });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_read_version(FDBTransaction* tr) {
  return completing<int64_t>(
      tr, [](int64_t version) { return version; },
      [](EngineTransaction& t, auto& done) { t.getReadVersion(done); });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get(FDBTransaction* tr, uint8_t const* key_name,
                                           int key_name_length, fdb_bool_t snapshot) {
  return completing<std::optional<Bytes>>(
      tr, [](std::optional<Bytes>&& value) { return ValueResult{std::move(value)}; },
      [&](EngineTransaction& t, auto& done) {
        t.get(view(key_name, key_name_length), snapshot != 0, done);
      });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_key(FDBTransaction* tr, uint8_t const* key_name,
                                               int key_name_length, fdb_bool_t or_equal, int offset,
                                               fdb_bool_t snapshot) {
  return guarded(tr, [&](EngineTransaction& t) {
    fdb::KeySelectorRef s = selector(key_name, key_name_length, or_equal, offset);
    return wrap(t.getKey(s, snapshot != 0),
                [](Bytes key) { return Result(KeyResult{std::move(key)}); });
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_addresses_for_key(FDBTransaction*, uint8_t const*, int) {
  // The engine is in-process: one pseudo storage server holds every key. (The pointers
  // survive the moves into the future: the vector hands over its buffer.)
  StringArrayResult result;
  result.strings = {"127.0.0.1:4500"};
  result.array = {result.strings.front().c_str()};
  return readyFuture(std::move(result));
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_range(
    FDBTransaction* tr, uint8_t const* begin_key_name, int begin_key_name_length,
    fdb_bool_t begin_or_equal, int begin_offset, uint8_t const* end_key_name,
    int end_key_name_length, fdb_bool_t end_or_equal, int end_offset, int limit, int target_bytes,
    FDBStreamingMode mode, int iteration, fdb_bool_t snapshot, fdb_bool_t reverse) {
  return completing<fdb::RangeResult>(tr, keyValueArray, [&](EngineTransaction& t, auto& done) {
    fdb::KeySelectorRef begin =
        selector(begin_key_name, begin_key_name_length, begin_or_equal, begin_offset);
    fdb::KeySelectorRef end = selector(end_key_name, end_key_name_length, end_or_equal, end_offset);
    fdb::RangeOptions options = rangeOptions(limit, target_bytes, mode, iteration, reverse);
    t.getRange(begin, end, options, snapshot != 0, done);
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_mapped_range(
    FDBTransaction* tr, uint8_t const* begin_key_name, int begin_key_name_length,
    fdb_bool_t begin_or_equal, int begin_offset, uint8_t const* end_key_name,
    int end_key_name_length, fdb_bool_t end_or_equal, int end_offset, uint8_t const* mapper_name,
    int mapper_name_length, int limit, int target_bytes, FDBStreamingMode mode, int iteration,
    fdb_bool_t snapshot, fdb_bool_t reverse) {
  return guarded(tr, [&](EngineTransaction& t) {
    fdb::KeySelectorRef begin =
        selector(begin_key_name, begin_key_name_length, begin_or_equal, begin_offset);
    fdb::KeySelectorRef end = selector(end_key_name, end_key_name_length, end_or_equal, end_offset);
    fdb::RangeOptions options = rangeOptions(limit, target_bytes, mode, iteration, reverse);
    std::string_view mapper = view(mapper_name, mapper_name_length);
    return wrap(t.getMappedRange(begin, end, mapper, options, snapshot != 0), mappedKeyValueArray);
  });
}

RL_C_EXPORT void fdb_transaction_set(FDBTransaction* tr, uint8_t const* key_name,
                                     int key_name_length, uint8_t const* value, int value_length) {
  guardedVoid(tr, [&](EngineTransaction& t) {
    t.set(view(key_name, key_name_length), view(value, value_length));
  });
}

RL_C_EXPORT void fdb_transaction_atomic_op(FDBTransaction* tr, uint8_t const* key_name,
                                           int key_name_length, uint8_t const* param,
                                           int param_length, FDBMutationType operation_type) {
  guardedVoid(tr, [&](EngineTransaction& t) {
    t.atomicOp(view(key_name, key_name_length), view(param, param_length),
               static_cast<fdb::MutationType>(fdb::capi::codeOf(operation_type)));
  });
}

RL_C_EXPORT void fdb_transaction_clear(FDBTransaction* tr, uint8_t const* key_name,
                                       int key_name_length) {
  guardedVoid(tr, [&](EngineTransaction& t) { t.clear(view(key_name, key_name_length)); });
}

RL_C_EXPORT void fdb_transaction_clear_range(FDBTransaction* tr, uint8_t const* begin_key_name,
                                             int begin_key_name_length, uint8_t const* end_key_name,
                                             int end_key_name_length) {
  guardedVoid(tr, [&](EngineTransaction& t) {
    t.clearRange(view(begin_key_name, begin_key_name_length),
                 view(end_key_name, end_key_name_length));
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_watch(FDBTransaction* tr, uint8_t const* key_name,
                                             int key_name_length) {
  return guarded(tr, [&](EngineTransaction& t) {
    return wrap(t.watch(view(key_name, key_name_length)), [] { return Result(); });
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_commit(FDBTransaction* tr) {
  return completing<void>(
      tr, [] { return Result(); }, [](EngineTransaction& t, auto& done) { t.commit(done); });
}

RL_C_EXPORT fdb_error_t fdb_transaction_get_committed_version(FDBTransaction* tr,
                                                              int64_t* out_version) {
  try {
    std::lock_guard lock(tr->mutex);
    *out_version = tr->tr.getCommittedVersion();
    return 0;
  } catch (...) {
    return currentErrorCode();
  }
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_tag_throttled_duration(FDBTransaction*) {
  return readyFuture(0.0);  // nothing throttles an embedded engine
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_total_cost(FDBTransaction* tr) {
  // An estimate in FoundationDB's spirit: bytes the commit would write plus one unit per
  // read round trip, so it is positive once the transaction has read.
  return guarded(tr, [tr](EngineTransaction& t) {
    int64_t reads =
        t.roundTrips().reads + t.roundTrips().rangeReads + t.roundTrips().mappedRangeReads;
    return wrap(t.getApproximateSize(), [reads](int64_t bytes) { return Result(bytes + reads); });
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_approximate_size(FDBTransaction* tr) {
  return guarded(tr, [tr](EngineTransaction& t) {
    return wrap(t.getApproximateSize(), [](int64_t size) { return Result(size); });
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_versionstamp(FDBTransaction* tr) {
  return guarded(tr, [tr](EngineTransaction& t) {
    return wrap(t.getVersionstamp(),
                [](Bytes stamp) { return Result(KeyResult{std::move(stamp)}); });
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_on_error(FDBTransaction* tr, fdb_error_t error) {
  return guarded(tr, [&](EngineTransaction& t) {
    return wrap(t.onError(fdb::Error(error)), [] { return Result(); });
  });
}

RL_C_EXPORT void fdb_transaction_reset(FDBTransaction* tr) {
  guardedVoid(tr, [](EngineTransaction& t) { t.reset(); });
}

RL_C_EXPORT fdb_error_t fdb_transaction_add_conflict_range(
    FDBTransaction* tr, uint8_t const* begin_key_name, int begin_key_name_length,
    uint8_t const* end_key_name, int end_key_name_length, FDBConflictRangeType type) {
  std::string_view begin = view(begin_key_name, begin_key_name_length);
  std::string_view end = view(end_key_name, end_key_name_length);
  const int kind = fdb::capi::codeOf(type);
  if (kind != FDB_CONFLICT_RANGE_TYPE_READ && kind != FDB_CONFLICT_RANGE_TYPE_WRITE) {
    return 2000;  // client_invalid_operation
  }
  if (begin > end) return 2005;  // inverted_range
  try {
    std::lock_guard lock(tr->mutex);
    tr->tr.addConflictRange(begin, end,
                            kind == FDB_CONFLICT_RANGE_TYPE_READ ? fdb::ConflictRangeType::kRead
                                                                 : fdb::ConflictRangeType::kWrite);
    return 0;
  } catch (...) {
    return currentErrorCode();
  }
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_estimated_range_size_bytes(FDBTransaction* tr,
                                                                      uint8_t const* begin_key_name,
                                                                      int begin_key_name_length,
                                                                      uint8_t const* end_key_name,
                                                                      int end_key_name_length) {
  return guarded(tr, [&](EngineTransaction& t) {
    // Exact rather than sampled: the bytes of the keys and values in the range (a snapshot
    // read, so no conflict ranges).
    fdb::KeyRange range{Bytes(view(begin_key_name, begin_key_name_length)),
                        Bytes(view(end_key_name, end_key_name_length))};
    int64_t bytes = 0;
    for (const auto& row : snapshotRows(t, range)) {
      bytes += static_cast<int64_t>(row.key.size() + row.value.size());
    }
    return readyFuture(bytes);
  });
}

RL_C_EXPORT FDBFuture* fdb_transaction_get_range_split_points(
    FDBTransaction* tr, uint8_t const* begin_key_name, int begin_key_name_length,
    uint8_t const* end_key_name, int end_key_name_length, int64_t chunk_size) {
  return guarded(tr, [&](EngineTransaction& t) {
    // The begin key, a key each time the rows since the last point reach chunk_size bytes,
    // and the end key.
    std::string_view begin = view(begin_key_name, begin_key_name_length);
    std::string_view end = view(end_key_name, end_key_name_length);
    KeyArrayResult result;
    result.keys.emplace_back(begin);
    int64_t bytes = 0;
    for (const auto& row : snapshotRows(t, fdb::KeyRange{Bytes(begin), Bytes(end)})) {
      if (chunk_size > 0 && bytes >= chunk_size && std::string_view(row.key) != begin) {
        result.keys.emplace_back(row.key);
        bytes = 0;
      }
      bytes += static_cast<int64_t>(row.key.size() + row.value.size());
    }
    result.keys.emplace_back(end);
    for (const Bytes& key : result.keys) {
      FDBKey k;
      k.key = bytesOf(key);
      k.key_length = static_cast<int>(key.size());
      result.array.push_back(k);
    }
    return readyFuture(std::move(result));
  });
}
