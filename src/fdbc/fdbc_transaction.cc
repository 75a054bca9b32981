#include "fdbc/fdbc_transaction.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "fdb/types.h"
#include "fdbc/future_bridge.h"

namespace fdb::fdbc {
namespace {

// ---- Bytes across the boundary ------------------------------------------------------

// A pointer for the C API: never null (libfdb_c reads a null option value as "no value").
const uint8_t* bytesOf(std::string_view bytes) {
  static constexpr uint8_t kEmpty[1] = {0};
  return bytes.data() != nullptr ? reinterpret_cast<const uint8_t*>(bytes.data()) : kEmpty;
}
int lengthOf(std::string_view bytes) { return static_cast<int>(bytes.size()); }

std::string_view viewOf(const uint8_t* bytes, int length) {
  if (length <= 0) return {};
  return {reinterpret_cast<const char*>(bytes), static_cast<size_t>(length)};
}

// A getter's error code (the future's error, usually) as an fdb::Error.
void checkGet(fdb_error_t code) {
  if (code != 0) throw Error(code);
}

// ---- Readers: the value of a ready future, or its error (future_bridge.h) -----------
// Each getter returns the future's error instead of a value, as fdb_c.h specifies.

struct Int64Reader {
  static int64_t read(const CApi& api, FDBFuture* f) {
    int64_t value = 0;
    checkGet(api.fdb_future_get_int64(f, &value));
    return value;
  }
};

struct ValueReader {
  static std::optional<Bytes> read(const CApi& api, FDBFuture* f) {
    fdb_bool_t present = 0;
    const uint8_t* value = nullptr;
    int length = 0;
    checkGet(api.fdb_future_get_value(f, &present, &value, &length));
    if (!present) return std::nullopt;
    return Bytes(viewOf(value, length));
  }
};

struct KeyReader {
  static Bytes read(const CApi& api, FDBFuture* f) {
    const uint8_t* key = nullptr;
    int length = 0;
    checkGet(api.fdb_future_get_key(f, &key, &length));
    return Bytes(viewOf(key, length));
  }
};

// Futures without a value (commit, watch, on_error): only their error is read.
struct EmptyReader {
  static void read(const CApi&, FDBFuture*) {}
};

// Rows are copied out of the C array into one block: the builder of the thread that reads
// (the caller's, or the network thread; threadRangeRowsBuilder) keeps its buffers between
// reads.
struct RangeReader {
  static RangeResult read(const CApi& api, FDBFuture* f) {
    const FDBKeyValue* rows = nullptr;
    int count = 0;
    fdb_bool_t more = 0;
    checkGet(api.fdb_future_get_keyvalue_array(f, &rows, &count, &more));
    RangeRowsBuilder& builder = threadRangeRowsBuilder();
    for (int i = 0; i < count; ++i) {
      builder.append(viewOf(rows[i].key, rows[i].key_length),
                     viewOf(rows[i].value, rows[i].value_length));
    }
    RangeResult result;
    result.rows = builder.build();
    result.more = more != 0;
    return result;
  }
};

struct MappedRangeReader {
  static MappedRangeResult read(const CApi& api, FDBFuture* f) {
    const FDBMappedKeyValue* entries = nullptr;
    int count = 0;
    fdb_bool_t more = 0;
    checkGet(api.fdb_future_get_mappedkeyvalue_array(f, &entries, &count, &more));
    MappedRangeRowsBuilder& builder = threadMappedRangeRowsBuilder();
    for (int i = 0; i < count; ++i) {
      const FDBMappedKeyValue& entry = entries[i];
      builder.addEntry(viewOf(entry.key.key, entry.key.key_length),
                       viewOf(entry.value.key, entry.value.key_length),
                       viewOf(entry.getRange.begin.key.key, entry.getRange.begin.key.key_length),
                       viewOf(entry.getRange.end.key.key, entry.getRange.end.key.key_length));
      for (int j = 0; j < entry.getRange.m_size; ++j) {
        const FDBKeyValue& row = entry.getRange.data[j];
        builder.addRangeRow(viewOf(row.key, row.key_length), viewOf(row.value, row.value_length));
      }
    }
    MappedRangeResult result;
    result.rows = builder.build();
    result.more = more != 0;
    return result;
  }
};

// ---- Watches --------------------------------------------------------------------------
//
// A watch is pending until its key changes, possibly forever, and dropping every copy of its
// fdb::Future cancels it (include/fdb/transaction.h), as destroying the FDBFuture of a watch
// does. So the C future is owned by a WatchGuard that the fdb::Future's state holds through
// an onReady callback: the guard goes away when the future is ready (fired, failed or
// cancelled) or when its last copy is dropped, and destroys the C future then. The C
// callback completes the future through a WeakPromise, which keeps nothing alive.

// Shared by the C callback and the guard; the second to let go deletes it.
struct WatchLink {
  const CApi* api = nullptr;
  FDBFuture* future = nullptr;
  std::optional<WeakPromise<void>> promise;
  std::mutex mutex;
  bool destroyed = false;  // the guard destroyed `future`: the callback must not read it
  std::atomic<int> owners{2};

  void release() {
    if (owners.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
};

class WatchGuard {
 public:
  explicit WatchGuard(WatchLink* link) : link_(link) {}
  WatchGuard(const WatchGuard&) = delete;
  WatchGuard& operator=(const WatchGuard&) = delete;
  ~WatchGuard() {
    {
      std::lock_guard lock(link_->mutex);
      link_->destroyed = true;
    }
    // Cancels the watch if it is still pending (its callback may run inside this call).
    link_->api->fdb_future_destroy(link_->future);
    link_->release();
  }

  // The fdb::Future became ready: if that was cancel(), cancel the C watch too (a no-op
  // when the C future is what completed it).
  void futureReady() const { link_->api->fdb_future_cancel(link_->future); }

 private:
  WatchLink* link_;
};

void completeWatch(FDBFuture* f, void* parameter) {
  auto* link = static_cast<WatchLink*>(parameter);
  fdb_error_t code = 0;
  bool destroyed;
  {
    std::lock_guard lock(link->mutex);
    destroyed = link->destroyed;
    if (!destroyed) code = link->api->fdb_future_get_error(f);
  }
  if (!destroyed) {
    if (code == 0) {
      link->promise->setValue();
    } else {
      link->promise->setError(Error(code));
    }
  }
  link->release();
}

Future<void> watchFuture(const CApi& api, FDBFuture* f) {
  if (f == nullptr)
    return Future<void>::failed(Error(kInternalError, "libfdb_c returned no future"));
  Promise<void> promise;
  Future<void> future = promise.future();
  auto* link = new WatchLink;
  link->api = &api;
  link->future = f;
  link->promise.emplace(promise.weaken());
  auto guard = std::make_shared<WatchGuard>(link);
  future.onReady([guard] { guard->futureReady(); });
  guard.reset();  // the future's state owns it now
  if (fdb_error_t code = api.fdb_future_set_callback(f, &completeWatch, link); code != 0) {
    promise.setError(Error(code));  // the guard goes, destroying f
    link->release();                // the callback's share: it will never run
  }
  return future;
}

// ---- Commits ----------------------------------------------------------------------------
//
// FoundationDB stops a commit that is not sent yet when its future is destroyed or its
// transaction goes first (docs/semantics.md, "When a commit is sent"). So the C future of a
// commit is looked at only once the fdb::Future's outcome is asked for (a lazy future: looking
// is what sends the commit of this project's libfdb_c); dropping every copy before that
// destroys the C future, as a C client that drops a commit's future does.

// Owns the C future until the fdb::Future's outcome is asked for; then, as the future's
// starter, hands it over and completes the outcome from it.
struct UnaskedCommit {
  UnaskedCommit(const CApi& api, FDBFuture* future, WeakPromise<void> outcome)
      : api(&api), future(future), outcome(std::move(outcome)) {}
  UnaskedCommit(const UnaskedCommit&) = delete;
  UnaskedCommit& operator=(const UnaskedCommit&) = delete;
  ~UnaskedCommit() {
    if (future != nullptr) api->fdb_future_destroy(future);
  }

  void start() { completeFrom<EmptyReader>(*api, std::exchange(future, nullptr), outcome); }

  const CApi* api;
  FDBFuture* future;
  WeakPromise<void> outcome;
};

Future<void> commitFuture(const CApi& api, FDBFuture* f) {
  if (f == nullptr)
    return Future<void>::failed(Error(kInternalError, "libfdb_c returned no future"));
  Promise<void> promise;
  promise.setStarter(std::allocate_shared<UnaskedCommit>(
      fdb::detail::ThreadCachedAllocator<UnaskedCommit>(), api, f, promise.weaken()));
  return promise.future();
}

}  // namespace

FdbcTransaction::FdbcTransaction(const CApi& api, std::shared_ptr<FdbcDatabase> database,
                                 FDBTransaction* transaction)
    : api_(api), database_(std::move(database)), transaction_(transaction) {}

FdbcTransaction::~FdbcTransaction() { api_.fdb_transaction_destroy(transaction_); }

void FdbcTransaction::roundTrip(RoundTripKind kind) {
  if (!readVersionKnown_) {  // the first operation that needs a read version fetches it
    readVersionKnown_ = true;
    ++trips_.readVersions;
    database_->count(RoundTripKind::kReadVersion);
  }
  switch (kind) {
    case RoundTripKind::kReadVersion: return;
    case RoundTripKind::kRead: ++trips_.reads; break;
    case RoundTripKind::kRangeRead: ++trips_.rangeReads; break;
    case RoundTripKind::kMappedRangeRead: ++trips_.mappedRangeReads; break;
    case RoundTripKind::kCommit: ++trips_.commits; break;
  }
  database_->count(kind);
}

void FdbcTransaction::forgetAttempt() {
  readVersionKnown_ = false;
  wrote_ = false;
}

Future<int64_t> FdbcTransaction::getReadVersion() {
  roundTrip(RoundTripKind::kReadVersion);
  return toFuture<Int64Reader>(api_, api_.fdb_transaction_get_read_version(transaction_));
}

void FdbcTransaction::setReadVersion(int64_t version) {
  readVersionKnown_ = true;
  api_.fdb_transaction_set_read_version(transaction_, version);
}

Future<std::optional<Bytes>> FdbcTransaction::get(std::string_view key, bool snapshot) {
  roundTrip(RoundTripKind::kRead);
  return toFuture<ValueReader>(
      api_, api_.fdb_transaction_get(transaction_, bytesOf(key), lengthOf(key), snapshot));
}

Future<Bytes> FdbcTransaction::getKey(KeySelectorRef selector, bool snapshot) {
  roundTrip(RoundTripKind::kRead);
  return toFuture<KeyReader>(api_, api_.fdb_transaction_get_key(
                                       transaction_, bytesOf(selector.key), lengthOf(selector.key),
                                       selector.orEqual, selector.offset, snapshot));
}

Future<RangeResult> FdbcTransaction::getRange(KeySelectorRef begin, KeySelectorRef end,
                                              const RangeOptions& options, bool snapshot) {
  roundTrip(RoundTripKind::kRangeRead);
  return toFuture<RangeReader>(
      api_, api_.fdb_transaction_get_range(
                transaction_, bytesOf(begin.key), lengthOf(begin.key), begin.orEqual, begin.offset,
                bytesOf(end.key), lengthOf(end.key), end.orEqual, end.offset, options.limit,
                options.targetBytes, static_cast<int>(options.mode), options.iteration, snapshot,
                options.reverse));
}

Future<MappedRangeResult> FdbcTransaction::getMappedRange(KeySelectorRef begin, KeySelectorRef end,
                                                          std::string_view mapper,
                                                          const RangeOptions& options,
                                                          bool snapshot) {
  roundTrip(RoundTripKind::kMappedRangeRead);
  return toFuture<MappedRangeReader>(
      api_, api_.fdb_transaction_get_mapped_range(
                transaction_, bytesOf(begin.key), lengthOf(begin.key), begin.orEqual, begin.offset,
                bytesOf(end.key), lengthOf(end.key), end.orEqual, end.offset, bytesOf(mapper),
                lengthOf(mapper), options.limit, options.targetBytes,
                static_cast<int>(options.mode), options.iteration, snapshot, options.reverse));
}

void FdbcTransaction::set(std::string_view key, std::string_view value) {
  wrote_ = true;
  api_.fdb_transaction_set(transaction_, bytesOf(key), lengthOf(key), bytesOf(value),
                           lengthOf(value));
}

void FdbcTransaction::clear(std::string_view key) {
  wrote_ = true;
  api_.fdb_transaction_clear(transaction_, bytesOf(key), lengthOf(key));
}

void FdbcTransaction::clearRange(std::string_view begin, std::string_view end) {
  wrote_ = true;
  api_.fdb_transaction_clear_range(transaction_, bytesOf(begin), lengthOf(begin), bytesOf(end),
                                   lengthOf(end));
}

void FdbcTransaction::atomicOp(std::string_view key, std::string_view param, MutationType type) {
  wrote_ = true;
  api_.fdb_transaction_atomic_op(transaction_, bytesOf(key), lengthOf(key), bytesOf(param),
                                 lengthOf(param), static_cast<int>(type));
}

void FdbcTransaction::addConflictRange(std::string_view begin, std::string_view end,
                                       ConflictRangeType type) {
  if (type == ConflictRangeType::kWrite) wrote_ = true;
  if (fdb_error_t code = api_.fdb_transaction_add_conflict_range(
          transaction_, bytesOf(begin), lengthOf(begin), bytesOf(end), lengthOf(end),
          static_cast<int>(type));
      code != 0) {
    throw Error(code);
  }
}

Future<void> FdbcTransaction::watch(std::string_view key) {
  return watchFuture(api_, api_.fdb_transaction_watch(transaction_, bytesOf(key), lengthOf(key)));
}

void FdbcTransaction::setOption(int code, std::optional<std::string_view> value) {
  fdb_error_t error = api_.fdb_transaction_set_option(
      transaction_, code, value ? bytesOf(*value) : nullptr, value ? lengthOf(*value) : 0);
  if (error != 0) throw Error(error);
}

Future<Bytes> FdbcTransaction::getVersionstamp() {
  return toFuture<KeyReader>(api_, api_.fdb_transaction_get_versionstamp(transaction_));
}

Future<void> FdbcTransaction::commit() {
  if (wrote_) roundTrip(RoundTripKind::kCommit);  // a read-only commit stays in the client
  return commitFuture(api_, api_.fdb_transaction_commit(transaction_));
}

int64_t FdbcTransaction::getCommittedVersion() {
  int64_t version = -1;
  if (fdb_error_t code = api_.fdb_transaction_get_committed_version(transaction_, &version);
      code != 0) {
    throw Error(code);
  }
  return version;
}

Future<int64_t> FdbcTransaction::getApproximateSize() {
  return toFuture<Int64Reader>(api_, api_.fdb_transaction_get_approximate_size(transaction_));
}

Future<void> FdbcTransaction::onError(const Error& error) {
  // A retry starts a new attempt (if on_error does not retry, the transaction is not reused).
  forgetAttempt();
  return toFuture<EmptyReader>(api_, api_.fdb_transaction_on_error(transaction_, error.code()));
}

void FdbcTransaction::reset() {
  forgetAttempt();
  api_.fdb_transaction_reset(transaction_);
}

void FdbcTransaction::cancel() { api_.fdb_transaction_cancel(transaction_); }

}  // namespace fdb::fdbc
