// The C ABI library (src/capi/, libfdb_c.so) through its C interface only: lifecycle rules,
// the future contract (born ready, pending, callbacks, cancel, release, destroy), results in
// the C layouts, errors and their codes, what is unsupported, and choosing the database.
//
// The API version and the network are one-shot per process, so the lifecycle tests run in
// a child process each (death tests in the "threadsafe" style re-execute the binary); the
// other tests share one network thread, started on first use.
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

std::string str(const uint8_t* bytes, int length) {
  return std::string(reinterpret_cast<const char*>(bytes), static_cast<size_t>(length));
}
const uint8_t* u8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
int len(const std::string& s) { return static_cast<int>(s.size()); }

// An enum argument holding any int code, as a C caller may pass (a static_cast to a value
// outside the enumerators' range is undefined in C++).
template <typename Enum>
Enum fromCode(int code) {
  static_assert(sizeof(Enum) == sizeof(int));
  Enum value;
  std::memcpy(&value, &code, sizeof value);
  return value;
}

// ---- Lifecycle (each in its own process) ----------------------------------------------

// Exits with 0 if `check` holds, else prints what failed and exits with 1.
#define CHILD_EXPECT(condition)                                             \
  do {                                                                      \
    if (!(condition)) {                                                     \
      std::fprintf(stderr, "failed: %s (line %d)\n", #condition, __LINE__); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

class CapiLifecycle : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(CapiLifecycle, ApiVersionIsSelectedOnceInFoundationDbsOrder) {
  EXPECT_EXIT(
      {
        CHILD_EXPECT(fdb_get_max_api_version() == 730);
        CHILD_EXPECT(fdb_setup_network() == 2200);                     // api_version_unset
        CHILD_EXPECT(fdb_select_api_version_impl(9000, 730) == 2202);  // runtime > header
        CHILD_EXPECT(fdb_select_api_version_impl(730, 731) == 2203);   // header too new
        CHILD_EXPECT(fdb_select_api_version_impl(12, 730) == 2203);    // runtime too old
        CHILD_EXPECT(fdb_select_api_version_impl(720, 730) == 0);
        CHILD_EXPECT(fdb_select_api_version_impl(720, 730) == 2201);  // already set
        CHILD_EXPECT(fdb_select_api_version_impl(730, 730) == 2201);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(CapiLifecycle, NetworkSetsUpRunsAndStopsOnce) {
  EXPECT_EXIT(
      {
        CHILD_EXPECT(fdb_select_api_version(730) == 0);
        FDBDatabase* db = nullptr;
        CHILD_EXPECT(fdb_create_database_from_connection_string("memory:", &db) == 2008);
        CHILD_EXPECT(fdb_run_network() == 2008);
        CHILD_EXPECT(fdb_stop_network() == 2008);
        CHILD_EXPECT(fdb_setup_network() == 0);
        CHILD_EXPECT(fdb_setup_network() == 2009);  // network_already_setup
        static std::thread::id hookThread;
        static std::atomic<int> hookRuns{0};
        CHILD_EXPECT(fdb_add_network_thread_completion_hook(
                         [](void*) {
                           hookThread = std::this_thread::get_id();
                           ++hookRuns;
                         },
                         nullptr) == 0);
        fdb_error_t runResult = -1;
        std::thread network([&] { runResult = fdb_run_network(); });
        std::thread::id networkThread = network.get_id();
        CHILD_EXPECT(fdb_create_database_from_connection_string("memory:", &db) == 0);
        CHILD_EXPECT(hookRuns == 0);
        CHILD_EXPECT(fdb_stop_network() == 0);
        network.join();
        CHILD_EXPECT(runResult == 0);
        CHILD_EXPECT(hookRuns == 1);  // after the loop, on the network thread
        CHILD_EXPECT(hookThread == networkThread);
        CHILD_EXPECT(fdb_run_network() == 2025);  // network_cannot_be_restarted
        fdb_database_destroy(db);                 // still fine after the network stopped
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A completion queued for the network thread when fdb_stop_network is called still runs its
// callback before fdb_run_network returns: a binding frees what an operation held there, so
// a process that stops the network as it exits would otherwise leak it (LeakSanitizer saw
// this from rl's FoundationDB backend). The first callback holds the network thread until
// the stop was requested, so the second completion is queued behind it at the stop. (The
// child is a function: its commas would split EXPECT_EXIT's arguments.)
void stopWithACompletionQueuedBehindAHeldOne() {
  CHILD_EXPECT(fdb_select_api_version(730) == 0);
  CHILD_EXPECT(fdb_setup_network() == 0);
  std::thread network([] { CHILD_EXPECT(fdb_run_network() == 0); });
  FDBDatabase* db = nullptr;
  CHILD_EXPECT(fdb_create_database_from_connection_string("memory:", &db) == 0);

  struct Held {
    std::mutex mutex;
    std::condition_variable changed;
    bool running = false, released = false;
  };
  static Held held;
  static std::atomic<int> calls{0};
  auto stampedCommit = [&](const std::string& key, FDBCallback callback) {
    FDBTransaction* tr = nullptr;
    CHILD_EXPECT(fdb_database_create_transaction(db, &tr) == 0);
    std::string param(10, '\0');
    param += std::string("\0\0\0\0", 4);
    fdb_transaction_atomic_op(tr, u8(key), len(key), u8(param), len(param),
                              FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_VALUE);
    FDBFuture* stamp = fdb_transaction_get_versionstamp(tr);
    CHILD_EXPECT(!fdb_future_is_ready(stamp));  // completes on the network thread
    CHILD_EXPECT(fdb_future_set_callback(stamp, callback, nullptr) == 0);
    FDBFuture* commit = fdb_transaction_commit(tr);
    CHILD_EXPECT(fdb_future_block_until_ready(commit) == 0);
    CHILD_EXPECT(fdb_future_get_error(commit) == 0);
    fdb_future_destroy(commit);
    fdb_transaction_destroy(tr);
  };
  stampedCommit("first", [](FDBFuture* f, void*) {
    std::unique_lock lock(held.mutex);
    held.running = true;
    held.changed.notify_all();
    held.changed.wait(lock, [] { return held.released; });
    fdb_future_destroy(f);
    ++calls;
  });
  {
    std::unique_lock lock(held.mutex);
    held.changed.wait(lock, [] { return held.running; });
  }
  stampedCommit("second", [](FDBFuture* f, void*) {
    CHILD_EXPECT(fdb_future_get_error(f) == 0);
    fdb_future_destroy(f);
    ++calls;
  });
  CHILD_EXPECT(fdb_stop_network() == 0);
  {
    std::lock_guard lock(held.mutex);
    held.released = true;
  }
  held.changed.notify_all();
  network.join();
  CHILD_EXPECT(calls == 2);
  fdb_database_destroy(db);
  std::exit(0);
}

TEST_F(CapiLifecycle, StoppingTheNetworkDeliversTheCompletionsAlreadyDue) {
  EXPECT_EXIT(stopWithACompletionQueuedBehindAHeldOne(), ::testing::ExitedWithCode(0), "");
}

// ---- Shared network for the rest ------------------------------------------------------

class Network {
 public:
  static Network& get() {
    static Network network;
    return network;
  }
  std::thread::id threadId() const { return threadId_; }

 private:
  Network() {
    if (fdb_select_api_version(730) != 0 || fdb_setup_network() != 0) std::abort();
    thread_ = std::thread([] {
      if (fdb_run_network() != 0) std::abort();
    });
    threadId_ = thread_.get_id();
  }
  ~Network() {
    if (fdb_stop_network() == 0) thread_.join();
  }
  std::thread thread_;
  std::thread::id threadId_;
};

// Waits for `f` and returns its error.
fdb_error_t wait(FDBFuture* f) {
  EXPECT_EQ(fdb_future_block_until_ready(f), 0);
  return fdb_future_get_error(f);
}

class Capi : public ::testing::Test {
 protected:
  void SetUp() override {
    Network::get();
    db_ = open("memory:capi-" + std::to_string(counter_++));
  }
  void TearDown() override {
    for (FDBTransaction* tr : transactions_) fdb_transaction_destroy(tr);
    for (FDBDatabase* db : databases_) fdb_database_destroy(db);
    if (!clusterFile_.empty()) std::filesystem::remove(clusterFile_);
  }

  // A database opened through a cluster file whose content is `address`.
  FDBDatabase* open(const std::string& address) {
    clusterFile_ = (std::filesystem::temp_directory_path() /
                    ("capi-test-" + std::to_string(::getpid()) + ".cluster"))
                       .string();
    std::ofstream(clusterFile_) << address << "\n";
    FDBDatabase* db = nullptr;
    EXPECT_EQ(fdb_create_database(clusterFile_.c_str(), &db), 0);
    databases_.push_back(db);
    return db;
  }
  FDBTransaction* transaction(FDBDatabase* db = nullptr) {
    FDBTransaction* tr = nullptr;
    EXPECT_EQ(fdb_database_create_transaction(db ? db : db_, &tr), 0);
    transactions_.push_back(tr);
    return tr;
  }
  fdb_error_t commit(FDBTransaction* tr) {
    FDBFuture* f = fdb_transaction_commit(tr);
    fdb_error_t error = wait(f);
    fdb_future_destroy(f);
    return error;
  }
  void setAll(const std::vector<std::pair<std::string, std::string>>& rows) {
    FDBTransaction* tr = transaction();
    for (const auto& [key, value] : rows) {
      fdb_transaction_set(tr, u8(key), len(key), u8(value), len(value));
    }
    ASSERT_EQ(commit(tr), 0);
  }
  std::optional<std::string> get(FDBTransaction* tr, const std::string& key) {
    FDBFuture* f = fdb_transaction_get(tr, u8(key), len(key), 0);
    EXPECT_EQ(wait(f), 0);
    fdb_bool_t present = 0;
    const uint8_t* value = nullptr;
    int length = 0;
    EXPECT_EQ(fdb_future_get_value(f, &present, &value, &length), 0);
    std::optional<std::string> result;
    if (present) result = str(value, length);
    fdb_future_destroy(f);
    return result;
  }

  FDBDatabase* db_ = nullptr;
  std::vector<FDBDatabase*> databases_;
  std::vector<FDBTransaction*> transactions_;
  std::string clusterFile_;
  static inline int counter_ = 0;
};

// A database whose round trips take `oneWayMicros` each way (the library reads the
// variable when a database is created).
FDBDatabase* openDelayed(int oneWayMicros) {
  setenv("RECORDLAYER_ONE_WAY_DELAY_US", std::to_string(oneWayMicros).c_str(), 1);
  FDBDatabase* db = nullptr;
  fdb_error_t error = fdb_create_database_from_connection_string("memory:", &db);
  unsetenv("RECORDLAYER_ONE_WAY_DELAY_US");
  EXPECT_EQ(error, 0);
  return db;
}

TEST_F(Capi, SetGetCommitAcrossTransactions) {
  setAll({{"a", "1"}, {"b", std::string("\0x", 2)}, {"empty", ""}});
  FDBTransaction* tr = transaction();
  EXPECT_EQ(get(tr, "a"), "1");
  EXPECT_EQ(get(tr, "b"), std::string("\0x", 2));
  EXPECT_EQ(get(tr, "empty"), "");
  EXPECT_EQ(get(tr, "missing"), std::nullopt);
  int64_t committed = 0;
  EXPECT_EQ(fdb_transaction_get_committed_version(tr, &committed), 0);
  EXPECT_EQ(committed, -1);  // nothing committed yet
}

TEST_F(Capi, RangeReadsReturnKeyValueArraysWithMore) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < 10; ++i) rows.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
  setAll(rows);
  FDBTransaction* tr = transaction();
  std::string begin = "k", end = "l";
  FDBFuture* f =
      fdb_transaction_get_range(tr, FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(u8(begin), len(begin)),
                                FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(u8(end), len(end)), 3, 0,
                                FDB_STREAMING_MODE_EXACT, 1, 0, 0);
  ASSERT_EQ(wait(f), 0);
  const FDBKeyValue* kvs = nullptr;
  int count = 0;
  fdb_bool_t more = 0;
  ASSERT_EQ(fdb_future_get_keyvalue_array(f, &kvs, &count, &more), 0);
  ASSERT_EQ(count, 3);
  EXPECT_TRUE(more);
  EXPECT_EQ(str(kvs[0].key, kvs[0].key_length), "k0");
  EXPECT_EQ(str(kvs[2].key, kvs[2].key_length), "k2");
  EXPECT_EQ(str(kvs[2].value, kvs[2].value_length), "v2");
  fdb_future_destroy(f);

  // Reverse, with lastLessOrEqual / firstGreaterThan selectors: (k3, k7] backwards.
  std::string k3 = "k3", k7 = "k7";
  f = fdb_transaction_get_range(tr, FDB_KEYSEL_FIRST_GREATER_THAN(u8(k3), len(k3)),
                                FDB_KEYSEL_FIRST_GREATER_THAN(u8(k7), len(k7)), 0, 0,
                                FDB_STREAMING_MODE_WANT_ALL, 1, 0, 1);
  ASSERT_EQ(wait(f), 0);
  ASSERT_EQ(fdb_future_get_keyvalue_array(f, &kvs, &count, &more), 0);
  std::vector<std::string> keys;
  for (int i = 0; i < count; ++i) keys.push_back(str(kvs[i].key, kvs[i].key_length));
  EXPECT_EQ(keys, (std::vector<std::string>{"k7", "k6", "k5", "k4"}));
  EXPECT_FALSE(more);
  fdb_future_destroy(f);

  // get_key: the key before k5.
  std::string k5 = "k5";
  f = fdb_transaction_get_key(tr, FDB_KEYSEL_LAST_LESS_THAN(u8(k5), len(k5)), 0);
  ASSERT_EQ(wait(f), 0);
  const uint8_t* key = nullptr;
  int keyLength = 0;
  ASSERT_EQ(fdb_future_get_key(f, &key, &keyLength), 0);
  EXPECT_EQ(str(key, keyLength), "k4");
  fdb_future_destroy(f);
}

TEST_F(Capi, WithoutDelayFuturesAreBornReadyAndCallbacksRunAtOnce) {
  FDBTransaction* tr = transaction();
  std::string key = "x";
  FDBFuture* f = fdb_transaction_get(tr, u8(key), len(key), 0);
  EXPECT_TRUE(fdb_future_is_ready(f));
  struct Seen {
    std::thread::id thread;
    FDBFuture* future = nullptr;
    int calls = 0;
  } seen;
  ASSERT_EQ(fdb_future_set_callback(
                f,
                [](FDBFuture* future, void* p) {
                  auto* s = static_cast<Seen*>(p);
                  s->thread = std::this_thread::get_id();
                  s->future = future;
                  ++s->calls;
                },
                &seen),
            0);
  EXPECT_EQ(seen.calls, 1);  // before set_callback returned
  EXPECT_EQ(seen.thread, std::this_thread::get_id());
  EXPECT_EQ(seen.future, f);
  fdb_future_destroy(f);
}

// Records where and with what error a callback ran.
struct CallbackRecord {
  std::mutex mutex;
  std::condition_variable done;
  int calls = 0;
  std::thread::id thread;
  fdb_error_t error = -1;

  static void record(FDBFuture* f, void* p) {
    auto* r = static_cast<CallbackRecord*>(p);
    std::lock_guard lock(r->mutex);
    ++r->calls;
    r->thread = std::this_thread::get_id();
    r->error = fdb_future_get_error(f);
    r->done.notify_all();
  }
  bool waitForCall() {
    std::unique_lock lock(mutex);
    return done.wait_for(lock, std::chrono::seconds(30), [&] { return calls > 0; });
  }
};

TEST_F(Capi, WithDelayFuturesCompleteOnTheNetworkThread) {
  FDBDatabase* db = openDelayed(5000);
  databases_.push_back(db);
  FDBTransaction* tr = transaction(db);
  std::string key = "x";
  FDBFuture* f = fdb_transaction_get(tr, u8(key), len(key), 0);
  // 10 ms per round trip (read version, then the read): not ready yet.
  EXPECT_FALSE(fdb_future_is_ready(f));
  EXPECT_EQ(fdb_future_get_error(f), 2015);  // future_not_set
  fdb_bool_t present = 1;
  const uint8_t* value = nullptr;
  int length = 0;
  EXPECT_EQ(fdb_future_get_value(f, &present, &value, &length), 2015);
  CallbackRecord record;
  ASSERT_EQ(fdb_future_set_callback(f, CallbackRecord::record, &record), 0);
  ASSERT_TRUE(record.waitForCall());
  EXPECT_EQ(record.calls, 1);
  EXPECT_EQ(record.thread, Network::get().threadId());
  EXPECT_EQ(record.error, 0);
  ASSERT_EQ(fdb_future_get_value(f, &present, &value, &length), 0);
  EXPECT_FALSE(present);
  fdb_future_destroy(f);
}

TEST_F(Capi, BlockingOnTheNetworkThreadIsRefused) {
  FDBDatabase* db = openDelayed(5000);
  databases_.push_back(db);
  FDBTransaction* tr = transaction(db);
  std::string a = "a", b = "b";
  FDBFuture* first = fdb_transaction_get(tr, u8(a), len(a), 1);
  struct State {
    FDBFuture* other;
    CallbackRecord record;
    fdb_error_t blockResult = -1;
  } state;
  // A read version from a database whose round trips take two minutes: surely still pending
  // when the first callback runs.
  FDBDatabase* slow = openDelayed(60 * 1000 * 1000);
  databases_.push_back(slow);
  FDBTransaction* tr2 = transaction(slow);
  state.other = fdb_transaction_get_read_version(tr2);
  ASSERT_EQ(fdb_future_set_callback(
                first,
                [](FDBFuture* f, void* p) {
                  auto* s = static_cast<State*>(p);
                  s->blockResult = fdb_future_block_until_ready(s->other);
                  CallbackRecord::record(f, &s->record);
                },
                &state),
            0);
  ASSERT_TRUE(state.record.waitForCall());
  EXPECT_EQ(state.blockResult, 2026);  // blocked_from_network_thread
  EXPECT_FALSE(fdb_future_is_ready(state.other));
  fdb_future_destroy(state.other);  // cancels it
  fdb_future_destroy(first);
}

// docs/semantics.md, "When a commit is sent": a transaction without a read version sends its
// commit only when the commit's future is first asked about; destroying the transaction or
// the future before that stops it.
TEST_F(Capi, ACommitWithoutAReadVersionIsSentWhenItsFutureIsAsked) {
  const std::string key = "blind", value = "v";
  FDBTransaction* tr = transaction();
  fdb_transaction_set(tr, u8(key), len(key), u8(value), len(value));
  FDBFuture* f = fdb_transaction_commit(tr);
  EXPECT_EQ(get(transaction(), key), std::nullopt);  // not sent yet
  EXPECT_TRUE(fdb_future_is_ready(f));               // asking sends it: done at once
  EXPECT_EQ(fdb_future_get_error(f), 0);
  EXPECT_EQ(get(transaction(), key), value);
  fdb_future_destroy(f);
  // A callback asks too.
  const std::string other = "called back";
  FDBTransaction* tr2 = transaction();
  fdb_transaction_set(tr2, u8(other), len(other), u8(value), len(value));
  FDBFuture* f2 = fdb_transaction_commit(tr2);
  CallbackRecord record;
  ASSERT_EQ(fdb_future_set_callback(f2, CallbackRecord::record, &record), 0);
  EXPECT_EQ(record.calls, 1);  // at once, on this thread
  EXPECT_EQ(record.error, 0);
  EXPECT_EQ(get(transaction(), other), value);
  fdb_future_destroy(f2);
}

TEST_F(Capi, DestroyingTheTransactionOrTheFutureFirstStopsAnUnsentCommit) {
  const std::string first = "first", second = "second", value = "v";
  FDBTransaction* destroyed = nullptr;
  ASSERT_EQ(fdb_database_create_transaction(db_, &destroyed), 0);
  fdb_transaction_set(destroyed, u8(first), len(first), u8(value), len(value));
  FDBFuture* kept = fdb_transaction_commit(destroyed);
  fdb_transaction_destroy(destroyed);
  EXPECT_EQ(wait(kept), 1025);  // transaction_cancelled
  fdb_future_destroy(kept);

  FDBTransaction* tr = transaction();
  fdb_transaction_set(tr, u8(second), len(second), u8(value), len(value));
  fdb_future_destroy(fdb_transaction_commit(tr));  // never asked
  EXPECT_EQ(get(transaction(), first), std::nullopt);
  EXPECT_EQ(get(transaction(), second), std::nullopt);
}

TEST_F(Capi, WithDelayAnUnsentCommitStillWaitsToBeAsked) {
  FDBDatabase* db = openDelayed(500);
  databases_.push_back(db);
  const std::string key = "delayed", value = "v";
  FDBTransaction* destroyed = nullptr;
  ASSERT_EQ(fdb_database_create_transaction(db, &destroyed), 0);
  fdb_transaction_set(destroyed, u8(key), len(key), u8(value), len(value));
  FDBFuture* kept = fdb_transaction_commit(destroyed);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // ten times its round trips
  fdb_transaction_destroy(destroyed);
  CallbackRecord dropped;
  ASSERT_EQ(fdb_future_set_callback(kept, CallbackRecord::record, &dropped), 0);
  ASSERT_TRUE(dropped.waitForCall());
  EXPECT_EQ(dropped.error, 1025);
  fdb_future_destroy(kept);
  EXPECT_EQ(get(transaction(db), key), std::nullopt);

  FDBTransaction* tr = transaction(db);
  fdb_transaction_set(tr, u8(key), len(key), u8(value), len(value));
  FDBFuture* asked = fdb_transaction_commit(tr);
  CallbackRecord landed;
  ASSERT_EQ(fdb_future_set_callback(asked, CallbackRecord::record, &landed), 0);
  ASSERT_TRUE(landed.waitForCall());
  EXPECT_EQ(landed.error, 0);
  EXPECT_EQ(landed.thread, Network::get().threadId());  // after its round trips
  fdb_future_destroy(asked);
  EXPECT_EQ(get(transaction(db), key), value);
}

TEST_F(Capi, CancellingOrDestroyingAPendingFutureFiresItWithOperationCancelled) {
  FDBDatabase* db = openDelayed(20000);
  databases_.push_back(db);
  FDBTransaction* tr = transaction(db);
  std::string key = "x";

  FDBFuture* cancelled = fdb_transaction_get(tr, u8(key), len(key), 0);
  CallbackRecord onCancel;
  ASSERT_EQ(fdb_future_set_callback(cancelled, CallbackRecord::record, &onCancel), 0);
  fdb_future_cancel(cancelled);
  EXPECT_TRUE(fdb_future_is_ready(cancelled));
  EXPECT_EQ(fdb_future_get_error(cancelled), 1101);
  ASSERT_TRUE(onCancel.waitForCall());
  EXPECT_EQ(onCancel.error, 1101);
  fdb_future_cancel(cancelled);  // a ready future is unaffected
  EXPECT_EQ(fdb_future_get_error(cancelled), 1101);
  fdb_future_destroy(cancelled);

  FDBFuture* destroyed = fdb_transaction_get(tr, u8(key), len(key), 0);
  CallbackRecord onDestroy;
  ASSERT_EQ(fdb_future_set_callback(destroyed, CallbackRecord::record, &onDestroy), 0);
  fdb_future_destroy(destroyed);
  ASSERT_TRUE(onDestroy.waitForCall());
  EXPECT_EQ(onDestroy.error, 1101);
  EXPECT_EQ(onDestroy.calls, 1);
}

TEST_F(Capi, DestroyingATransactionCancelsItsPendingReads) {
  FDBDatabase* db = openDelayed(20000);
  databases_.push_back(db);
  FDBTransaction* tr = nullptr;
  ASSERT_EQ(fdb_database_create_transaction(db, &tr), 0);
  std::string key = "x";
  FDBFuture* f = fdb_transaction_get(tr, u8(key), len(key), 0);
  fdb_transaction_destroy(tr);
  EXPECT_EQ(wait(f), 1025);  // transaction_cancelled
  fdb_future_destroy(f);
}

// A transaction handle keeps one future cell inline (handles.h): the results of futures
// must stay readable after their transaction is destroyed, whichever cell they took, and
// the cell must serve again once its future is gone.
TEST_F(Capi, FuturesOutliveTheirTransactionWhicheverCellTheyUse) {
  setAll({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  FDBTransaction* tr = nullptr;
  ASSERT_EQ(fdb_database_create_transaction(db_, &tr), 0);
  std::vector<FDBFuture*> futures;  // the first takes the inline cell, the others the heap
  for (std::string key : {"a", "b", "c"}) {
    futures.push_back(fdb_transaction_get(tr, u8(key), len(key), 0));
  }
  fdb_future_destroy(futures[1]);
  fdb_future_destroy(futures[0]);  // frees the inline cell...
  std::string key = "b";
  futures[0] = fdb_transaction_get(tr, u8(key), len(key), 0);  // ...which serves again
  futures[1] = fdb_transaction_get(tr, u8(key), len(key), 0);
  fdb_transaction_destroy(tr);
  const char* expected[] = {"2", "2", "3"};
  for (size_t i = 0; i < futures.size(); ++i) {
    ASSERT_EQ(wait(futures[i]), 0);
    fdb_bool_t present = 0;
    const uint8_t* value = nullptr;
    int length = 0;
    ASSERT_EQ(fdb_future_get_value(futures[i], &present, &value, &length), 0);
    ASSERT_TRUE(present);
    EXPECT_EQ(str(value, length), expected[i]);
  }
  for (FDBFuture* f : futures) fdb_future_destroy(f);
}

TEST_F(Capi, AFutureAndItsTransactionMayBeDestroyedFromTwoThreadsAtOnce) {
  setAll({{"k", "v"}});
  std::string key = "k";
  for (int i = 0; i < 200; ++i) {
    FDBTransaction* tr = nullptr;
    ASSERT_EQ(fdb_database_create_transaction(db_, &tr), 0);
    FDBFuture* f = fdb_transaction_get(tr, u8(key), len(key), 0);
    std::atomic<bool> go{false};
    std::thread other([&] {
      while (!go.load()) {
      }
      fdb_future_destroy(f);
    });
    go.store(true);
    fdb_transaction_destroy(tr);
    other.join();
  }
}

TEST_F(Capi, ReleasedMemoryCannotBeReadAgain) {
  setAll({{"k", "v"}});
  FDBTransaction* tr = transaction();
  std::string key = "k";
  FDBFuture* f = fdb_transaction_get(tr, u8(key), len(key), 0);
  ASSERT_EQ(wait(f), 0);
  fdb_bool_t present = 0;
  const uint8_t* value = nullptr;
  int length = 0;
  ASSERT_EQ(fdb_future_get_value(f, &present, &value, &length), 0);
  EXPECT_EQ(str(value, length), "v");
  fdb_future_release_memory(f);
  EXPECT_EQ(fdb_future_get_value(f, &present, &value, &length), 1102);  // future_released
  fdb_future_destroy(f);
}

TEST_F(Capi, ConflictsFailWith1020AndOnErrorRetries) {
  setAll({{"k", "0"}});
  FDBTransaction* reader = transaction();
  EXPECT_EQ(get(reader, "k"), "0");
  FDBTransaction* writer = transaction();
  std::string key = "k", one = "1", two = "2";
  fdb_transaction_set(writer, u8(key), len(key), u8(one), len(one));
  ASSERT_EQ(commit(writer), 0);
  fdb_transaction_set(reader, u8(key), len(key), u8(two), len(two));
  fdb_error_t error = commit(reader);
  EXPECT_EQ(error, 1020);
  EXPECT_TRUE(fdb_error_predicate(FDB_ERROR_PREDICATE_RETRYABLE, error));
  EXPECT_TRUE(fdb_error_predicate(FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED, error));
  EXPECT_FALSE(fdb_error_predicate(FDB_ERROR_PREDICATE_MAYBE_COMMITTED, error));
  EXPECT_TRUE(fdb_error_predicate(FDB_ERROR_PREDICATE_MAYBE_COMMITTED, 1021));
  EXPECT_FALSE(fdb_error_predicate(12345, error));
  FDBFuture* retry = fdb_transaction_on_error(reader, error);
  EXPECT_EQ(wait(retry), 0);
  fdb_future_destroy(retry);
  EXPECT_EQ(get(reader, "k"), "1");  // a fresh attempt sees the winner
  fdb_transaction_set(reader, u8(key), len(key), u8(two), len(two));
  EXPECT_EQ(commit(reader), 0);
  // A non-retryable error comes back from on_error.
  FDBFuture* fatal = fdb_transaction_on_error(reader, 2004);
  EXPECT_EQ(wait(fatal), 2004);
  fdb_future_destroy(fatal);
}

TEST_F(Capi, ErrorsAreReportedWithFoundationDbsCodesAndText) {
  EXPECT_STREQ(fdb_get_error(1020),
               "Transaction not committed due to conflict with another transaction");
  EXPECT_STREQ(fdb_get_error(0), "Success");
  EXPECT_STREQ(fdb_get_error(987654), "UNKNOWN_ERROR");
  FDBTransaction* tr = transaction();
  std::string a = "a", b = "b";
  EXPECT_EQ(fdb_transaction_add_conflict_range(tr, u8(a), len(a), u8(b), len(b),
                                               fromCode<FDBConflictRangeType>(7)),
            2000);
  EXPECT_EQ(fdb_transaction_add_conflict_range(tr, u8(b), len(b), u8(a), len(a),
                                               FDB_CONFLICT_RANGE_TYPE_READ),
            2005);  // inverted_range
  EXPECT_EQ(fdb_transaction_set_option(tr, fromCode<FDBTransactionOption>(9999), nullptr, 0), 2007);
  EXPECT_EQ(fdb_network_set_option(fromCode<FDBNetworkOption>(9999), nullptr, 0), 2007);
  EXPECT_EQ(fdb_network_set_option(FDB_NET_OPTION_TRACE_ROLL_SIZE, u8(a), 1), 2006);
  // A bad option value is deferred to the next future-returning call (docs/semantics.md, "Deferred
  // errors").
  int64_t tooSmall = 31;
  EXPECT_EQ(fdb_transaction_set_option(tr, FDB_TR_OPTION_SIZE_LIMIT,
                                       reinterpret_cast<const uint8_t*>(&tooSmall), 8),
            0);
  EXPECT_EQ(commit(tr), 2006);
  // A write to the system keys without access is deferred to commit.
  FDBTransaction* system = transaction();
  std::string systemKey("\xff\x02", 2);
  fdb_transaction_set(system, u8(systemKey), len(systemKey), u8(a), len(a));
  EXPECT_EQ(commit(system), 2004);  // key_outside_legal_range
}

TEST_F(Capi, VersionstampsAndWatches) {
  FDBTransaction* tr = transaction();
  // A versionstamped value: 10 placeholder bytes at offset 0, then the 4-byte offset.
  std::string key = "stamped";
  std::string param(10, '\0');
  param += std::string("\0\0\0\0", 4);
  fdb_transaction_atomic_op(tr, u8(key), len(key), u8(param), len(param),
                            FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_VALUE);
  FDBFuture* stamp = fdb_transaction_get_versionstamp(tr);
  ASSERT_EQ(commit(tr), 0);
  ASSERT_EQ(wait(stamp), 0);
  const uint8_t* bytes = nullptr;
  int length = 0;
  ASSERT_EQ(fdb_future_get_key(stamp, &bytes, &length), 0);
  ASSERT_EQ(length, 10);
  std::string stampBytes = str(bytes, length);
  fdb_future_destroy(stamp);
  int64_t committed = 0;
  ASSERT_EQ(fdb_transaction_get_committed_version(tr, &committed), 0);
  int64_t fromStamp = 0;
  for (int i = 0; i < 8; ++i) fromStamp = fromStamp << 8 | static_cast<uint8_t>(stampBytes[i]);
  EXPECT_EQ(fromStamp, committed);  // the stamp begins with the commit version
  EXPECT_EQ(get(transaction(), "stamped"), stampBytes);

  // A watch armed by a commit fires when another transaction changes the key.
  FDBTransaction* watcher = transaction();
  std::string watched = "watched", value = "v";
  FDBFuture* watch = fdb_transaction_watch(watcher, u8(watched), len(watched));
  ASSERT_EQ(commit(watcher), 0);
  EXPECT_FALSE(fdb_future_is_ready(watch));
  CallbackRecord fired;
  ASSERT_EQ(fdb_future_set_callback(watch, CallbackRecord::record, &fired), 0);
  FDBTransaction* changer = transaction();
  fdb_transaction_set(changer, u8(watched), len(watched), u8(value), len(value));
  ASSERT_EQ(commit(changer), 0);
  ASSERT_TRUE(fired.waitForCall());
  EXPECT_EQ(fired.error, 0);
  EXPECT_EQ(fired.thread, Network::get().threadId());  // a pending future: network thread
  fdb_future_destroy(watch);
}

TEST_F(Capi, MappedRangeResultsHaveTheCLayout) {
  // Records under "r", an index under "i" mapping value -> record key.
  std::vector<std::pair<std::string, std::string>> rows;
  auto tupleString = [](const std::string& s) { return std::string("\x02", 1) + s + '\0'; };
  for (std::string id : {"1", "2", "3"}) {
    rows.emplace_back(tupleString("r") + tupleString(id), "record" + id);
    rows.emplace_back(tupleString("i") + tupleString("v" + id) + tupleString(id), "");
  }
  setAll(rows);
  // Mapper ("r", "{K[2]}", "{...}"): the record's range from the index entry's id.
  std::string mapper = tupleString("r") + tupleString("{K[2]}") + tupleString("{...}");
  std::string begin = tupleString("i"), end = tupleString("i") + "\xff";
  FDBTransaction* tr = transaction();
  FDBFuture* f = fdb_transaction_get_mapped_range(
      tr, FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(u8(begin), len(begin)),
      FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(u8(end), len(end)), u8(mapper), len(mapper), 0, 0,
      FDB_STREAMING_MODE_WANT_ALL, 1, 0, 0);
  ASSERT_EQ(wait(f), 0);
  const FDBMappedKeyValue* kvs = nullptr;
  int count = 0;
  fdb_bool_t more = 1;
  ASSERT_EQ(fdb_future_get_mappedkeyvalue_array(f, &kvs, &count, &more), 0);
  ASSERT_EQ(count, 3);
  EXPECT_FALSE(more);
  for (int i = 0; i < count; ++i) {
    std::string id = std::to_string(i + 1);
    const FDBMappedKeyValue& kv = kvs[i];
    EXPECT_EQ(str(kv.key.key, kv.key.key_length),
              tupleString("i") + tupleString("v" + id) + tupleString(id));
    std::string recordKey = tupleString("r") + tupleString(id);
    EXPECT_EQ(str(kv.getRange.begin.key.key, kv.getRange.begin.key.key_length), recordKey);
    EXPECT_EQ(kv.getRange.begin.orEqual & 0xff, 0);
    EXPECT_EQ(kv.getRange.begin.offset, 1);
    ASSERT_EQ(kv.getRange.m_size, 1);
    EXPECT_EQ(str(kv.getRange.data[0].key, kv.getRange.data[0].key_length), recordKey);
    EXPECT_EQ(str(kv.getRange.data[0].value, kv.getRange.data[0].value_length), "record" + id);
    for (unsigned char byte : kv.buffer) EXPECT_EQ(byte, 0);
  }
  fdb_future_destroy(f);
}

TEST_F(Capi, TenantsAreDisabledAndBlobGranulesUnsupported) {
  FDBTenant* tenant = nullptr;
  std::string name = "tenant";
  ASSERT_EQ(fdb_database_open_tenant(db_, u8(name), len(name), &tenant), 0);
  FDBTransaction* tr = nullptr;
  EXPECT_EQ(fdb_tenant_create_transaction(tenant, &tr), 2136);  // tenants_disabled
  FDBFuture* id = fdb_tenant_get_id(tenant);
  EXPECT_EQ(wait(id), 2136);
  fdb_future_destroy(id);
  fdb_tenant_destroy(tenant);

  std::string a = "a", b = "b";
  FDBFuture* blob = fdb_database_blobbify_range(db_, u8(a), len(a), u8(b), len(b));
  EXPECT_EQ(wait(blob), 2108);  // unsupported_operation
  fdb_future_destroy(blob);
  FDBFuture* reboot = fdb_database_reboot_worker(db_, u8(a), len(a), 0, 0);
  EXPECT_EQ(wait(reboot), 2108);
  fdb_future_destroy(reboot);
  FDBResult* result = fdb_readbg_parse_snapshot_file(u8(a), len(a), nullptr, nullptr);
  const FDBKeyValue* kvs = nullptr;
  int count = 0;
  fdb_bool_t more = 0;
  EXPECT_EQ(fdb_result_get_keyvalue_array(result, &kvs, &count, &more), 2108);
  fdb_result_destroy(result);
}

TEST_F(Capi, ClusterFilesHoldAddresses) {
  FDBDatabase* db = nullptr;
  EXPECT_EQ(fdb_create_database("/nonexistent/dir/fdb.cluster", &db), 1515);
  // A FoundationDB connection string is not something the embedded engine can open.
  std::string path = (std::filesystem::temp_directory_path() /
                      ("capi-real-" + std::to_string(::getpid()) + ".cluster"))
                         .string();
  std::ofstream(path) << "test:abcdef@127.0.0.1:4500\n";
  EXPECT_EQ(fdb_create_database(path.c_str(), &db), 2104);
  std::filesystem::remove(path);
  // memory:<name> is one database for every handle in the process.
  FDBDatabase* first = nullptr;
  FDBDatabase* second = nullptr;
  ASSERT_EQ(fdb_create_database_from_connection_string("memory:capi-shared", &first), 0);
  ASSERT_EQ(fdb_create_database_from_connection_string("memory:capi-shared", &second), 0);
  databases_.push_back(first);
  databases_.push_back(second);
  FDBTransaction* writer = transaction(first);
  std::string key = "shared", value = "yes";
  fdb_transaction_set(writer, u8(key), len(key), u8(value), len(value));
  ASSERT_EQ(commit(writer), 0);
  EXPECT_EQ(get(transaction(second), "shared"), "yes");
}

TEST_F(Capi, ClientAndServerQueries) {
  EXPECT_NE(std::string(fdb_get_client_version()).find("recordlayer"), std::string::npos);
  FDBFuture* protocol = fdb_database_get_server_protocol(db_, 0);
  ASSERT_EQ(wait(protocol), 0);
  uint64_t version = 0;
  ASSERT_EQ(fdb_future_get_uint64(protocol, &version), 0);
  EXPECT_EQ(version, 0x0FDB00B073000000ULL);
  fdb_future_destroy(protocol);
  FDBFuture* status = fdb_database_get_client_status(db_);
  ASSERT_EQ(wait(status), 0);
  const uint8_t* json = nullptr;
  int length = 0;
  ASSERT_EQ(fdb_future_get_key(status, &json, &length), 0);
  EXPECT_NE(str(json, length).find("\"Healthy\":true"), std::string::npos);
  fdb_future_destroy(status);

  setAll({{"a", "12345"}, {"b", "1"}, {"c", "123"}});
  FDBTransaction* tr = transaction();
  std::string begin = "a", end = "z";
  FDBFuture* size =
      fdb_transaction_get_estimated_range_size_bytes(tr, u8(begin), len(begin), u8(end), len(end));
  ASSERT_EQ(wait(size), 0);
  int64_t bytes = 0;
  ASSERT_EQ(fdb_future_get_int64(size, &bytes), 0);
  EXPECT_EQ(bytes, 3 + 5 + 1 + 3);  // keys and values
  fdb_future_destroy(size);
  FDBFuture* split =
      fdb_transaction_get_range_split_points(tr, u8(begin), len(begin), u8(end), len(end), 4);
  ASSERT_EQ(wait(split), 0);
  const FDBKey* points = nullptr;
  int count = 0;
  ASSERT_EQ(fdb_future_get_key_array(split, &points, &count), 0);
  std::vector<std::string> keys;
  for (int i = 0; i < count; ++i) keys.push_back(str(points[i].key, points[i].key_length));
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "z"}));  // "a" row is 6 bytes >= 4
  fdb_future_destroy(split);
  FDBFuture* addresses = fdb_transaction_get_addresses_for_key(tr, u8(begin), len(begin));
  ASSERT_EQ(wait(addresses), 0);
  const char** strings = nullptr;
  ASSERT_EQ(fdb_future_get_string_array(addresses, &strings, &count), 0);
  ASSERT_EQ(count, 1);
  EXPECT_STREQ(strings[0], "127.0.0.1:4500");
  fdb_future_destroy(addresses);
}

}  // namespace
