// Blob granules: not supported by the embedded engine. Every entry point exists (bindings
// link against them) and fails with unsupported_operation (2108): futures fail with it,
// and FDBResult objects report it when read.
#include "capi/export.h"
#include "capi/fdb_c_api.h"
#include "capi/future.h"
#include "capi/handles.h"

using fdb::capi::failedFuture;

namespace {

constexpr fdb_error_t kUnsupportedOperation = 2108;

// The getters of results futures never carry: the future's error, else unsupported.
fdb_error_t unsupportedGet(FDBFuture* f) {
  fdb_error_t error = f->error();
  return error != 0 ? error : kUnsupportedOperation;
}

}  // namespace

RL_C_EXPORT fdb_error_t fdb_future_get_keyrange_array(FDBFuture* f, const FDBKeyRange**, int*) {
  return unsupportedGet(f);
}

RL_C_EXPORT fdb_error_t fdb_future_get_granule_summary_array(FDBFuture* f,
                                                             const FDBGranuleSummary**, int*) {
  return unsupportedGet(f);
}

RL_C_EXPORT fdb_error_t fdb_future_readbg_get_descriptions(FDBFuture* f, FDBBGFileDescription**,
                                                           int*) {
  return unsupportedGet(f);
}

RL_C_EXPORT FDBResult* fdb_readbg_parse_snapshot_file(const uint8_t*, int, const FDBBGTenantPrefix*,
                                                      const FDBBGEncryptionCtx*) {
  return new FDB_result();
}

RL_C_EXPORT FDBResult* fdb_readbg_parse_delta_file(const uint8_t*, int, const FDBBGTenantPrefix*,
                                                   const FDBBGEncryptionCtx*) {
  return new FDB_result();
}

RL_C_EXPORT void fdb_result_destroy(FDBResult* r) { delete r; }

RL_C_EXPORT fdb_error_t fdb_result_get_keyvalue_array(FDBResult*, const FDBKeyValue**, int*,
                                                      fdb_bool_t*) {
  return kUnsupportedOperation;
}

RL_C_EXPORT fdb_error_t fdb_result_get_bg_mutations_array(FDBResult*, const FDBBGMutation**, int*) {
  return kUnsupportedOperation;
}

// ---- Database and tenant -------------------------------------------------------------

RL_C_EXPORT FDBFuture* fdb_database_purge_blob_granules(FDBDatabase*, const uint8_t*, int,
                                                        const uint8_t*, int, int64_t, fdb_bool_t) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_wait_purge_granules_complete(FDBDatabase*, const uint8_t*,
                                                                 int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_blobbify_range(FDBDatabase*, const uint8_t*, int,
                                                   const uint8_t*, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_blobbify_range_blocking(FDBDatabase*, const uint8_t*, int,
                                                            const uint8_t*, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_unblobbify_range(FDBDatabase*, const uint8_t*, int,
                                                     const uint8_t*, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_list_blobbified_ranges(FDBDatabase*, const uint8_t*, int,
                                                           const uint8_t*, int, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_verify_blob_range(FDBDatabase*, const uint8_t*, int,
                                                      const uint8_t*, int, int64_t) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_database_flush_blob_range(FDBDatabase*, const uint8_t*, int,
                                                     const uint8_t*, int, fdb_bool_t, int64_t) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_purge_blob_granules(FDBTenant*, const uint8_t*, int,
                                                      const uint8_t*, int, int64_t, fdb_bool_t) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_wait_purge_granules_complete(FDBTenant*, const uint8_t*, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_blobbify_range(FDBTenant*, const uint8_t*, int, const uint8_t*,
                                                 int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_blobbify_range_blocking(FDBTenant*, const uint8_t*, int,
                                                          const uint8_t*, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_unblobbify_range(FDBTenant*, const uint8_t*, int, const uint8_t*,
                                                   int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_list_blobbified_ranges(FDBTenant*, const uint8_t*, int,
                                                         const uint8_t*, int, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_verify_blob_range(FDBTenant*, const uint8_t*, int, const uint8_t*,
                                                    int, int64_t) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_tenant_flush_blob_range(FDBTenant*, const uint8_t*, int, const uint8_t*,
                                                   int, fdb_bool_t, int64_t) {
  return failedFuture(kUnsupportedOperation);
}

// ---- Transaction ---------------------------------------------------------------------

RL_C_EXPORT FDBFuture* fdb_transaction_get_blob_granule_ranges(FDBTransaction*, const uint8_t*, int,
                                                               const uint8_t*, int, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBResult* fdb_transaction_read_blob_granules(FDBTransaction*, const uint8_t*, int,
                                                          const uint8_t*, int, int64_t, int64_t,
                                                          FDBReadBlobGranuleContext) {
  return new FDB_result();
}

RL_C_EXPORT FDBFuture* fdb_transaction_summarize_blob_granules(FDBTransaction*, const uint8_t*, int,
                                                               const uint8_t*, int, int64_t, int) {
  return failedFuture(kUnsupportedOperation);
}

RL_C_EXPORT FDBFuture* fdb_transaction_read_blob_granules_description(FDBTransaction*,
                                                                      const uint8_t*, int,
                                                                      const uint8_t*, int, int64_t,
                                                                      int64_t,
                                                                      int64_t* read_version_out) {
  if (read_version_out != nullptr) *read_version_out = -1;
  return failedFuture(kUnsupportedOperation);
}
