// rl::FallbackCursor<T> — a cursor that switches to another one once, when it fails.
//
// Returns the values of `inner` until inner->next() throws; then builds the fallback cursor
// from the continuation of the last value returned (nullopt when none was: the fallback
// starts where `inner` started) and goes on with it, so the values continue without a gap
// or a duplicate. This is how USE_REMOTE_FETCH_WITH_FALLBACK falls back to SCAN_AND_FETCH
// (docs/format.md, "Index fetch"; Java's FallbackCursor). A failure of the fallback is surfaced: an
// fdb::Error as it is (so that retry loops see its code), anything else as a
// FallbackCursorFailedException ("cannot fall back again") with the failure nested.
//
//   rl::FallbackCursor<Row> cursor(std::move(remote),
//       [&](const std::optional<fdb::Bytes>& resumeAt, size_t returned) {
//         return scanAndFetch(context, resumeAt, rowLimit == 0 ? 0 : rowLimit - returned);
//       });
//
// Thread-safety: one thread at a time.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "fdb/bytes.h"
#include "fdb/error.h"
#include "rl/cursor/cursor.h"
#include "rl/index/index_fetch_method.h"

namespace rl {

template <typename T>
class FallbackCursor : public RecordCursor<T> {
 public:
  // Builds the fallback from the continuation to resume at (nullopt: from the start) and
  // the number of values `inner` returned (a row limit has that many fewer to go).
  using FallbackFactory =
      std::function<CursorPtr<T>(const std::optional<fdb::Bytes>& resumeAt, size_t returned)>;

  // `startContinuation`: the continuation `inner` itself started from. `onFallback`, if
  // set, is told the failure when the fallback takes over.
  FallbackCursor(CursorPtr<T> inner, FallbackFactory fallback,
                 std::optional<fdb::Bytes> startContinuation = std::nullopt,
                 std::function<void(const std::string& failure)> onFallback = nullptr)
      : inner_(std::move(inner)),
        fallback_(std::move(fallback)),
        startContinuation_(std::move(startContinuation)),
        onFallback_(std::move(onFallback)) {}

  CursorResult<T> next() override {
    if (fellBack_) {
      try {
        return inner_->next();
      } catch (const fdb::Error&) {
        throw;
      } catch (const std::exception& e) {
        std::throw_with_nested(FallbackCursorFailedException(
            std::string("Fallback cursor failed, cannot fall back again: ") + e.what()));
      }
    }
    try {
      CursorResult<T> result = inner_->next();
      if (result.hasValue()) {
        lastContinuation_ = result.continuation();
        ++returned_;
      }
      return result;
    } catch (const std::exception& e) {
      failure_ = e.what();
    }
    // The first failure: go on from the last value returned with the fallback.
    fellBack_ = true;
    if (onFallback_) onFallback_(failure_);
    inner_.reset();
    inner_ = fallback_(returned_ > 0 ? lastContinuation_.toBytes() : startContinuation_, returned_);
    return next();
  }

  // Whether the fallback took over, and the failure that made it.
  bool fellBack() const { return fellBack_; }
  const std::string& failure() const { return failure_; }

 private:
  CursorPtr<T> inner_;
  FallbackFactory fallback_;
  std::optional<fdb::Bytes> startContinuation_;
  std::function<void(const std::string&)> onFallback_;
  Continuation lastContinuation_ = Continuation::start();
  size_t returned_ = 0;
  bool fellBack_ = false;
  std::string failure_;
};

}  // namespace rl
