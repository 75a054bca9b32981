// fdb::Error — an error with FoundationDB's code and name.
//
// Every failure at the client API surface is thrown as an fdb::Error, as FoundationDB's
// Java and Python bindings do. The code is FoundationDB's (1020 not_committed,
// 1007 transaction_too_old, 2250 invalid_tuple_data_type, ...) so that retry logic and
// users behave as they would against a real cluster. An optional detail says what
// exactly went wrong; it is part of what(), never of the code.
//
//   try {
//     fdb::Tuple t = fdb::Tuple::unpack(bytes);
//   } catch (const fdb::Error& e) {
//     if (e.code() == fdb::errors::kInvalidTupleDataType) { ... }
//   }
//
// Thread-safety: immutable once constructed.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fdb {

// Codes used by name in this code base. The full table (every code FoundationDB 7.3
// defines, with its name and description) is behind errorName()/errorDescription().
namespace errors {
inline constexpr int kSuccess = 0;
inline constexpr int kOperationFailed = 1000;
inline constexpr int kTimedOut = 1004;
inline constexpr int kTransactionTooOld = 1007;
inline constexpr int kFutureVersion = 1009;
inline constexpr int kNotCommitted = 1020;
inline constexpr int kCommitUnknownResult = 1021;
inline constexpr int kTransactionCancelled = 1025;
inline constexpr int kTransactionTimedOut = 1031;
inline constexpr int kIoError = 1510;
inline constexpr int kFileNotFound = 1511;
inline constexpr int kFileCorrupt = 1522;
inline constexpr int kLockFileFailure = 1529;
inline constexpr int kClientInvalidOperation = 2000;
inline constexpr int kKeyOutsideLegalRange = 2004;
inline constexpr int kInvertedRange = 2005;
inline constexpr int kInvalidOptionValue = 2006;
inline constexpr int kInvalidOption = 2007;
inline constexpr int kReadVersionAlreadySet = 2010;
inline constexpr int kVersionInvalid = 2011;
inline constexpr int kRangeLimitsInvalid = 2012;
inline constexpr int kUsedDuringCommit = 2017;
inline constexpr int kInvalidMutationType = 2018;
inline constexpr int kTransactionTooLarge = 2101;
inline constexpr int kKeyTooLarge = 2102;
inline constexpr int kValueTooLarge = 2103;
inline constexpr int kExactModeWithoutLimits = 2210;
inline constexpr int kInvalidTupleDataType = 2250;
inline constexpr int kInvalidTupleIndex = 2251;
inline constexpr int kKeyNotInSubspace = 2252;
inline constexpr int kManualPrefixesNotEnabled = 2253;
inline constexpr int kPrefixInPartition = 2254;
inline constexpr int kCannotOpenRootDirectory = 2255;
inline constexpr int kDirectoryAlreadyExists = 2256;
inline constexpr int kDirectoryDoesNotExist = 2257;
inline constexpr int kParentDirectoryDoesNotExist = 2258;
inline constexpr int kMismatchedLayer = 2259;
inline constexpr int kInvalidDirectoryLayerMetadata = 2260;
inline constexpr int kCannotMoveDirectoryBetweenPartitions = 2261;
inline constexpr int kCannotUsePartitionAsSubspace = 2262;
inline constexpr int kIncompatibleDirectoryVersion = 2263;
inline constexpr int kDirectoryPrefixNotEmpty = 2264;
inline constexpr int kDirectoryPrefixInUse = 2265;
inline constexpr int kInvalidDestinationDirectory = 2266;
inline constexpr int kCannotModifyRootDirectory = 2267;
inline constexpr int kInvalidUuidSize = 2268;
inline constexpr int kInvalidVersionstampSize = 2269;
inline constexpr int kUnknownError = 4000;
}  // namespace errors

// FoundationDB's name for `code` ("not_committed"), or "unknown_error" for a code it
// does not define.
std::string_view errorName(int code);

// What fdb_get_error() returns for `code`: FoundationDB's description
// ("Transaction not committed due to conflict with another transaction"),
// "Success" for 0 and "UNKNOWN_ERROR" for a code it does not define.
std::string_view errorDescription(int code);

// The predicates of fdb_error_predicate().
bool isRetryable(int code);              // FDB_ERROR_PREDICATE_RETRYABLE
bool isMaybeCommitted(int code);         // FDB_ERROR_PREDICATE_MAYBE_COMMITTED
bool isRetryableNotCommitted(int code);  // FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED

class Error : public std::runtime_error {
 public:
  explicit Error(int code);
  // `detail` says what went wrong in this instance ("truncated integer at byte 7").
  Error(int code, std::string detail);

  int code() const noexcept { return code_; }
  std::string_view name() const noexcept { return errorName(code_); }
  std::string_view description() const noexcept { return errorDescription(code_); }
  const std::string& detail() const noexcept;

 private:
  int code_;
  // Shared by copies (null: no detail), so that copying an error (into a future, out of
  // one when it is thrown) allocates nothing: what() is shared as well.
  std::shared_ptr<const std::string> detail_;
};

}  // namespace fdb
