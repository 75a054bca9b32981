// CApi — every libfdb_c function the FoundationDB backend calls, as function pointers
// resolved with dlsym from the library loaded at run time (client_library.h). Nothing in the
// project links against a libfdb_c: the declarations of our own fdb_c.h give the types only.
//
//   const CApi& api = Client::instance().api();
//   FDBFuture* f = api.fdb_transaction_get(tr, key, length, /*snapshot=*/0);
//
// Thread-safety: filled once before the client is published, then read-only.
#pragma once

#include <type_traits>

#define FDB_API_VERSION 730
#include "foundationdb/fdb_c.h"

namespace fdb::fdbc {

// The API version this backend is written for and selects (fdb_select_api_version_impl).
inline constexpr int kApiVersion = 730;

// X(name) for every function used whose declaration in fdb_c.h is the type we call it by. A
// library missing one of them cannot be used. (The backend never blocks on a C future;
// fdb_future_block_until_ready is here for clientbench's C arm, which waits as synchronous
// bindings do when it runs on a real cluster.)
#define RL_FDBC_FUNCTIONS(X)               \
  X(fdb_get_error)                         \
  X(fdb_get_max_api_version)               \
  X(fdb_get_client_version)                \
  X(fdb_select_api_version_impl)           \
  X(fdb_setup_network)                     \
  X(fdb_run_network)                       \
  X(fdb_stop_network)                      \
  X(fdb_future_cancel)                     \
  X(fdb_future_destroy)                    \
  X(fdb_future_block_until_ready)          \
  X(fdb_future_is_ready)                   \
  X(fdb_future_set_callback)               \
  X(fdb_future_get_error)                  \
  X(fdb_future_get_int64)                  \
  X(fdb_future_get_key)                    \
  X(fdb_future_get_value)                  \
  X(fdb_future_get_keyvalue_array)         \
  X(fdb_future_get_mappedkeyvalue_array)   \
  X(fdb_create_database)                   \
  X(fdb_database_destroy)                  \
  X(fdb_database_create_transaction)       \
  X(fdb_transaction_destroy)               \
  X(fdb_transaction_cancel)                \
  X(fdb_transaction_set_read_version)      \
  X(fdb_transaction_get_read_version)      \
  X(fdb_transaction_get)                   \
  X(fdb_transaction_get_key)               \
  X(fdb_transaction_set)                   \
  X(fdb_transaction_clear)                 \
  X(fdb_transaction_clear_range)           \
  X(fdb_transaction_watch)                 \
  X(fdb_transaction_commit)                \
  X(fdb_transaction_get_committed_version) \
  X(fdb_transaction_get_approximate_size)  \
  X(fdb_transaction_get_versionstamp)      \
  X(fdb_transaction_on_error)              \
  X(fdb_transaction_reset)

// X(name, type) for the functions with a C enum parameter (an option, a mutation type, a
// streaming mode, a conflict range type). They are called with the code as an int: the client
// API passes any code through (the library answers an unknown one with its error, e.g. 2007
// or 2018), and in C++ an enum object cannot hold a value outside its enumerators' range. In
// C an enum parameter is an int-sized integer (asserted below), so the call is the same.
#define RL_FDBC_INT_CODE_FUNCTIONS(X)                                                          \
  X(fdb_database_set_option, fdb_error_t (*)(FDBDatabase*, int, const uint8_t*, int))          \
  X(fdb_transaction_set_option, fdb_error_t (*)(FDBTransaction*, int, const uint8_t*, int))    \
  X(fdb_transaction_atomic_op,                                                                 \
    void (*)(FDBTransaction*, const uint8_t*, int, const uint8_t*, int, int))                  \
  X(fdb_transaction_add_conflict_range,                                                        \
    fdb_error_t (*)(FDBTransaction*, const uint8_t*, int, const uint8_t*, int, int))           \
  X(fdb_transaction_get_range,                                                                 \
    FDBFuture* (*)(FDBTransaction*, const uint8_t*, int, fdb_bool_t, int, const uint8_t*, int, \
                   fdb_bool_t, int, int, int, int, int, fdb_bool_t, fdb_bool_t))               \
  X(fdb_transaction_get_mapped_range,                                                          \
    FDBFuture* (*)(FDBTransaction*, const uint8_t*, int, fdb_bool_t, int, const uint8_t*, int, \
                   fdb_bool_t, int, const uint8_t*, int, int, int, int, int, fdb_bool_t,       \
                   fdb_bool_t))

static_assert(sizeof(FDBDatabaseOption) == sizeof(int) &&
              sizeof(FDBTransactionOption) == sizeof(int) &&
              sizeof(FDBMutationType) == sizeof(int) &&
              sizeof(FDBConflictRangeType) == sizeof(int) &&
              sizeof(FDBStreamingMode) == sizeof(int));

struct CApi {
#define RL_FDBC_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  RL_FDBC_FUNCTIONS(RL_FDBC_DECLARE_POINTER)
#undef RL_FDBC_DECLARE_POINTER
#define RL_FDBC_DECLARE_INT_CODE_POINTER(name, ...) \
  std::type_identity_t<__VA_ARGS__> name = nullptr;
  RL_FDBC_INT_CODE_FUNCTIONS(RL_FDBC_DECLARE_INT_CODE_POINTER)
#undef RL_FDBC_DECLARE_INT_CODE_POINTER
};

}  // namespace fdb::fdbc
