/*
 * fdb_c.h — the C interface of FoundationDB's client library (libfdb_c), API versions 13..730.
 *
 * RecordLayer for C++ writes its own rendering of this interface, from the interface facts
 * (names, signatures, codes, struct layouts) of FoundationDB 7.3; no FoundationDB text or
 * code is copied. Code written for FoundationDB's header compiles against this one, and the
 * signatures, codes and struct layouts are the same, so the functions may be implemented by
 * FoundationDB's libfdb_c or by RecordLayer's embedded engine exported as a libfdb_c.so.
 *
 * Choose the API version before including the header (13..730), or take the newest:
 *
 *   #define FDB_API_VERSION 730          (or: #define FDB_USE_LATEST_API_VERSION)
 *   #include <foundationdb/fdb_c.h>
 *
 *   fdb_error_t err = fdb_select_api_version(FDB_API_VERSION);
 *   err = fdb_setup_network();           then run fdb_run_network() on a thread of its own
 *   FDBDatabase* db;  err = fdb_create_database(NULL, &db);
 *   FDBTransaction* tr;  err = fdb_database_create_transaction(db, &tr);
 *   FDBFuture* f = fdb_transaction_get(tr, (const uint8_t*)"k", 1, 0);
 *   err = fdb_future_block_until_ready(f);  ...  fdb_future_destroy(f);
 *
 * Declarations follow the chosen FDB_API_VERSION as FoundationDB's header does: a function
 * whose signature changed is declared with the signature of that version, and a function
 * removed before it becomes a macro that fails to compile (FDB_REMOVED_FUNCTION). The
 * functions of newer features (tenants 720; get_total_cost, get_tag_throttled_duration,
 * future_get_double, get_client_status, tenant_get_id 730) are declared at every version, as
 * in FoundationDB's header; the library decides what the selected version allows.
 *
 * Ownership: each FDBFuture, FDBResult, FDBDatabase, FDBTenant and FDBTransaction a call
 * hands out is the caller's and is released exactly once with its *_destroy function.
 * Pointers read out of a future point into the future's memory and stay valid until it is
 * destroyed (or released with fdb_future_release_memory). Input buffers are copied.
 *
 * Thread-safety: fdb_select_api_version and fdb_network_set_option / fdb_setup_network are
 * called once, from one thread, before anything else (fdb_get_error, fdb_get_max_api_version
 * excepted). After that every function may be called from any thread; the work runs on the
 * network thread (the one in fdb_run_network), where future callbacks run too, unless the
 * future is already ready when the callback is set. Never block in a callback.
 */
#ifndef FDB_C_H
#define FDB_C_H
#pragma once

/* Decorates every exported function. Empty for clients; the library may predefine it (for
 * example as a default-visibility attribute) before including this file. */
#ifndef DLLEXPORT
#define DLLEXPORT
#endif

#include "fdb_c_apiversion.g.h"

#if defined(FDB_USE_LATEST_API_VERSION)
#define FDB_API_VERSION FDB_LATEST_API_VERSION
#elif defined(FDB_USE_LATEST_BINDINGS_API_VERSION)
#define FDB_API_VERSION FDB_LATEST_BINDINGS_API_VERSION
#endif

#if !defined(FDB_API_VERSION)
#error "#define FDB_API_VERSION (13..730) or FDB_USE_LATEST_API_VERSION before including fdb_c.h"
#elif FDB_API_VERSION < 13
#error "FDB_API_VERSION below 13 is no longer supported (the oldest is 13)"
#elif FDB_API_VERSION > FDB_LATEST_API_VERSION
#error "FDB_API_VERSION is newer than this fdb_c.h supports (FDB_LATEST_API_VERSION, 730)"
#endif

/* From API 23, C++ callers are warned when they drop a returned error code or future (GCC and
 * Clang); C callers are not, as with FoundationDB's header. A client may predefine it. */
#ifndef WARN_UNUSED_RESULT
#if FDB_API_VERSION >= 23 && defined(__GNUG__)
#define WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define WARN_UNUSED_RESULT
#endif
#endif

/* A function removed at the selected API version is defined as this macro, so that calling it
 * stops the build with an error naming the problem instead of failing at run time. */
#define FDB_REMOVED_FUNCTION fdb_c_h_error_this_function_is_removed_at_the_selected_FDB_API_VERSION

#include <stdint.h>

#include "fdb_c_options.g.h"
#include "fdb_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors and API version ------------------------------------------------------------ */

/* The static description of an error code ("Success" for 0, "UNKNOWN_ERROR" if unknown). */
DLLEXPORT const char* fdb_get_error(fdb_error_t code);

/* Whether code belongs to the class predicate_test (an FDBErrorPredicate); false if unknown. */
DLLEXPORT fdb_bool_t fdb_error_predicate(int predicate_test, fdb_error_t code);

/* Selects the API version for the process, once. runtime_version <= header_version <= 730. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_select_api_version_impl(int runtime_version,
                                                                     int header_version);

/* The newest API version the loaded library supports. */
DLLEXPORT int fdb_get_max_api_version(void);

/* "<release>,<source revision>,<protocol version in hex>" of the loaded library. */
DLLEXPORT const char* fdb_get_client_version(void);

/* fdb_error_t fdb_select_api_version(int v): select v, built against this header's version. */
#define fdb_select_api_version(v) fdb_select_api_version_impl((v), FDB_API_VERSION)

/* Like fdb_select_api_version, but never claims a header version newer than the library's. */
#define fdb_select_api_version_capped(v)                                       \
  fdb_select_api_version_impl((v), FDB_API_VERSION < fdb_get_max_api_version() \
                                       ? FDB_API_VERSION                       \
                                       : fdb_get_max_api_version())

/* ---- Network ----------------------------------------------------------------------------- */

/* Sets a network option; value is NULL for options without a parameter. Before setup. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_network_set_option(FDBNetworkOption option,
                                                                const uint8_t* value,
                                                                int value_length);

#if FDB_API_VERSION >= 14
/* Prepares the network, once per process, after fdb_select_api_version. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_setup_network(void);
#endif

/* Runs the network loop on the calling thread until fdb_stop_network; once per process. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_run_network(void);

/* Asks the network loop to return; callable from any thread. Join the network thread after. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_stop_network(void);

/* Registers hook(hook_parameter) to run on the network thread when its loop has ended. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t
fdb_add_network_thread_completion_hook(void (*hook)(void*), void* hook_parameter);

/* ---- Result structures ------------------------------------------------------------------ */
/* Layouts are part of the ABI: results are arrays of these structs in the library's memory. */

#pragma pack(push, 4)

/* A key: 12 bytes, 4-byte aligned (key at 0, key_length at 8). */
typedef struct key {
  const uint8_t* key;
  int key_length;
} FDBKey;

/* A row: 24 bytes, 4-byte aligned (key 0, key_length 8, value 12, value_length 20). */
#if FDB_API_VERSION >= 630
typedef struct keyvalue {
  const uint8_t* key;
  int key_length;
  const uint8_t* value;
  int value_length;
} FDBKeyValue;
#else
typedef struct keyvalue {
  const void* key;
  int key_length;
  const void* value;
  int value_length;
} FDBKeyValue;
#endif

#pragma pack(pop)

/* A key selector as the library stores it: 20 bytes (key 0, orEqual 12, offset 16). */
typedef struct keyselector {
  FDBKey key;
  /* Only the low byte is meaningful in results of fdb_future_get_mappedkeyvalue_array. */
  fdb_bool_t orEqual;
  int offset;
} FDBKeySelector;

/* The secondary range read of one mapped row: 56 bytes, 8-byte aligned
 * (begin 0, end 20, data 40, m_size 48, m_capacity 52). data holds m_size rows. */
typedef struct getrangereqandresult {
  FDBKeySelector begin;
  FDBKeySelector end;
  FDBKeyValue* data;
  int m_size, m_capacity;
} FDBGetRangeReqAndResult;

/* One row of fdb_transaction_get_mapped_range: 112 bytes, 8-byte aligned (key 0, value 12,
 * getRange 24, buffer 80). The index row, and the rows its mapper selected; buffer is
 * internal state of the library (clients must not read it). */
typedef struct mappedkeyvalue {
  FDBKey key;
  FDBKey value;
  FDBGetRangeReqAndResult getRange;
  unsigned char buffer[32];
} FDBMappedKeyValue;

#pragma pack(push, 4)

/* A key range [begin_key, end_key): 24 bytes, 4-byte aligned. */
typedef struct keyrange {
  const uint8_t* begin_key;
  int begin_key_length;
  const uint8_t* end_key;
  int end_key_length;
} FDBKeyRange;

/* A blob granule's summary: 56 bytes, 4-byte aligned. */
typedef struct granulesummary {
  FDBKeyRange key_range;
  int64_t snapshot_version;
  int64_t snapshot_size;
  int64_t delta_version;
  int64_t delta_size;
} FDBGranuleSummary;

#pragma pack(pop)

/* Callbacks with which fdb_transaction_read_blob_granules loads granule files (by value). */
typedef struct readgranulecontext {
  /* Passed back to every callback. */
  void* userContext;
  /* Starts loading length bytes at offset of a file; returns an id for the load. */
  int64_t (*start_load_f)(const char* filename, int filenameLength, int64_t offset, int64_t length,
                          int64_t fullFileLength, void* context);
  /* The bytes of a started load (waits for it). */
  uint8_t* (*get_load_f)(int64_t loadId, void* context);
  /* Releases the bytes of a load. */
  void (*free_load_f)(int64_t loadId, void* context);
  /* For tests: contact the blob workers but do not read the files. */
  fdb_bool_t debugNoMaterialize;
  /* How many granules to load at once. */
  int granuleParallelism;
} FDBReadBlobGranuleContext;

/* The kind of an FDBBGMutation. */
typedef enum {
  FDB_BG_MUTATION_TYPE_SET_VALUE = 0,
  FDB_BG_MUTATION_TYPE_CLEAR_RANGE = 1
} FDBBGMutationType;

#pragma pack(push, 4)

/* The key prefix of the tenant a granule belongs to, if present. */
typedef struct bgtenantprefix {
  fdb_bool_t present;
  FDBKey prefix;
} FDBBGTenantPrefix;

/* One encryption key of a granule file. */
typedef struct bgencryptionkey {
  int64_t domain_id;
  uint64_t base_key_id;
  uint32_t base_kcv;
  uint64_t random_salt;
  FDBKey base_key;
} FDBBGEncryptionKey;

/* How a granule file is encrypted, if it is. */
typedef struct bgencryptionctx {
  fdb_bool_t present;
  FDBBGEncryptionKey textKey;
  uint32_t textKCV;
  FDBBGEncryptionKey headerKey;
  uint32_t headerKCV;
  FDBKey iv;
} FDBBGEncryptionCtx;

/* Where to read one granule file (a byte range of a named file) and how to decrypt it. */
typedef struct bgfilepointer {
  const uint8_t* filename_ptr;
  int filename_length;
  int64_t file_offset;
  int64_t file_length;
  int64_t full_file_length;
  int64_t file_version;
  FDBBGEncryptionCtx encryption_ctx;
} FDBBGFilePointer;

/* A mutation of a granule's in-memory delta; type is an FDBBGMutationType. */
typedef struct bgmutation {
  uint8_t type;
  int64_t version;
  const uint8_t* param1_ptr;
  int param1_length;
  const uint8_t* param2_ptr;
  int param2_length;
} FDBBGMutation;

/* Everything needed to read one granule: its snapshot file, delta files and memory deltas. */
typedef struct bgfiledescription {
  FDBKeyRange key_range;
  fdb_bool_t snapshot_present;
  FDBBGFilePointer snapshot_file_pointer;
  int delta_file_count;
  FDBBGFilePointer* delta_files;
  int memory_mutation_count;
  FDBBGMutation* memory_mutations;
  FDBBGTenantPrefix tenant_prefix;
} FDBBGFileDescription;

#pragma pack(pop)

/* ---- Futures ----------------------------------------------------------------------------- */

/* Cancels the operation: an unready future becomes operation_cancelled (1101). */
DLLEXPORT void fdb_future_cancel(FDBFuture* f);

/* Frees the memory of what was read out of the future; reads after as many releases as
 * reads fail with future_released (1102). */
DLLEXPORT void fdb_future_release_memory(FDBFuture* f);

/* Releases the future (cancelling its operation if pending); exactly once per future. */
DLLEXPORT void fdb_future_destroy(FDBFuture* f);

/* Blocks until the future is ready; 0 even when it holds an error. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_block_until_ready(FDBFuture* f);

/* Whether the future is ready, without blocking. */
DLLEXPORT fdb_bool_t fdb_future_is_ready(FDBFuture* f);

/* Called once when a future becomes ready (at once, on the caller's thread, if it is). */
typedef void (*FDBCallback)(FDBFuture* future, void* callback_parameter);

/* Registers callback(f, callback_parameter) for when f is ready. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_set_callback(FDBFuture* f, FDBCallback callback,
                                                                 void* callback_parameter);

#if FDB_API_VERSION >= 23
/* The future's error, 0 if it holds a value, future_not_set (2015) if it is not ready. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_error(FDBFuture* f);
#endif

/* Readers of a ready future's value; each returns the future's error instead, if any. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_bool(FDBFuture* f, fdb_bool_t* out);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_int64(FDBFuture* f, int64_t* out);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_uint64(FDBFuture* f, uint64_t* out);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_double(FDBFuture* f, double* out);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_key(FDBFuture* f, const uint8_t** out_key,
                                                            int* out_key_length);

/* *out_present is 0 when the key has no value. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_value(FDBFuture* f, fdb_bool_t* out_present,
                                                              const uint8_t** out_value,
                                                              int* out_value_length);

#if FDB_API_VERSION >= 14
/* *out_more is true when the range holds rows beyond those returned. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_keyvalue_array(FDBFuture* f,
                                                                       const FDBKeyValue** out_kv,
                                                                       int* out_count,
                                                                       fdb_bool_t* out_more);
#endif

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_mappedkeyvalue_array(
    FDBFuture* f, const FDBMappedKeyValue** out_kvm, int* out_count, fdb_bool_t* out_more);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_key_array(FDBFuture* f,
                                                                  const FDBKey** out_keys,
                                                                  int* out_count);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_string_array(FDBFuture* f,
                                                                     const char*** out_strings,
                                                                     int* out_count);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t
fdb_future_get_keyrange_array(FDBFuture* f, const FDBKeyRange** out_ranges, int* out_count);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_granule_summary_array(
    FDBFuture* f, const FDBGranuleSummary** out_summaries, int* out_count);

/* The result of fdb_transaction_read_blob_granules_description. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_readbg_get_descriptions(
    FDBFuture* f, FDBBGFileDescription** out_descriptions, int* out_count);

/* ---- Synchronous results (blob granules) ------------------------------------------------- */

/* Parses a granule snapshot file into rows. */
DLLEXPORT WARN_UNUSED_RESULT FDBResult* fdb_readbg_parse_snapshot_file(
    const uint8_t* file_data, int file_length, const FDBBGTenantPrefix* tenant_prefix,
    const FDBBGEncryptionCtx* encryption_ctx);

/* Parses a granule delta file into mutations. */
DLLEXPORT WARN_UNUSED_RESULT FDBResult* fdb_readbg_parse_delta_file(
    const uint8_t* file_data, int file_length, const FDBBGTenantPrefix* tenant_prefix,
    const FDBBGEncryptionCtx* encryption_ctx);

/* Releases a result. */
DLLEXPORT void fdb_result_destroy(FDBResult* r);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_result_get_keyvalue_array(FDBResult* r,
                                                                       const FDBKeyValue** out_kv,
                                                                       int* out_count,
                                                                       fdb_bool_t* out_more);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_result_get_bg_mutations_array(
    FDBResult* r, const FDBBGMutation** out_mutations, int* out_count);

/* ---- Database ---------------------------------------------------------------------------- */

/* Opens the database named by a cluster file (NULL or "" for the default one). */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_create_database(const char* cluster_file_path,
                                                             FDBDatabase** out_database);

/* Opens the database named by a connection string. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_create_database_from_connection_string(
    const char* connection_string, FDBDatabase** out_database);

DLLEXPORT void fdb_database_destroy(FDBDatabase* d);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_database_set_option(FDBDatabase* d,
                                                                 FDBDatabaseOption option,
                                                                 const uint8_t* value,
                                                                 int value_length);

/* A handle on a tenant, by name (no I/O). */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_database_open_tenant(FDBDatabase* d,
                                                                  const uint8_t* tenant_name,
                                                                  int tenant_name_length,
                                                                  FDBTenant** out_tenant);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t
fdb_database_create_transaction(FDBDatabase* d, FDBTransaction** out_transaction);

/* Administration: restarts a worker (int64 future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_reboot_worker(FDBDatabase* d,
                                                                   const uint8_t* address,
                                                                   int address_length,
                                                                   fdb_bool_t check, int duration);

/* Administration: recovers a region accepting data loss (empty future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_force_recovery_with_data_loss(
    FDBDatabase* d, const uint8_t* dcid, int dcid_length);

/* Administration: takes a cluster snapshot (empty future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_create_snapshot(FDBDatabase* d,
                                                                     const uint8_t* uid,
                                                                     int uid_length,
                                                                     const uint8_t* snap_command,
                                                                     int snap_command_length);

/* How busy the network thread is, from 0 to 1. */
DLLEXPORT WARN_UNUSED_RESULT double fdb_database_get_main_thread_busyness(FDBDatabase* d);

/* The cluster's protocol version (uint64 future); with expected_version != 0, waits until
 * it differs from that. */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_get_server_protocol(FDBDatabase* d,
                                                                         uint64_t expected_version);

/* Blob granules of the database (the range functions take [begin_key, end_key)). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_purge_blob_granules(
    FDBDatabase* d, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t purge_version, fdb_bool_t force);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_wait_purge_granules_complete(
    FDBDatabase* d, const uint8_t* purge_key, int purge_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_blobbify_range(FDBDatabase* d,
                                                                    const uint8_t* begin_key,
                                                                    int begin_key_length,
                                                                    const uint8_t* end_key,
                                                                    int end_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_blobbify_range_blocking(
    FDBDatabase* d, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_unblobbify_range(FDBDatabase* d,
                                                                      const uint8_t* begin_key,
                                                                      int begin_key_length,
                                                                      const uint8_t* end_key,
                                                                      int end_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_list_blobbified_ranges(
    FDBDatabase* d, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int range_limit);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_verify_blob_range(
    FDBDatabase* d, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t version);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_flush_blob_range(
    FDBDatabase* d, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, fdb_bool_t compact, int64_t version);

/* The client's status as JSON (key future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_database_get_client_status(FDBDatabase* d);

/* ---- Tenant ------------------------------------------------------------------------------ */

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t
fdb_tenant_create_transaction(FDBTenant* tenant, FDBTransaction** out_transaction);

/* Blob granules of the tenant, as for the database. */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_purge_blob_granules(
    FDBTenant* tenant, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t purge_version, fdb_bool_t force);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_wait_purge_granules_complete(
    FDBTenant* tenant, const uint8_t* purge_key, int purge_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_blobbify_range(FDBTenant* tenant,
                                                                  const uint8_t* begin_key,
                                                                  int begin_key_length,
                                                                  const uint8_t* end_key,
                                                                  int end_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_blobbify_range_blocking(FDBTenant* tenant,
                                                                           const uint8_t* begin_key,
                                                                           int begin_key_length,
                                                                           const uint8_t* end_key,
                                                                           int end_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_unblobbify_range(FDBTenant* tenant,
                                                                    const uint8_t* begin_key,
                                                                    int begin_key_length,
                                                                    const uint8_t* end_key,
                                                                    int end_key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_list_blobbified_ranges(
    FDBTenant* tenant, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int range_limit);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_verify_blob_range(
    FDBTenant* tenant, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t version);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_flush_blob_range(
    FDBTenant* tenant, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, fdb_bool_t compact, int64_t version);

/* The tenant's id (int64 future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_tenant_get_id(FDBTenant* tenant);

DLLEXPORT void fdb_tenant_destroy(FDBTenant* tenant);

/* ---- Transaction ------------------------------------------------------------------------- */

/* Releases the transaction; uncommitted work is dropped, pending reads fail. */
DLLEXPORT void fdb_transaction_destroy(FDBTransaction* tr);

/* Cancels the transaction: pending and later operations fail until it is reset. */
DLLEXPORT void fdb_transaction_cancel(FDBTransaction* tr);

#if FDB_API_VERSION >= 14
/* Sets an option; only an unknown option fails here, a bad value fails a later operation. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_transaction_set_option(FDBTransaction* tr,
                                                                    FDBTransactionOption option,
                                                                    const uint8_t* value,
                                                                    int value_length);
#endif

/* Reads at this version instead of asking for one. */
DLLEXPORT void fdb_transaction_set_read_version(FDBTransaction* tr, int64_t version);

/* The transaction's read version (int64 future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_read_version(FDBTransaction* tr);

#if FDB_API_VERSION >= 14
/* The value of a key (value future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get(FDBTransaction* tr, const uint8_t* key,
                                                            int key_length, fdb_bool_t snapshot);

/* The key a key selector resolves to (key future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_key(FDBTransaction* tr,
                                                                const uint8_t* key, int key_length,
                                                                fdb_bool_t or_equal, int offset,
                                                                fdb_bool_t snapshot);
#endif

/* The addresses of the storage servers of a key (string array future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_addresses_for_key(FDBTransaction* tr,
                                                                              const uint8_t* key,
                                                                              int key_length);

#if FDB_API_VERSION >= 14
/* The rows between two key selectors (key-value array future). limit and target_bytes of 0
 * mean no limit; iteration counts from 1 for FDB_STREAMING_MODE_ITERATOR. */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, fdb_bool_t begin_or_equal,
    int begin_offset, const uint8_t* end_key, int end_key_length, fdb_bool_t end_or_equal,
    int end_offset, int limit, int target_bytes, FDBStreamingMode mode, int iteration,
    fdb_bool_t snapshot, fdb_bool_t reverse);
#endif

/* An index scan whose rows are each joined with the range the mapper makes of them (mapped
 * key-value array future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_mapped_range(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, fdb_bool_t begin_or_equal,
    int begin_offset, const uint8_t* end_key, int end_key_length, fdb_bool_t end_or_equal,
    int end_offset, const uint8_t* mapper, int mapper_length, int limit, int target_bytes,
    FDBStreamingMode mode, int iteration, fdb_bool_t snapshot, fdb_bool_t reverse);

/* Writes a value. */
DLLEXPORT void fdb_transaction_set(FDBTransaction* tr, const uint8_t* key, int key_length,
                                   const uint8_t* value, int value_length);

/* Applies an atomic operation to a key. */
DLLEXPORT void fdb_transaction_atomic_op(FDBTransaction* tr, const uint8_t* key, int key_length,
                                         const uint8_t* param, int param_length,
                                         FDBMutationType operation_type);

/* Clears a key. */
DLLEXPORT void fdb_transaction_clear(FDBTransaction* tr, const uint8_t* key, int key_length);

/* Clears the keys in [begin_key, end_key). */
DLLEXPORT void fdb_transaction_clear_range(FDBTransaction* tr, const uint8_t* begin_key,
                                           int begin_key_length, const uint8_t* end_key,
                                           int end_key_length);

/* Becomes ready when the key's value changes after the transaction commits (empty future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_watch(FDBTransaction* tr,
                                                              const uint8_t* key, int key_length);

/* Commits (empty future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_commit(FDBTransaction* tr);

/* The version the transaction committed at; -1 if read-only or not committed. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t
fdb_transaction_get_committed_version(FDBTransaction* tr, int64_t* out_version);

/* These answer through futures so that they see every earlier operation of the transaction. */

/* Seconds the transaction spent throttled by its tags (double future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_tag_throttled_duration(
    FDBTransaction* tr);

/* An estimate of the transaction's cost for throttling (int64 future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_total_cost(FDBTransaction* tr);

/* An estimate of the transaction's size so far (int64 future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_approximate_size(FDBTransaction* tr);

/* The 10-byte versionstamp of the commit, ready once it has succeeded (key future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_versionstamp(FDBTransaction* tr);

/* Ready (after a backoff) if error is retryable and the transaction was reset for the retry;
 * otherwise holds the error (empty future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_on_error(FDBTransaction* tr,
                                                                 fdb_error_t error);

/* Returns the transaction to its initial state. */
DLLEXPORT void fdb_transaction_reset(FDBTransaction* tr);

/* Adds a read or write conflict range [begin_key, end_key). */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_transaction_add_conflict_range(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, FDBConflictRangeType type);

/* An estimate of the bytes stored in [begin_key, end_key) (int64 future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_estimated_range_size_bytes(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length);

/* Keys splitting [begin_key, end_key) into chunks of about chunk_size bytes, both ends
 * included (key array future). */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range_split_points(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t chunk_size);

/* Blob granules read through the transaction. */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_blob_granule_ranges(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int range_limit);

/* read_version -2 means the transaction's read version. */
DLLEXPORT WARN_UNUSED_RESULT FDBResult* fdb_transaction_read_blob_granules(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t begin_version, int64_t read_version,
    FDBReadBlobGranuleContext granule_context);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_summarize_blob_granules(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t summary_version, int range_limit);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_read_blob_granules_description(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, const uint8_t* end_key,
    int end_key_length, int64_t begin_version, int64_t read_version, int64_t* read_version_out);

/* Key selectors, as the four arguments (key, key_length, or_equal, offset) of a selector. */
#define FDB_KEYSEL_LAST_LESS_THAN(k, l) k, l, 0, 0
#define FDB_KEYSEL_LAST_LESS_OR_EQUAL(k, l) k, l, 1, 0
#define FDB_KEYSEL_FIRST_GREATER_THAN(k, l) k, l, 1, 1
#define FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(k, l) k, l, 0, 1

/* ---- Older API versions ------------------------------------------------------------------ */
/* Functions as they were before a change, or a FDB_REMOVED_FUNCTION stand-in after it. */

#if FDB_API_VERSION < 620
/* The version held by a future (versions are read with fdb_future_get_int64 from 620). */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_version(FDBFuture* f, int64_t* out_version);
#else
#define fdb_future_get_version(f, out_version) FDB_REMOVED_FUNCTION
#endif

#if FDB_API_VERSION < 610 || defined(FDB_INCLUDE_LEGACY_TYPES)
/* Cluster options: there are none. */
typedef enum { FDB_CLUSTER_OPTION_DUMMY_DO_NOT_USE = -1 } FDBClusterOption;
#endif

#if FDB_API_VERSION < 610
/* Before 610 a database was opened through a cluster handle, both through futures. */
DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_create_cluster(const char* cluster_file_path);

DLLEXPORT void fdb_cluster_destroy(FDBCluster* c);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_cluster_set_option(FDBCluster* c,
                                                                FDBClusterOption option,
                                                                const uint8_t* value,
                                                                int value_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_cluster_create_database(FDBCluster* c,
                                                                    const uint8_t* db_name,
                                                                    int db_name_length);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_cluster(FDBFuture* f,
                                                                FDBCluster** out_cluster);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_database(FDBFuture* f,
                                                                 FDBDatabase** out_database);
#else
#define fdb_create_cluster(cluster_file_path) FDB_REMOVED_FUNCTION
#define fdb_cluster_destroy(c) FDB_REMOVED_FUNCTION
#define fdb_cluster_set_option(c, option, value, value_length) FDB_REMOVED_FUNCTION
#define fdb_cluster_create_database(c, db_name, db_name_length) FDB_REMOVED_FUNCTION
#define fdb_future_get_cluster(f, out_cluster) FDB_REMOVED_FUNCTION
#define fdb_future_get_database(f, out_database) FDB_REMOVED_FUNCTION
#endif

#if FDB_API_VERSION < 23
/* Before 23 the error also came with its description (out_description may be NULL). */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_error(FDBFuture* f,
                                                              const char** out_description);

/* Whether a ready future holds an error. */
DLLEXPORT fdb_bool_t fdb_future_is_error(FDBFuture* f);
#else
#define fdb_future_is_error(f) FDB_REMOVED_FUNCTION
#endif

#if FDB_API_VERSION < 14
/* Before 14: no "more" flag, no snapshot reads, ranges by key (or by selector, below),
 * options without values, and a local address given to the network setup. */
DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_future_get_keyvalue_array(FDBFuture* f,
                                                                       const FDBKeyValue** out_kv,
                                                                       int* out_count);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get(FDBTransaction* tr, const uint8_t* key,
                                                            int key_length);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_key(FDBTransaction* tr,
                                                                const uint8_t* key, int key_length,
                                                                fdb_bool_t or_equal, int offset);

DLLEXPORT WARN_UNUSED_RESULT fdb_error_t fdb_setup_network(const char* local_address);

DLLEXPORT void fdb_transaction_set_option(FDBTransaction* tr, FDBTransactionOption option);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range(FDBTransaction* tr,
                                                                  const uint8_t* begin_key,
                                                                  int begin_key_length,
                                                                  const uint8_t* end_key,
                                                                  int end_key_length, int limit);

DLLEXPORT WARN_UNUSED_RESULT FDBFuture* fdb_transaction_get_range_selector(
    FDBTransaction* tr, const uint8_t* begin_key, int begin_key_length, fdb_bool_t begin_or_equal,
    int begin_offset, const uint8_t* end_key, int end_key_length, fdb_bool_t end_or_equal,
    int end_offset, int limit);
#else
#define fdb_transaction_get_range_selector(tr, begin_key, begin_key_length, begin_or_equal,     \
                                           begin_offset, end_key, end_key_length, end_or_equal, \
                                           end_offset, limit)                                   \
  FDB_REMOVED_FUNCTION
#endif

#ifdef __cplusplus
}
#endif

#endif /* FDB_C_H */
