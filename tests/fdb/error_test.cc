#include "fdb/error.h"

#include <gtest/gtest.h>

namespace fdb {
namespace {

TEST(Error, CarriesCodeNameAndDetail) {
  Error e(errors::kNotCommitted, "conflict on key 'a'");
  EXPECT_EQ(e.code(), 1020);
  EXPECT_EQ(e.name(), "not_committed");
  EXPECT_EQ(e.description(), "Transaction not committed due to conflict with another transaction");
  EXPECT_EQ(e.detail(), "conflict on key 'a'");
  EXPECT_STREQ(e.what(), "not_committed (1020): conflict on key 'a'");
  EXPECT_STREQ(Error(1007).what(), "transaction_too_old (1007)");
}

TEST(Error, TableMatchesFoundationDb) {
  EXPECT_EQ(errorDescription(0), "Success");
  EXPECT_EQ(errorName(2101), "transaction_too_large");
  EXPECT_EQ(errorName(2250), "invalid_tuple_data_type");
  EXPECT_EQ(errorDescription(2269), "Versionstamp is not exactly twelve bytes");
  EXPECT_EQ(errorName(6005), "pkey_encode_error");
  EXPECT_EQ(errorName(4001), "unknown_error");
  EXPECT_EQ(errorDescription(4001), "UNKNOWN_ERROR");
  EXPECT_EQ(errorDescription(-5), "UNKNOWN_ERROR");
}

TEST(Error, PredicatesAsFdbErrorPredicate) {
  for (int code : {1020, 1007, 1009, 1038, 1078, 1042, 1051, 1037, 1213, 1223}) {
    EXPECT_TRUE(isRetryableNotCommitted(code)) << code;
    EXPECT_TRUE(isRetryable(code)) << code;
    EXPECT_FALSE(isMaybeCommitted(code)) << code;
  }
  for (int code : {1021, 1039}) {
    EXPECT_TRUE(isMaybeCommitted(code)) << code;
    EXPECT_TRUE(isRetryable(code)) << code;
    EXPECT_FALSE(isRetryableNotCommitted(code)) << code;
  }
  for (int code : {1036, 2000, 2004, 2005, 2006, 2007, 2011, 2020, 2023, 2100, 2101, 2102, 2103,
                   2108, 2200, 4000, 4001, 1025, 1031}) {
    EXPECT_FALSE(isRetryable(code)) << code;
  }
}

}  // namespace
}  // namespace fdb
