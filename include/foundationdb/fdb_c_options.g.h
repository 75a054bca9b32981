/*
 * fdb_c_options.g.h — the option and enumeration codes of the libfdb_c-compatible C API.
 *
 * Hand-written for RecordLayer for C++ from FoundationDB 7.3's option list (FoundationDB
 * generates a file of this name; the name is kept so that includes keep working). Included
 * by <foundationdb/fdb_c.h>. Every option is here, hidden and deprecated ones included, as
 * FDB_<SCOPE>_<NAME>; an alias has the same code as the name it stands for.
 *
 *   int64_t timeout_ms = 2500;   (Int parameters: 8 bytes, little-endian)
 *   fdb_error_t err = fdb_transaction_set_option(tr, FDB_TR_OPTION_TIMEOUT,
 *                                                (const uint8_t*)&timeout_ms, 8);
 *
 * Parameter kinds in the comments: "no parameter" (pass NULL, 0), "Int" (an 8-byte
 * little-endian int64, length 8), "String" / "Bytes" (raw bytes, not NUL-terminated).
 * "Persistent" transaction options survive fdb_transaction_on_error retries (not reset).
 * Thread-safety: constants only.
 */
#ifndef FDB_C_OPTIONS_G_H
#define FDB_C_OPTIONS_G_H
#pragma once

/* Options of the process-wide network (fdb_network_set_option), set before fdb_setup_network. */
typedef enum {
  /* Deprecated; ignored. String: IP:PORT. */
  FDB_NET_OPTION_LOCAL_ADDRESS = 10,
  /* Deprecated; ignored. String: a cluster file path. */
  FDB_NET_OPTION_CLUSTER_FILE = 20,
  /* Write client trace files. String: the output directory, or NULL for the working directory. */
  FDB_NET_OPTION_TRACE_ENABLE = 30,
  /* Int: the largest size in bytes of one trace file before it rolls over. */
  FDB_NET_OPTION_TRACE_ROLL_SIZE = 31,
  /* Int: the largest total size in bytes of all trace files; older files are deleted. */
  FDB_NET_OPTION_TRACE_MAX_LOGS_SIZE = 32,
  /* String: the LogGroup attribute written on every trace event. */
  FDB_NET_OPTION_TRACE_LOG_GROUP = 33,
  /* String: the trace file format, "xml" (default) or "json". */
  FDB_NET_OPTION_TRACE_FORMAT = 34,
  /* String: the clock used for trace timestamps, "now" (default) or "realtime". */
  FDB_NET_OPTION_TRACE_CLOCK_SOURCE = 35,
  /* String: used in trace file names in place of the port and process id. */
  FDB_NET_OPTION_TRACE_FILE_IDENTIFIER = 36,
  /* No parameter: all client threads share one base trace file name (behaviour before 7.2). */
  FDB_NET_OPTION_TRACE_SHARE_AMONG_CLIENT_THREADS = 37,
  /* No parameter: open trace files at network setup rather than at the first database. */
  FDB_NET_OPTION_TRACE_INITIALIZE_ON_SETUP = 38,
  /* String: a suffix for trace files that are still being written. */
  FDB_NET_OPTION_TRACE_PARTIAL_FILE_SUFFIX = 39,
  /* String: "name=value", sets an internal tuning knob. */
  FDB_NET_OPTION_KNOB = 40,
  /* Deprecated; ignored. String: a TLS plugin path. */
  FDB_NET_OPTION_TLS_PLUGIN = 41,
  /* Bytes: the TLS certificate chain. */
  FDB_NET_OPTION_TLS_CERT_BYTES = 42,
  /* String: a file holding the TLS certificate chain. */
  FDB_NET_OPTION_TLS_CERT_PATH = 43,
  /* Bytes: the TLS private key. */
  FDB_NET_OPTION_TLS_KEY_BYTES = 45,
  /* String: a file holding the TLS private key. */
  FDB_NET_OPTION_TLS_KEY_PATH = 46,
  /* Bytes: the rules a peer's certificate must satisfy. */
  FDB_NET_OPTION_TLS_VERIFY_PEERS = 47,
  /* No parameter: turn on BUGGIFY fault injection (testing only). */
  FDB_NET_OPTION_BUGGIFY_ENABLE = 48,
  /* No parameter: turn off BUGGIFY fault injection. */
  FDB_NET_OPTION_BUGGIFY_DISABLE = 49,
  /* Int 0..100: the percentage of BUGGIFY sections that are active. */
  FDB_NET_OPTION_BUGGIFY_SECTION_ACTIVATED_PROBABILITY = 50,
  /* Int 0..100: the percentage of times an active BUGGIFY section fires. */
  FDB_NET_OPTION_BUGGIFY_SECTION_FIRED_PROBABILITY = 51,
  /* Bytes: the TLS certificate authority bundle. */
  FDB_NET_OPTION_TLS_CA_BYTES = 52,
  /* String: a file holding the TLS certificate authority bundle. */
  FDB_NET_OPTION_TLS_CA_PATH = 53,
  /* String: the passphrase of an encrypted TLS private key (set it before the key). */
  FDB_NET_OPTION_TLS_PASSWORD = 54,
  /* No parameter: use the local client only, never the multi-version client. */
  FDB_NET_OPTION_DISABLE_MULTI_VERSION_CLIENT_API = 60,
  /* No parameter: let external client libraries call callbacks from their own threads. */
  FDB_NET_OPTION_CALLBACKS_ON_EXTERNAL_THREADS = 61,
  /* String: the path of an extra client library for the multi-version client. */
  FDB_NET_OPTION_EXTERNAL_CLIENT_LIBRARY = 62,
  /* String: a directory whose client libraries the multi-version client loads. */
  FDB_NET_OPTION_EXTERNAL_CLIENT_DIRECTORY = 63,
  /* No parameter: connect only through external client libraries. */
  FDB_NET_OPTION_DISABLE_LOCAL_CLIENT = 64,
  /* Int: the number of worker threads per loaded client version. */
  FDB_NET_OPTION_CLIENT_THREADS_PER_VERSION = 65,
  /* String: a client library for a future protocol version (testing only). */
  FDB_NET_OPTION_FUTURE_VERSION_CLIENT_LIBRARY = 66,
  /* No parameter: keep the temporary copies of external client libraries. */
  FDB_NET_OPTION_RETAIN_CLIENT_LIBRARY_COPIES = 67,
  /* No parameter: carry on when some external client fails to initialize. */
  FDB_NET_OPTION_IGNORE_EXTERNAL_CLIENT_FAILURES = 68,
  /* No parameter: fail when no loaded client matches the cluster's protocol. */
  FDB_NET_OPTION_FAIL_INCOMPATIBLE_CLIENT = 69,
  /* No parameter: do not log client statistics (sampled transactions). */
  FDB_NET_OPTION_DISABLE_CLIENT_STATISTICS_LOGGING = 70,
  /* Deprecated alias of ENABLE_RUN_LOOP_PROFILING. */
  FDB_NET_OPTION_ENABLE_SLOW_TASK_PROFILING = 71,
  /* No parameter: profile the network run loop (needs tracing; debugging only). */
  FDB_NET_OPTION_ENABLE_RUN_LOOP_PROFILING = 71,
  /* No parameter: keep the multi-version client even with no external clients (API >= 720). */
  FDB_NET_OPTION_DISABLE_CLIENT_BYPASS = 72,
  /* No parameter: turn on client-side fault injection (testing only). */
  FDB_NET_OPTION_CLIENT_BUGGIFY_ENABLE = 80,
  /* No parameter: turn off client-side fault injection. */
  FDB_NET_OPTION_CLIENT_BUGGIFY_DISABLE = 81,
  /* Int 0..100: the percentage of client fault-injection sections that are active. */
  FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_ACTIVATED_PROBABILITY = 82,
  /* Int 0..100: the percentage of times an active client fault-injection section fires. */
  FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_FIRED_PROBABILITY = 83,
  /* String: the distributed tracer, "none", "log_file" or "network_lossy". */
  FDB_NET_OPTION_DISTRIBUTED_CLIENT_TRACER = 90,
  /* String: the directory for the client's temporary files (API >= 720). */
  FDB_NET_OPTION_CLIENT_TMP_DIR = 91,
  /* Hidden; set by the multi-version client. String: the supported client versions. */
  FDB_NET_OPTION_SUPPORTED_CLIENT_VERSIONS = 1000,
  /* Hidden; set by the multi-version client on the libraries it loads. No parameter. */
  FDB_NET_OPTION_EXTERNAL_CLIENT = 1001,
  /* Hidden; set by the multi-version client. Int: the transport id of a child client. */
  FDB_NET_OPTION_EXTERNAL_CLIENT_TRANSPORT_ID = 1002
} FDBNetworkOption;

/* Options of one database handle (fdb_database_set_option). The TRANSACTION_* ones set the
 * default of a transaction option for transactions created (or reset) afterwards. */
typedef enum {
  /* Int: the number of entries of the client's key location cache (default 100000). */
  FDB_DB_OPTION_LOCATION_CACHE_SIZE = 10,
  /* Int 0..1000000: the most watches outstanding on this database (default 10000). */
  FDB_DB_OPTION_MAX_WATCHES = 20,
  /* String: the machine id given to the servers on this machine (hex). */
  FDB_DB_OPTION_MACHINE_ID = 21,
  /* String: the datacenter id given to the servers in this datacenter. */
  FDB_DB_OPTION_DATACENTER_ID = 22,
  /* No parameter: snapshot reads see the transaction's own writes (the default). */
  FDB_DB_OPTION_SNAPSHOT_RYW_ENABLE = 26,
  /* No parameter: snapshot reads do not see the transaction's own writes. */
  FDB_DB_OPTION_SNAPSHOT_RYW_DISABLE = 27,
  /* Int: default of the transaction option TRANSACTION_LOGGING_MAX_FIELD_LENGTH (405). */
  FDB_DB_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH = 405,
  /* Int milliseconds: default of the transaction option TIMEOUT (500); 0 means none. */
  FDB_DB_OPTION_TRANSACTION_TIMEOUT = 500,
  /* Int: default of the transaction option RETRY_LIMIT (501); -1 means unlimited. */
  FDB_DB_OPTION_TRANSACTION_RETRY_LIMIT = 501,
  /* Int milliseconds: default of the transaction option MAX_RETRY_DELAY (502). */
  FDB_DB_OPTION_TRANSACTION_MAX_RETRY_DELAY = 502,
  /* Int bytes: default of the transaction option SIZE_LIMIT (503). */
  FDB_DB_OPTION_TRANSACTION_SIZE_LIMIT = 503,
  /* No parameter: default of the transaction option CAUSAL_READ_RISKY (20). */
  FDB_DB_OPTION_TRANSACTION_CAUSAL_READ_RISKY = 504,
  /* Deprecated (ports are always included from API 630). Default of tr option 23. */
  FDB_DB_OPTION_TRANSACTION_INCLUDE_PORT_IN_ADDRESS = 505,
  /* No parameter: default of the transaction option AUTOMATIC_IDEMPOTENCY (505). */
  FDB_DB_OPTION_TRANSACTION_AUTOMATIC_IDEMPOTENCY = 506,
  /* No parameter: default of the transaction option BYPASS_UNREADABLE (1100). */
  FDB_DB_OPTION_TRANSACTION_BYPASS_UNREADABLE = 700,
  /* No parameter: default of USED_DURING_COMMIT_PROTECTION_DISABLE (701). */
  FDB_DB_OPTION_TRANSACTION_USED_DURING_COMMIT_PROTECTION_DISABLE = 701,
  /* No parameter: default of the transaction option REPORT_CONFLICTING_KEYS (712). */
  FDB_DB_OPTION_TRANSACTION_REPORT_CONFLICTING_KEYS = 702,
  /* No parameter: talk to the configuration database instead of the data. */
  FDB_DB_OPTION_USE_CONFIG_DATABASE = 800,
  /* Int 0..100: how often to check that causal-read-risky reads are not stale (testing). */
  FDB_DB_OPTION_TEST_CAUSAL_READ_RISKY = 900
} FDBDatabaseOption;

/* Options of one transaction (fdb_transaction_set_option). Only an unknown code fails at the
 * call; a bad value makes a later operation of the transaction fail. */
typedef enum {
  /* No parameter: skip the self-conflict that prevents a second commit after a lost reply. */
  FDB_TR_OPTION_CAUSAL_WRITE_RISKY = 10,
  /* No parameter: the read version may lag the latest commit slightly. */
  FDB_TR_OPTION_CAUSAL_READ_RISKY = 20,
  /* No parameter. */
  FDB_TR_OPTION_CAUSAL_READ_DISABLE = 21,
  /* No parameter: storage addresses include the port (always so from API 630). */
  FDB_TR_OPTION_INCLUDE_PORT_IN_ADDRESS = 23,
  /* No parameter: the next write adds no write conflict range. */
  FDB_TR_OPTION_NEXT_WRITE_NO_WRITE_CONFLICT_RANGE = 30,
  /* Hidden. No parameter: commit through the first commit proxy. */
  FDB_TR_OPTION_COMMIT_ON_FIRST_PROXY = 40,
  /* Hidden. No parameter. */
  FDB_TR_OPTION_CHECK_WRITES_ENABLE = 50,
  /* No parameter: reads ignore this transaction's writes; set before any read or write. */
  FDB_TR_OPTION_READ_YOUR_WRITES_DISABLE = 51,
  /* Deprecated. No parameter. */
  FDB_TR_OPTION_READ_AHEAD_DISABLE = 52,
  /* No parameter. */
  FDB_TR_OPTION_DURABILITY_DATACENTER = 110,
  /* No parameter. */
  FDB_TR_OPTION_DURABILITY_RISKY = 120,
  /* Deprecated. No parameter. */
  FDB_TR_OPTION_DURABILITY_DEV_NULL_IS_WEB_SCALE = 130,
  /* No parameter: the highest priority, ahead of all other transactions (system use). */
  FDB_TR_OPTION_PRIORITY_SYSTEM_IMMEDIATE = 200,
  /* No parameter: a low priority; may be throttled under load. */
  FDB_TR_OPTION_PRIORITY_BATCH = 201,
  /* No parameter: a write-only transaction that creates a new database's configuration. */
  FDB_TR_OPTION_INITIALIZE_NEW_DATABASE = 300,
  /* No parameter: may read and write keys starting with 0xFF (implies RAW_ACCESS). */
  FDB_TR_OPTION_ACCESS_SYSTEM_KEYS = 301,
  /* No parameter: may read keys starting with 0xFF (implies RAW_ACCESS). */
  FDB_TR_OPTION_READ_SYSTEM_KEYS = 302,
  /* No parameter: use the raw key space even when tenants are on. */
  FDB_TR_OPTION_RAW_ACCESS = 303,
  /* No parameter: not subject to storage quotas. */
  FDB_TR_OPTION_BYPASS_STORAGE_QUOTA = 304,
  /* Hidden. No parameter. */
  FDB_TR_OPTION_DEBUG_DUMP = 400,
  /* String (optional): a transaction name for retry logging. */
  FDB_TR_OPTION_DEBUG_RETRY_LOGGING = 401,
  /* Deprecated. String: a tracing identifier of at most 100 characters. */
  FDB_TR_OPTION_TRANSACTION_LOGGING_ENABLE = 402,
  /* String of 1..100 bytes: an identifier for tracing and profiling this transaction. */
  FDB_TR_OPTION_DEBUG_TRANSACTION_IDENTIFIER = 403,
  /* No parameter: log this transaction to the trace files (set the identifier first). */
  FDB_TR_OPTION_LOG_TRANSACTION = 404,
  /* Int: the longest escaped key or value logged by LOG_TRANSACTION (-1: no limit). */
  FDB_TR_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH = 405,
  /* No parameter: have the servers trace this transaction's requests. */
  FDB_TR_OPTION_SERVER_REQUEST_TRACING = 406,
  /* Persistent. Int milliseconds: cancel the transaction after this long; 0 means none. */
  FDB_TR_OPTION_TIMEOUT = 500,
  /* Persistent. Int: the most retries on_error allows; -1 means unlimited. */
  FDB_TR_OPTION_RETRY_LIMIT = 501,
  /* Persistent. Int milliseconds: the longest backoff on_error waits (default 1000). */
  FDB_TR_OPTION_MAX_RETRY_DELAY = 502,
  /* Int bytes 32..10000000: the largest transaction allowed (default 10000000). */
  FDB_TR_OPTION_SIZE_LIMIT = 503,
  /* Hidden. String of 16..255 bytes: an id for recognising a commit already applied. */
  FDB_TR_OPTION_IDEMPOTENCY_ID = 504,
  /* No parameter: give the transaction a random idempotency id. */
  FDB_TR_OPTION_AUTOMATIC_IDEMPOTENCY = 505,
  /* No parameter: ask storage servers to cache the blocks read (the default). */
  FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_ENABLE = 507,
  /* No parameter: ask storage servers not to cache the blocks read. */
  FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_DISABLE = 508,
  /* No parameter: normal read priority (the default). */
  FDB_TR_OPTION_READ_PRIORITY_NORMAL = 509,
  /* No parameter: low read priority. */
  FDB_TR_OPTION_READ_PRIORITY_LOW = 510,
  /* No parameter: high read priority. */
  FDB_TR_OPTION_READ_PRIORITY_HIGH = 511,
  /* No parameter: snapshot reads see this transaction's writes (the default). */
  FDB_TR_OPTION_SNAPSHOT_RYW_ENABLE = 600,
  /* No parameter: snapshot reads do not see this transaction's writes. */
  FDB_TR_OPTION_SNAPSHOT_RYW_DISABLE = 601,
  /* No parameter: may read and write a locked database. */
  FDB_TR_OPTION_LOCK_AWARE = 700,
  /* No parameter: operations during a commit fail alone, not the whole transaction. */
  FDB_TR_OPTION_USED_DURING_COMMIT_PROTECTION_DISABLE = 701,
  /* No parameter: may read a locked database. */
  FDB_TR_OPTION_READ_LOCK_AWARE = 702,
  /* Hidden. No parameter: nothing else commits before it in its commit version. */
  FDB_TR_OPTION_FIRST_IN_BATCH = 710,
  /* No parameter: for tools that change the database configuration. */
  FDB_TR_OPTION_USE_PROVISIONAL_PROXIES = 711,
  /* No parameter: after a conflict, the conflicting keys can be read from special keys. */
  FDB_TR_OPTION_REPORT_CONFLICTING_KEYS = 712,
  /* No parameter: special-key reads may span several modules. */
  FDB_TR_OPTION_SPECIAL_KEY_SPACE_RELAXED = 713,
  /* No parameter: allow writes to special keys (implies SPECIAL_KEY_SPACE_RELAXED). */
  FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES = 714,
  /* String of at most 16 characters: a throttling tag (at most 5 tags). */
  FDB_TR_OPTION_TAG = 800,
  /* String of at most 16 characters: a tag that may also be throttled automatically. */
  FDB_TR_OPTION_AUTO_THROTTLE_TAG = 801,
  /* Bytes (33): the parent span for transaction tracing. */
  FDB_TR_OPTION_SPAN_PARENT = 900,
  /* No parameter: ask storage servers for the size of cleared ranges when estimating cost. */
  FDB_TR_OPTION_EXPENSIVE_CLEAR_COST_ESTIMATION_ENABLE = 1000,
  /* No parameter: gets may read keys left unreadable by versionstamp operations. */
  FDB_TR_OPTION_BYPASS_UNREADABLE = 1100,
  /* No parameter: take the read version from the database's cache. */
  FDB_TR_OPTION_USE_GRV_CACHE = 1101,
  /* Hidden. No parameter: never use the cached read version. */
  FDB_TR_OPTION_SKIP_GRV_CACHE = 1102,
  /* Persistent, sensitive. String: a token authorizing access to tenants. */
  FDB_TR_OPTION_AUTHORIZATION_TOKEN = 2000
} FDBTransactionOption;

/* How a range read batches its rows (the mode argument of fdb_transaction_get_range). */
typedef enum {
  /* The caller wants the whole range, as soon as possible. */
  FDB_STREAMING_MODE_WANT_ALL = -2,
  /* The default: batches grow with the iteration number. */
  FDB_STREAMING_MODE_ITERATOR = -1,
  /* Exactly the row limit, in one batch (needs a limit). */
  FDB_STREAMING_MODE_EXACT = 0,
  /* Small batches. */
  FDB_STREAMING_MODE_SMALL = 1,
  /* Medium batches. */
  FDB_STREAMING_MODE_MEDIUM = 2,
  /* Large batches. */
  FDB_STREAMING_MODE_LARGE = 3,
  /* Batches as large as one client can usefully take. */
  FDB_STREAMING_MODE_SERIAL = 4
} FDBStreamingMode;

/* Atomic operations (fdb_transaction_atomic_op). The parameter is always Bytes. */
typedef enum {
  /* Add, as little-endian integers. */
  FDB_MUTATION_TYPE_ADD = 2,
  /* Deprecated alias of BIT_AND. */
  FDB_MUTATION_TYPE_AND = 6,
  /* Bitwise and. */
  FDB_MUTATION_TYPE_BIT_AND = 6,
  /* Deprecated alias of BIT_OR. */
  FDB_MUTATION_TYPE_OR = 7,
  /* Bitwise or. */
  FDB_MUTATION_TYPE_BIT_OR = 7,
  /* Deprecated alias of BIT_XOR. */
  FDB_MUTATION_TYPE_XOR = 8,
  /* Bitwise exclusive or. */
  FDB_MUTATION_TYPE_BIT_XOR = 8,
  /* Append the parameter, unless the result would exceed the value size limit. */
  FDB_MUTATION_TYPE_APPEND_IF_FITS = 9,
  /* The larger, as unsigned little-endian integers. */
  FDB_MUTATION_TYPE_MAX = 12,
  /* The smaller, as unsigned little-endian integers. */
  FDB_MUTATION_TYPE_MIN = 13,
  /* Set a key with a versionstamp written into it (offset in its last 4 bytes). */
  FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_KEY = 14,
  /* Set a value with a versionstamp written into it (offset in its last 4 bytes). */
  FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_VALUE = 15,
  /* The lexicographically smaller byte string. */
  FDB_MUTATION_TYPE_BYTE_MIN = 16,
  /* The lexicographically larger byte string. */
  FDB_MUTATION_TYPE_BYTE_MAX = 17,
  /* Clear the key if its value equals the parameter. */
  FDB_MUTATION_TYPE_COMPARE_AND_CLEAR = 20
} FDBMutationType;

/* The kind of a manual conflict range (fdb_transaction_add_conflict_range). */
typedef enum {
  /* A read conflict range: the commit fails if another transaction wrote in it meanwhile. */
  FDB_CONFLICT_RANGE_TYPE_READ = 0,
  /* A write conflict range: conflicts with other transactions' reads. */
  FDB_CONFLICT_RANGE_TYPE_WRITE = 1
} FDBConflictRangeType;

/* Error classes (fdb_error_predicate). */
typedef enum {
  /* The transaction should be retried: MAYBE_COMMITTED or RETRYABLE_NOT_COMMITTED. */
  FDB_ERROR_PREDICATE_RETRYABLE = 50000,
  /* The transaction may have committed, though the client cannot know. */
  FDB_ERROR_PREDICATE_MAYBE_COMMITTED = 50001,
  /* The transaction did not commit and can be retried. */
  FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED = 50002
} FDBErrorPredicate;

#endif /* FDB_C_OPTIONS_G_H */
