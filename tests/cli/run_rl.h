// Runs the `rl` binary built by this tree and captures what it prints.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rl::test {

struct RunResult {
  int exitCode = -1;  // the exit status, or -1 if `rl` did not exit normally
  std::string out;
  std::string err;
};

// Runs `rl args...` with no standard input.
RunResult runRl(const std::vector<std::string>& args);

// Changes to the environment `rl` inherits: a variable set to a value, or removed (nullopt).
using Environment = std::map<std::string, std::optional<std::string>>;

// Runs `rl args...` with no standard input, in this process's environment changed by `env`.
RunResult runRl(const std::vector<std::string>& args, const Environment& env);

// Runs `rl args...` with `input` as its standard input (written as rl reads it, so it may be of
// any size).
RunResult runRl(const std::vector<std::string>& args, const std::string& input);

// The same, in this process's environment changed by `env`.
RunResult runRl(const std::vector<std::string>& args, const std::string& input,
                const Environment& env);

// Where runRlOnTerminal puts `rl`'s standard output: on the same terminal as its standard
// error (as at an interactive shell), or in a pipe of its own.
enum class TerminalStdout { kTerminal, kPipe };

// Runs `rl args...` with its standard error on a pseudo-terminal (posix_openpt, in raw mode:
// bytes arrive as written, no "\n" -> "\r\n"), standard input /dev/null. What the terminal
// showed is in `err` (and the output too with kTerminal, `out` then empty); with kPipe, `out`
// is standard output alone.
RunResult runRlOnTerminal(const std::vector<std::string>& args, TerminalStdout stdoutTo);

}  // namespace rl::test
