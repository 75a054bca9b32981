// The database the Record Layer's tests run on.
//
// By default every test gets a fresh private in-memory database ("memory:"), the embedded
// engine opened directly. RL_TEST_DATABASE=<address> runs them on another backend instead,
// e.g. "fdb:<cluster file>" (the FoundationDB backend; tests/rl/CMakeLists.txt runs rl_tests so
// on this build's libfdb_c.so). Such a database is shared by every test of the process, so
// openTestDatabase() clears its normal key space ["", "\xff") before handing it out.
//
//   class MyTest : public ::testing::Test {
//    protected:
//     fdb::Database db = rl::tests::openTestDatabase();
//   };
//   TEST_F(MyTest, NeedsFaults) {
//     RL_SKIP_UNLESS_EMBEDDED_ENGINE("fault injection is fdb::EngineOptions'");
//     db = rl::tests::openTestDatabase(faultyOptions);
//   }
//
// Thread-safety: call from the test's thread.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "fdb/database.h"

namespace rl::tests {

// RL_TEST_DATABASE, or "memory:" when it is unset or empty.
const std::string& testDatabaseAddress();

// Whether the tests run on the embedded engine opened directly (a memory: address), where
// fdb::EngineOptions (simulated delay, fault injection) and exact engine round-trip counts
// apply.
bool onEmbeddedEngine();

// A database holding no keys in ["", "\xff"): a fresh private one on "memory:", otherwise the
// address's database, cleared. Opening it again empties it again: a test that wants a fresh
// database mid-test calls it again.
fdb::Database openTestDatabase();

// On the embedded engine only (check onEmbeddedEngine() first): a fresh private in-memory
// database with these engine options.
fdb::Database openTestDatabase(const fdb::EngineOptions& options);

// Two handles on one empty database, as two processes would have: a named in-memory
// database ("memory:<name>") on the embedded engine, otherwise two opens of the address.
std::pair<fdb::Database, fdb::Database> openTwoHandles(const std::string& name);

}  // namespace rl::tests

// Skips the test, saying why, unless it runs on the embedded engine.
#define RL_SKIP_UNLESS_EMBEDDED_ENGINE(why)                                        \
  if (!::rl::tests::onEmbeddedEngine()) {                                          \
    GTEST_SKIP() << "needs the embedded engine (" << (why) << "); this run is on " \
                 << ::rl::tests::testDatabaseAddress();                            \
  }
