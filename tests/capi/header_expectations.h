/*
 * The facts <foundationdb/fdb_c.h> must match, as one table used by the C and the C++ layout
 * tests. Every number is FoundationDB 7.3's (struct layouts: docs/capi.md, "The header";
 * codes: fdb.options, as in docs/semantics.md, "Options", "Errors", and docs/capi.md,
 * "Network options"), written here independently of our header, except where a comment
 * says how it was derived. Layouts are those of LP64 (x86-64, aarch64).
 *
 * An X-macro table: include it (it has no include guard) after defining
 *   FACT_SIZE(type, size, align)         sizeof and alignment of a struct
 *   FACT_OFFSET(type, field, offset)     offsetof a field
 *   FACT_CODE(enum_type, name, value)    an enumerator's value (and, in C++, its enum type)
 *   FACT_CONSTANT(name, value)           a preprocessor constant
 * as compile-time assertions (file scope) or as run-time checks (in a function body).
 */

/* ---- struct layouts (docs/capi.md, "The header") ---- */

/* FDBKey, packed(4): key(0), key_length(8); 12 / 4. */
FACT_SIZE(FDBKey, 12, 4);
FACT_OFFSET(FDBKey, key, 0);
FACT_OFFSET(FDBKey, key_length, 8);

/* FDBKeyValue, packed(4): key(0) key_length(8) value(12) value_length(20); 24 / 4. */
FACT_SIZE(FDBKeyValue, 24, 4);
FACT_OFFSET(FDBKeyValue, key, 0);
FACT_OFFSET(FDBKeyValue, key_length, 8);
FACT_OFFSET(FDBKeyValue, value, 12);
FACT_OFFSET(FDBKeyValue, value_length, 20);

/* FDBKeySelector, not packed: key(0), orEqual(12), offset(16); 20 / 4. */
FACT_SIZE(FDBKeySelector, 20, 4);
FACT_OFFSET(FDBKeySelector, key, 0);
FACT_OFFSET(FDBKeySelector, orEqual, 12);
FACT_OFFSET(FDBKeySelector, offset, 16);

/* FDBGetRangeReqAndResult: begin(0), end(20), data(40), m_size(48), m_capacity(52); 56 / 8. */
FACT_SIZE(FDBGetRangeReqAndResult, 56, 8);
FACT_OFFSET(FDBGetRangeReqAndResult, begin, 0);
FACT_OFFSET(FDBGetRangeReqAndResult, end, 20);
FACT_OFFSET(FDBGetRangeReqAndResult, data, 40);
FACT_OFFSET(FDBGetRangeReqAndResult, m_size, 48);
FACT_OFFSET(FDBGetRangeReqAndResult, m_capacity, 52);

/* FDBMappedKeyValue: key(0), value(12), getRange(24), buffer[32](80); 112 / 8. */
FACT_SIZE(FDBMappedKeyValue, 112, 8);
FACT_OFFSET(FDBMappedKeyValue, key, 0);
FACT_OFFSET(FDBMappedKeyValue, value, 12);
FACT_OFFSET(FDBMappedKeyValue, getRange, 24);
FACT_OFFSET(FDBMappedKeyValue, buffer, 80);

/* FDBKeyRange, packed(4): begin_key(0) begin_key_length(8) end_key(12) end_key_length(20). */
FACT_SIZE(FDBKeyRange, 24, 4);
FACT_OFFSET(FDBKeyRange, begin_key, 0);
FACT_OFFSET(FDBKeyRange, begin_key_length, 8);
FACT_OFFSET(FDBKeyRange, end_key, 12);
FACT_OFFSET(FDBKeyRange, end_key_length, 20);

/* FDBGranuleSummary, packed(4): 56 / 4; FoundationDB gives the field order, the offsets follow
 * (a 24-byte range, then four int64 at 4-byte alignment). */
FACT_SIZE(FDBGranuleSummary, 56, 4);
FACT_OFFSET(FDBGranuleSummary, key_range, 0);
FACT_OFFSET(FDBGranuleSummary, snapshot_version, 24);
FACT_OFFSET(FDBGranuleSummary, snapshot_size, 32);
FACT_OFFSET(FDBGranuleSummary, delta_version, 40);
FACT_OFFSET(FDBGranuleSummary, delta_size, 48);

/* FDBReadBlobGranuleContext, not packed; derived from FoundationDB's field list: a pointer, three
 * function pointers, two ints. */
FACT_SIZE(FDBReadBlobGranuleContext, 40, 8);
FACT_OFFSET(FDBReadBlobGranuleContext, userContext, 0);
FACT_OFFSET(FDBReadBlobGranuleContext, start_load_f, 8);
FACT_OFFSET(FDBReadBlobGranuleContext, get_load_f, 16);
FACT_OFFSET(FDBReadBlobGranuleContext, free_load_f, 24);
FACT_OFFSET(FDBReadBlobGranuleContext, debugNoMaterialize, 32);
FACT_OFFSET(FDBReadBlobGranuleContext, granuleParallelism, 36);

/* Blob-granule description structs, packed(4). FoundationDB's header names them; the fields are
 * those of FoundationDB 7.3's declarations, and the offsets below are worked out by hand from them
 * (4-byte packing: an int64 or pointer after an int starts at the next multiple of 4). */
FACT_SIZE(FDBBGTenantPrefix, 16, 4); /* present, FDBKey prefix */
FACT_OFFSET(FDBBGTenantPrefix, present, 0);
FACT_OFFSET(FDBBGTenantPrefix, prefix, 4);

/* domain_id i64, base_key_id u64, base_kcv u32, random_salt u64, base_key FDBKey */
FACT_SIZE(FDBBGEncryptionKey, 40, 4);
FACT_OFFSET(FDBBGEncryptionKey, domain_id, 0);
FACT_OFFSET(FDBBGEncryptionKey, base_key_id, 8);
FACT_OFFSET(FDBBGEncryptionKey, base_kcv, 16);
FACT_OFFSET(FDBBGEncryptionKey, random_salt, 20);
FACT_OFFSET(FDBBGEncryptionKey, base_key, 28);

/* present, textKey, textKCV u32, headerKey, headerKCV u32, iv FDBKey */
FACT_SIZE(FDBBGEncryptionCtx, 104, 4);
FACT_OFFSET(FDBBGEncryptionCtx, present, 0);
FACT_OFFSET(FDBBGEncryptionCtx, textKey, 4);
FACT_OFFSET(FDBBGEncryptionCtx, textKCV, 44);
FACT_OFFSET(FDBBGEncryptionCtx, headerKey, 48);
FACT_OFFSET(FDBBGEncryptionCtx, headerKCV, 88);
FACT_OFFSET(FDBBGEncryptionCtx, iv, 92);

/* filename_ptr, filename_length, four int64, encryption_ctx */
FACT_SIZE(FDBBGFilePointer, 148, 4);
FACT_OFFSET(FDBBGFilePointer, filename_ptr, 0);
FACT_OFFSET(FDBBGFilePointer, filename_length, 8);
FACT_OFFSET(FDBBGFilePointer, file_offset, 12);
FACT_OFFSET(FDBBGFilePointer, file_length, 20);
FACT_OFFSET(FDBBGFilePointer, full_file_length, 28);
FACT_OFFSET(FDBBGFilePointer, file_version, 36);
FACT_OFFSET(FDBBGFilePointer, encryption_ctx, 44);

/* type u8, version i64, param1 ptr+len, param2 ptr+len */
FACT_SIZE(FDBBGMutation, 36, 4);
FACT_OFFSET(FDBBGMutation, type, 0);
FACT_OFFSET(FDBBGMutation, version, 4);
FACT_OFFSET(FDBBGMutation, param1_ptr, 12);
FACT_OFFSET(FDBBGMutation, param1_length, 20);
FACT_OFFSET(FDBBGMutation, param2_ptr, 24);
FACT_OFFSET(FDBBGMutation, param2_length, 32);

/* key_range, snapshot_present, snapshot_file_pointer, delta count+array, mutation count+array,
 * tenant_prefix */
FACT_SIZE(FDBBGFileDescription, 216, 4);
FACT_OFFSET(FDBBGFileDescription, key_range, 0);
FACT_OFFSET(FDBBGFileDescription, snapshot_present, 24);
FACT_OFFSET(FDBBGFileDescription, snapshot_file_pointer, 28);
FACT_OFFSET(FDBBGFileDescription, delta_file_count, 176);
FACT_OFFSET(FDBBGFileDescription, delta_files, 180);
FACT_OFFSET(FDBBGFileDescription, memory_mutation_count, 188);
FACT_OFFSET(FDBBGFileDescription, memory_mutations, 192);
FACT_OFFSET(FDBBGFileDescription, tenant_prefix, 200);

FACT_CODE(FDBBGMutationType, FDB_BG_MUTATION_TYPE_SET_VALUE, 0);
FACT_CODE(FDBBGMutationType, FDB_BG_MUTATION_TYPE_CLEAR_RANGE, 1);

/* ---- API version constants (docs/capi.md, "The header") ---- */
FACT_CONSTANT(FDB_LATEST_API_VERSION, 730);
FACT_CONSTANT(FDB_LATEST_BINDINGS_API_VERSION, 730);
FACT_CONSTANT(FDB_API_VERSION_CLIENT_TMP_DIR, 720);
FACT_CONSTANT(FDB_API_VERSION_DISABLE_CLIENT_BYPASS, 720);
FACT_CONSTANT(FDB_API_VERSION_TENANT_API_RELEASED, 720);

/* ---- transaction options: every one of 7.3 (docs/semantics.md, "Options") ---- */
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_CAUSAL_WRITE_RISKY, 10);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_CAUSAL_READ_RISKY, 20);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_CAUSAL_READ_DISABLE, 21);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_INCLUDE_PORT_IN_ADDRESS, 23);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_NEXT_WRITE_NO_WRITE_CONFLICT_RANGE, 30);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_COMMIT_ON_FIRST_PROXY, 40);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_CHECK_WRITES_ENABLE, 50);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_YOUR_WRITES_DISABLE, 51);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_AHEAD_DISABLE, 52);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_ENABLE, 507);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_DISABLE, 508);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_PRIORITY_NORMAL, 509);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_PRIORITY_LOW, 510);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_PRIORITY_HIGH, 511);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_DURABILITY_DATACENTER, 110);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_DURABILITY_RISKY, 120);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_DURABILITY_DEV_NULL_IS_WEB_SCALE, 130);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_PRIORITY_SYSTEM_IMMEDIATE, 200);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_PRIORITY_BATCH, 201);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_INITIALIZE_NEW_DATABASE, 300);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_ACCESS_SYSTEM_KEYS, 301);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_SYSTEM_KEYS, 302);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_RAW_ACCESS, 303);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_BYPASS_STORAGE_QUOTA, 304);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_DEBUG_DUMP, 400);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_DEBUG_RETRY_LOGGING, 401);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_TRANSACTION_LOGGING_ENABLE, 402);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_DEBUG_TRANSACTION_IDENTIFIER, 403);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_LOG_TRANSACTION, 404);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH, 405);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SERVER_REQUEST_TRACING, 406);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_TIMEOUT, 500);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_RETRY_LIMIT, 501);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_MAX_RETRY_DELAY, 502);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SIZE_LIMIT, 503);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_IDEMPOTENCY_ID, 504);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_AUTOMATIC_IDEMPOTENCY, 505);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SNAPSHOT_RYW_ENABLE, 600);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SNAPSHOT_RYW_DISABLE, 601);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_LOCK_AWARE, 700);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_USED_DURING_COMMIT_PROTECTION_DISABLE, 701);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_READ_LOCK_AWARE, 702);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_FIRST_IN_BATCH, 710);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_USE_PROVISIONAL_PROXIES, 711);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_REPORT_CONFLICTING_KEYS, 712);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SPECIAL_KEY_SPACE_RELAXED, 713);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES, 714);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_TAG, 800);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_AUTO_THROTTLE_TAG, 801);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SPAN_PARENT, 900);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_EXPENSIVE_CLEAR_COST_ESTIMATION_ENABLE, 1000);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_BYPASS_UNREADABLE, 1100);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_USE_GRV_CACHE, 1101);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_SKIP_GRV_CACHE, 1102);
FACT_CODE(FDBTransactionOption, FDB_TR_OPTION_AUTHORIZATION_TOKEN, 2000);

/* ---- database options: every one of 7.3 (docs/semantics.md, "Options") ---- */
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_LOCATION_CACHE_SIZE, 10);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_MAX_WATCHES, 20);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_MACHINE_ID, 21);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_DATACENTER_ID, 22);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_SNAPSHOT_RYW_ENABLE, 26);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_SNAPSHOT_RYW_DISABLE, 27);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH, 405);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_TIMEOUT, 500);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_RETRY_LIMIT, 501);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_MAX_RETRY_DELAY, 502);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_SIZE_LIMIT, 503);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_CAUSAL_READ_RISKY, 504);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_INCLUDE_PORT_IN_ADDRESS, 505);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_AUTOMATIC_IDEMPOTENCY, 506);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_BYPASS_UNREADABLE, 700);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_USED_DURING_COMMIT_PROTECTION_DISABLE, 701);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TRANSACTION_REPORT_CONFLICTING_KEYS, 702);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_USE_CONFIG_DATABASE, 800);
FACT_CODE(FDBDatabaseOption, FDB_DB_OPTION_TEST_CAUSAL_READ_RISKY, 900);

/* ---- network options: every one of 7.3 (docs/capi.md, "Network options") ---- */
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_LOCAL_ADDRESS, 10);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLUSTER_FILE, 20);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_ENABLE, 30);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_ROLL_SIZE, 31);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_MAX_LOGS_SIZE, 32);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_LOG_GROUP, 33);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_FORMAT, 34);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_CLOCK_SOURCE, 35);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_FILE_IDENTIFIER, 36);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_SHARE_AMONG_CLIENT_THREADS, 37);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_INITIALIZE_ON_SETUP, 38);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TRACE_PARTIAL_FILE_SUFFIX, 39);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_KNOB, 40);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_PLUGIN, 41);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_CERT_BYTES, 42);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_CERT_PATH, 43);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_KEY_BYTES, 45);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_KEY_PATH, 46);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_VERIFY_PEERS, 47);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_BUGGIFY_ENABLE, 48);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_BUGGIFY_DISABLE, 49);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_BUGGIFY_SECTION_ACTIVATED_PROBABILITY, 50);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_BUGGIFY_SECTION_FIRED_PROBABILITY, 51);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_CA_BYTES, 52);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_CA_PATH, 53);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_TLS_PASSWORD, 54);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_DISABLE_MULTI_VERSION_CLIENT_API, 60);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CALLBACKS_ON_EXTERNAL_THREADS, 61);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_EXTERNAL_CLIENT_LIBRARY, 62);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_EXTERNAL_CLIENT_DIRECTORY, 63);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_DISABLE_LOCAL_CLIENT, 64);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLIENT_THREADS_PER_VERSION, 65);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_FUTURE_VERSION_CLIENT_LIBRARY, 66);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_RETAIN_CLIENT_LIBRARY_COPIES, 67);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_IGNORE_EXTERNAL_CLIENT_FAILURES, 68);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_FAIL_INCOMPATIBLE_CLIENT, 69);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_DISABLE_CLIENT_STATISTICS_LOGGING, 70);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_ENABLE_SLOW_TASK_PROFILING, 71);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_ENABLE_RUN_LOOP_PROFILING, 71);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_DISABLE_CLIENT_BYPASS, 72);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLIENT_BUGGIFY_ENABLE, 80);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLIENT_BUGGIFY_DISABLE, 81);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_ACTIVATED_PROBABILITY, 82);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_FIRED_PROBABILITY, 83);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_DISTRIBUTED_CLIENT_TRACER, 90);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_CLIENT_TMP_DIR, 91);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_SUPPORTED_CLIENT_VERSIONS, 1000);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_EXTERNAL_CLIENT, 1001);
FACT_CODE(FDBNetworkOption, FDB_NET_OPTION_EXTERNAL_CLIENT_TRANSPORT_ID, 1002);

/* ---- other enums, and the error predicates (docs/semantics.md, "Errors") ---- */
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_WANT_ALL, -2);
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_ITERATOR, -1);
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_EXACT, 0);
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_SMALL, 1);
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_MEDIUM, 2);
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_LARGE, 3);
FACT_CODE(FDBStreamingMode, FDB_STREAMING_MODE_SERIAL, 4);

FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_ADD, 2);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_AND, 6);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_BIT_AND, 6);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_OR, 7);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_BIT_OR, 7);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_XOR, 8);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_BIT_XOR, 8);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_APPEND_IF_FITS, 9);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_MAX, 12);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_MIN, 13);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_KEY, 14);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_VALUE, 15);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_BYTE_MIN, 16);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_BYTE_MAX, 17);
FACT_CODE(FDBMutationType, FDB_MUTATION_TYPE_COMPARE_AND_CLEAR, 20);

FACT_CODE(FDBConflictRangeType, FDB_CONFLICT_RANGE_TYPE_READ, 0);
FACT_CODE(FDBConflictRangeType, FDB_CONFLICT_RANGE_TYPE_WRITE, 1);

FACT_CODE(FDBErrorPredicate, FDB_ERROR_PREDICATE_RETRYABLE, 50000);
FACT_CODE(FDBErrorPredicate, FDB_ERROR_PREDICATE_MAYBE_COMMITTED, 50001);
FACT_CODE(FDBErrorPredicate, FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED, 50002);
