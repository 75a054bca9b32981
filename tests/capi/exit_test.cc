// A process that exits while fdb_run_network still runs on another thread ends (docs/capi.md,
// "The network"): exit_worker.c does that, and the test gives it seconds to go.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace {

// Runs the exit worker with `extraEnvironment` added; its exit status, or nullopt when it is
// still running after `limit` (it is killed then).
std::optional<int> runWorker(const std::vector<std::string>& extraEnvironment,
                             std::chrono::seconds limit) {
  std::vector<std::string> environment(extraEnvironment);
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string worker = RL_CAPI_EXIT_WORKER;
  char* argv[] = {worker.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, worker.c_str(), nullptr, nullptr, argv, envp.data()) != 0) {
    ADD_FAILURE() << "cannot spawn " << worker;
    return -1;
  }
  auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// Without the fix, exit() destroyed the condition variable the network thread waits on,
// which blocks until that thread wakes: never. (Seconds of margin for loaded machines and
// sanitizers; the worker itself takes about a fifth of a second.)
TEST(CapiExit, ExitWithoutStoppingTheNetworkEnds) {
  EXPECT_EQ(runWorker({}, std::chrono::seconds(20)), 0) << "nullopt: the process hung in exit()";
}

// The same with simulated delay: the read completes on the network thread.
TEST(CapiExit, ExitWithoutStoppingTheNetworkEndsAfterDelayedCompletions) {
  EXPECT_EQ(runWorker({"RECORDLAYER_ONE_WAY_DELAY_US=250"}, std::chrono::seconds(20)), 0)
      << "nullopt: the process hung in exit()";
}

}  // namespace
