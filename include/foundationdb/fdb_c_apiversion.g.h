/*
 * fdb_c_apiversion.g.h — the API version constants of the libfdb_c-compatible C API.
 *
 * Hand-written for RecordLayer for C++ (FoundationDB generates a file of this name from its
 * build; the name is kept so that includes written for FoundationDB keep working). Included
 * by <foundationdb/fdb_c.h>; clients use the constants, for example
 *
 *   #define FDB_API_VERSION FDB_LATEST_API_VERSION   (after including this file), or
 *   if (fdb_get_max_api_version() < FDB_API_VERSION_TENANT_API_RELEASED) ...
 *
 * Thread-safety: constants only.
 */
#ifndef FDB_C_APIVERSION_G_H
#define FDB_C_APIVERSION_G_H
#pragma once

/* The newest API version this header (and the library behind it) implements: 7.3. */
#define FDB_LATEST_API_VERSION 730

/* The newest API version FoundationDB's own language bindings use; equal to the above in 7.3. */
#define FDB_LATEST_BINDINGS_API_VERSION 730

/* The API version that added the CLIENT_TMP_DIR network option. */
#define FDB_API_VERSION_CLIENT_TMP_DIR 720

/* The API version that added the DISABLE_CLIENT_BYPASS network option. */
#define FDB_API_VERSION_DISABLE_CLIENT_BYPASS 720

/* The API version from which the tenant functions are a released (stable) interface. */
#define FDB_API_VERSION_TENANT_API_RELEASED 720

#endif /* FDB_C_APIVERSION_G_H */
