#include "kv_shell.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fdb/error.h"
#include "printable.h"
#include "table.h"

namespace rl::cli {
namespace {

// The transaction options `option` knows, by FoundationDB's names (fdb.options).
struct OptionInfo {
  std::string_view name;
  fdb::TransactionOption option;
  bool takesInteger;
};

constexpr OptionInfo kOptions[] = {
    {"ACCESS_SYSTEM_KEYS", fdb::TransactionOption::kAccessSystemKeys, false},
    {"READ_SYSTEM_KEYS", fdb::TransactionOption::kReadSystemKeys, false},
    {"READ_YOUR_WRITES_DISABLE", fdb::TransactionOption::kReadYourWritesDisable, false},
    {"CAUSAL_READ_RISKY", fdb::TransactionOption::kCausalReadRisky, false},
    {"CAUSAL_WRITE_RISKY", fdb::TransactionOption::kCausalWriteRisky, false},
    {"NEXT_WRITE_NO_WRITE_CONFLICT_RANGE", fdb::TransactionOption::kNextWriteNoWriteConflictRange,
     false},
    {"PRIORITY_BATCH", fdb::TransactionOption::kPriorityBatch, false},
    {"PRIORITY_SYSTEM_IMMEDIATE", fdb::TransactionOption::kPrioritySystemImmediate, false},
    {"SNAPSHOT_RYW_ENABLE", fdb::TransactionOption::kSnapshotRywEnable, false},
    {"SNAPSHOT_RYW_DISABLE", fdb::TransactionOption::kSnapshotRywDisable, false},
    {"LOCK_AWARE", fdb::TransactionOption::kLockAware, false},
    {"READ_LOCK_AWARE", fdb::TransactionOption::kReadLockAware, false},
    {"REPORT_CONFLICTING_KEYS", fdb::TransactionOption::kReportConflictingKeys, false},
    {"SPECIAL_KEY_SPACE_RELAXED", fdb::TransactionOption::kSpecialKeySpaceRelaxed, false},
    {"SPECIAL_KEY_SPACE_ENABLE_WRITES", fdb::TransactionOption::kSpecialKeySpaceEnableWrites,
     false},
    {"TIMEOUT", fdb::TransactionOption::kTimeout, true},
    {"RETRY_LIMIT", fdb::TransactionOption::kRetryLimit, true},
    {"MAX_RETRY_DELAY", fdb::TransactionOption::kMaxRetryDelay, true},
    {"SIZE_LIMIT", fdb::TransactionOption::kSizeLimit, true},
};

const OptionInfo& findOption(const std::string& typed) {
  std::string name = typed;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const OptionInfo& info : kOptions) {
    if (info.name == name) return info;
  }
  std::string known;
  for (const OptionInfo& info : kOptions)
    known += fmt::format("{}{}", known.empty() ? "" : ", ", info.name);
  throw std::invalid_argument(fmt::format("unknown option '{}'; options: {}", typed, known));
}

int64_t parseInteger(const std::string& text, std::string_view what) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument(fmt::format("{} '{}' is not an integer", what, text));
  }
  return value;
}

// A line's words: separated by spaces; "double quotes" group spaces into a word (\" is a
// quote in it); with tuples, a word that starts with '(' runs to its matching ')', strings in
// it included, so ("orders", 42) is one word.
std::vector<std::string> splitWords(std::string_view line, bool tuples) {
  std::vector<std::string> words;
  size_t i = 0;
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (true) {
    while (i < line.size() && isSpace(line[i])) ++i;
    if (i == line.size()) break;
    std::string word;
    if (line[i] == '"') {
      size_t start = i++;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) {
          word += line[i + 1] == '"' ? std::string_view("\\x22") : line.substr(i, 2);
          i += 2;
        } else {
          word += line[i++];
        }
      }
      if (i == line.size()) {
        throw std::invalid_argument(
            fmt::format("a quote at character {} is not closed", start + 1));
      }
      ++i;
    } else if (tuples && line[i] == '(') {
      size_t start = i;
      int depth = 0;
      bool inString = false;
      for (; i < line.size(); ++i) {
        const char c = line[i];
        if (inString) {
          if (c == '\\') {
            ++i;
          } else if (c == '"') {
            inString = false;
          }
        } else if (c == '"') {
          inString = true;
        } else if (c == '(') {
          ++depth;
        } else if (c == ')' && --depth == 0) {
          ++i;
          break;
        }
      }
      if (depth != 0) {
        throw std::invalid_argument(
            fmt::format("the tuple at character {} is not closed", start + 1));
      }
      word = std::string(line.substr(start, i - start));
    } else {
      while (i < line.size() && !isSpace(line[i])) word += line[i++];
    }
    words.push_back(std::move(word));
  }
  return words;
}

constexpr std::string_view kHelp =
    "Commands (keys and values in printable form, \\xNN for a byte; with --tuple, keys are "
    "tuples):\n"
    "  get KEY                          print a key's value\n"
    "  set KEY VALUE                    set a key\n"
    "  clear KEY                        clear a key\n"
    "  clearrange BEGIN END             clear the keys in [BEGIN, END)\n"
    "  getrange BEGIN [END] [LIMIT]     print the keys and values in [BEGIN, END), 25 by "
    "default\n"
    "  getrangekeys BEGIN [END] [LIMIT] the same, keys only\n"
    "  begin                            open a transaction the next commands share\n"
    "  commit                           commit it\n"
    "  rollback                         discard it\n"
    "  option [on|off NAME [VALUE]]     list, enable or disable a transaction option\n"
    "  watch KEY                        print a line when KEY's value changes (checked after "
    "each line)\n"
    "  unwatch KEY                      cancel the watches on KEY that have not fired\n"
    "  watches                          the watches that have not fired\n"
    "  wait [SECONDS]                   wait until a watch fires, or at most SECONDS\n"
    "  status                           the store, the transaction and the options\n"
    "  help                             this list\n"
    "  exit, quit                       leave (an open transaction is not committed)\n";

void usage(const std::vector<std::string>& words, size_t least, size_t most,
           std::string_view arguments) {
  if (words.size() - 1 < least || words.size() - 1 > most) {
    if (arguments.empty()) {
      throw std::invalid_argument(fmt::format("{} takes no arguments", words[0]));
    }
    throw std::invalid_argument(fmt::format("usage: {} {}", words[0], arguments));
  }
}

constexpr int kTooManyWatches = 1032;  // too_many_watches
constexpr double kMaxWaitSeconds = 1'000'000;

}  // namespace

// Watch futures become ready on whichever thread completes them; their callbacks only wake a
// `wait` through this. Everything is printed by the shell's own thread.
struct KvShell::WatchSignal {
  std::mutex mutex;
  std::condition_variable ready;

  void notify() {
    { std::lock_guard lock(mutex); }  // a waiter between its check and its wait sees it
    ready.notify_all();
  }
};

KvShell::KvShell(KvOptions options, fdb::Database db)
    : options_(std::move(options)), db_(std::move(db)), signal_(std::make_shared<WatchSignal>()) {}

bool KvShell::run(std::istream& in, bool interactive) {
  bool ok = true;
  std::string line;
  while (!exit_) {
    if (interactive) {
      fmt::print("rl kv{}> ", transaction_ ? " (transaction)" : "");
      std::fflush(stdout);
    }
    if (!std::getline(in, line)) break;
    ++line_;
    try {
      std::vector<std::string> words = splitWords(line, options_.tuple);
      if (!words.empty() && !words[0].starts_with('#')) execute(words);
    } catch (const std::exception& e) {
      std::string message = e.what();
      const bool rolledBack = transaction_ && dynamic_cast<const fdb::Error*>(&e) != nullptr;
      if (rolledBack) {
        transaction_.reset();  // a FoundationDB error ends the transaction, as in fdbcli
        message +=
            fmt::format(" (the transaction begun at line {} is rolled back)", transactionLine_);
      }
      std::fflush(stdout);
      fmt::print(stderr, "rl: error: line {}: {}\n", line_, message);
      ok = false;
      if (rolledBack) dropPendingWatches();
    }
    // After every line, even an empty one (at a terminal, Enter shows what fired).
    if (!reportWatches()) ok = false;
    std::fflush(stdout);
  }
  if (interactive && !exit_) fmt::print("\n");
  if (transaction_) {
    std::fflush(stdout);
    fmt::print(stderr,
               "rl: error: the transaction begun at line {} was not committed; its writes are "
               "discarded\n",
               transactionLine_);
    transaction_.reset();
    dropPendingWatches();
    ok = false;
  }
  if (!watches_.empty()) {
    constexpr size_t kNamed = 10;  // the rest are counted
    std::string which;
    for (size_t i = 0; i < std::min(watches_.size(), kNamed); ++i) {
      which += fmt::format("{}{} (line {})", which.empty() ? "" : ", ",
                           showKey(options_, watches_[i].key), watches_[i].line);
    }
    if (watches_.size() > kNamed) {
      which +=
          fmt::format(" and {} more", groupDigits(static_cast<int64_t>(watches_.size() - kNamed)));
    }
    std::fflush(stdout);
    fmt::print(
        stderr, "rl kv: {} not fired when the shell ended; cancelled: {}\n",
        watches_.size() == 1
            ? "1 watch had"
            : fmt::format("{} watches had", groupDigits(static_cast<int64_t>(watches_.size()))),
        which);
    watches_.clear();  // dropping a watch's future cancels it
  }
  return ok;
}

void KvShell::applyOptions(fdb::Transaction& tr) const {
  for (const EnabledOption& enabled : enabled_) {
    if (enabled.value) {
      tr.setOption(enabled.option, *enabled.value);
    } else {
      tr.setOption(enabled.option);
    }
  }
}

void KvShell::execute(const std::vector<std::string>& words) {
  const std::string& command = words[0];

  // A read: in the open transaction, or in its own.
  auto read = [&](auto&& fn) {
    if (transaction_) return fn(*transaction_);
    return db_.run([&](fdb::Transaction& tr) {
      applyOptions(tr);
      return fn(tr);
    });
  };
  // A write: into the open transaction (committed with it), or committed now.
  auto write = [&](auto&& fn) {
    if (transaction_) {
      fn(*transaction_);
      return;
    }
    printCommitted(options_, commitWithRetry(db_, [&](fdb::Transaction& tr) {
                     applyOptions(tr);
                     fn(tr);
                   }));
  };
  auto rangeArguments = [&] {
    usage(words, 1, 3, "BEGIN [END] [LIMIT]");
    const int limit = words.size() > 3 ? static_cast<int>(parseInteger(words[3], "the limit"))
                                       : kDefaultRangeLimit;
    checkLimit(limit);
    std::optional<std::string> end;
    if (words.size() > 2) end = words[2];
    return std::pair(parseRange(options_, words[1], end), limit);
  };

  if (command == "get") {
    usage(words, 1, 1, "KEY");
    const fdb::Bytes key = parseKey(options_, words[1]);
    printValue(options_, key, read([&](fdb::Transaction& tr) { return tr.get(key).get(); }));
  } else if (command == "set") {
    usage(words, 2, 2, "KEY VALUE");
    const fdb::Bytes key = parseKey(options_, words[1]);
    const fdb::Bytes value = parsePrintable(words[2]);
    write([&](fdb::Transaction& tr) { tr.set(key, value); });
  } else if (command == "clear") {
    usage(words, 1, 1, "KEY");
    const fdb::Bytes key = parseKey(options_, words[1]);
    write([&](fdb::Transaction& tr) { tr.clear(key); });
  } else if (command == "clearrange") {
    usage(words, 2, 2, "BEGIN END");
    const fdb::KeyRange range = parseRange(options_, words[1], words[2]);
    write([&](fdb::Transaction& tr) { tr.clearRange(range); });
  } else if (command == "getrange" || command == "getrangekeys") {
    // Not a structured binding: the lambda below captures them (clang refuses that before 16).
    const std::pair<fdb::KeyRange, int> arguments = rangeArguments();
    const fdb::KeyRange& range = arguments.first;
    const int limit = arguments.second;
    std::vector<fdb::KeyValue> rows =
        read([&](fdb::Transaction& tr) { return readRange(tr, range, limit, /*reverse=*/false); });
    printRange(options_, std::move(rows), limit, command == "getrangekeys");
  } else if (command == "begin") {
    usage(words, 0, 0, "");
    if (transaction_) {
      throw std::invalid_argument(
          fmt::format("a transaction is already open (begun at line {}); commit or rollback first",
                      transactionLine_));
    }
    transaction_ = db_.createTransaction();
    applyOptions(*transaction_);
    transactionOptions_.clear();
    transactionLine_ = line_;
    fmt::print("Transaction started\n");
  } else if (command == "commit") {
    usage(words, 0, 0, "");
    if (!transaction_) throw std::invalid_argument("no transaction is open (begin opens one)");
    transaction_->commit().get();
    const int64_t version = transaction_->getCommittedVersion();
    transaction_.reset();
    for (Watch& watch : watches_) watch.pending = false;  // armed by the commit
    printCommitted(options_, version);
  } else if (command == "rollback") {
    usage(words, 0, 0, "");
    if (!transaction_) throw std::invalid_argument("no transaction is open (begin opens one)");
    transaction_.reset();
    fmt::print("Transaction rolled back\n");
    dropPendingWatches();
  } else if (command == "option") {
    setOption(words);
  } else if (command == "watch") {
    watchKey(words);
  } else if (command == "unwatch") {
    unwatchKey(words);
  } else if (command == "watches") {
    usage(words, 0, 0, "");
    listWatches();
  } else if (command == "wait") {
    waitForWatch(words);
  } else if (command == "status") {
    usage(words, 0, 0, "");
    printStatus();
  } else if (command == "help") {
    fmt::print("{}", kHelp);
  } else if (command == "exit" || command == "quit") {
    exit_ = true;
  } else {
    throw std::invalid_argument(
        fmt::format("unknown command '{}' (help lists the commands)", command));
  }
}

void KvShell::setOption(const std::vector<std::string>& words) {
  if (words.size() == 1) {
    std::vector<const EnabledOption*> shown;
    for (const EnabledOption& o : enabled_) shown.push_back(&o);
    if (transaction_) {
      for (const EnabledOption& o : transactionOptions_) shown.push_back(&o);
    }
    if (shown.empty()) {
      fmt::print("There are no options enabled\n");
      return;
    }
    fmt::print("Enabled options:\n");
    for (const EnabledOption* o : shown) {
      fmt::print("  {}{}\n", o->name, o->value ? fmt::format(" {}", *o->value) : "");
    }
    return;
  }
  usage(words, 2, 3, "[on|off NAME [VALUE]]");
  const bool on = words[1] == "on";
  if (!on && words[1] != "off") {
    throw std::invalid_argument(
        fmt::format("option takes on or off before the option's name, not '{}'", words[1]));
  }
  const OptionInfo& info = findOption(words[2]);
  std::optional<int64_t> value;
  if (on && info.takesInteger) {
    if (words.size() != 4) {
      throw std::invalid_argument(fmt::format("option on {} takes an integer", info.name));
    }
    value = parseInteger(words[3], info.name);
  } else if (words.size() == 4) {
    throw std::invalid_argument(fmt::format("option {} {} takes no value", words[1], info.name));
  }
  EnabledOption enabled{std::string(info.name), info.option, value};
  auto sameOption = [&](const EnabledOption& o) { return o.option == info.option; };

  if (transaction_) {
    if (!on) {
      throw std::invalid_argument(
          "options cannot be turned off in a transaction begun with begin (rollback first)");
    }
    if (value) {
      transaction_->setOption(info.option, *value);
    } else {
      transaction_->setOption(info.option);
    }
    std::erase_if(transactionOptions_, sameOption);
    transactionOptions_.push_back(std::move(enabled));
    fmt::print("Option enabled for the current transaction\n");
    return;
  }
  std::erase_if(enabled_, sameOption);
  if (on) {
    // Checked now, on a transaction of its own, so that a value the engine refuses is an error
    // here rather than in every later command.
    fdb::Transaction probe = db_.createTransaction();
    if (value) {
      probe.setOption(info.option, *value);
    } else {
      probe.setOption(info.option);
    }
    enabled_.push_back(std::move(enabled));
    fmt::print("Option enabled for all transactions\n");
  } else {
    fmt::print("Option disabled for all transactions\n");
  }
}

void KvShell::printStatus() {
  fmt::print("Store: {}\n", options_.db);
  if (transaction_) {
    fmt::print("Transaction: open (begun at line {}), read version {}, about {} bytes\n",
               transactionLine_, transaction_->getReadVersion().get(),
               transaction_->getApproximateSize().get());
  } else {
    fmt::print("Transaction: none (each command commits on its own)\n");
  }
  std::string names;
  for (const EnabledOption& o : enabled_) {
    names += fmt::format("{}{}{}", names.empty() ? "" : ", ", o.name,
                         o.value ? fmt::format(" {}", *o.value) : "");
  }
  if (transaction_) {
    for (const EnabledOption& o : transactionOptions_) {
      names += fmt::format("{}{}{} (this transaction)", names.empty() ? "" : ", ", o.name,
                           o.value ? fmt::format(" {}", *o.value) : "");
    }
  }
  fmt::print("Options: {}\n", names.empty() ? "none" : names);
  fmt::print("Keys: {}\n", options_.tuple ? "tuples (--tuple)" : "printable bytes");
  fmt::print("Watches: {}\n",
             watches_.empty() ? std::string("none")
                              : fmt::format("{} not fired (watches lists them)",
                                            groupDigits(static_cast<int64_t>(watches_.size()))));
}

void KvShell::watchKey(const std::vector<std::string>& words) {
  usage(words, 1, 1, "KEY");
  const fdb::Bytes key = parseKey(options_, words[1]);
  std::optional<fdb::Future<void>> future;
  std::optional<fdb::Bytes> value;
  // The watch compares with what the transaction sees now, which is also what is printed.
  auto setWatch = [&](fdb::Transaction& tr) {
    fdb::Future<void> watch = tr.watch(key);
    if (std::optional<fdb::Error> error = watch.error()) throw *error;  // refused at once
    value = tr.get(key).get();
    future = std::move(watch);
  };
  try {
    if (transaction_) {
      setWatch(*transaction_);
    } else {
      // A watch is armed when its transaction commits (FoundationDB's rule), so it commits
      // now, in the retry loop; a retried attempt sets it again.
      commitWithRetry(db_, [&](fdb::Transaction& tr) {
        applyOptions(tr);
        setWatch(tr);
      });
    }
  } catch (const fdb::Error& e) {
    if (e.code() != kTooManyWatches) throw;
    throw fdb::Error(e.code(), fmt::format("{}; this shell has {} watches that have not fired "
                                           "(watches lists them)",
                                           e.detail().empty() ? e.description() : e.detail(),
                                           groupDigits(static_cast<int64_t>(watches_.size()))));
  }
  Watch watch{line_, key, std::move(*future), transaction_.has_value()};
  watch.future.onReady([signal = signal_] { signal->notify(); });
  if (options_.json) {
    nlohmann::json event = {{"watch", "set"}, {"line", line_}};
    event.update(jsonKey(options_, key));
    event["value"] = value ? nlohmann::json(fdb::printable(*value)) : nlohmann::json(nullptr);
    event["active"] = !watch.pending;
    printJson(event);
  } else {
    fmt::print("Watching {} ({}){}\n", showKey(options_, key),
               value ? fmt::format("value `{}'", fdb::printable(*value)) : "not found",
               watch.pending ? " once the transaction commits" : "");
  }
  watches_.push_back(std::move(watch));
}

void KvShell::unwatchKey(const std::vector<std::string>& words) {
  usage(words, 1, 1, "KEY");
  const fdb::Bytes key = parseKey(options_, words[1]);
  // Dropping a watch's future cancels it. One that fired meanwhile stays, to be reported as
  // fired after this line.
  std::vector<int> lines;
  std::erase_if(watches_, [&](const Watch& watch) {
    if (watch.key != key || watch.future.isReady()) return false;
    lines.push_back(watch.line);
    return true;
  });
  if (options_.json) {
    nlohmann::json event = {{"watch", "cancelled"}, {"lines", lines}};
    event.update(jsonKey(options_, key));
    printJson(event);
  } else if (lines.empty()) {
    fmt::print("There are no watches on {}\n", showKey(options_, key));
  } else if (lines.size() == 1) {
    fmt::print("Cancelled the watch on {} (line {})\n", showKey(options_, key), lines[0]);
  } else {
    fmt::print("Cancelled {} watches on {} (lines {})\n", lines.size(), showKey(options_, key),
               fmt::join(lines, ", "));
  }
}

void KvShell::listWatches() const {
  if (options_.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Watch& watch : watches_) {
      nlohmann::json row = {{"line", watch.line}};
      row.update(jsonKey(options_, watch.key));
      row["active"] = !watch.pending;
      list.push_back(std::move(row));
    }
    printJson(list);
    return;
  }
  if (watches_.empty()) {
    fmt::print("There are no watches\n");
    return;
  }
  fmt::print("Watches that have not fired:\n");
  for (const Watch& watch : watches_) {
    fmt::print("  {} (line {}){}\n", showKey(options_, watch.key), watch.line,
               watch.pending ? ", once the transaction commits" : "");
  }
}

void KvShell::waitForWatch(const std::vector<std::string>& words) {
  usage(words, 0, 1, "[SECONDS]");
  std::optional<double> seconds;
  if (words.size() == 2) {
    double parsed = -1;
    const std::string& text = words[1];
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(parsed) ||
        parsed < 0 || parsed > kMaxWaitSeconds) {
      throw std::invalid_argument(
          fmt::format("wait takes a number of seconds from 0 to 1000000, not '{}'", text));
    }
    seconds = parsed;
  }
  if (transaction_) {
    throw std::invalid_argument(
        "wait cannot run in a transaction: its watches are armed only when it commits (commit "
        "or rollback first)");
  }
  // None left: every watch fired (and was printed) already, so `watch K`, `set K v`, `wait`
  // prints the same whether the watch fired before the `wait` (on fdb: it may fire on the
  // network thread a little after the commit) or during it.
  if (watches_.empty()) return;
  if (!seconds && !options_.db.starts_with("fdb:")) {
    // Only this process opens a memory: or file: store, and the shell's own writes fire their
    // watches before the next line: nothing could end the wait.
    throw std::invalid_argument(fmt::format(
        "wait needs SECONDS here: only this shell writes to the store ({}), so no other client "
        "can fire a watch",
        options_.db));
  }
  auto fired = [&] {
    return std::any_of(watches_.begin(), watches_.end(),
                       [](const Watch& watch) { return watch.future.isReady(); });
  };
  std::unique_lock lock(signal_->mutex);
  if (!seconds) {
    signal_->ready.wait(lock, fired);
  } else if (!signal_->ready.wait_for(lock, std::chrono::duration<double>(*seconds), fired)) {
    fmt::print("No watch fired in {} s\n", *seconds);
  }
}

bool KvShell::reportWatches() {
  bool ok = true;
  std::vector<Watch> notFired;
  for (Watch& watch : watches_) {
    if (!watch.future.isReady()) {
      notFired.push_back(std::move(watch));
      continue;
    }
    if (std::optional<fdb::Error> error = watch.future.error()) {
      std::fflush(stdout);
      fmt::print(stderr, "rl: error: line {}: the watch on {} failed: {}\n", watch.line,
                 showKey(options_, watch.key), error->what());
      ok = false;
    } else if (options_.json) {
      nlohmann::json event = {{"watch", "fired"}, {"line", watch.line}};
      event.update(jsonKey(options_, watch.key));
      printJson(event);
    } else {
      fmt::print("Watch on {} (line {}) fired\n", showKey(options_, watch.key), watch.line);
    }
  }
  watches_ = std::move(notFired);
  return ok;
}

void KvShell::dropPendingWatches() {
  std::vector<Watch> kept;
  for (Watch& watch : watches_) {
    // One that fired on a write of the transaction before it ended is reported as fired.
    if (!watch.pending || (watch.future.isReady() && !watch.future.error())) {
      kept.push_back(std::move(watch));
      continue;
    }
    if (options_.json) {
      nlohmann::json event = {{"watch", "dropped"}, {"line", watch.line}};
      event.update(jsonKey(options_, watch.key));
      printJson(event);
    } else {
      fmt::print("Watch on {} (line {}) dropped with the transaction\n",
                 showKey(options_, watch.key), watch.line);
    }
  }
  watches_ = std::move(kept);
}

}  // namespace rl::cli
