// EngineTransaction's state machine, options, writes, watches, versionstamp and commit.
// Its reads are in transaction_reads.cc.
#include "engine/engine_transaction.h"

#include <algorithm>
#include <climits>
#include <random>

#include "engine/atomic.h"
#include "engine/commit_size.h"
#include "engine/transaction_internal.h"

namespace fdb::engine {

using namespace internal;

namespace {

constexpr double kInitialBackoffSeconds = 0.01;
constexpr double kProxyMemoryMaxBackoffSeconds = 30.0;
// The merged size of a commit is at most this many times its running estimate (commitSize).
constexpr int64_t kMergedSizeBound = 4;

// A uniform double in [0, 1) from this thread's generator (splitmix64), seeded from
// std::random_device on the thread's first use. Eight bytes of trivial thread-local state,
// unlike a std::mt19937_64 (2.5 kB), which would push libfdb_c.so's thread-locals past
// glibc's static TLS reserve for dlopen (fdb/future.h).
double threadUniformRandom() {
  thread_local uint64_t state = 0;
  if (state == 0) {
    std::random_device device;
    state = (uint64_t{device()} << 32) | device() | 1;
  }
  state += 0x9e3779b97f4a7c15;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// The offset a versionstamped operand names, if it is valid: its last four bytes
// (little-endian) must point at ten bytes inside what precedes them (docs/semantics.md,
// "Versionstamps").
std::optional<size_t> versionstampOffset(std::string_view operand) {
  if (operand.size() < 4) return std::nullopt;
  uint32_t offset = 0;
  for (size_t i = 0; i < 4; ++i) {
    offset |= static_cast<uint32_t>(static_cast<uint8_t>(operand[operand.size() - 4 + i]))
              << (8 * i);
  }
  if (static_cast<size_t>(offset) + 10 > operand.size() - 4) return std::nullopt;
  return offset;
}

}  // namespace

EngineTransaction::EngineTransaction(std::shared_ptr<Engine> engine,
                                     std::shared_ptr<DatabaseSettings> settings)
    : engine_(std::move(engine)),
      settings_(std::move(settings)),
      options_(TransactionOptions::fromDefaults(settings_->transactionDefaults())),
      backoffSeconds_(kInitialBackoffSeconds),
      startMicros_(engine_->clock().coarseMicros()) {}

// Small enough for glibc's per-thread cache (chunks up to 1032 bytes).
static_assert(sizeof(EngineTransaction) <= 1024);

EngineTransaction::~EngineTransaction() {
  // Destroying a transaction cancels it: what waits on it fails with 1025, and a commit not
  // sent yet never is.
  clearAttempt("the transaction was destroyed");
}

// ---- State machine ------------------------------------------------------------------

std::optional<Error> EngineTransaction::blockingError(bool allowedAfterCommit) {
  fireTimeoutIfDue();
  if (poisonCode_ != 0) return poisonError();
  if (commitCalled_ && !allowedAfterCommit) {
    const char* reason = "the transaction was used after commit()";
    if (options_.usedDuringCommitProtectionDisable) {
      return Error(errors::kUsedDuringCommit, reason);  // this call only
    }
    poison(errors::kUsedDuringCommit, reason);
    return poisonError();
  }
  if (deferredError_) return deferredError_;
  return std::nullopt;
}

bool EngineTransaction::acceptWrite() {
  if (poisonCode_ != 0) return false;
  if (commitCalled_) {
    if (!options_.usedDuringCommitProtectionDisable) {
      poison(errors::kUsedDuringCommit, "the transaction was used after commit()");
    }
    return false;
  }
  hasReadOrWritten_ = true;
  return true;
}

void EngineTransaction::fireTimeoutIfDue() {
  if (poisonCode_ == 0 && options_.timeoutMillis > 0 &&
      engine_->clock().coarseMicros() - startMicros_ >= options_.timeoutMillis * 1000) {
    poison(errors::kTransactionTimedOut, "the transaction's timeout expired");
  }
}

void EngineTransaction::poison(int code, const char* reason) {
  if (poisonCode_ != 0) return;  // the first poison stays
  poisonCode_ = code;
  poisonReason_ = reason;
  // A commit not sent yet fails with it, as FoundationDB's waits on the reset promise.
  if (pendingCommit_) pendingCommit_->drop(poisonCode_, poisonReason_);
}

Error EngineTransaction::poisonError() const { return Error(poisonCode_, poisonReason_); }

void EngineTransaction::deferError(Error error) {
  if (!deferredError_) deferredError_ = std::move(error);
}

int64_t EngineTransaction::readVersion() {
  if (!readVersion_) {
    ++trips_.readVersions;
    int64_t delay = engine_->roundTrip(RoundTripKind::kReadVersion);
    if (delay > 0) {
      readVersionReadyAt_ = engine_->clock().nowMicros() + delay;
      operationReadyAt_ = std::max(operationReadyAt_, readVersionReadyAt_);
    }
    readVersion_ = engine_->getReadVersion();
  }
  return *readVersion_;
}

void EngineTransaction::noteReadFailure(const Error& error) {
  switch (error.code()) {
    // Checked before FoundationDB starts the read (its fdb_c.cpp and getRange's argument
    // checks), so the read is not among those the commit waits for.
    case errors::kClientInvalidOperation:  // streaming mode or iteration
    case errors::kKeyOutsideLegalRange:
    case errors::kRangeLimitsInvalid:
    case errors::kExactModeWithoutLimits: return;
    default:
      if (readErrorCode_ == 0) readErrorCode_ = error.code();
  }
}

void EngineTransaction::beginOperation() {
  operationReadyAt_ = engine_->delaysRoundTrips() ? engine_->clock().nowMicros() : 0;
}

void EngineTransaction::roundTrip(RoundTripKind kind) {
  switch (kind) {
    case RoundTripKind::kReadVersion: ++trips_.readVersions; break;
    case RoundTripKind::kRead: ++trips_.reads; break;
    case RoundTripKind::kRangeRead: ++trips_.rangeReads; break;
    case RoundTripKind::kMappedRangeRead: ++trips_.mappedRangeReads; break;
    case RoundTripKind::kCommit: ++trips_.commits; break;
  }
  // A request waits for the read version it carries, then travels.
  operationReadyAt_ = std::max(operationReadyAt_, readVersionReadyAt_) + engine_->roundTrip(kind);
  if (kind != RoundTripKind::kCommit && engine_->faults().readVersionTooOld()) {
    throw Error(errors::kTransactionTooOld, "injected fault: the read version aged out");
  }
}

Engine::Reader EngineTransaction::readAt(RoundTripKind kind) {
  int64_t version = readVersion();
  roundTrip(kind);
  return engine_->read(version);
}

const Bytes& EngineTransaction::maxReadKey() const {
  return options_.readSystemKeys ? kSystemKeysEnd : kNormalKeysEnd;
}

std::optional<Error> EngineTransaction::unwritableKeyError(std::string_view key,
                                                           std::string_view operation) const {
  if (key == kMetadataVersionKey) {
    return Error(errors::kClientInvalidOperation,
                 fmt::format("{} of \\xff/metadataVersion: only SET_VERSIONSTAMPED_VALUE with 14 "
                             "zero bytes may write it",
                             operation));
  }
  if (key >= (options_.accessSystemKeys ? kSystemKeysEnd : kNormalKeysEnd)) {
    return Error(
        errors::kKeyOutsideLegalRange,
        fmt::format("{} of '{}' outside the writable key space", operation, printable(key)));
  }
  size_t limit = key.starts_with('\xff') ? kSystemKeySizeLimit : kKeySizeLimit;
  if (key.size() > limit) {
    return Error(errors::kKeyTooLarge, fmt::format("key of {} bytes", key.size()));
  }
  return std::nullopt;
}

void EngineTransaction::addReadConflict(std::string_view begin, std::string_view end) {
  auto add = [&](std::string_view rangeBegin, std::string_view rangeEnd) {
    approximateSize_ +=
        static_cast<int64_t>(rangeBegin.size() + rangeEnd.size()) + kConflictRangeOverhead;
    readConflicts_.add(rangeBegin, rangeEnd);
  };
  // Reads went to the database, all of them, when read-your-writes is off, or when the
  // writes know no key (subtractKnown would return [begin, end) as it is).
  if (options_.readYourWritesDisabled || writes_.invisible()) {
    if (options_.readYourWritesDisabled || begin < end) add(begin, end);
    return;
  }
  for (const KeyRange& range : writes_.subtractKnown(begin, end)) add(range.begin, range.end);
}

void EngineTransaction::addReadConflictKey(std::string_view key) {
  // [key, key + '\0'): unless this transaction wrote the key, the whole range was read.
  if (options_.readYourWritesDisabled || writes_.invisible()) {
    approximateSize_ += static_cast<int64_t>(2 * key.size() + 1) + kConflictRangeOverhead;
    readConflicts_.addKey(key);
    return;
  }
  addReadConflict(key, keyAfter(key));
}

void EngineTransaction::addWriteConflictKey(std::string_view key) {
  if (options_.nextWriteNoWriteConflictRange) {
    options_.nextWriteNoWriteConflictRange = false;  // applies to one write only
    return;
  }
  approximateSize_ += static_cast<int64_t>(2 * key.size() + 1) + kConflictRangeOverhead;
  writeConflicts_.addKey(key);
}

void EngineTransaction::addWriteConflict(std::string_view begin, std::string_view end) {
  if (options_.nextWriteNoWriteConflictRange) {
    options_.nextWriteNoWriteConflictRange = false;  // applies to one write only
    return;
  }
  approximateSize_ += static_cast<int64_t>(begin.size() + end.size()) + kConflictRangeOverhead;
  writeConflicts_.add(begin, end);
}

void EngineTransaction::clearAttempt(std::string_view why) {
  // Operations still in flight on the simulated network belong to this attempt: they fail
  // with 1025 (a new flag serves the next attempt).
  if (cancelled_) {
    cancelled_->store(true);
    cancelled_.reset();
  }
  if (pendingCommit_) {
    pendingCommit_->drop(errors::kTransactionCancelled, why);
    // A retry keeps what the commit reported (reset() drops it after this).
    if (const ConflictingKeys* reported = pendingCommit_->conflictingKeys()) {
      conflictingKeys_ = std::make_unique<ConflictingKeys>(*reported);
    }
    pendingCommit_.reset();
  }
  if (!pendingWatches_.empty() || versionstamp_) {
    Error pendingError(errors::kTransactionCancelled, std::string(why));
    for (PendingWatch& watch : pendingWatches_) watch.promise.setError(pendingError);
    pendingWatches_.clear();
    if (versionstamp_) versionstamp_->setError(pendingError);
    versionstamp_.reset();
  }
  writes_.reset();
  specialKeyWrites_.reset();
  known_.reset();
  readVersion_.reset();
  readConflicts_.clear();
  conflictsLearnt_ = 0;
  writeConflicts_.clear();
  approximateSize_ = 0;
  deferredError_.reset();
  readErrorCode_ = 0;
  readsDoneAt_ = 0;
  poisonCode_ = 0;
  commitCalled_ = false;
  hasReadOrWritten_ = false;
  committedVersion_ = -1;
}

void EngineTransaction::reset() {
  clearAttempt("the transaction was reset");
  conflictingKeys_.reset();
  options_ = TransactionOptions::fromDefaults(settings_->transactionDefaults());
  retries_ = 0;
  backoffSeconds_ = kInitialBackoffSeconds;
  startMicros_ = engine_->clock().coarseMicros();
}

void EngineTransaction::cancel() {
  if (cancelled_) cancelled_->store(true);
  fireTimeoutIfDue();  // a timeout that fired before stays the poison
  poison(errors::kTransactionCancelled, "the transaction was cancelled");
  if (!pendingWatches_.empty() || versionstamp_) {
    Error cancelled = poisonError();
    for (PendingWatch& watch : pendingWatches_) watch.promise.setError(cancelled);
    pendingWatches_.clear();
    if (versionstamp_) versionstamp_->setError(cancelled);
    versionstamp_.reset();
  }
}

Future<void> EngineTransaction::onError(const Error& error) {
  if (std::optional<Error> poisoned = blockingError(/*allowedAfterCommit=*/true);
      poisoned && poisonCode_ != 0) {
    return Future<void>::failed(*poisoned);
  }
  int code = error.code();
  if (code < 0 || code > 30000) code = errors::kUnknownError;
  if (code == errors::kSuccess) {
    return Future<void>::failed(
        Error(errors::kClientInvalidOperation, "onError called with success (0)"));
  }
  auto giveUp = [&] {
    poison(errors::kTransactionCancelled, "onError returned a non-retryable error");
    return Future<void>::failed(code == error.code() ? error : Error(code));
  };
  bool retryLimitHit = options_.retryLimit != -1 && retries_ >= options_.retryLimit;
  ++retries_;
  if (retryLimitHit) return giveUp();

  double maxRetryDelaySeconds = static_cast<double>(options_.maxRetryDelayMillis) / 1000;
  double delaySeconds = 0;
  switch (code) {
    case 1020:    // not_committed
    case 1021:    // commit_unknown_result
    case 1038:    // database_locked
    case 1042:    // commit_proxy_memory_limit_exceeded
    case 1078:    // grv_proxy_memory_limit_exceeded
    case 1037:    // process_behind
    case 1051:    // batch_transaction_throttled
    case 1213:    // tag_throttled
    case 1079:    // blob_granule_request_failed
    case 1223: {  // proxy_tag_throttled
      delaySeconds = backoffSeconds_ * threadUniformRandom();
      double cap =
          (code == 1042 || code == 1078) ? kProxyMemoryMaxBackoffSeconds : maxRetryDelaySeconds;
      backoffSeconds_ = std::min(backoffSeconds_ * 2, cap);
      break;
    }
    case 1007:  // transaction_too_old
    case 1009:  // future_version
      delaySeconds = std::min(kInitialBackoffSeconds, maxRetryDelaySeconds);
      break;
    case 1039:  // cluster_version_changed: retried at once
      return Future<void>::ready();
    default: return giveUp();
  }
  // A retry keeps the persistent options and the timeout's start (docs/semantics.md, "onError"
  // step 4).
  clearAttempt("the transaction was retried");
  options_ = options_.forRetry(settings_->transactionDefaults());
  engine_->clock().sleepMicros(static_cast<int64_t>(delaySeconds * 1e6));
  return Future<void>::ready();
}

// ---- Options ------------------------------------------------------------------------

void EngineTransaction::setOption(int code, std::optional<std::string_view> value) {
  if (!isKnownTransactionOption(code)) {
    throw Error(errors::kInvalidOption, fmt::format("unknown transaction option {}", code));
  }
  // Changing the timeout cannot undo one that has fired already.
  fireTimeoutIfDue();
  if (poisonCode_ != 0) return;
  try {
    applyTransactionOption(options_, code, value,
                           OptionContext{hasReadOrWritten_, readVersion_.has_value()});
  } catch (const Error& e) {
    deferError(e);
  }
}

// ---- Versions -----------------------------------------------------------------------

template <typename Out>
auto EngineTransaction::getReadVersionTo(Out out) {
  if (std::optional<Error> e = blockingError(/*allowedAfterCommit=*/true)) return out.fail(*e);
  beginOperation();
  return out.run([&] { return readVersion(); });
}

Future<int64_t> EngineTransaction::getReadVersion() {
  return getReadVersionTo(AsFuture<int64_t>{this});
}
void EngineTransaction::getReadVersion(Completion<int64_t>& done) {
  getReadVersionTo(ToCompletion<int64_t>{this, done});
}

void EngineTransaction::setReadVersion(int64_t version) {
  if (!acceptWrite()) return;
  if (version <= 0) {
    deferError(
        Error(errors::kVersionInvalid, fmt::format("read version {} is not positive", version)));
  } else if (readVersion_) {
    deferError(Error(errors::kReadVersionAlreadySet, "the read version is already set"));
  } else {
    readVersion_ = version;
  }
}

// ---- Writes -------------------------------------------------------------------------

void EngineTransaction::firePendingWatches(std::string_view key) {
  firePendingWatchesIn(key, keyAfter(key));
}

void EngineTransaction::firePendingWatchesIn(std::string_view begin, std::string_view end) {
  // A later write of this transaction that changes a watched value fires the watch at once
  // (docs/semantics.md, "Watches"); a value that depends on the database is not known here
  // and waits.
  std::erase_if(pendingWatches_, [&](PendingWatch& watch) {
    if (watch.key < begin || watch.key >= end) return false;
    WriteMap::KeyState state = writes_.lookup(watch.key);
    if (state.kind != WriteMap::KeyState::Kind::kKnown ||
        (state.value.has_value() == watch.expected.has_value() &&
         (!state.value || *state.value == *watch.expected))) {
      return false;
    }
    watch.promise.setValue();
    return true;
  });
}

void EngineTransaction::set(std::string_view key, std::string_view value) {
  if (isSpecialKey(key)) return setSpecialKey(key, value);
  if (!acceptWrite()) return;
  if (std::optional<Error> e = unwritableKeyError(key, "set")) return deferError(*e);
  if (value.size() > kValueSizeLimit) {
    return deferError(
        Error(errors::kValueTooLarge, fmt::format("value of {} bytes", value.size())));
  }
  writes_.set(key, value);
  approximateSize_ += static_cast<int64_t>(key.size() + value.size()) + kMutationOverhead;
  addWriteConflictKey(key);
  if (!pendingWatches_.empty()) firePendingWatches(key);
}

void EngineTransaction::clear(std::string_view key) {
  if (!acceptWrite()) return;
  if (isSpecialKey(key)) return clearSpecialKey(key);
  if (key.size() > kReadKeySizeLimit && key < kNormalKeysEnd) return;  // cannot exist
  clearRange(key, keyAfter(key));
}

void EngineTransaction::clearRange(std::string_view begin, std::string_view end) {
  if (!acceptWrite()) return;
  if (begin > end) {
    return deferError(Error(
        errors::kInvertedRange,
        fmt::format("clearRange begin '{}' is after end '{}'", printable(begin), printable(end))));
  }
  if (begin >= kSystemKeysEnd && end <= kSpecialKeysEnd) return clearSpecialRange(begin, end);
  const Bytes& writableEnd = options_.accessSystemKeys ? kSystemKeysEnd : kNormalKeysEnd;
  if (begin > writableEnd || end > writableEnd) {
    return deferError(
        Error(errors::kKeyOutsideLegalRange, "clearRange endpoint beyond the writable key space"));
  }
  if (begin == end) return;
  writes_.clearRange(begin, end);
  approximateSize_ += static_cast<int64_t>(begin.size() + end.size()) + kMutationOverhead;
  addWriteConflict(begin, end);
  if (!pendingWatches_.empty()) firePendingWatchesIn(begin, end);
}

void EngineTransaction::atomicOp(std::string_view key, std::string_view param, MutationType type) {
  if (!acceptWrite()) return;
  if (!isValidMutationType(static_cast<int>(type))) {
    return deferError(
        Error(errors::kInvalidMutationType,
              fmt::format("mutation type {} is not an atomic operation", static_cast<int>(type))));
  }
  const bool stampsKey = type == MutationType::kSetVersionstampedKey;
  const bool stampsValue = type == MutationType::kSetVersionstampedValue;
  // A versionstamped key is checked without its 4-byte offset suffix.
  std::string_view writtenKey = stampsKey && key.size() >= 4 ? key.substr(0, key.size() - 4) : key;
  bool bumpsMetadataVersion = stampsValue && key == kMetadataVersionKey && param == Bytes(14, '\0');
  if (!bumpsMetadataVersion) {
    if (std::optional<Error> e = unwritableKeyError(writtenKey, "atomic op")) return deferError(*e);
  }
  if (param.size() > kValueSizeLimit) {
    return deferError(
        Error(errors::kValueTooLarge, fmt::format("operand of {} bytes", param.size())));
  }
  approximateSize_ += static_cast<int64_t>(key.size() + param.size()) + kMutationOverhead;
  if (stampsKey) {
    std::optional<size_t> offset = versionstampOffset(key);
    if (!offset) {
      return deferError(
          Error(errors::kClientInvalidOperation, "versionstamp offset outside the key template"));
    }
    // Every key the operation may produce: the template with any versionstamp at least
    // the read version (0 when not yet known), up to ten 0xff bytes.
    Bytes low(writtenKey);
    Bytes high(writtenKey);
    int64_t floor = readVersion_.value_or(0);
    for (size_t i = 0; i < 8; ++i)
      low[*offset + i] = static_cast<char>((floor >> (56 - 8 * i)) & 0xff);
    low[*offset + 8] = low[*offset + 9] = 0;
    for (size_t i = 0; i < 10; ++i) high[*offset + i] = '\xff';
    Bytes unreadableEnd = std::min(keyAfter(high), maxReadKey());
    writes_.setVersionstampedKey(key, param, low, unreadableEnd);
    return;  // versionstamped keys add no write conflict range
  }
  if (stampsValue) {
    if (!versionstampOffset(param)) {
      return deferError(
          Error(errors::kClientInvalidOperation, "versionstamp offset outside the value template"));
    }
    writes_.setVersionstampedValue(key, param);
  } else {
    writes_.atomicOp(key, type, param);
  }
  addWriteConflictKey(key);
  if (!pendingWatches_.empty()) firePendingWatches(key);
}

void EngineTransaction::addConflictRange(std::string_view begin, std::string_view end,
                                         ConflictRangeType type) {
  // Inverted manual conflict ranges fail at the call (docs/semantics.md, "Deferred errors").
  if (begin > end) {
    throw Error(errors::kInvertedRange, fmt::format("conflict range begin '{}' is after end '{}'",
                                                    printable(begin), printable(end)));
  }
  if (!acceptWrite()) return;
  if (begin == end) return;
  bool metadataVersionRead = type == ConflictRangeType::kRead && begin == kMetadataVersionKey &&
                             end == keyAfter(kMetadataVersionKey);
  const Bytes& limit = type == ConflictRangeType::kRead ? maxReadKey()
                       : options_.accessSystemKeys      ? kSystemKeysEnd
                                                        : kNormalKeysEnd;
  if ((begin > limit || end > limit) && !metadataVersionRead) {
    return deferError(
        Error(errors::kKeyOutsideLegalRange, "conflict range beyond the accessible key space"));
  }
  if (type == ConflictRangeType::kRead) {
    addReadConflict(begin, end);
  } else {
    addWriteConflict(begin, end);
  }
}

// ---- Watches ------------------------------------------------------------------------

Future<void> EngineTransaction::watch(std::string_view key) {
  if (std::optional<Error> e = blockingError(false)) return Future<void>::failed(*e);
  try {
    if (options_.readYourWritesDisabled) {
      throw Error(kWatchesDisabled, "watches need read-your-writes");
    }
    if (key >= kSystemKeysEnd || (key >= maxReadKey() && key != kMetadataVersionKey)) {
      throw Error(errors::kKeyOutsideLegalRange,
                  fmt::format("watch of '{}' outside the readable key space", printable(key)));
    }
    size_t limit = key.starts_with('\xff') ? kSystemKeySizeLimit : kKeySizeLimit;
    if (key.size() > limit) {
      throw Error(errors::kKeyTooLarge, fmt::format("watched key of {} bytes", key.size()));
    }
    if (engine_->outstandingWatches() + pendingWatches_.size() >=
        static_cast<size_t>(settings_->maxWatches())) {
      throw Error(kTooManyWatches, "too many watches are outstanding on this database");
    }
    // The value the watch compares with is what this transaction sees now (a serializable
    // read: it adds a read conflict on the key). The commit does not wait for this read
    // (FoundationDB's watch adds a future of its own that never fails to those it waits for).
    struct KeepReadError {
      EngineTransaction* tr;
      int code = tr->readErrorCode_;
      ~KeepReadError() { tr->readErrorCode_ = code; }
    } keepReadError{this};
    std::optional<Bytes> expected = get(key, /*snapshot=*/false).get();
    Promise<void> promise;
    pendingWatches_.push_back(PendingWatch{Bytes(key), std::move(expected), promise.weaken()});
    return promise.future();
  } catch (const Error& e) {
    return Future<void>::failed(e);
  }
}

// ---- Commit -------------------------------------------------------------------------

Future<int64_t> EngineTransaction::getApproximateSize() {
  if (std::optional<Error> e = blockingError(false)) return Future<int64_t>::failed(*e);
  return Future<int64_t>::ready(approximateSize_);
}

int64_t EngineTransaction::commitSize() const {
  // With read-your-writes off every write went out as it was issued, unmerged.
  if (options_.readYourWritesDisabled) return approximateSize_;
  // Merging at most quadruples the running estimate (a key written inside a cleared range
  // cuts the clear in two), so below a quarter of the limit it cannot matter.
  if (approximateSize_ <= options_.sizeLimit / kMergedSizeBound) return approximateSize_;
  return mergedMutationBytes(writes_.mutations()) + coalescedRangeBytes(readConflicts_) +
         coalescedRangeBytes(writeConflicts_);
}

Future<Bytes> EngineTransaction::getVersionstamp() {
  if (std::optional<Error> e = blockingError(false)) return Future<Bytes>::failed(*e);
  if (!versionstamp_) versionstamp_.emplace();
  return versionstamp_->future();
}

template <typename Out>
auto EngineTransaction::commitTo(Out out) {
  if (std::optional<Error> e = blockingError(false)) return out.fail(*e);
  commitCalled_ = true;
  beginOperation();
  // The special key space's modules commit first (SpecialKeySpace::commit).
  std::optional<Error> specialKeysFailure = specialKeysCommitError();
  if (!specialKeysFailure && readErrorCode_ != 0) {
    // Then it waited for the read that failed (docs/semantics.md, "Commits" step 1); it never
    // reached the resolver, so its versionstamp and watches wait for a reset like any other.
    operationReadyAt_ = std::max(operationReadyAt_, readsDoneAt_);
    return out.failDelivered(Error(readErrorCode_));
  }
  std::optional<Promise<Bytes>> versionstamp = std::move(versionstamp_);
  versionstamp_.reset();
  std::vector<PendingWatch> watches = std::move(pendingWatches_);
  pendingWatches_.clear();

  if (!specialKeysFailure && writes_.empty() && writeConflicts_.empty()) {  // read-only
    if (versionstamp) {
      // Made once: a copy of an Error allocates nothing, a new one formats its message.
      static const Error kNoVersion(kNoCommitVersion, "a read-only transaction has no version");
      versionstamp->setError(kNoVersion);
    }
    for (PendingWatch& watch : watches) {
      engine_->armWatch(watch.key, std::move(watch.expected), std::move(watch.promise));
    }
    return out.succeed({});
  }
  try {
    if (specialKeysFailure) throw *specialKeysFailure;
    if (int64_t size = commitSize(); size > options_.sizeLimit) {
      throw Error(errors::kTransactionTooLarge,
                  fmt::format("{} bytes exceed the limit of {}", size, options_.sizeLimit));
    }
    const bool hadReadVersion = readVersion_.has_value();
    CommitRequest request;
    request.readVersion = readVersion();
    roundTrip(RoundTripKind::kCommit);
    if (commitMustWait(hadReadVersion)) {
      return out.deferred(
          deferCommit(hadReadVersion ? request.readVersion : 0, versionstamp, watches));
    }
    request.selfConflict = !options_.causalWriteRisky;
    request.readConflicts = readConflicts_;
    request.writeConflicts = writeConflicts_;
    request.mutations = writes_.mutations();
    std::vector<size_t> conflicting;
    if (options_.reportConflictingKeys) request.conflictingReadRanges = &conflicting;
    try {
      committedVersion_ = commitWithFaults(*engine_, request, options_.automaticIdempotency);
    } catch (const Error& e) {
      if (e.code() == errors::kNotCommitted) {
        // Read-your-writes sends its read conflict ranges merged; without it they go as added.
        conflictingKeys_ = std::make_unique<ConflictingKeys>(ConflictingKeys::reported(
            readConflicts_, conflicting, !options_.readYourWritesDisabled));
      }
      throw;
    }
  } catch (const Error& e) {
    // The versionstamp's outcome arrives with the commit's, not before it.
    if (versionstamp) {
      deliverTo(std::move(*versionstamp), [](Promise<Bytes>& stamp) {
        stamp.setError(Error(kTransactionInvalidVersion, "the commit failed"));
      });
    }
    for (PendingWatch& watch : watches) watch.promise.setError(e);
    return out.failDelivered(e);
  }
  if (versionstamp) {
    deliverTo(std::move(*versionstamp),
              [value = versionstampOf(committedVersion_)](Promise<Bytes>& stamp) mutable {
                stamp.setValue(std::move(value));
              });
  }
  for (PendingWatch& watch : watches) {
    engine_->armWatch(watch.key, std::move(watch.expected), std::move(watch.promise));
  }
  return out.succeedDelivered({});
}

Future<void> EngineTransaction::commit() { return commitTo(AsFuture<void>{this}); }
void EngineTransaction::commit(Completion<void>& done) { commitTo(ToCompletion<void>{this, done}); }

int64_t EngineTransaction::getCommittedVersion() {
  return pendingCommit_ ? pendingCommit_->committedVersion() : committedVersion_;
}

bool EngineTransaction::commitMustWait(bool hadReadVersion) const {
  if (!hadReadVersion) return true;
  // With simulated delay: until the read version and every read have arrived.
  return operationReadyAt_ != 0 &&
         std::max(readVersionReadyAt_, readsDoneAt_) > engine_->clock().nowMicros();
}

Future<void> EngineTransaction::deferCommit(int64_t readVersion,
                                            std::optional<Promise<Bytes>>& versionstamp,
                                            std::vector<PendingWatch>& watches) {
  pendingCommit_ = PendingCommit::make();
  PendingCommit::Parts& parts = pendingCommit_->parts();
  parts.engine = engine_.get();
  // Left as they are until the commit is dropped (clearAttempt) or sent.
  parts.writes = &writes_;
  parts.readConflicts = &readConflicts_;
  parts.writeConflicts = &writeConflicts_;
  parts.readVersion = readVersion;
  parts.selfConflict = !options_.causalWriteRisky;
  parts.automaticIdempotency = options_.automaticIdempotency;
  parts.reportConflictingKeys = options_.reportConflictingKeys;
  parts.readConflictsMerged = !options_.readYourWritesDisabled;
  if (options_.timeoutMillis > 0)
    parts.timeoutDeadline = startMicros_ + options_.timeoutMillis * 1000;
  if (operationReadyAt_ != 0) {
    if (!cancelled_) cancelled_ = std::make_shared<std::atomic<bool>>(false);
    parts.readyAt = operationReadyAt_;
    parts.cancelled = cancelled_;
  }
  parts.versionstamp = std::move(versionstamp);
  if (!watches.empty()) parts.watches = std::move(watches);
  return pendingCommit_->future();
}

}  // namespace fdb::engine
