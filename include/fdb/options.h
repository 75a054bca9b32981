// Transaction and database options, with FoundationDB's codes (fdb.options; docs/semantics.md,
// "Options").
//
//   tr.setOption(fdb::TransactionOption::kTimeout, 2000);          // Int: milliseconds
//   tr.setOption(fdb::TransactionOption::kReadYourWritesDisable);  // no parameter
//   db.setOption(fdb::DatabaseOption::kTransactionRetryLimit, 10);
//
// Parameters travel as FoundationDB's C API passes them: none, an 8-byte little-endian
// integer, or bytes. An unknown code fails at once with invalid_option (2007); a bad value
// (invalid_option_value, 2006) is deferred like other transaction errors. Persistent options
// (timeout, retry limit, max retry delay) survive onError but not reset().
#pragma once

namespace fdb {

enum class TransactionOption : int {
  kCausalWriteRisky = 10,
  kCausalReadRisky = 20,
  kCausalReadDisable = 21,
  kIncludePortInAddress = 23,
  kNextWriteNoWriteConflictRange = 30,
  kCommitOnFirstProxy = 40,
  kCheckWritesEnable = 50,
  kReadYourWritesDisable = 51,
  kReadAheadDisable = 52,
  kDurabilityDatacenter = 110,
  kDurabilityRisky = 120,
  kDurabilityDevNullIsWebScale = 130,
  kPrioritySystemImmediate = 200,
  kPriorityBatch = 201,
  kInitializeNewDatabase = 300,
  kAccessSystemKeys = 301,
  kReadSystemKeys = 302,
  kRawAccess = 303,
  kBypassStorageQuota = 304,
  kDebugDump = 400,
  kDebugRetryLogging = 401,
  kTransactionLoggingEnable = 402,
  kDebugTransactionIdentifier = 403,
  kLogTransaction = 404,
  kTransactionLoggingMaxFieldLength = 405,
  kServerRequestTracing = 406,
  kTimeout = 500,
  kRetryLimit = 501,
  kMaxRetryDelay = 502,
  kSizeLimit = 503,
  kIdempotencyId = 504,
  kAutomaticIdempotency = 505,
  kReadServerSideCacheEnable = 507,
  kReadServerSideCacheDisable = 508,
  kReadPriorityNormal = 509,
  kReadPriorityLow = 510,
  kReadPriorityHigh = 511,
  kSnapshotRywEnable = 600,
  kSnapshotRywDisable = 601,
  kLockAware = 700,
  kUsedDuringCommitProtectionDisable = 701,
  kReadLockAware = 702,
  kFirstInBatch = 710,
  kUseProvisionalProxies = 711,
  kReportConflictingKeys = 712,
  kSpecialKeySpaceRelaxed = 713,
  kSpecialKeySpaceEnableWrites = 714,
  kTag = 800,
  kAutoThrottleTag = 801,
  kSpanParent = 900,
  kExpensiveClearCostEstimationEnable = 1000,
  kBypassUnreadable = 1100,
  kUseGrvCache = 1101,
  kSkipGrvCache = 1102,
  kAuthorizationToken = 2000,
};

enum class DatabaseOption : int {
  kLocationCacheSize = 10,
  kMaxWatches = 20,
  kMachineId = 21,
  kDatacenterId = 22,
  kSnapshotRywEnable = 26,
  kSnapshotRywDisable = 27,
  kTransactionLoggingMaxFieldLength = 405,
  kTransactionTimeout = 500,
  kTransactionRetryLimit = 501,
  kTransactionMaxRetryDelay = 502,
  kTransactionSizeLimit = 503,
  kTransactionCausalReadRisky = 504,
  kTransactionIncludePortInAddress = 505,
  kTransactionAutomaticIdempotency = 506,
  kTransactionBypassUnreadable = 700,
  kTransactionUsedDuringCommitProtectionDisable = 701,
  kTransactionReportConflictingKeys = 702,
  kUseConfigDatabase = 800,
  kTestCausalReadRisky = 900,
};

}  // namespace fdb
