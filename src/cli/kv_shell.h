// rl::cli::KvShell — `rl kv`'s shell: fdbcli's commands read a line at a time, from a terminal
// or a script piped in (docs/cli.md lists them).
//
//   KvShell shell(options, openKvDatabase(options, DatabaseAccess::kReadWrite));
//   bool ok = shell.run(std::cin, /*interactive=*/false);
//
// Outside a transaction every command is its own transaction, run in the retry loop (a
// mutation prints the version it committed at). `begin` opens a transaction that the commands
// then share, as fdbcli's transaction mode: reads see its writes, and nothing is written
// until `commit`; `rollback` discards it, and so does any FoundationDB error while it is open.
// Errors are printed ("rl: error: line N: ...") and the shell goes on.
//
// `watch KEY` sets a FoundationDB watch on KEY (committed at once, or with the open
// transaction). After every line the shell prints the watches that fired since the last one
// ("Watch on `KEY' (line N) fired") after that line's own output, so output never interleaves
// and a script's output is deterministic; `wait` blocks until one fires. Watches that have not
// fired when the shell ends are cancelled.
//
// Thread-safety: one thread at a time (watch callbacks only wake a waiting `wait`).
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
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

  // A watch set by `watch`, until it fires or fails.
  struct Watch {
    int line;  // the line of its `watch`
    fdb::Bytes key;
    fdb::Future<void> future;
    bool pending;  // set in the open transaction, armed only when it commits
  };
  struct WatchSignal;  // wakes `wait` when a watch's future becomes ready

  void execute(const std::vector<std::string>& words);
  void setOption(const std::vector<std::string>& words);
  void printStatus();
  void applyOptions(fdb::Transaction& tr) const;
  void watchKey(const std::vector<std::string>& words);
  void unwatchKey(const std::vector<std::string>& words);
  void listWatches() const;
  void waitForWatch(const std::vector<std::string>& words);
  // Prints the watches that fired (stdout) or failed (stderr) and forgets them. Returns false
  // when one failed.
  bool reportWatches();
  // Forgets the watches of the transaction just discarded, a line on stdout each.
  void dropPendingWatches();

  KvOptions options_;
  fdb::Database db_;
  std::optional<fdb::Transaction> transaction_;    // the one `begin` opened
  int line_ = 0;                                   // the line being run
  int transactionLine_ = 0;                        // the line of its `begin`
  std::vector<EnabledOption> enabled_;             // `option on` outside a transaction: every one
  std::vector<EnabledOption> transactionOptions_;  // `option on` inside: that one only
  bool exit_ = false;
  std::vector<Watch> watches_;  // in the order they were set
  std::shared_ptr<WatchSignal> signal_;
};

}  // namespace rl::cli
