/*
 * fdb_c_types.h — the handle and scalar types of the libfdb_c-compatible C API.
 *
 * Part of RecordLayer for C++'s own rendering of FoundationDB's C interface (written from
 * the interface facts, not copied). Clients include <foundationdb/fdb_c.h>, which includes
 * this file; it can also be included alone by code that only passes handles around.
 *
 *   FDBDatabase* db = NULL;
 *   fdb_error_t err = fdb_create_database(NULL, &db);
 *   if (err != 0) fprintf(stderr, "%s\n", fdb_get_error(err));
 *
 * Every handle is an incomplete struct type: clients only ever hold pointers to them and
 * release each with its matching *_destroy function (FDBCluster exists for API < 610 only).
 * Thread-safety: plain types; see fdb_c.h for the rules of each function.
 */
#ifndef FDB_C_TYPES_H
#define FDB_C_TYPES_H
#pragma once

#ifndef DLLEXPORT
#define DLLEXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles. The struct tags are part of the interface: C++ code may forward-declare them. */
typedef struct FDB_future FDBFuture;           /* a single-assignment asynchronous result */
typedef struct FDB_result FDBResult;           /* a synchronous result (blob granule reads) */
typedef struct FDB_cluster FDBCluster;         /* legacy cluster handle (API < 610) */
typedef struct FDB_database FDBDatabase;       /* a connection to one database */
typedef struct FDB_tenant FDBTenant;           /* a named tenant of a database */
typedef struct FDB_transaction FDBTransaction; /* one transaction (reusable after reset) */

/* An error code: 0 is success; the codes and their messages are FoundationDB's. */
typedef int fdb_error_t;

/* A boolean as an int: 0 is false, anything else is true. */
typedef int fdb_bool_t;

#ifdef __cplusplus
}
#endif

#endif /* FDB_C_TYPES_H */
