// The subcommands of `rl`: each adds itself to the application.
#pragma once

#include <CLI/CLI.hpp>

namespace rl::cli {

// `rl tuple pack|unpack`: FoundationDB's tuple encoding from the command line.
void addTupleCommand(CLI::App& app);

// `rl demo`: the main job; a store, an index, both fetch methods measured (docs/cli.md).
void addDemoCommand(CLI::App& app);

// `rl kv`: fdbcli's get, set, clear, clearrange, getrange and getrangekeys on raw keys.
void addKvCommand(CLI::App& app);

}  // namespace rl::cli
