// Runs the `rl` binary built by this tree and captures what it prints.
#pragma once

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

// Runs `rl args...` with `input` as its standard input (written whole before the output is
// read, so it should fit a pipe's buffer: at most a few tens of kilobytes).
RunResult runRl(const std::vector<std::string>& args, const std::string& input);

}  // namespace rl::test
