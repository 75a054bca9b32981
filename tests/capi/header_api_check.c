/*
 * Compile-only check of the functions <foundationdb/fdb_c.h> declares, against the
 * signatures of FoundationDB 7.3's fdb_c.h (docs/capi.md, "The header"; and, for API versions
 * before a change, the older signatures). ctest compiles this file with -fsyntax-only -Werror, as
 * C99 (-pedantic) and as C++11, at several FDB_API_VERSIONs (see CMakeLists.txt); nothing runs.
 *
 * Each SIGNATURE line initializes a pointer of the expected function type with the declared
 * function: C++ accepts only an exact match; C rejects an incompatible one (as an error under
 * -Werror), though it cannot tell an enum parameter from its underlying integer type.
 */
#include <foundationdb/fdb_c.h>

#ifdef __cplusplus
#include <type_traits>
#endif

#define SIGNATURE(return_type, function, parameters)     \
  {                                                      \
    return_type(*const expected_) parameters = function; \
    (void)expected_;                                     \
  }

/* A key range argument: begin key and length, end key and length. */
#define RANGE const uint8_t*, int, const uint8_t*, int
/* A key selector argument: key, length, or_equal, offset. */
#define SELECTOR const uint8_t*, int, fdb_bool_t, int

static void on_ready(FDBFuture* future, void* parameter) {
  (void)future;
  (void)parameter;
}

void check_api_surface(FDBTransaction* tr);

void check_api_surface(FDBTransaction* tr) {
  static const uint8_t key[] = {'k'};

  /* Errors, API version, network. */
  SIGNATURE(const char*, fdb_get_error, (fdb_error_t));
  SIGNATURE(fdb_bool_t, fdb_error_predicate, (int, fdb_error_t));
  SIGNATURE(fdb_error_t, fdb_select_api_version_impl, (int, int));
  SIGNATURE(int, fdb_get_max_api_version, (void));
  SIGNATURE(const char*, fdb_get_client_version, (void));
  SIGNATURE(fdb_error_t, fdb_network_set_option, (FDBNetworkOption, const uint8_t*, int));
  SIGNATURE(fdb_error_t, fdb_run_network, (void));
  SIGNATURE(fdb_error_t, fdb_stop_network, (void));
  SIGNATURE(fdb_error_t, fdb_add_network_thread_completion_hook, (void (*)(void*), void*));

  /* Futures and results. */
  SIGNATURE(void, fdb_future_cancel, (FDBFuture*));
  SIGNATURE(void, fdb_future_release_memory, (FDBFuture*));
  SIGNATURE(void, fdb_future_destroy, (FDBFuture*));
  SIGNATURE(fdb_error_t, fdb_future_block_until_ready, (FDBFuture*));
  SIGNATURE(fdb_bool_t, fdb_future_is_ready, (FDBFuture*));
  SIGNATURE(fdb_error_t, fdb_future_set_callback, (FDBFuture*, FDBCallback, void*));
  SIGNATURE(fdb_error_t, fdb_future_set_callback, (FDBFuture*, void (*)(FDBFuture*, void*), void*));
  SIGNATURE(fdb_error_t, fdb_future_get_bool, (FDBFuture*, fdb_bool_t*));
  SIGNATURE(fdb_error_t, fdb_future_get_int64, (FDBFuture*, int64_t*));
  SIGNATURE(fdb_error_t, fdb_future_get_uint64, (FDBFuture*, uint64_t*));
  SIGNATURE(fdb_error_t, fdb_future_get_double, (FDBFuture*, double*));
  SIGNATURE(fdb_error_t, fdb_future_get_key, (FDBFuture*, const uint8_t**, int*));
  SIGNATURE(fdb_error_t, fdb_future_get_value, (FDBFuture*, fdb_bool_t*, const uint8_t**, int*));
  SIGNATURE(fdb_error_t, fdb_future_get_mappedkeyvalue_array,
            (FDBFuture*, const FDBMappedKeyValue**, int*, fdb_bool_t*));
  SIGNATURE(fdb_error_t, fdb_future_get_key_array, (FDBFuture*, const FDBKey**, int*));
  SIGNATURE(fdb_error_t, fdb_future_get_string_array, (FDBFuture*, const char***, int*));
  SIGNATURE(fdb_error_t, fdb_future_get_keyrange_array, (FDBFuture*, const FDBKeyRange**, int*));
  SIGNATURE(fdb_error_t, fdb_future_get_granule_summary_array,
            (FDBFuture*, const FDBGranuleSummary**, int*));
  SIGNATURE(fdb_error_t, fdb_future_readbg_get_descriptions,
            (FDBFuture*, FDBBGFileDescription**, int*));
  SIGNATURE(FDBResult*, fdb_readbg_parse_snapshot_file,
            (const uint8_t*, int, const FDBBGTenantPrefix*, const FDBBGEncryptionCtx*));
  SIGNATURE(FDBResult*, fdb_readbg_parse_delta_file,
            (const uint8_t*, int, const FDBBGTenantPrefix*, const FDBBGEncryptionCtx*));
  SIGNATURE(void, fdb_result_destroy, (FDBResult*));
  SIGNATURE(fdb_error_t, fdb_result_get_keyvalue_array,
            (FDBResult*, const FDBKeyValue**, int*, fdb_bool_t*));
  SIGNATURE(fdb_error_t, fdb_result_get_bg_mutations_array,
            (FDBResult*, const FDBBGMutation**, int*));

  /* Database. */
  SIGNATURE(fdb_error_t, fdb_create_database, (const char*, FDBDatabase**));
  SIGNATURE(fdb_error_t, fdb_create_database_from_connection_string, (const char*, FDBDatabase**));
  SIGNATURE(void, fdb_database_destroy, (FDBDatabase*));
  SIGNATURE(fdb_error_t, fdb_database_set_option,
            (FDBDatabase*, FDBDatabaseOption, const uint8_t*, int));
  SIGNATURE(fdb_error_t, fdb_database_open_tenant,
            (FDBDatabase*, const uint8_t*, int, FDBTenant**));
  SIGNATURE(fdb_error_t, fdb_database_create_transaction, (FDBDatabase*, FDBTransaction**));
  SIGNATURE(FDBFuture*, fdb_database_reboot_worker,
            (FDBDatabase*, const uint8_t*, int, fdb_bool_t, int));
  SIGNATURE(FDBFuture*, fdb_database_force_recovery_with_data_loss,
            (FDBDatabase*, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_database_create_snapshot,
            (FDBDatabase*, const uint8_t*, int, const uint8_t*, int));
  SIGNATURE(double, fdb_database_get_main_thread_busyness, (FDBDatabase*));
  SIGNATURE(FDBFuture*, fdb_database_get_server_protocol, (FDBDatabase*, uint64_t));
  SIGNATURE(FDBFuture*, fdb_database_purge_blob_granules,
            (FDBDatabase*, RANGE, int64_t, fdb_bool_t));
  SIGNATURE(FDBFuture*, fdb_database_wait_purge_granules_complete,
            (FDBDatabase*, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_database_blobbify_range, (FDBDatabase*, RANGE));
  SIGNATURE(FDBFuture*, fdb_database_blobbify_range_blocking, (FDBDatabase*, RANGE));
  SIGNATURE(FDBFuture*, fdb_database_unblobbify_range, (FDBDatabase*, RANGE));
  SIGNATURE(FDBFuture*, fdb_database_list_blobbified_ranges, (FDBDatabase*, RANGE, int));
  SIGNATURE(FDBFuture*, fdb_database_verify_blob_range, (FDBDatabase*, RANGE, int64_t));
  SIGNATURE(FDBFuture*, fdb_database_flush_blob_range, (FDBDatabase*, RANGE, fdb_bool_t, int64_t));
  SIGNATURE(FDBFuture*, fdb_database_get_client_status, (FDBDatabase*));

  /* Tenant. */
  SIGNATURE(fdb_error_t, fdb_tenant_create_transaction, (FDBTenant*, FDBTransaction**));
  SIGNATURE(FDBFuture*, fdb_tenant_purge_blob_granules, (FDBTenant*, RANGE, int64_t, fdb_bool_t));
  SIGNATURE(FDBFuture*, fdb_tenant_wait_purge_granules_complete, (FDBTenant*, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_tenant_blobbify_range, (FDBTenant*, RANGE));
  SIGNATURE(FDBFuture*, fdb_tenant_blobbify_range_blocking, (FDBTenant*, RANGE));
  SIGNATURE(FDBFuture*, fdb_tenant_unblobbify_range, (FDBTenant*, RANGE));
  SIGNATURE(FDBFuture*, fdb_tenant_list_blobbified_ranges, (FDBTenant*, RANGE, int));
  SIGNATURE(FDBFuture*, fdb_tenant_verify_blob_range, (FDBTenant*, RANGE, int64_t));
  SIGNATURE(FDBFuture*, fdb_tenant_flush_blob_range, (FDBTenant*, RANGE, fdb_bool_t, int64_t));
  SIGNATURE(FDBFuture*, fdb_tenant_get_id, (FDBTenant*));
  SIGNATURE(void, fdb_tenant_destroy, (FDBTenant*));

  /* Transaction. */
  SIGNATURE(void, fdb_transaction_destroy, (FDBTransaction*));
  SIGNATURE(void, fdb_transaction_cancel, (FDBTransaction*));
  SIGNATURE(void, fdb_transaction_set_read_version, (FDBTransaction*, int64_t));
  SIGNATURE(FDBFuture*, fdb_transaction_get_read_version, (FDBTransaction*));
  SIGNATURE(FDBFuture*, fdb_transaction_get_addresses_for_key,
            (FDBTransaction*, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_transaction_get_mapped_range,
            (FDBTransaction*, SELECTOR, SELECTOR, const uint8_t*, int, int, int, FDBStreamingMode,
             int, fdb_bool_t, fdb_bool_t));
  SIGNATURE(void, fdb_transaction_set, (FDBTransaction*, const uint8_t*, int, const uint8_t*, int));
  SIGNATURE(void, fdb_transaction_atomic_op,
            (FDBTransaction*, const uint8_t*, int, const uint8_t*, int, FDBMutationType));
  SIGNATURE(void, fdb_transaction_clear, (FDBTransaction*, const uint8_t*, int));
  SIGNATURE(void, fdb_transaction_clear_range, (FDBTransaction*, RANGE));
  SIGNATURE(FDBFuture*, fdb_transaction_watch, (FDBTransaction*, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_transaction_commit, (FDBTransaction*));
  SIGNATURE(fdb_error_t, fdb_transaction_get_committed_version, (FDBTransaction*, int64_t*));
  SIGNATURE(FDBFuture*, fdb_transaction_get_tag_throttled_duration, (FDBTransaction*));
  SIGNATURE(FDBFuture*, fdb_transaction_get_total_cost, (FDBTransaction*));
  SIGNATURE(FDBFuture*, fdb_transaction_get_approximate_size, (FDBTransaction*));
  SIGNATURE(FDBFuture*, fdb_transaction_get_versionstamp, (FDBTransaction*));
  SIGNATURE(FDBFuture*, fdb_transaction_on_error, (FDBTransaction*, fdb_error_t));
  SIGNATURE(void, fdb_transaction_reset, (FDBTransaction*));
  SIGNATURE(fdb_error_t, fdb_transaction_add_conflict_range,
            (FDBTransaction*, RANGE, FDBConflictRangeType));
  SIGNATURE(FDBFuture*, fdb_transaction_get_estimated_range_size_bytes, (FDBTransaction*, RANGE));
  SIGNATURE(FDBFuture*, fdb_transaction_get_range_split_points, (FDBTransaction*, RANGE, int64_t));
  SIGNATURE(FDBFuture*, fdb_transaction_get_blob_granule_ranges, (FDBTransaction*, RANGE, int));
  SIGNATURE(FDBResult*, fdb_transaction_read_blob_granules,
            (FDBTransaction*, RANGE, int64_t, int64_t, FDBReadBlobGranuleContext));
  SIGNATURE(FDBFuture*, fdb_transaction_summarize_blob_granules,
            (FDBTransaction*, RANGE, int64_t, int));
  SIGNATURE(FDBFuture*, fdb_transaction_read_blob_granules_description,
            (FDBTransaction*, RANGE, int64_t, int64_t, int64_t*));

  /* Functions whose signature depends on the API version. */
#if FDB_API_VERSION >= 14
  SIGNATURE(fdb_error_t, fdb_setup_network, (void));
  SIGNATURE(fdb_error_t, fdb_future_get_keyvalue_array,
            (FDBFuture*, const FDBKeyValue**, int*, fdb_bool_t*));
  SIGNATURE(fdb_error_t, fdb_transaction_set_option,
            (FDBTransaction*, FDBTransactionOption, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_transaction_get, (FDBTransaction*, const uint8_t*, int, fdb_bool_t));
  SIGNATURE(FDBFuture*, fdb_transaction_get_key, (FDBTransaction*, SELECTOR, fdb_bool_t));
  SIGNATURE(FDBFuture*, fdb_transaction_get_range,
            (FDBTransaction*, SELECTOR, SELECTOR, int, int, FDBStreamingMode, int, fdb_bool_t,
             fdb_bool_t));
#else
  SIGNATURE(fdb_error_t, fdb_setup_network, (const char*));
  SIGNATURE(fdb_error_t, fdb_future_get_keyvalue_array, (FDBFuture*, const FDBKeyValue**, int*));
  SIGNATURE(void, fdb_transaction_set_option, (FDBTransaction*, FDBTransactionOption));
  SIGNATURE(FDBFuture*, fdb_transaction_get, (FDBTransaction*, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_transaction_get_key, (FDBTransaction*, SELECTOR));
  SIGNATURE(FDBFuture*, fdb_transaction_get_range, (FDBTransaction*, RANGE, int));
  SIGNATURE(FDBFuture*, fdb_transaction_get_range_selector,
            (FDBTransaction*, SELECTOR, SELECTOR, int));
#endif
#if FDB_API_VERSION >= 23
  SIGNATURE(fdb_error_t, fdb_future_get_error, (FDBFuture*));
#else
  SIGNATURE(fdb_error_t, fdb_future_get_error, (FDBFuture*, const char**));
  SIGNATURE(fdb_bool_t, fdb_future_is_error, (FDBFuture*));
#endif
#if FDB_API_VERSION < 610
  SIGNATURE(FDBFuture*, fdb_create_cluster, (const char*));
  SIGNATURE(void, fdb_cluster_destroy, (FDBCluster*));
  SIGNATURE(fdb_error_t, fdb_cluster_set_option,
            (FDBCluster*, FDBClusterOption, const uint8_t*, int));
  SIGNATURE(FDBFuture*, fdb_cluster_create_database, (FDBCluster*, const uint8_t*, int));
  SIGNATURE(fdb_error_t, fdb_future_get_cluster, (FDBFuture*, FDBCluster**));
  SIGNATURE(fdb_error_t, fdb_future_get_database, (FDBFuture*, FDBDatabase**));
#endif
#if FDB_API_VERSION < 620
  SIGNATURE(fdb_error_t, fdb_future_get_version, (FDBFuture*, int64_t*));
#endif

  /* The removed functions are compile errors at the versions that removed them. */
#if FDB_API_VERSION >= 14 && !defined(fdb_transaction_get_range_selector)
#error "fdb_transaction_get_range_selector should be a removed-function macro from API 14"
#endif
#if FDB_API_VERSION >= 23 && !defined(fdb_future_is_error)
#error "fdb_future_is_error should be a removed-function macro from API 23"
#endif
#if FDB_API_VERSION >= 610 &&                                                     \
    (!defined(fdb_create_cluster) || !defined(fdb_cluster_destroy) ||             \
     !defined(fdb_cluster_set_option) || !defined(fdb_cluster_create_database) || \
     !defined(fdb_future_get_cluster) || !defined(fdb_future_get_database))
#error "the cluster functions should be removed-function macros from API 610"
#endif
#if FDB_API_VERSION >= 620 && !defined(fdb_future_get_version)
#error "fdb_future_get_version should be a removed-function macro from API 620"
#endif

  /* The macros expand to well-formed calls. */
  {
    fdb_error_t error = fdb_select_api_version(FDB_API_VERSION);
    error = fdb_select_api_version_capped(FDB_API_VERSION);
    error = fdb_future_set_callback((FDBFuture*)0, on_ready, (void*)0);
    (void)error;
  }
#if FDB_API_VERSION >= 14
  {
    FDBFuture* f = fdb_transaction_get_key(tr, FDB_KEYSEL_FIRST_GREATER_THAN(key, 1), 0);
    f = fdb_transaction_get_range(tr, FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(key, 1),
                                  FDB_KEYSEL_LAST_LESS_OR_EQUAL(key, 1), 0, 0,
                                  FDB_STREAMING_MODE_WANT_ALL, 1, 0, 0);
    f = fdb_transaction_get_key(tr, FDB_KEYSEL_LAST_LESS_THAN(key, 1), 1);
    (void)f;
  }
#else
  (void)tr;
  (void)key;
#endif
}

#ifdef __cplusplus
/* Field types, which a C compiler cannot compare. */
#if FDB_API_VERSION >= 630
static_assert(std::is_same<decltype(FDBKeyValue::key), const uint8_t*>::value, "");
static_assert(std::is_same<decltype(FDBKeyValue::value), const uint8_t*>::value, "");
#else
static_assert(std::is_same<decltype(FDBKeyValue::key), const void*>::value, "");
static_assert(std::is_same<decltype(FDBKeyValue::value), const void*>::value, "");
#endif
static_assert(std::is_same<decltype(FDBKeyValue::key_length), int>::value, "");
static_assert(std::is_same<decltype(FDBKeyValue::value_length), int>::value, "");
static_assert(std::is_same<decltype(FDBKey::key), const uint8_t*>::value, "");
static_assert(std::is_same<decltype(FDBKey::key_length), int>::value, "");
static_assert(std::is_same<decltype(FDBKeySelector::key), FDBKey>::value, "");
static_assert(std::is_same<decltype(FDBKeySelector::orEqual), fdb_bool_t>::value, "");
static_assert(std::is_same<decltype(FDBKeySelector::offset), int>::value, "");
static_assert(std::is_same<decltype(FDBGetRangeReqAndResult::data), FDBKeyValue*>::value, "");
static_assert(std::is_same<decltype(FDBMappedKeyValue::buffer), unsigned char[32]>::value, "");
static_assert(std::is_same<decltype(FDBKeyRange::begin_key), const uint8_t*>::value, "");
static_assert(std::is_same<decltype(FDBGranuleSummary::delta_size), int64_t>::value, "");
static_assert(std::is_same<decltype(FDBBGMutation::type), uint8_t>::value, "");
static_assert(std::is_same<fdb_error_t, int>::value && std::is_same<fdb_bool_t, int>::value, "");
static_assert(std::is_same<FDBCallback, void (*)(FDBFuture*, void*)>::value, "");
#endif
