// rl::cli::KvShell — `rl kv`'s shell: fdbcli's commands read a line at a time, from a terminal
// or a script piped in (docs/cli.md lists them).
//
//   KvShell shell(options, openKvDatabase(options));
//   bool ok = shell.run(std::cin, /*interactive=*/false);
//
// Outside a transaction every command is its own transaction, run in the retry loop (a
// mutation prints the version it committed at). `begin` opens a transaction that the commands
// then share, as fdbcli's transaction mode: reads see its writes, and nothing is written
// until `commit`; `rollback` discards it, and so does any FoundationDB error while it is open.
// Errors are printed ("rl: error: line N: ...") and the shell goes on.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "fdb/database.h"
#include "fdb/options.h"
#include "kv.h"

namespace rl::cli {

class KvShell {
 public:
  KvShell(KvOptions options, fdb::Database db);

  // Runs every line of `in` until its end or `exit`, prompting on stdout when `interactive`.
  // Returns whether every command succeeded (and no transaction was left open).
  bool run(std::istream& in, bool interactive);

 private:
  struct EnabledOption {
    std::string name;
    fdb::TransactionOption option;
    std::optional<int64_t> value;
  };

  void execute(const std::vector<std::string>& words);
  void setOption(const std::vector<std::string>& words);
  void printStatus();
  void applyOptions(fdb::Transaction& tr) const;

  KvOptions options_;
  fdb::Database db_;
  std::optional<fdb::Transaction> transaction_;    // the one `begin` opened
  int line_ = 0;                                   // the line being run
  int transactionLine_ = 0;                        // the line of its `begin`
  std::vector<EnabledOption> enabled_;             // `option on` outside a transaction: every one
  std::vector<EnabledOption> transactionOptions_;  // `option on` inside: that one only
  bool exit_ = false;
};

}  // namespace rl::cli
