#include "cli/run_rl.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

extern char** environ;

namespace rl::test {
namespace {

// This process's environment, changed by `env`, as "NAME=value" strings.
// The rl binary and `args` as execv wants them (NUL-terminated, null-ended, writable).
class CommandLine {
 public:
  explicit CommandLine(const std::vector<std::string>& args) : strings_{RL_BINARY} {
    strings_.insert(strings_.end(), args.begin(), args.end());
    for (std::string& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  char* const* argv() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

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

  CommandLine commandLine(args);
  char* const* argv = commandLine.argv();
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
    execve(argv[0], argv, envp.data());
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

// Reads `fds` until each is closed (a pseudo-terminal's master reads EIO once every slave
// descriptor is closed), appending to sinks[i].
void readAll(std::vector<pollfd> fds, const std::vector<std::string*>& sinks) {
  size_t open = fds.size();
  while (open > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

}  // namespace

RunResult runRlOnTerminal(const std::vector<std::string>& args, TerminalStdout stdoutTo) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    throw std::runtime_error("no pseudo-terminal");
  }
  const char* slaveName = ptsname(master);
  if (slaveName == nullptr) throw std::runtime_error("ptsname failed");
  const std::string slavePath = slaveName;
  const int slave = open(slavePath.c_str(), O_RDWR | O_NOCTTY);
  if (slave < 0) throw std::runtime_error("cannot open " + slavePath);
  termios raw{};
  if (tcgetattr(slave, &raw) == 0) {
    cfmakeraw(&raw);
    tcsetattr(slave, TCSANOW, &raw);
  }
  int outPipe[2] = {-1, -1};
  if (stdoutTo == TerminalStdout::kPipe && pipe(outPipe) != 0) {
    throw std::runtime_error("pipe failed");
  }

  CommandLine commandLine(args);
  char* const* argv = commandLine.argv();

  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setsid();  // a session of its own, so the terminal is no one else's concern
    int devNull = open("/dev/null", O_RDONLY);
    dup2(devNull, STDIN_FILENO);
    dup2(stdoutTo == TerminalStdout::kPipe ? outPipe[1] : slave, STDOUT_FILENO);
    dup2(slave, STDERR_FILENO);
    close(master);
    close(slave);
    if (outPipe[0] >= 0) {
      close(outPipe[0]);
      close(outPipe[1]);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  close(slave);  // the master reads EIO once the child's copies are closed too
  RunResult result;
  std::vector<pollfd> fds = {{master, POLLIN, 0}};
  std::vector<std::string*> sinks = {&result.err};
  if (outPipe[0] >= 0) {
    close(outPipe[1]);
    fds.push_back({outPipe[0], POLLIN, 0});
    sinks.push_back(&result.out);
  }
  readAll(std::move(fds), sinks);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

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
