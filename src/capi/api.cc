// Process-wide entry points: API version selection, errors, the network, and futures.
#include <atomic>
#include <cstring>

#include "capi/export.h"
#include "capi/fdb_c_api.h"
#include "capi/future.h"
#include "capi/network.h"
#include "fdb/error.h"

using fdb::capi::KeyArrayResult;
using fdb::capi::KeyResult;
using fdb::capi::KeyValueArrayResult;
using fdb::capi::MappedKeyValueArrayResult;
using fdb::capi::Network;
using fdb::capi::StringArrayResult;
using fdb::capi::ValueResult;

namespace {

constexpr int kMaxApiVersion = 730;
std::atomic<int> selectedApiVersion{0};

}  // namespace

RL_C_EXPORT const char* fdb_get_error(fdb_error_t code) {
  return fdb::errorDescription(code).data();  // static, NUL-terminated strings
}

RL_C_EXPORT fdb_bool_t fdb_error_predicate(int predicate_test, fdb_error_t code) {
  switch (predicate_test) {
    case FDB_ERROR_PREDICATE_RETRYABLE: return fdb::isRetryable(code);
    case FDB_ERROR_PREDICATE_MAYBE_COMMITTED: return fdb::isMaybeCommitted(code);
    case FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED: return fdb::isRetryableNotCommitted(code);
    default: return 0;
  }
}

RL_C_EXPORT fdb_error_t fdb_select_api_version_impl(int runtime_version, int header_version) {
  // The order of the checks is FoundationDB's (docs/capi.md, "API versions").
  if (selectedApiVersion.load() != 0) return 2201;    // api_version_already_set
  if (runtime_version > header_version) return 2202;  // api_version_invalid
  if (header_version > kMaxApiVersion) return 2203;   // api_version_not_supported
  if (runtime_version < 13) return 2203;
  int expected = 0;
  if (!selectedApiVersion.compare_exchange_strong(expected, runtime_version)) return 2201;
  return 0;
}

RL_C_EXPORT int fdb_get_max_api_version(void) { return kMaxApiVersion; }

RL_C_EXPORT const char* fdb_get_client_version(void) {
  // "<release>,<source>,<protocol version>": the release names this library, so a client
  // can tell it from FoundationDB's own.
  return "7.3.0-recordlayer,recordlayer-embedded-engine,fdb00b073000000";
}

RL_C_EXPORT fdb_error_t fdb_network_set_option(FDBNetworkOption option, const uint8_t* value,
                                               int value_length) {
  return Network::instance().setOption(option, value, value_length);
}

RL_C_EXPORT fdb_error_t fdb_setup_network(void) {
  if (selectedApiVersion.load() == 0) return 2200;  // api_version_unset
  return Network::instance().setup();
}

RL_C_EXPORT fdb_error_t fdb_run_network(void) { return Network::instance().run(); }

RL_C_EXPORT fdb_error_t fdb_stop_network(void) { return Network::instance().stop(); }

RL_C_EXPORT fdb_error_t fdb_add_network_thread_completion_hook(void (*hook)(void*),
                                                               void* hook_parameter) {
  return Network::instance().addCompletionHook(hook, hook_parameter);
}

// ---- Futures ------------------------------------------------------------------------

RL_C_EXPORT void fdb_future_cancel(FDBFuture* f) { f->cancel(); }

RL_C_EXPORT void fdb_future_release_memory(FDBFuture* f) { f->releaseMemory(); }

RL_C_EXPORT void fdb_future_destroy(FDBFuture* f) {
  f->cancel();  // destroying a pending future cancels its operation
  f->unref();
}

RL_C_EXPORT fdb_error_t fdb_future_block_until_ready(FDBFuture* f) { return f->blockUntilReady(); }

RL_C_EXPORT fdb_bool_t fdb_future_is_ready(FDBFuture* f) { return f->isReady(); }

RL_C_EXPORT fdb_error_t fdb_future_set_callback(FDBFuture* f, FDBCallback callback,
                                                void* callback_parameter) {
  return f->setCallback(callback, callback_parameter);
}

RL_C_EXPORT fdb_error_t fdb_future_get_error(FDBFuture* f) { return f->error(); }

RL_C_EXPORT fdb_error_t fdb_future_get_bool(FDBFuture* f, fdb_bool_t* out) {
  return f->get<bool>([&](bool value) { *out = value; });
}

RL_C_EXPORT fdb_error_t fdb_future_get_int64(FDBFuture* f, int64_t* out) {
  return f->get<int64_t>([&](int64_t value) { *out = value; });
}

RL_C_EXPORT fdb_error_t fdb_future_get_uint64(FDBFuture* f, uint64_t* out) {
  return f->get<uint64_t>([&](uint64_t value) { *out = value; });
}

RL_C_EXPORT fdb_error_t fdb_future_get_double(FDBFuture* f, double* out) {
  return f->get<double>([&](double value) { *out = value; });
}

RL_C_EXPORT fdb_error_t fdb_future_get_key(FDBFuture* f, const uint8_t** out_key,
                                           int* out_key_length) {
  return f->get<KeyResult>([&](const KeyResult& result) {
    *out_key = reinterpret_cast<const uint8_t*>(result.key.data());
    *out_key_length = static_cast<int>(result.key.size());
  });
}

RL_C_EXPORT fdb_error_t fdb_future_get_value(FDBFuture* f, fdb_bool_t* out_present,
                                             const uint8_t** out_value, int* out_value_length) {
  return f->get<ValueResult>([&](const ValueResult& result) {
    static constexpr char kAbsent[] = "";
    *out_present = result.value.has_value();
    *out_value = reinterpret_cast<const uint8_t*>(result.value ? result.value->data() : kAbsent);
    *out_value_length = result.value ? static_cast<int>(result.value->size()) : 0;
  });
}

RL_C_EXPORT fdb_error_t fdb_future_get_keyvalue_array(FDBFuture* f, FDBKeyValue const** out_kv,
                                                      int* out_count, fdb_bool_t* out_more) {
  return f->get<KeyValueArrayResult>([&](const KeyValueArrayResult& result) {
    *out_kv = result.array.data;
    *out_count = static_cast<int>(result.array.size);
    *out_more = result.more;
  });
}

RL_C_EXPORT fdb_error_t fdb_future_get_mappedkeyvalue_array(FDBFuture* f,
                                                            FDBMappedKeyValue const** out_kv,
                                                            int* out_count, fdb_bool_t* out_more) {
  return f->get<MappedKeyValueArrayResult>([&](const MappedKeyValueArrayResult& result) {
    *out_kv = result.array.data();
    *out_count = static_cast<int>(result.array.size());
    *out_more = result.more;
  });
}

RL_C_EXPORT fdb_error_t fdb_future_get_key_array(FDBFuture* f, FDBKey const** out_key_array,
                                                 int* out_count) {
  return f->get<KeyArrayResult>([&](const KeyArrayResult& result) {
    *out_key_array = result.array.data();
    *out_count = static_cast<int>(result.array.size());
  });
}

RL_C_EXPORT fdb_error_t fdb_future_get_string_array(FDBFuture* f, const char*** out_strings,
                                                    int* out_count) {
  return f->get<StringArrayResult>([&](StringArrayResult& result) {
    *out_strings = result.array.data();
    *out_count = static_cast<int>(result.array.size());
  });
}
