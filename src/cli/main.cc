// `rl`: the RecordLayer for C++ command line.
//
// User errors (bad input, FoundationDB errors) print one line, "rl: error: ...", and exit
// with status 1; usage errors exit as CLI11 decides (status 2 when no subcommand fits).
#include <cstdio>
#include <exception>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "commands.h"
#include "rl/record/heap_retention.h"
#include "version.h"

int main(int argc, char** argv) {
  // Scans of large records reuse the memory the previous batch freed instead of faulting it in
  // again (docs/benchmarks.md, "Large records and the allocator"); the environment's own
  // malloc settings win.
  rl::retainFreedHeap();
  CLI::App app{"rl: RecordLayer for C++ — a record store on FoundationDB semantics"};
  app.require_subcommand(1);
  app.set_version_flag("--version", rl::cli::versionText(),
                       "Print the version, the commit and what is built in");
  rl::cli::addDemoCommand(app);
  rl::cli::addStoreCommand(app);
  rl::cli::addLoadCommand(app);
  rl::cli::addRecordCommands(app);
  rl::cli::addQueryCommands(app);
  rl::cli::addCheckCommand(app);
  rl::cli::addKeysCommand(app);
  rl::cli::addBackupCommands(app);
  rl::cli::addKvCommand(app);
  rl::cli::addTupleCommand(app);
  rl::cli::addBenchCommand(app);
  rl::cli::addCompletionCommand(app);  // last: it lists the commands above

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "rl: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
