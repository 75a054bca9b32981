// rl::RecordCursor<T> — a pull-based stream of values that can stop and be resumed later.
//
// next() returns a CursorResult<T>: either a value and the continuation that points just
// after it, or no value, the NoNextReason why, and the continuation to resume from. After a
// result without a value, next() returns that same result again. A continuation survives the
// transaction: toBytes() is what a client keeps, and a new cursor built from those bytes in a
// new transaction returns exactly the values that follow.
//
//   rl::KeyValueCursor cursor(context, subspace, rl::TupleRange::all(), properties);
//   for (auto result = cursor.next(); result.hasValue(); result = cursor.next()) {
//     use(result.value());
//   }
//   // cursor.next() again: the same no-value result, e.g. RETURN_LIMIT_REACHED; resume with
//   // cursor.next().continuation().toBytes() in a new transaction.
//
// Combinators (below): map, filter, mapPipelined (keeps up to N pending loads in flight, as
// the Java Record Layer's pipelined operations do), skipThenLimit, and asList.
//
// Format of the continuations a cursor hands out: docs/format.md ("Cursors", "Cursor
// continuations").
// Thread-safety: a cursor is used by one thread at a time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fdb/bytes.h"

namespace rl {

// Why a cursor returned no value (docs/format.md, "Cursors").
enum class NoNextReason {
  kSourceExhausted,     // no more data; the continuation is the end
  kReturnLimitReached,  // the returned-row limit was hit
  kTimeLimitReached,    // out of band: the scan's time limit
  kScanLimitReached,    // out of band: the scanned-records limit
  kByteLimitReached,    // out of band: the scanned-bytes limit
};

// Whether the stop came from outside the data (a time or scan limit): the whole cursor tree
// unwinds and the client resumes from the continuation, typically in a new transaction.
constexpr bool isOutOfBand(NoNextReason reason) {
  return reason == NoNextReason::kTimeLimitReached || reason == NoNextReason::kScanLimitReached ||
         reason == NoNextReason::kByteLimitReached;
}
constexpr bool isSourceExhausted(NoNextReason reason) {
  return reason == NoNextReason::kSourceExhausted;
}
std::string_view noNextReasonName(NoNextReason reason);  // "SOURCE_EXHAUSTED", ...

// How a key-value cursor serializes its continuation (docs/format.md, "Cursor
// continuations"): wrapped in a KeyValueCursorContinuation with its magic number (what the Java
// Record Layer writes), or the raw key suffix (what its older versions wrote). Both are accepted on
// resume.
enum class ContinuationFormat { kWrapped, kRaw };

// Where a cursor stands. A value; cheap to copy for short keys.
class Continuation {
 public:
  // Before the first value (a cursor built with no continuation starts here).
  static Continuation start() { return Continuation(Kind::kStart, {}); }
  // After the last value: nothing follows.
  static Continuation end() { return Continuation(Kind::kEnd, {}); }
  // Already-serialized bytes (a composite cursor's own continuation).
  static Continuation fromBytes(fdb::Bytes bytes) {
    return Continuation(Kind::kBytes, std::move(bytes));
  }
  // A key-value cursor's position: the last key read minus the scan's common prefix.
  static Continuation afterKeySuffix(fdb::Bytes keySuffix,
                                     ContinuationFormat format = ContinuationFormat::kWrapped) {
    return Continuation(
        format == ContinuationFormat::kWrapped ? Kind::kWrappedKeySuffix : Kind::kRawKeySuffix,
        std::move(keySuffix));
  }

  bool isEnd() const { return kind_ == Kind::kEnd; }
  bool isStart() const { return kind_ == Kind::kStart; }
  // The bytes a client keeps to resume; nullopt at the end and at the start (resume from
  // nullopt = start from the beginning).
  std::optional<fdb::Bytes> toBytes() const;
  // For key-value positions: the key suffix itself (unwrapped). Empty otherwise.
  const fdb::Bytes& keySuffix() const { return bytes_; }

  friend bool operator==(const Continuation&, const Continuation&) = default;

 private:
  enum class Kind { kStart, kEnd, kBytes, kWrappedKeySuffix, kRawKeySuffix };
  Continuation(Kind kind, fdb::Bytes bytes) : kind_(kind), bytes_(std::move(bytes)) {}

  Kind kind_;
  fdb::Bytes bytes_;
};

// One step of a cursor.
template <typename T>
class CursorResult {
 public:
  static CursorResult withValue(T value, Continuation continuation) {
    return CursorResult(std::move(value), std::move(continuation));
  }
  static CursorResult withoutValue(NoNextReason reason, Continuation continuation) {
    return CursorResult(reason, std::move(continuation));
  }
  static CursorResult exhausted() {
    return CursorResult(NoNextReason::kSourceExhausted, Continuation::end());
  }

  bool hasValue() const { return value_.has_value(); }
  // REQUIRES: hasValue().
  const T& value() const { return *value_; }
  T& value() { return *value_; }
  // REQUIRES: !hasValue().
  NoNextReason noNextReason() const { return reason_; }
  const Continuation& continuation() const { return continuation_; }

  // The same position with another value (for combinators).
  template <typename U>
  CursorResult<U> withValueOf(U value) const {
    return CursorResult<U>::withValue(std::move(value), continuation_);
  }
  // A result without a value, as another type (for combinators).
  template <typename U>
  CursorResult<U> asNoValue() const {
    return CursorResult<U>::withoutValue(reason_, continuation_);
  }

 private:
  CursorResult(T value, Continuation continuation)
      : value_(std::move(value)), continuation_(std::move(continuation)) {}
  CursorResult(NoNextReason reason, Continuation continuation)
      : reason_(reason), continuation_(std::move(continuation)) {}

  std::optional<T> value_;
  NoNextReason reason_ = NoNextReason::kSourceExhausted;
  Continuation continuation_;
};

template <typename T>
class RecordCursor {
 public:
  using value_type = T;
  virtual ~RecordCursor() = default;
  // The next result; blocks until it is there. After a result without a value, returns it
  // again. Throws what the source throws (fdb::Error, RecordCoreException).
  virtual CursorResult<T> next() = 0;
};

template <typename T>
using CursorPtr = std::unique_ptr<RecordCursor<T>>;

// --- Combinators ---

// The values of a list, with continuations that count positions (for tests and small
// in-memory sources). Resumes from a continuation it handed out.
template <typename T>
class ListCursor : public RecordCursor<T> {
 public:
  explicit ListCursor(std::vector<T> values, size_t startPosition = 0)
      : values_(std::move(values)), position_(startPosition) {}
  CursorResult<T> next() override {
    if (position_ >= values_.size()) return CursorResult<T>::exhausted();
    ++position_;
    return CursorResult<T>::withValue(values_[position_ - 1],
                                      Continuation::fromBytes(encodePosition(position_)));
  }
  static fdb::Bytes encodePosition(size_t position) {
    fdb::Bytes bytes;
    for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<char>((position >> (8 * i)) & 0xff));
    return bytes;
  }
  static size_t decodePosition(std::string_view bytes) {
    size_t position = 0;
    for (char c : bytes) position = (position << 8) | static_cast<uint8_t>(c);
    return position;
  }

 private:
  std::vector<T> values_;
  size_t position_;
};

// fn(value) for each value; continuations unchanged.
template <typename T, typename F, typename U = std::invoke_result_t<F, T&&>>
class MapCursor : public RecordCursor<U> {
 public:
  MapCursor(CursorPtr<T> inner, F fn) : inner_(std::move(inner)), fn_(std::move(fn)) {}
  CursorResult<U> next() override {
    CursorResult<T> result = inner_->next();
    if (!result.hasValue()) return result.template asNoValue<U>();
    return result.template withValueOf<U>(fn_(std::move(result.value())));
  }

 private:
  CursorPtr<T> inner_;
  F fn_;
};

template <typename T, typename F>
auto map(CursorPtr<T> inner, F fn) {
  using U = std::invoke_result_t<F, T&&>;
  return CursorPtr<U>(std::make_unique<MapCursor<T, F, U>>(std::move(inner), std::move(fn)));
}

// Only the values for which pred(value) holds.
template <typename T, typename P>
class FilterCursor : public RecordCursor<T> {
 public:
  FilterCursor(CursorPtr<T> inner, P pred) : inner_(std::move(inner)), pred_(std::move(pred)) {}
  CursorResult<T> next() override {
    while (true) {
      CursorResult<T> result = inner_->next();
      if (!result.hasValue() || pred_(static_cast<const T&>(result.value()))) return result;
    }
  }

 private:
  CursorPtr<T> inner_;
  P pred_;
};

template <typename T, typename P>
CursorPtr<T> filter(CursorPtr<T> inner, P pred) {
  return std::make_unique<FilterCursor<T, P>>(std::move(inner), std::move(pred));
}

// Skips `skip` values, then returns at most `limit` values (0 = no limit) and stops with
// RETURN_LIMIT_REACHED at the continuation of the last value returned.
template <typename T>
class SkipThenLimitCursor : public RecordCursor<T> {
 public:
  SkipThenLimitCursor(CursorPtr<T> inner, int skip, int limit)
      : inner_(std::move(inner)), toSkip_(skip), remaining_(limit), limited_(limit > 0) {}
  CursorResult<T> next() override {
    if (stopped_) return *stopped_;
    if (limited_ && remaining_ == 0) {
      stopped_ = CursorResult<T>::withoutValue(NoNextReason::kReturnLimitReached, last_);
      return *stopped_;
    }
    while (true) {
      CursorResult<T> result = inner_->next();
      if (!result.hasValue()) {
        stopped_ = result;
        return result;
      }
      if (toSkip_ > 0) {
        --toSkip_;
        continue;
      }
      if (limited_) --remaining_;
      last_ = result.continuation();
      return result;
    }
  }

 private:
  CursorPtr<T> inner_;
  int toSkip_;
  int remaining_;
  bool limited_;
  Continuation last_ = Continuation::start();
  std::optional<CursorResult<T>> stopped_;
};

template <typename T>
CursorPtr<T> skipThenLimit(CursorPtr<T> inner, int skip, int limit) {
  return std::make_unique<SkipThenLimitCursor<T>>(std::move(inner), skip, limit);
}

// A pending computation: anything with a blocking get() (fdb::Future<U>, a pending record
// load). mapPipelined starts fn(value) for up to `pipelineSize` values before it waits on the
// first, so their round trips overlap; results come back in the inner cursor's order, each
// with the continuation of the value it came from.
template <typename T, typename F>
class MapPipelinedCursor
    : public RecordCursor<
          std::decay_t<decltype(std::declval<std::invoke_result_t<F, T&&>&>().get())>> {
 public:
  using Pending = std::invoke_result_t<F, T&&>;
  using U = std::decay_t<decltype(std::declval<Pending&>().get())>;

  MapPipelinedCursor(CursorPtr<T> inner, F fn, size_t pipelineSize)
      : inner_(std::move(inner)),
        fn_(std::move(fn)),
        pipelineSize_(pipelineSize == 0 ? 1 : pipelineSize) {}

  CursorResult<U> next() override {
    fill();
    if (count_ == 0) return innerStop_->template asNoValue<U>();
    std::optional<Entry>& front = slots_[head_];
    auto [pending, continuation] = std::move(*front);
    front.reset();
    head_ = (head_ + 1) % slots_.size();
    --count_;
    U value = std::move(pending).get();
    fill();  // keep the pipeline full while the caller works on this value
    return CursorResult<U>::withValue(std::move(value), std::move(continuation));
  }

 private:
  using Entry = std::pair<Pending, Continuation>;

  void fill() {
    while (!innerStop_ && count_ < pipelineSize_) {
      CursorResult<T> result = inner_->next();
      if (!result.hasValue()) {
        innerStop_ = std::move(result);
        break;
      }
      Continuation continuation = result.continuation();
      if (count_ == slots_.size()) grow();
      slots_[(head_ + count_) % slots_.size()].emplace(fn_(std::move(result.value())),
                                                       std::move(continuation));
      ++count_;
    }
  }

  // A full ring grows (up to the pipeline size) with its entries in order from slot 0.
  void grow() {
    const size_t size = std::min(pipelineSize_, std::max<size_t>(4, slots_.size() * 2));
    std::vector<std::optional<Entry>> grown(size);
    for (size_t i = 0; i < count_; ++i) {
      std::optional<Entry>& slot = slots_[(head_ + i) % slots_.size()];
      grown[i].emplace(std::move(*slot));
      slot.reset();
    }
    slots_ = std::move(grown);
    head_ = 0;
  }

  CursorPtr<T> inner_;
  F fn_;
  size_t pipelineSize_;
  // The loads in flight, oldest first from head_: a ring of at most pipelineSize_ slots,
  // allocated once (a deque allocated a node for every load, as an entry is large).
  std::vector<std::optional<Entry>> slots_;
  size_t head_ = 0;
  size_t count_ = 0;
  std::optional<CursorResult<T>> innerStop_;
};

template <typename T, typename F>
auto mapPipelined(CursorPtr<T> inner, F fn, size_t pipelineSize) {
  using Cursor = MapPipelinedCursor<T, F>;
  return CursorPtr<typename Cursor::U>(
      std::make_unique<Cursor>(std::move(inner), std::move(fn), pipelineSize));
}

// Every value up to the first stop, and that stop.
template <typename T>
struct CursorList {
  std::vector<T> values;
  NoNextReason reason = NoNextReason::kSourceExhausted;
  Continuation continuation = Continuation::end();
};

// Drains `cursor`, converting each value with `convert` (use it to copy views out).
template <typename T, typename F = std::identity>
auto asList(RecordCursor<T>& cursor, F convert = {}) {
  using V = std::decay_t<std::invoke_result_t<F, T&>>;
  CursorList<V> list;
  while (true) {
    CursorResult<T> result = cursor.next();
    if (!result.hasValue()) {
      list.reason = result.noNextReason();
      list.continuation = result.continuation();
      return list;
    }
    list.values.push_back(convert(result.value()));
  }
}

}  // namespace rl
