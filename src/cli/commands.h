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

// `rl store create|info`: record stores from a .proto file, their metadata and index states.
void addStoreCommand(CLI::App& app);

// `rl load`: records from NDJSON into a record store.
void addLoadCommand(CLI::App& app);

// `rl get`, `rl delete` and `rl scan`: a record store's records, as JSON.
void addRecordCommands(CLI::App& app);

// `rl query` and `rl explain`: the records a query finds through the plan the planner picks,
// and that plan.
void addQueryCommands(CLI::App& app);

// `rl index build`: an index built from the records (rl::OnlineIndexer); added under the
// `rl index` command that addRecordCommands makes.
void addIndexBuildCommand(CLI::App& index);
// `rl index get`: an aggregate index's value for a group, under `rl index` too.
void addIndexGetCommand(CLI::App& index);

// `rl check`: the Record Layer's consistency check of a record store (rl::StoreChecker).
void addCheckCommand(CLI::App& app);

// `rl keys`: every raw key under a record store, annotated with the layout.
void addKeysCommand(CLI::App& app);

// `rl backup` and `rl restore`: a record store, or the whole database, to a file and back.
void addBackupCommands(CLI::App& app);

// `rl bench campaign`: a benchmark campaign, run by tools/campaign/run (docs/campaigns/).
void addBenchCommand(CLI::App& app);

// `rl completion bash`: a completion script generated from `app`'s commands and options; add
// it last, so that it sees every other command.
void addCompletionCommand(CLI::App& app);

// --db and --path, the options every record-store command takes (store.h).
struct StoreArguments;
void addStoreArguments(CLI::App* command, StoreArguments& args);

}  // namespace rl::cli
