// The durable store (docs/durable.md): reopening, versions across restarts, one owner, and
// reads at every version of the window while the window is folded into the RocksDB base.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/durable/durable_database.h"
#include "engine/engine.h"
#include "engine/held_commit.h"
#include "engine/memory_database.h"
#include "engine/test_support.h"
#include "fdb/database.h"
#include "fdb/durable.h"
#include "fdb/error.h"
#include "fdb/transaction.h"

extern char** environ;

namespace fdb::engine {
namespace {

using test_support::errorCode;

// A fresh directory under the system's temporary directory, removed afterwards.
class TempDir {
 public:
  explicit TempDir(std::string_view name)
      : path_(std::filesystem::temp_directory_path() /
              (std::string(name) + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

EngineOptions relaxed() {
  EngineOptions options;
  options.durable.sync = EngineOptions::Durable::Sync::kRelaxed;
  return options;
}

Database databaseOf(std::shared_ptr<Engine> engine) {
  return Database(std::make_shared<MemoryDatabase>(std::move(engine)));
}

std::string keyOf(int i) {
  char key[16];
  std::snprintf(key, sizeof key, "k%06d", i);
  return key;
}

TEST(Durable, OpensFromFileAndBareDirectoryAddresses) {
  TempDir dir("durable-addresses");
  {
    Database db = Database::open("file:" + dir.path());
    db.run([](Transaction& tr) { tr.set("hello", "world"); });
  }
  Database again = Database::open(dir.path());  // an absolute path is a bare directory
  EXPECT_EQ(errorCode([] { Database::open("file:"); }), errors::kClientInvalidOperation);
  // Missing parent directories are created.
  Database nested = Database::open(dir.path() + "/nested/deeper/store");
  nested.run([](Transaction& tr) { tr.set("nested", "yes"); });
  EXPECT_EQ(again.run([](Transaction& tr) { return tr.get("hello").get(); }), "world");
  // Opening it again in this process shares the open store.
  Database shared = Database::open("file:" + dir.path());
  shared.run([](Transaction& tr) { tr.set("second", "handle"); });
  EXPECT_EQ(again.run([](Transaction& tr) { return tr.get("second").get(); }), "handle");
}

TEST(Durable, WithoutCreateIfMissingOnlyAnExistingStoreOpens) {
  TempDir dir("durable-no-create");
  EngineOptions options;
  options.durable.createIfMissing = false;
  const std::string missing = dir.path() + "/missing";
  EXPECT_EQ(errorCode([&] { Database::open("file:" + missing, options); }), errors::kFileNotFound);
  EXPECT_FALSE(std::filesystem::exists(missing));
  const std::string empty = dir.path() + "/empty";
  std::filesystem::create_directories(empty);
  EXPECT_EQ(errorCode([&] { Database::open(empty + "/", options); }), errors::kFileNotFound);
  EXPECT_TRUE(std::filesystem::is_empty(empty));
  const std::string made = dir.path() + "/made";
  {
    Database::open("file:" + made).run([](Transaction& tr) { tr.set("k", "v"); });
  }
  Database existing = Database::open("file:" + made, options);
  EXPECT_EQ(existing.run([](Transaction& tr) { return tr.get("k").get(); }), "v");
}

TEST(Durable, ReopenRestoresAcknowledgedCommits) {
  TempDir dir("durable-reopen");
  {
    Database db = Database::open("file:" + dir.path());  // sync on commit
    for (int i = 0; i < 50; ++i) {
      db.run([&](Transaction& tr) {
        tr.set(keyOf(i), std::to_string(i));
        if (i % 10 == 9) tr.clear(keyOf(i - 5));
      });
    }
    db.run([](Transaction& tr) {
      tr.atomicOp("counter", test_support::encodeInt64(7), MutationType::kAdd);
    });
  }
  Database db = Database::open("file:" + dir.path());
  std::vector<KeyValue> rows = db.run([](Transaction& tr) { return tr.getRangeAll({"k", "l"}); });
  EXPECT_EQ(rows.size(), 45u);
  for (int i = 0; i < 50; ++i) {
    std::optional<Bytes> value = db.run([&](Transaction& tr) { return tr.get(keyOf(i)).get(); });
    if (i % 10 == 4) {
      EXPECT_EQ(value, std::nullopt) << i;
    } else {
      EXPECT_EQ(value, std::to_string(i)) << i;
    }
  }
  EXPECT_EQ(
      test_support::decodeInt64(db.run([](Transaction& tr) { return tr.get("counter").get(); })),
      7);
}

TEST(Durable, VersionsAndVersionstampsContinueAboveTheLastDurableVersion) {
  TempDir dir("durable-versions");
  auto commitStamped = [&](Database& db, int64_t* committed) {
    Transaction tr = db.createTransaction();
    tr.atomicOp(Bytes("stamp/") + Bytes(10, '\0') + Bytes("\x06\x00\x00\x00", 4), "v",
                MutationType::kSetVersionstampedKey);
    Future<Bytes> stamp = tr.getVersionstamp();
    tr.commit().get();
    *committed = tr.getCommittedVersion();
    return stamp.get();
  };
  int64_t firstVersion = 0;
  Bytes firstStamp;
  {
    // A clock far ahead of the next one: the restart must not go back in versions.
    auto clock = std::make_shared<ManualVersionClock>();
    clock->advanceMicros(3'600'000'000LL);
    Database db = databaseOf(openDurableEngine(dir.path(), relaxed(), clock));
    firstStamp = commitStamped(db, &firstVersion);
  }
  Database db =
      databaseOf(openDurableEngine(dir.path(), relaxed(), std::make_shared<ManualVersionClock>()));
  EXPECT_GT(db.createTransaction().getReadVersion().get(), firstVersion);
  int64_t secondVersion = 0;
  Bytes secondStamp = commitStamped(db, &secondVersion);
  EXPECT_GT(secondVersion, firstVersion);
  EXPECT_GT(secondStamp, firstStamp);
  std::vector<KeyValue> stamps = db.run([](Transaction& tr) {
    return tr.getRangeAll({"stamp/", "stamp0"});
  });
  EXPECT_EQ(stamps.size(), 2u);
}

// The helper executable of the crash test (durable_crash_worker.cc) in "hold" mode keeps a
// store open until its stdin closes.
TEST(Durable, ASecondProcessGetsAClearError) {
  TempDir dir("durable-owner");
  int toChild[2];
  int fromChild[2];
  ASSERT_EQ(::pipe(toChild), 0);
  ASSERT_EQ(::pipe(fromChild), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, toChild[0], 0);
  posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1);
  posix_spawn_file_actions_addclose(&actions, toChild[1]);
  posix_spawn_file_actions_addclose(&actions, fromChild[0]);
  std::string worker = RL_DURABLE_CRASH_WORKER;
  std::string path = dir.path();
  char* argv[] = {worker.data(), const_cast<char*>("hold"), path.data(), nullptr};
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, worker.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(toChild[0]);
  ::close(fromChild[1]);
  char ready[6] = {};
  ASSERT_EQ(::read(fromChild[0], ready, 6), 6);
  ASSERT_EQ(std::string(ready, 6), "ready\n");

  try {
    Database::open("file:" + dir.path());
    ADD_FAILURE() << "opened a store another process has open";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kLockFileFailure);
    EXPECT_NE(e.detail().find("store " + dir.path() + " is in use by another process"),
              std::string::npos)
        << e.detail();
  }
  ::close(toChild[1]);  // the holder closes the store and exits
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::close(fromChild[0]);
  // Now it is free.
  Database db = Database::open("file:" + dir.path());
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get("held").get(); }), "yes");
}

// Random commits over a small key space on a manual clock that keeps moving the window, with
// the base folded as far as readers allow after every few commits; reads at random versions
// of the window (point reads, selectors, ranges both ways) must see exactly the reference
// state of that version. Clears of many keys exercise range tombstones.
TEST(Durable, FoldingKeepsReadsAtEveryVersionOfTheWindowCorrect) {
  TempDir dir("durable-fold");
  auto clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), relaxed(), clock);
  Database db = databaseOf(engine);
  std::mt19937_64 random(20261201);
  constexpr int kKeys = 700;
  std::map<int64_t, std::map<Bytes, Bytes>> states;  // by commit version
  std::map<Bytes, Bytes> current;
  int folds = 0;
  int64_t lastBase = engine->durableStore()->baseVersion();
  for (int step = 0; step < 600; ++step) {
    Transaction tr = db.createTransaction();
    if (step % 50 == 0) {  // refill, so that the base holds many keys for clears to hide
      for (int i = 0; i < kKeys; ++i) {
        tr.set(keyOf(i), "fill" + std::to_string(step));
        current[keyOf(i)] = "fill" + std::to_string(step);
      }
    }
    int mutations = 1 + static_cast<int>(random() % 4);
    for (int m = 0; m < mutations; ++m) {
      int kind = static_cast<int>(random() % 100);
      int a = static_cast<int>(random() % kKeys);
      if (kind < 55) {
        Bytes value = "v" + std::to_string(step) + "." + std::to_string(m);
        tr.set(keyOf(a), value);
        current[keyOf(a)] = value;
      } else if (kind < 70) {
        tr.clear(keyOf(a));
        current.erase(keyOf(a));
      } else if (kind < 85) {
        int b = a + static_cast<int>(random() % 20);
        tr.clearRange(keyOf(a), keyOf(b));
        current.erase(current.lower_bound(keyOf(a)), current.lower_bound(keyOf(b)));
      } else if (kind < 90) {
        int b = a + static_cast<int>(random() % kKeys);  // usually hundreds of keys
        tr.clearRange(keyOf(a), keyOf(b));
        current.erase(current.lower_bound(keyOf(a)), current.lower_bound(keyOf(b)));
      } else {
        tr.atomicOp(keyOf(a), test_support::encodeInt64(1), MutationType::kAdd);
        Bytes& value = current[keyOf(a)];
        std::optional<Bytes> old;
        if (!value.empty()) old = value;
        value = test_support::encodeInt64(test_support::decodeInt64(old) + 1);
      }
    }
    tr.commit().get();
    states[tr.getCommittedVersion()] = current;
    clock->advanceMicros(static_cast<int64_t>(random() % 250'000));
    if (step % 7 == 0) {
      int64_t base = engine->foldForTesting();
      if (base > lastBase) ++folds;
      lastBase = base;
    }
    // Read at a random committed version still in the window.
    int64_t now = db.createTransaction().getReadVersion().get();
    auto oldest = states.lower_bound(now - kMvccWindowVersions + 200'000);
    if (oldest == states.end()) continue;
    auto pick = std::next(
        oldest,
        static_cast<long>(random() % static_cast<size_t>(std::distance(oldest, states.end()))));
    // Also the versions between commits read as the commit before them.
    int64_t version = pick->first;
    if (std::next(pick) != states.end() && random() % 2 == 0) {
      version += static_cast<int64_t>(random() %
                                      static_cast<uint64_t>(std::next(pick)->first - pick->first));
    }
    const std::map<Bytes, Bytes>& expected = pick->second;
    Transaction reader = db.createTransaction();
    reader.setReadVersion(version);
    std::vector<KeyValue> all = reader.getRangeAll({"k", "l"});
    std::vector<KeyValue> want;
    for (const auto& [key, value] : expected) want.push_back(KeyValue{key, value});
    ASSERT_EQ(all, want) << "step " << step << " version " << version;
    RangeOptions reverse;
    reverse.reverse = true;
    reverse.limit = 5;
    RangeResult last = reader
                           .getRange(KeySelector::firstGreaterOrEqual("k"),
                                     KeySelector::firstGreaterOrEqual("l"), reverse)
                           .get();
    std::vector<KeyValue> lastWant(want.rbegin(), want.rbegin() + std::min<size_t>(5, want.size()));
    ASSERT_EQ(last.rows.size(), lastWant.size());
    for (size_t i = 0; i < lastWant.size(); ++i) {
      EXPECT_EQ(Bytes(last.rows[i].key), lastWant[i].key);
      EXPECT_EQ(Bytes(last.rows[i].value), lastWant[i].value);
    }
    int probe = static_cast<int>(random() % kKeys);
    auto found = expected.find(keyOf(probe));
    EXPECT_EQ(reader.get(keyOf(probe)).get(),
              found == expected.end() ? std::nullopt : std::optional<Bytes>(found->second));
    auto after = expected.upper_bound(keyOf(probe));
    EXPECT_EQ(reader.getKey(KeySelector::firstGreaterThan(keyOf(probe))).get(),
              after == expected.end() ? Bytes("\xff") : after->first);
    // The same through a transaction with writes of its own (read-your-writes merges them
    // step by step: the steps share one base iterator).
    Transaction writer = db.createTransaction();
    writer.setReadVersion(version);
    writer.set(keyOf(probe), "mine");
    std::map<Bytes, Bytes> mine = expected;
    mine[keyOf(probe)] = "mine";
    std::vector<KeyValue> wantMine;
    for (const auto& [key, value] : mine) wantMine.push_back(KeyValue{key, value});
    ASSERT_EQ(writer.getRangeAll({"k", "l"}), wantMine) << "step " << step;
    RangeResult lastMine = writer
                               .getRange(KeySelector::firstGreaterOrEqual("k"),
                                         KeySelector::firstGreaterOrEqual("l"), reverse)
                               .get();
    ASSERT_EQ(lastMine.rows.size(), std::min<size_t>(5, wantMine.size()));
    for (size_t i = 0; i < lastMine.rows.size(); ++i) {
      EXPECT_EQ(Bytes(lastMine.rows[i].key), wantMine[wantMine.size() - 1 - i].key);
    }
    writer.cancel();
    // Forget versions that left the window.
    states.erase(states.begin(), states.lower_bound(now - kMvccWindowVersions));
  }
  EXPECT_GT(folds, 3) << "the base never moved";
  EXPECT_LT(engine->stats().keys, static_cast<size_t>(kKeys)) << "the window kept every key";
  // And all of it survives a reopen.
  db = Database(nullptr);
  engine.reset();
  Database reopened = databaseOf(openDurableEngine(dir.path(), relaxed()));
  std::vector<KeyValue> all = reopened.run([](Transaction& tr) {
    return tr.getRangeAll({"k", "l"});
  });
  std::vector<KeyValue> want;
  for (const auto& [key, value] : current) want.push_back(KeyValue{key, value});
  EXPECT_EQ(all, want);
}

// Readers on other threads, at current and older versions of the window, racing commits and
// folds (the folder thread, and folds forced after every few commits on a clock that moves
// 100 ms a commit): every snapshot holds 100 accounts summing to the same total, including
// across commits that clear and rewrite all of them.
TEST(Durable, ReadersRacingTheFolderSeeConsistentSnapshots) {
  TempDir dir("durable-race");
  auto clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), relaxed(), clock);
  Database db = databaseOf(engine);
  constexpr int kAccounts = 100;
  constexpr int64_t kEach = 1000;
  Transaction setup = db.createTransaction();
  for (int i = 0; i < kAccounts; ++i) setup.set(keyOf(i), std::to_string(kEach));
  setup.commit().get();
  const int64_t opened = setup.getCommittedVersion();
  std::atomic<bool> done{false};
  std::atomic<int64_t> snapshots{0};
  std::atomic<int64_t> tooOld{0};
  auto reader = [&](uint64_t seed) {
    std::mt19937_64 random(seed);
    while (!done.load()) {
      Transaction tr = db.createTransaction();
      try {
        int64_t version = tr.getReadVersion().get();
        if (random() % 2 == 0) {
          tr.reset();
          tr.setReadVersion(std::max(opened, version - static_cast<int64_t>(random() % 3'000'000)));
        }
        std::vector<KeyValue> rows = tr.getRangeAll({"k", "l"});
        int64_t total = 0;
        for (const KeyValue& row : rows) total += std::stoll(row.value);
        ASSERT_EQ(rows.size(), static_cast<size_t>(kAccounts));
        ASSERT_EQ(total, kAccounts * kEach);
        ++snapshots;
      } catch (const Error& e) {
        if (e.code() != errors::kTransactionTooOld) throw;
        ++tooOld;
      }
    }
  };
  std::thread first(reader, 1);
  std::thread second(reader, 2);
  std::mt19937_64 random(3);
  // Until the base has moved a few times under the readers (a preempted reader holds folding
  // back, so on a busy machine that can take more commits).
  int folds = 0;
  int64_t lastBase = 0;
  for (int commit = 0; commit < 400 || (folds < 5 && commit < 20000); ++commit) {
    db.run([&](Transaction& tr) {
      if (commit % 25 == 24) {  // clear everything and write it back, reshuffled
        std::vector<KeyValue> rows = tr.getRangeAll({"k", "l"});
        tr.clearRange("k", "l");
        for (size_t i = 0; i < rows.size(); ++i) {
          tr.set(rows[i].key, rows[rows.size() - 1 - i].value);
        }
        return;
      }
      int from = static_cast<int>(random() % kAccounts);
      int to = static_cast<int>(random() % kAccounts);
      int64_t amount = static_cast<int64_t>(random() % 10);
      int64_t fromBalance = std::stoll(*tr.get(keyOf(from)).get());
      tr.set(keyOf(from), std::to_string(fromBalance - amount));
      int64_t toBalance = std::stoll(*tr.get(keyOf(to)).get());
      tr.set(keyOf(to), std::to_string(toBalance + amount));
    });
    clock->advanceMicros(100'000);
    if (commit % 10 == 9) {
      int64_t base = engine->foldForTesting();
      folds += base > lastBase;
      lastBase = base;
    }
  }
  done = true;
  first.join();
  second.join();
  EXPECT_GT(snapshots.load(), 0);
  EXPECT_GE(folds, 5);
  std::cout << "[race] " << snapshots.load() << " consistent snapshots, " << tooOld.load()
            << " reads too old, " << folds << " folds under the readers\n";
}

// More data than the window holds: the window keeps only recent versions, the base the
// rest, and everything reads back, before and after a reopen.
TEST(Durable, ADatasetLargerThanTheWindow) {
  TempDir dir("durable-large");
  auto clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), relaxed(), clock);
  Database db = databaseOf(engine);
  constexpr int kBatches = 40;
  constexpr int kPerBatch = 500;
  const Bytes value(200, 'x');
  for (int batch = 0; batch < kBatches; ++batch) {
    db.run([&](Transaction& tr) {
      for (int i = 0; i < kPerBatch; ++i) tr.set(keyOf(batch * kPerBatch + i), value);
    });
    clock->advanceMicros(1'000'000);
    engine->foldForTesting();
  }
  EXPECT_LT(engine->stats().keys, static_cast<size_t>(kBatches * kPerBatch / 4));
  EXPECT_GT(engine->durableStore()->baseVersion(), 0);
  auto countAll = [](Database& database) {
    return database.run([](Transaction& tr) { return tr.getRangeAll({"k", "l"}).size(); });
  };
  EXPECT_EQ(countAll(db), static_cast<size_t>(kBatches * kPerBatch));
  db = Database(nullptr);
  engine.reset();
  Database reopened = Database::open("file:" + dir.path(), relaxed());
  EXPECT_EQ(countAll(reopened), static_cast<size_t>(kBatches * kPerBatch));
  EXPECT_EQ(reopened.run([&](Transaction& tr) { return tr.get(keyOf(1234)).get(); }), value);
}

// Group commit: committers that arrive while a log write is syncing share the next sync. One
// committer alone syncs once per commit; 32 at once need far fewer syncs than commits.
TEST(Durable, ConcurrentCommittersShareWalSyncs) {
  TempDir dir("durable-group");
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), EngineOptions{});  // synced
  Database db = databaseOf(engine);
  DurableStore& disk = *engine->durableStore();

  int64_t syncsBefore = disk.walSyncs();
  for (int i = 0; i < 10; ++i) db.run([&](Transaction& tr) { tr.set(keyOf(i), "alone"); });
  EXPECT_EQ(disk.walSyncs() - syncsBefore, 10);

  constexpr int kCommitters = 32;
  constexpr int kCommitsEach = 10;
  syncsBefore = disk.walSyncs();
  int64_t loggedBefore = disk.loggedCommits();
  std::vector<std::thread> committers;
  for (int t = 0; t < kCommitters; ++t) {
    committers.emplace_back([&, t] {
      for (int i = 0; i < kCommitsEach; ++i) {
        db.run([&](Transaction& tr) { tr.set(keyOf(1000 + t * kCommitsEach + i), "together"); });
      }
    });
  }
  for (std::thread& committer : committers) committer.join();
  int64_t syncs = disk.walSyncs() - syncsBefore;
  int64_t commits = disk.loggedCommits() - loggedBefore;
  EXPECT_EQ(commits, kCommitters * kCommitsEach);
  std::cout << "[group commit] " << kCommitters << " committers: " << commits << " commits in "
            << syncs << " WAL syncs (" << static_cast<double>(commits) / static_cast<double>(syncs)
            << " commits per sync)\n";
  EXPECT_LE(syncs * 4, commits) << "concurrent commits did not share syncs";
  EXPECT_EQ(db.run([](Transaction& tr) {
    return tr.getRangeAll({"k", "l"}).size();
  }),
            static_cast<size_t>(10 + kCommitters * kCommitsEach));
}

// Over its memory budget the window is folded to disk early: old read versions then fail with
// transaction_too_old (retryable), current ones read everything.
TEST(Durable, OverItsMemoryBudgetTheWindowShrinks) {
  TempDir dir("durable-budget");
  EngineOptions options = relaxed();
  options.durable.windowBytes = 256 << 10;
  auto clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), options, clock);
  Database db = databaseOf(engine);
  db.run([](Transaction& tr) { tr.set("first", "1"); });
  Transaction old = db.createTransaction();
  int64_t oldVersion = old.getReadVersion().get();
  const Bytes value(1000, 'v');
  for (int batch = 0; batch < 20; ++batch) {
    db.run([&](Transaction& tr) {
      for (int i = 0; i < 100; ++i) tr.set(keyOf(batch * 100 + i), value);
    });
    engine->foldForTesting();
  }
  EXPECT_GT(engine->durableStore()->baseVersion(), oldVersion);
  EXPECT_LT(engine->stats().keys, 1000u);
  EXPECT_EQ(errorCode([&] { old.get("first").get(); }), errors::kTransactionTooOld);
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.getRangeAll({"k", "l"}).size(); }), 2000u);
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get("first").get(); }), "1");
}

// Runs the crash test's worker with `arguments` and returns what it printed.
std::string runWorker(std::vector<std::string> arguments) {
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string worker = RL_DURABLE_CRASH_WORKER;
  std::vector<char*> argv{worker.data()};
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  EXPECT_EQ(posix_spawn(&child, worker.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string output;
  char buffer[256];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) {
    output.append(buffer, static_cast<size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  return output;
}

// A database held in a static is destroyed at exit after RocksDB's own singletons (made
// while the store opened): the process still exits cleanly, and what it committed is there
// for the next open.
TEST(Durable, AStoreHeldInAStaticClosesCleanlyAtExit) {
  TempDir dir("durable-static");
  EXPECT_EQ(runWorker({"static", dir.path()}), "ready\n");
  Database db = Database::open("file:" + dir.path());
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get("static").get(); }), "kept");
}

// Larger than memory: 120 MiB of incompressible values, 15 times the 8 MiB block cache, with
// a 16 MiB window budget, written and read back in a process of its own, whose peak RSS
// (VmHWM) must stay under docs/durable.md's bound: memtables (4 x 16 MiB) + 4 x the window
// budget + the cache + 64 MiB (the process, RocksDB's compactions, the allocator) = 200 MiB.
// (Measured here: about 125 MiB; about 150 MiB for 300 MiB of data.)
TEST(Durable, LargerThanMemoryStaysUnderItsRssBound) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory and quarantine are not the store's memory";
#endif
  TempDir dir("durable-rss");
  constexpr int64_t kDataMib = 120;
  constexpr int64_t kCacheMib = 8;
  constexpr int64_t kWindowMib = 16;
  std::string output = runWorker({"large", dir.path(), std::to_string(kDataMib),
                                  std::to_string(kCacheMib), std::to_string(kWindowMib)});
  long long rows = 0;
  long long peakKib = 0;
  long long writtenKib = 0;
  ASSERT_EQ(std::sscanf(output.c_str(), "rows %lld hwm_kb %lld written_hwm_kb %lld", &rows,
                        &peakKib, &writtenKib),
            3)
      << output;
  std::cout << "[rss] " << kDataMib << " MiB of data, cache " << kCacheMib << " MiB, window "
            << kWindowMib << " MiB: VmHWM " << peakKib / 1024 << " MiB\n";
  EXPECT_EQ(rows, (kDataMib << 20) / 1000);
  const long long boundMib = 4 * 16 + 4 * kWindowMib + kCacheMib + 64;
  EXPECT_LE(peakKib, boundMib * 1024) << "peak RSS over the documented bound";
}

// Backup: a checkpoint holds exactly the commits at or below its version; a store restored
// from it has them, continues above that version, and verifies clean.
TEST(Durable, CheckpointAndRestoreRoundTrip) {
  TempDir dir("durable-backup-source");
  TempDir backup("durable-backup-checkpoint");
  TempDir restored("durable-backup-restored");
  Database db = Database::open("file:" + dir.path(), relaxed());
  std::vector<int64_t> versions;
  for (int i = 0; i < 20; ++i) {
    Transaction tr = db.createTransaction();
    tr.set(keyOf(i), "before");
    tr.commit().get();
    versions.push_back(tr.getCommittedVersion());
  }
  int64_t version = checkpointDurableStore(db, backup.path());
  EXPECT_GE(version, versions.back());
  db.run([](Transaction& tr) {
    tr.set(keyOf(100), "after");
    tr.clear(keyOf(0));
  });
  EXPECT_THROW(checkpointDurableStore(Database::open("memory:"), backup.path() + "-x"), Error);

  restoreDurableStore(backup.path(), restored.path());
  EXPECT_THROW(restoreDurableStore(backup.path(), restored.path()), Error);  // not empty
  {
    Database copy = Database::open("file:" + restored.path());
    std::vector<KeyValue> rows = copy.run([](Transaction& tr) {
      return tr.getRangeAll({"k", "l"});
    });
    ASSERT_EQ(rows.size(), 20u);
    EXPECT_EQ(rows.front(), (KeyValue{keyOf(0), "before"}));
    Transaction tr = copy.createTransaction();
    EXPECT_GT(tr.getReadVersion().get(), version);
    tr.set("new", "commit");
    tr.commit().get();
    EXPECT_GT(tr.getCommittedVersion(), version);
  }
  EXPECT_NO_THROW(verifyDurableStore(restored.path()));
  // The source went on.
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get(keyOf(100)).get(); }), "after");
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get(keyOf(0)).get(); }), std::nullopt);
  DurableStoreStats stats = durableStoreStats(db);
  EXPECT_EQ(stats.walSyncs, 0);  // relaxed
  EXPECT_EQ(stats.loggedCommits, 21);
}

// One commit of `mutations` straight to the engine, at its current read version.
int64_t commitAll(Engine& engine, const std::vector<Mutation>& mutations) {
  CommitRequest request;
  request.readVersion = engine.getReadVersion();
  request.selfConflict = false;
  request.mutations = mutations;
  return engine.commit(request);
}

// The commit pipeline's announcement in durable mode: a commit held half-applied, with the
// commit lock held, is invisible to reads, which do not wait for it.
TEST(Durable, ReadsDoNotWaitForACommitBeingApplied) {
  TempDir dir("durable-applying");
  auto clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), relaxed(), clock);
  commitAll(*engine, {{Mutation::Kind::kSet, "a", "old"}, {Mutation::Kind::kSet, "b", "old"}});
  clock->advanceMicros(10);

  test_support::HeldCommit held(
      *engine, {{Mutation::Kind::kSet, "a", "new"}, {Mutation::Kind::kSet, "b", "new"}});
  ASSERT_TRUE(held.isHeld());
  clock->advanceMicros(10);
  int64_t version = engine->getReadVersion();
  std::optional<Bytes> a = engine->read(version).get("a");
  std::optional<Bytes> b = engine->read(version).get("b");
  held.release();
  EXPECT_EQ(a, "old");
  EXPECT_EQ(b, "old");
  int64_t after = engine->getReadVersion();
  EXPECT_EQ(engine->read(after).get("a"), "new");
  EXPECT_EQ(engine->read(after).get("b"), "new");
}

// A durable commit that fails while it is applied (as when reading the base fails) stays
// hidden, half applied as it is, and the engine takes no more commits.
TEST(Durable, AFailureWhileApplyingHidesTheCommitAndStopsCommits) {
  TempDir dir("durable-apply-failure");
  auto clock = std::make_shared<ManualVersionClock>();
  std::shared_ptr<Engine> engine = openDurableEngine(dir.path(), relaxed(), clock);
  commitAll(*engine, {{Mutation::Kind::kSet, "a", "old"}});
  clock->advanceMicros(10);
  engine->setApplyHookForTesting([](size_t index) {
    if (index == 0) throw Error(errors::kIoError, "injected: the base could not be read");
  });
  EXPECT_EQ(errorCode([&] {
              commitAll(*engine,
                        {{Mutation::Kind::kSet, "a", "half"}, {Mutation::Kind::kSet, "b", "half"}});
            }),
            errors::kIoError);
  engine->setApplyHookForTesting(nullptr);
  clock->advanceMicros(1000);
  int64_t version = engine->getReadVersion();
  EXPECT_EQ(engine->read(version).get("a"), "old");
  EXPECT_EQ(errorCode([&] {
              commitAll(*engine, {{Mutation::Kind::kSet, "c", "later"}});
            }),
            errors::kIoError);
  EXPECT_EQ(engine->read(engine->getReadVersion()).get("c"), std::nullopt);
}

}  // namespace
}  // namespace fdb::engine
