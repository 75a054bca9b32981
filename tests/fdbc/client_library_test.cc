// The FoundationDB backend's own behaviour (src/fdbc/): which libfdb_c it loads, what it
// refuses and reports, and how its futures complete. The conformance suite runs the client
// API's semantics through it (tests/CMakeLists.txt: conformance_fdbc_*).
//
// A process loads one libfdb_c, once. The tests that must see no library loaded come first
// and skip when an earlier test of the same process loaded one (ctest runs each test in a
// process of its own, so there they all run).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "fdb/database.h"
#include "fdb/error.h"
#include "fdbc/library.h"

namespace fdb::fdbc {
namespace {

// This build's libfdb_c.so over the embedded engine.
constexpr const char* kEmbeddedLibrary = RL_FDB_C_EMBEDDED_LIBRARY;
// The same, but saying it supports API versions up to 710 only (old_api_library.cc).
constexpr const char* kOldApiLibrary = RL_FDB_C_OLD_API_LIBRARY;

// The fdb::Error `f` throws (code 0 and no text if none).
template <typename F>
Error errorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return Error(0);
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The threads of this process.
int threadCount() {
  int count = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ++count;
  }
  return count;
}

// "k<i>".
std::string keyOf(int i) { return std::string("k").append(std::to_string(i)); }

// A cluster file holding `address`, in the test's temporary directory.
std::string clusterFile(const std::string& name, const std::string& address) {
  std::string file = "rl_fdbc_";
  file.append(name).append("_").append(std::to_string(::getpid())).append(".cluster");
  std::filesystem::path path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << address << "\n";
  return path.string();
}

// Loads this build's libfdb_c, on purpose.
ClientLibraryInfo loadEmbedded() {
  setLibraryPath(kEmbeddedLibrary);
  allowEmbeddedLibrary(true);
  return loadClientLibrary();
}

#define SKIP_IF_A_LIBRARY_IS_LOADED()                                          \
  if (std::optional<ClientLibraryInfo> loaded = loadedClientLibrary()) {       \
    GTEST_SKIP() << "this process already loaded " << loaded->path             \
                 << " (run this test in a process of its own, as ctest does)"; \
  }

TEST(FdbcLibrary, MissingLibraryIsAClearErrorNamingWhereItLooked) {
  SKIP_IF_A_LIBRARY_IS_LOADED();
  setLibraryPath("/nonexistent/rl_fdbc_test/libfdb_c.so");
  Error e = errorOf([] { loadClientLibrary(); });
  EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
  EXPECT_TRUE(contains(e.what(), "/nonexistent/rl_fdbc_test/libfdb_c.so")) << e.what();
  EXPECT_TRUE(contains(e.what(), "setLibraryPath")) << e.what();  // where the path came from
  EXPECT_TRUE(contains(e.what(), "Install FoundationDB's client package")) << e.what();
  EXPECT_TRUE(contains(e.what(), "RL_FDB_C_LIBRARY")) << e.what();
  // Opening an fdb: address reports the same, and nothing stays loaded.
  Error open = errorOf([] { Database::open("fdb:"); });
  EXPECT_EQ(open.code(), errors::kClientInvalidOperation);
  EXPECT_TRUE(contains(open.what(), "cannot open")) << open.what();
  EXPECT_FALSE(loadedClientLibrary().has_value());
}

TEST(FdbcLibrary, LibraryWithoutTheCApiNamesTheMissingFunctions) {
  SKIP_IF_A_LIBRARY_IS_LOADED();
  Dl_info info;  // some shared library that is not a libfdb_c: the C library
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&::dladdr), &info), 0);
  setLibraryPath(info.dli_fname);
  Error e = errorOf([] { loadClientLibrary(); });
  EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
  EXPECT_TRUE(contains(e.what(), "is not a usable libfdb_c")) << e.what();
  EXPECT_TRUE(contains(e.what(), "fdb_get_client_version")) << e.what();
  EXPECT_TRUE(contains(e.what(), "fdb_transaction_get_mapped_range")) << e.what();
  EXPECT_FALSE(loadedClientLibrary().has_value());
}

TEST(FdbcLibrary, TooOldLibraryNamesItsApiVersionAndWhatToInstall) {
  SKIP_IF_A_LIBRARY_IS_LOADED();
  setLibraryPath(kOldApiLibrary);
  Error e = errorOf([] { loadClientLibrary(); });
  EXPECT_EQ(e.code(), 2203);  // api_version_not_supported
  EXPECT_TRUE(contains(e.what(), kOldApiLibrary)) << e.what();
  EXPECT_TRUE(contains(e.what(), "7.1.0-old-api-test")) << e.what();  // its client version
  EXPECT_TRUE(contains(e.what(), "supports API versions up to 710")) << e.what();
  EXPECT_TRUE(contains(e.what(), "this backend needs 730")) << e.what();
  EXPECT_TRUE(contains(e.what(), "Install FoundationDB's client package (7.3 or newer"))
      << e.what();
  EXPECT_FALSE(loadedClientLibrary().has_value());
  // It was not set up, so the process can load a library that is new enough.
  EXPECT_EQ(loadEmbedded().maxApiVersion, 730);
}

TEST(FdbcLibrary, EmbeddedLibraryIsRefusedWithoutTheAllowFlag) {
  SKIP_IF_A_LIBRARY_IS_LOADED();
  ::unsetenv("RL_FDB_C_ALLOW_EMBEDDED");
  setLibraryPath(kEmbeddedLibrary);
  allowEmbeddedLibrary(false);
  Error e = errorOf([] { loadClientLibrary(); });
  EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
  EXPECT_TRUE(contains(e.what(), "refusing")) << e.what();
  EXPECT_TRUE(contains(e.what(), "recordlayer")) << e.what();  // the client version it saw
  EXPECT_TRUE(contains(e.what(), "RL_FDB_C_ALLOW_EMBEDDED=1")) << e.what();
  EXPECT_FALSE(loadedClientLibrary().has_value());
  // The environment variable allows it as the API flag does.
  ::setenv("RL_FDB_C_ALLOW_EMBEDDED", "1", 1);
  ClientLibraryInfo loaded = loadClientLibrary();
  ::unsetenv("RL_FDB_C_ALLOW_EMBEDDED");
  EXPECT_TRUE(loaded.embedded);
}

TEST(FdbcLibrary, ReportsTheLibraryItLoadedAndItsClientVersion) {
  ClientLibraryInfo info = loadEmbedded();
  std::cout << "loaded " << info.path << " (from " << info.source
            << "), client version: " << info.clientVersion << "\n";
  EXPECT_EQ(std::filesystem::canonical(info.path), std::filesystem::canonical(kEmbeddedLibrary));
  EXPECT_EQ(info.requestedPath, kEmbeddedLibrary);
  EXPECT_TRUE(contains(info.clientVersion, "7.3.0-recordlayer")) << info.clientVersion;
  EXPECT_TRUE(info.embedded);
  EXPECT_GE(info.maxApiVersion, 730);
  std::optional<ClientLibraryInfo> loaded = loadedClientLibrary();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->clientVersion, info.clientVersion);
}

TEST(FdbcLibrary, AnotherLibraryCannotReplaceTheLoadedOne) {
  loadEmbedded();
  Error e = errorOf([] { setLibraryPath("/usr/lib/libfdb_c.so"); });
  EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
  EXPECT_TRUE(contains(e.what(), "already runs")) << e.what();
  EXPECT_NO_THROW(setLibraryPath(kEmbeddedLibrary));  // the same one is fine
}

// One network per process: threads opening fdb: databases at once share one load, and the
// library's one-shot calls were made, once, by the backend.
TEST(FdbcLibrary, TheNetworkIsSetUpOncePerProcess) {
  SKIP_IF_A_LIBRARY_IS_LOADED();
  setLibraryPath(kEmbeddedLibrary);
  allowEmbeddedLibrary(true);
  const std::string cluster = clusterFile("once", "memory:fdbc-once");
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      Database db = Database::open("fdb:" + cluster);
      db.run([](Transaction& tr) { tr.set("once", "1"); });
      ++opened;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(opened, 8);

  void* handle = dlopen(kEmbeddedLibrary, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr) << "the backend did not load " << kEmbeddedLibrary;
  using SelectApiVersion = int (*)(int, int);
  using SetupNetwork = int (*)();
  auto select = reinterpret_cast<SelectApiVersion>(dlsym(handle, "fdb_select_api_version_impl"));
  auto setup = reinterpret_cast<SetupNetwork>(dlsym(handle, "fdb_setup_network"));
  ASSERT_NE(select, nullptr);
  ASSERT_NE(setup, nullptr);
  EXPECT_EQ(select(730, 730), 2201);  // api_version_already_set
  EXPECT_EQ(setup(), 2009);           // network_already_setup
  dlclose(handle);
}

TEST(FdbcDatabase, RunsTransactionsThroughTheClusterFilesDatabase) {
  loadEmbedded();
  Database db = Database::open("fdb:" + clusterFile("run", "memory:fdbc-run"));
  db.run([](Transaction& tr) { tr.clearRange("", "\xff"); });
  db.run([](Transaction& tr) {
    tr.set("a", "1");
    tr.set("b", "2");
  });
  Transaction tr = db.createTransaction();
  // The range first: after get("a") a read from "a" would stop after it (docs/semantics.md,
  // "Range reads").
  RangeResult rows = tr.getRange(KeyRange{"a", "z"}).get();
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.rows[1].key, "b");
  EXPECT_EQ(rows.rows[1].value, "2");
  EXPECT_EQ(tr.get("a").get(), "1");
  tr.set("c", "3");
  tr.commit().get();
  EXPECT_GT(tr.getCommittedVersion(), 0);
  // Counted where the C calls are made: one read version, a read, a range read, a commit.
  EXPECT_EQ(tr.roundTrips(), (RoundTrips{1, 1, 1, 0, 1}));
  // The same database seen through another handle of the same name.
  Database other = Database::open("fdb:" + clusterFile("run2", "memory:fdbc-run"));
  EXPECT_EQ(other.run([](Transaction& t) { return t.get("c").get(); }), "3");
}

TEST(FdbcDatabase, MissingClusterFileFailsWithTheLibrarysError) {
  loadEmbedded();
  Error e = errorOf([] { Database::open("fdb:/nonexistent/rl_fdbc_test.cluster"); });
  EXPECT_EQ(e.code(), 1515);  // no_cluster_file_found
  EXPECT_TRUE(contains(e.what(), "/nonexistent/rl_fdbc_test.cluster")) << e.what();
}

TEST(FdbcDatabase, EngineOptionsAreRefusedForFdbAddresses) {
  EngineOptions options;
  options.oneWayDelayMicros = 100;
  Error e = errorOf([&] { Database::open("fdb:", options); });
  EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
  EXPECT_TRUE(contains(e.what(), "memory:")) << e.what();
}

// With simulated delay our libfdb_c completes futures on its network thread: the backend's
// callback path, and pipelining (every operation is issued before the first completes).
TEST(FdbcDatabase, PendingFuturesCompleteOnTheNetworkThreadAndPipeline) {
  loadEmbedded();
  ::setenv("RECORDLAYER_ONE_WAY_DELAY_US", "2000", 1);  // read when the database is created
  Database db = Database::open("fdb:" + clusterFile("delay", "memory:fdbc-delay"));
  ::unsetenv("RECORDLAYER_ONE_WAY_DELAY_US");
  db.run([](Transaction& tr) {
    tr.clearRange("", "\xff");
    for (int i = 0; i < 20; ++i) tr.set(keyOf(i), std::to_string(i));
  });

  Transaction tr = db.createTransaction();
  std::vector<Future<std::optional<Bytes>>> reads;
  for (int i = 0; i < 20; ++i) reads.push_back(tr.get(keyOf(i)));
  int pending = 0;
  for (const auto& read : reads) pending += read.isReady() ? 0 : 1;
  EXPECT_EQ(pending, 20);  // 20 round trips of 4 ms each are not over yet

  std::atomic<bool> calledBack{false};
  std::thread::id callbackThread;
  reads.back().onReady([&] {
    callbackThread = std::this_thread::get_id();
    calledBack = true;
  });
  for (int i = 0; i < 20; ++i) EXPECT_EQ(reads[i].get(), std::to_string(i));
  while (!calledBack) std::this_thread::yield();
  EXPECT_NE(callbackThread, std::this_thread::get_id());  // libfdb_c's network thread
  EXPECT_EQ(tr.roundTrips().reads, 20);

  // No thread waits for a future: pending ones add no threads to the process.
  const int threads = threadCount();
  Transaction fresh = db.createTransaction();
  std::vector<Future<std::optional<Bytes>>> more;
  for (int i = 0; i < 20; ++i) more.push_back(fresh.get(keyOf(i)));
  EXPECT_FALSE(more.front().isReady());
  EXPECT_EQ(threadCount(), threads);
  for (auto& read : more) read.get();
  EXPECT_EQ(threadCount(), threads);

  // Range reads, commits and errors take the same path.
  RangeResult rows = tr.getRange(KeyRange{"k", "l"}).get();
  EXPECT_EQ(rows.rows.size(), 20u);
  tr.set("k0", "changed");
  Future<void> commit = tr.commit();
  EXPECT_FALSE(commit.isReady());
  EXPECT_NO_THROW(commit.get());
  Transaction invalid = db.createTransaction();
  RangeOptions exactWithoutLimit;
  exactWithoutLimit.mode = StreamingMode::kExact;
  try {
    invalid.getRange(KeyRange{"k", "l"}, exactWithoutLimit).get();
    ADD_FAILURE() << "an exact-mode read without a limit succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kExactModeWithoutLimits);
  }
}

}  // namespace
}  // namespace fdb::fdbc
