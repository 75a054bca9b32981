// The crash test: a worker process (crash/durable_crash_worker.cc, spawned with posix_spawn,
// not forked from this one) commits with sync on from several threads and reports each
// commit's start and acknowledgement over a pipe; this process kill -9s it at a random
// instant (often right after a "start", inside the commit's start/ack window), reopens the
// store, and checks that every acknowledged transaction is there whole, that no transaction
// is there in part, and that nothing never started is there at all.
//
// RL_CRASH_CYCLES sets the number of cycles (default 12; the stress run uses 100+),
// RL_CRASH_SEED the seed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/test_support.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/transaction.h"

extern char** environ;

namespace fdb {
namespace {

constexpr int kThreads = 4;
constexpr int64_t kIdsPerCycle = 1'000'000;

int64_t envOr(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoll(value, nullptr, 10) : fallback;
}

struct Worker {
  pid_t pid = 0;
  int output = -1;      // the read end of the worker's stdout
  std::string pending;  // bytes read, not yet a full line

  // Reads what is available within `timeoutMs` and appends the complete lines to `lines`.
  // Returns false at end of file.
  bool readLines(int timeoutMs, std::vector<std::string>* lines) {
    pollfd fd{output, POLLIN, 0};
    if (::poll(&fd, 1, timeoutMs) <= 0) return true;
    char buffer[4096];
    ssize_t n = ::read(output, buffer, sizeof buffer);
    if (n <= 0) return false;
    pending.append(buffer, static_cast<size_t>(n));
    for (size_t newline; (newline = pending.find('\n')) != std::string::npos;) {
      lines->push_back(pending.substr(0, newline));
      pending.erase(0, newline + 1);
    }
    return true;
  }
};

Worker spawnWorker(const std::string& dir, int64_t firstId) {
  int pipeFds[2];
  EXPECT_EQ(::pipe(pipeFds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
  std::string worker = RL_DURABLE_CRASH_WORKER;
  std::string first = std::to_string(firstId);
  std::string threads = std::to_string(kThreads);
  char* argv[] = {worker.data(),
                  const_cast<char*>("commit"),
                  const_cast<char*>(dir.c_str()),
                  first.data(),
                  threads.data(),
                  nullptr};
  Worker spawned;
  EXPECT_EQ(posix_spawn(&spawned.pid, worker.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipeFds[1]);
  spawned.output = pipeFds[0];
  return spawned;
}

TEST(DurableCrash, AcknowledgedCommitsSurviveKill9AndNoneIsPartlyVisible) {
  const int64_t cycles = envOr("RL_CRASH_CYCLES", 12);
  const auto seed = static_cast<uint64_t>(envOr("RL_CRASH_SEED", 8));
  std::mt19937_64 random(seed);
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("durable-crash-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);

  std::set<int64_t> acknowledged;  // over all cycles
  std::set<int64_t> started;
  int64_t killsInWindow = 0;
  for (int64_t cycle = 0; cycle < cycles; ++cycle) {
    Worker worker = spawnWorker(dir.string(), (cycle + 1) * kIdsPerCycle);
    std::vector<std::string> lines;
    // Kill either a random time after the worker opened the store (0 to 60 ms, sometimes
    // before it has finished opening), or right after the k-th "start" line.
    bool killAtStart = random() % 2 == 0;
    int startsToSee = 1 + static_cast<int>(random() % 40);
    auto killAfter = std::chrono::microseconds(random() % 60'000);
    bool ready = random() % 8 == 0;  // 1 in 8: do not wait for "ready" before the clock
    auto deadline = std::chrono::steady_clock::now() + killAfter;
    bool open = true;
    while (open) {
      size_t seen = lines.size();
      open = worker.readLines(1, &lines);
      int starts = 0;
      for (size_t i = seen; i < lines.size(); ++i) {
        if (lines[i] == "ready") {
          ready = true;
          deadline = std::chrono::steady_clock::now() + killAfter;
        }
      }
      for (const std::string& line : lines) starts += line.starts_with("start ");
      if (killAtStart ? starts >= startsToSee
                      : ready && std::chrono::steady_clock::now() >= deadline) {
        break;
      }
    }
    ASSERT_TRUE(open) << "the worker exited by itself";
    ::kill(worker.pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(worker.pid, &status, 0), worker.pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    while (worker.readLines(1000, &lines)) {  // what it wrote before it died
    }
    ::close(worker.output);

    std::set<int64_t> startedThisCycle;
    for (const std::string& line : lines) {
      std::istringstream in(line);
      std::string word;
      int64_t id = 0;
      in >> word >> id;
      if (word == "start") {
        started.insert(id);
        startedThisCycle.insert(id);
      }
      if (word == "ack") acknowledged.insert(id);
    }
    if (!lines.empty() && lines.back().starts_with("start ")) ++killsInWindow;

    // Reopen (recovery) and check every transaction ever started.
    Database db = Database::open("file:" + dir.string());
    std::vector<KeyValue> rows = db.run([](Transaction& tr) {
      return tr.getRangeAll({"tx/", "tx0"});
    });
    std::map<int64_t, int> partsPresent;
    for (const KeyValue& row : rows) {
      int64_t id = std::strtoll(row.key.c_str() + 3, nullptr, 10);
      ASSERT_EQ(row.value, std::to_string(id)) << row.key;
      ++partsPresent[id];
    }
    for (const auto& [id, parts] : partsPresent) {
      ASSERT_TRUE(started.contains(id)) << "transaction " << id << " was never started";
      ASSERT_EQ(parts, id % 5 + 1) << "transaction " << id << " is partly visible";
    }
    for (int64_t id : acknowledged) {
      ASSERT_TRUE(partsPresent.contains(id))
          << "acknowledged transaction " << id << " is missing after cycle " << cycle;
    }
    // Each transaction added 1 to "count" with the rest of its writes.
    int64_t count = engine::test_support::decodeInt64(
        db.run([](Transaction& tr) { return tr.get("count").get(); }));
    ASSERT_EQ(count, static_cast<int64_t>(partsPresent.size()));
  }
  std::cout << "[crash] " << cycles << " cycles, " << acknowledged.size()
            << " acknowledged transactions, " << started.size() << " started, " << killsInWindow
            << " kills right after a start\n";
  EXPECT_GT(acknowledged.size(), 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fdb
