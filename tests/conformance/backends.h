// The backends the conformance suite runs on, and what every conformance test shares.
//
// The suite states FoundationDB 7.3's client semantics (docs/semantics.md)
// as tests written only against the public fdb:: API, so the same tests run on every backend:
// "memory:" always, plus every address in the environment variable RL_CONFORMANCE_ADDRESSES
// (comma-separated, e.g. "file:/tmp/store,fdb:/etc/foundationdb/fdb.cluster"). Durable stores
// open with relaxed sync when RL_CONFORMANCE_RELAXED_SYNC=1.
//
//   class MyAreaTest : public conformance::ConformanceTest {};
//   TEST_P(MyAreaTest, Something) {
//     write("k", "v");
//     EXPECT_EQ(read("k"), "v");
//     fdb::Transaction tr = db().createTransaction();
//     EXPECT_FDB_ERROR(2004, tr.get("\xff").get());
//   }
//   RL_CONFORMANCE_INSTANTIATE(MyAreaTest);
//
// Every test gets an empty database: "memory:" opens a fresh private one; any other address
// is cleared over the whole normal key space ["", "\xff") first. Tests must not depend on
// each other or on wall-clock timing.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/transaction.h"
#include "fdb/types.h"

namespace fdb {
// gtest printers, so failing comparisons of rows show the bytes readably.
inline void PrintTo(const KeyValue& kv, std::ostream* os) {
  *os << "{\"" << printable(kv.key) << "\": \"" << printable(kv.value) << "\"}";
}
inline void PrintTo(const KeyValueRef& kv, std::ostream* os) {
  *os << "{\"" << printable(kv.key) << "\": \"" << printable(kv.value) << "\"}";
}
}  // namespace fdb

namespace conformance {

// Integers as FoundationDB lays them out in versionstamp offsets and versionstamps.
inline fdb::Bytes littleEndian32(uint32_t value) {
  fdb::Bytes out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return out;
}

inline fdb::Bytes bigEndian64(int64_t value) {
  fdb::Bytes out;
  for (int i = 7; i >= 0; --i) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff));
  }
  return out;
}

// "memory:" followed by the addresses of RL_CONFORMANCE_ADDRESSES, without duplicates.
std::vector<std::string> backendAddresses();

// A gtest parameter name for a backend address: "memory" for "memory:", otherwise the address
// with every character outside [A-Za-z0-9] replaced by '_', suffixed by its index.
std::string backendName(const testing::TestParamInfo<std::string>& info);

// A database at `address` holding no keys in ["", "\xff").
fdb::Database openEmptyDatabase(const std::string& address);

// Succeeds iff fn() throws an fdb::Error whose code is `expected`.
template <typename F>
testing::AssertionResult failsWith(int expected, F&& fn) {
  try {
    fn();
  } catch (const fdb::Error& e) {
    if (e.code() == expected) return testing::AssertionSuccess();
    return testing::AssertionFailure()
           << "expected fdb::Error " << expected << " (" << fdb::errorName(expected) << "), got "
           << e.code() << ": " << e.what();
  } catch (const std::exception& e) {
    return testing::AssertionFailure()
           << "expected fdb::Error " << expected << " (" << fdb::errorName(expected)
           << "), got a non-fdb exception: " << e.what();
  }
  return testing::AssertionFailure() << "expected fdb::Error " << expected << " ("
                                     << fdb::errorName(expected) << "), but nothing was thrown";
}

// The statements (a call and the .get() of its future, together) fail with fdb::Error `code`.
// A deferred error may surface either as a synchronous throw or as a failed future, so both are
// inside the same check.
#define EXPECT_FDB_ERROR(code, ...) \
  EXPECT_TRUE(::conformance::failsWith((code), [&] { __VA_ARGS__; }))
#define ASSERT_FDB_ERROR(code, ...) \
  ASSERT_TRUE(::conformance::failsWith((code), [&] { __VA_ARGS__; }))

// `key` followed by a zero byte: the first key after `key`.
inline fdb::Bytes keyAfter(std::string_view key) {
  fdb::Bytes next(key);
  next.push_back('\0');
  return next;
}

// Bytes from a list of byte values ({0x01, 0xff}), for binary operands.
inline fdb::Bytes bytes(std::initializer_list<int> values) {
  fdb::Bytes out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// The keys of rows (owned, or views of a range result), in order.
template <typename Rows>
std::vector<fdb::Bytes> keysOf(const Rows& rows) {
  std::vector<fdb::Bytes> keys;
  for (const auto& row : rows) keys.emplace_back(row.key);
  return keys;
}

// The fixture of every conformance test: parameterized by backend address, with an empty
// database and small helpers that each run one committed transaction.
class ConformanceTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { db_.emplace(openEmptyDatabase(GetParam())); }

  fdb::Database& db() { return *db_; }

  // Sets `key` to `value` in a transaction of its own and commits it.
  void write(std::string_view key, std::string_view value) {
    fdb::Transaction tr = db().createTransaction();
    tr.set(key, value);
    tr.commit().get();
  }

  // Sets every row in one committed transaction.
  void writeAll(const std::vector<fdb::KeyValue>& rows) {
    fdb::Transaction tr = db().createTransaction();
    for (const auto& row : rows) tr.set(row.key, row.value);
    tr.commit().get();
  }

  // The value of `key` read by a fresh transaction.
  std::optional<fdb::Bytes> read(std::string_view key) {
    fdb::Transaction tr = db().createTransaction();
    return tr.get(key).get();
  }

  // Every row of the normal key space, read by a fresh transaction.
  std::vector<fdb::KeyValue> readAll() {
    fdb::Transaction tr = db().createTransaction();
    return tr.getRangeAll(fdb::KeyRange{"", "\xff"});
  }

 private:
  std::optional<fdb::Database> db_;
};

// Instantiates a ConformanceTest-derived suite once per backend.
#define RL_CONFORMANCE_INSTANTIATE(Suite)                                                         \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, testing::ValuesIn(::conformance::backendAddresses()), \
                           ::conformance::backendName)

}  // namespace conformance
