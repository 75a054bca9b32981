/*
 * Programs that must not compile against <foundationdb/fdb_c.h>. ctest compiles this file
 * with the flags of one misuse each (see CMakeLists.txt) and passes when the compiler's
 * output names the expected error:
 *   no FDB_API_VERSION, or one outside 13..730   -> the header's #error
 *   -DMISUSE_REMOVED_FUNCTION (API >= 620)       -> the removed-function stand-in
 *   -DMISUSE_IGNORED_RESULT (C++)                -> warn_unused_result, an error under -Werror
 * Without a MISUSE_* macro and with a valid version it compiles (the control test).
 */
#include <foundationdb/fdb_c.h>

void misuse(FDBTransaction* tr, FDBFuture* f);

void misuse(FDBTransaction* tr, FDBFuture* f) {
#if defined(MISUSE_REMOVED_FUNCTION)
  int64_t version = 0;
  fdb_error_t error = fdb_future_get_version(f, &version);
  (void)error;
#elif defined(MISUSE_IGNORED_RESULT)
  fdb_transaction_commit(tr);
#endif
  (void)tr;
  (void)f;
}
