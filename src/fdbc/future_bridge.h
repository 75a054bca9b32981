// From FDBFuture* to fdb::Future<T>: how every operation of the FoundationDB backend hands
// its result over.
//
// toFuture<Reader>(api, f) takes ownership of `f`. A future that is already ready (the
// embedded engine without delay answers at once) is read at once, destroyed, and returned as
// a ready fdb::Future: no callback, no allocation beyond the result. Otherwise a callback is
// set with fdb_future_set_callback; it runs on libfdb_c's network thread when the operation
// completes, copies the result out of the C arrays into our types (Reader::read), destroys
// the C future and completes the fdb::Promise. No thread of ours waits on a C future.
//
//   struct ValueReader {  // reads with a getter, which fails with the future's error
//     static std::optional<Bytes> read(const CApi& api, FDBFuture* f);  // throws fdb::Error
//   };
//   Future<std::optional<Bytes>> v = toFuture<ValueReader>(api, api.fdb_transaction_get(...));
//
// Thread-safety: a Reader runs on the thread that issued the operation or on the network
// thread; it must only read the future it is given.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

#include "fdb/error.h"
#include "fdb/future.h"
#include "fdbc/c_api.h"

namespace fdb::fdbc {

// FoundationDB's internal_error: something other than an fdb::Error failed in a reader.
inline constexpr int kInternalError = 4100;

template <typename Reader>
using ReadType = decltype(Reader::read(std::declval<const CApi&>(), nullptr));

namespace detail {

// The future's error as an fdb::Error, or its value. (A reader that calls a getter gets the
// future's error from it, so only a future without a value asks for the error alone.)
template <typename Reader>
ReadType<Reader> readOrThrow(const CApi& api, FDBFuture* f) {
  if constexpr (std::is_void_v<ReadType<Reader>>) {
    if (fdb_error_t code = api.fdb_future_get_error(f); code != 0) throw Error(code);
  } else {
    return Reader::read(api, f);
  }
}

// What a callback needs: the C functions and the promise (a Promise or a WeakPromise) to
// complete.
template <typename P>
struct PendingOperation {
  const CApi* api;
  P promise;
};

// Reads the ready `f`, destroys it and completes `promise`. Never throws (it may run inside
// libfdb_c).
template <typename Reader, typename P>
void settle(const CApi& api, FDBFuture* f, P& promise) {
  try {
    if constexpr (std::is_void_v<ReadType<Reader>>) {
      readOrThrow<Reader>(api, f);
      api.fdb_future_destroy(f);
      promise.setValue();
    } else {
      ReadType<Reader> value = readOrThrow<Reader>(api, f);
      api.fdb_future_destroy(f);
      promise.setValue(std::move(value));
    }
  } catch (const Error& e) {
    api.fdb_future_destroy(f);
    promise.setError(e);
  } catch (...) {
    api.fdb_future_destroy(f);
    promise.setError(Error(kInternalError, "reading a libfdb_c future failed"));
  }
}

// The FDBCallback of a pending operation.
template <typename Reader, typename P>
void completeOperation(FDBFuture* f, void* parameter) {
  std::unique_ptr<PendingOperation<P>> pending(static_cast<PendingOperation<P>*>(parameter));
  settle<Reader>(*pending->api, f, pending->promise);
}

}  // namespace detail

// Completes `promise` (a Promise or a WeakPromise of ReadType<Reader>) from `f`, which it
// takes: at once when `f` is ready, else from the network thread's callback.
template <typename Reader, typename P>
void completeFrom(const CApi& api, FDBFuture* f, P promise) {
  if (f == nullptr) return promise.setError(Error(kInternalError, "libfdb_c returned no future"));
  if (api.fdb_future_is_ready(f)) return detail::settle<Reader>(api, f, promise);
  auto* parameter = new detail::PendingOperation<P>{&api, std::move(promise)};
  if (fdb_error_t code =
          api.fdb_future_set_callback(f, &detail::completeOperation<Reader, P>, parameter);
      code != 0) {
    P failed = std::move(parameter->promise);
    delete parameter;
    api.fdb_future_destroy(f);
    failed.setError(Error(code));
  }
}

template <typename Reader>
Future<ReadType<Reader>> toFuture(const CApi& api, FDBFuture* f) {
  using T = ReadType<Reader>;
  if (f == nullptr) return Future<T>::failed(Error(kInternalError, "libfdb_c returned no future"));
  if (api.fdb_future_is_ready(f)) {
    try {
      if constexpr (std::is_void_v<T>) {
        detail::readOrThrow<Reader>(api, f);
        api.fdb_future_destroy(f);
        return Future<T>::ready();
      } else {
        T value = detail::readOrThrow<Reader>(api, f);
        api.fdb_future_destroy(f);
        return Future<T>::ready(std::move(value));
      }
    } catch (const Error& e) {
      api.fdb_future_destroy(f);
      return Future<T>::failed(e);
    } catch (...) {
      api.fdb_future_destroy(f);
      throw;
    }
  }
  Promise<T> promise;
  Future<T> future = promise.future();
  completeFrom<Reader>(api, f, std::move(promise));
  return future;
}

}  // namespace fdb::fdbc
