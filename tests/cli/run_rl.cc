#include "cli/run_rl.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

extern char** environ;

namespace rl::test {
namespace {

// This process's environment, changed by `env`, as "NAME=value" strings.
std::vector<std::string> environmentWith(const Environment& env) {
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    const std::string name(*entry, equals != nullptr ? equals - *entry : std::strlen(*entry));
    if (!env.contains(name)) out.emplace_back(*entry);
  }
  for (const auto& [name, value] : env) {
    if (value) out.push_back(name + "=" + *value);
  }
  return out;
}

// Standard input is `input`, or /dev/null without it.
RunResult run(const std::vector<std::string>& args, const std::optional<std::string>& input,
              const Environment& env = {}) {
  int inPipe[2] = {-1, -1};
  int outPipe[2];
  int errPipe[2];
  if (pipe(outPipe) != 0 || pipe(errPipe) != 0) throw std::runtime_error("pipe failed");
  if (input) {
    if (pipe(inPipe) != 0) throw std::runtime_error("pipe failed");
    signal(SIGPIPE, SIG_IGN);  // if rl exits before reading it all, write fails instead
  }

  std::vector<char*> argv;
  std::string binary = RL_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = environmentWith(env);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (input) {
      dup2(inPipe[0], STDIN_FILENO);
      close(inPipe[0]);
      close(inPipe[1]);
    } else {
      int devNull = open("/dev/null", O_RDONLY);
      dup2(devNull, STDIN_FILENO);
    }
    dup2(outPipe[1], STDOUT_FILENO);
    dup2(errPipe[1], STDERR_FILENO);
    close(outPipe[0]);
    close(errPipe[0]);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(outPipe[1]);
  close(errPipe[1]);
  // The input is written as rl reads it, while its output is read: an input or an output
  // larger than a pipe's buffer cannot block both processes.
  int inFd = -1;
  size_t written = 0;
  if (input) {
    close(inPipe[0]);
    inFd = inPipe[1];
    fcntl(inFd, F_SETFL, fcntl(inFd, F_GETFL) | O_NONBLOCK);
    if (input->empty()) {
      close(inFd);
      inFd = -1;
    }
  }

  RunResult result;
  pollfd fds[3] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}, {inFd, POLLOUT, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    if (poll(fds, 3, -1) < 0) break;
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = write(fds[2].fd, input->data() + written, input->size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN) || written == input->size()) {  // done, or rl is gone
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  if (fds[2].fd >= 0) close(fds[2].fd);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

RunResult runRl(const std::vector<std::string>& args) { return run(args, std::nullopt); }

RunResult runRl(const std::vector<std::string>& args, const Environment& env) {
  return run(args, std::nullopt, env);
}

RunResult runRl(const std::vector<std::string>& args, const std::string& input) {
  return run(args, input);
}

RunResult runRl(const std::vector<std::string>& args, const std::string& input,
                const Environment& env) {
  return run(args, input, env);
}

}  // namespace rl::test
