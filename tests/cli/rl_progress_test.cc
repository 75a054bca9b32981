// Progress bars (src/cli/progress.h) appear only when standard error is a terminal: these tests
// run `rl` with standard error on a pseudo-terminal (run_rl.h's runRlOnTerminal) and check what
// the terminal was sent — every state of the bar well formed, the last one full, with the final
// count — and that the command's own output and result are what they are without a terminal;
// and that without one no bar is drawn. No timing: a bar is redrawn at most 20 times a second,
// so how many states appear varies, but the first and the last are always drawn.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli/run_rl.h"
#include "cli/shop_test_store.h"

namespace rl::test {
namespace {

constexpr int kRecords = 2'000;

// 1234567 -> "1,234,567", as rl prints counts.
std::string grouped(int64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return digits;
}

// The states a terminal was sent: what follows each "\r" (a redraw from the line's start).
std::vector<std::string> drawnStates(const std::string& terminal) {
  std::vector<std::string> states;
  size_t at = terminal.find('\r');
  while (at != std::string::npos) {
    const size_t next = terminal.find('\r', at + 1);
    states.push_back(terminal.substr(at + 1, next == std::string::npos ? next : next - at - 1));
    at = next;
  }
  return states;
}

class RlProgress : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = "file:" + (dir_ / "db").string();
    std::ofstream ndjson(dir_ / "orders.ndjson");
    for (int id = 1; id <= kRecords; ++id) {
      ndjson << "{\"id\": " << id << ", \"price\": " << id * 10 << ", \"customer\": \"c" << id % 7
             << "\"}\n";
    }
    ndjson.close();
    ndjsonBytes_ = static_cast<int64_t>(std::filesystem::file_size(dir_ / "orders.ndjson"));
    RunResult created = runRl({"store", "create", "--db", db_, "--path", kStore, "--proto",
                               (dir_ / "orders.proto").string()});
    ASSERT_EQ(created.exitCode, 0) << created.err;
  }

  std::vector<std::string> load() const {
    return {"load", "--db", db_, "--path", kStore, (dir_ / "orders.ndjson").string()};
  }
  std::string loaded() const {
    return "Loaded " + grouped(kRecords) +
           " Order records into (\"shop\", \"orders\") in 4 transactions.\n";
  }

  // Every state of a load's bar: "loading [###---]  NN%  done/total  bytes, N records saved"
  // then an erase to the end of the line; the percentages never go down; the last is full.
  void expectLoadBar(const std::string& terminal) const {
    const std::vector<std::string> states = drawnStates(terminal);
    ASSERT_FALSE(states.empty()) << terminal;
    const std::regex state("loading \\[([#-]{30})\\] +(\\d+)%  ([\\d,]+)/" + grouped(ndjsonBytes_) +
                           "  bytes, ([\\d,]+) records saved\x1b\\[K(\n.*)?");
    int lastPercent = -1;
    for (const std::string& drawn : states) {
      std::smatch match;
      ASSERT_TRUE(std::regex_match(drawn, match, state)) << drawn;
      const int percent = std::stoi(match[2]);
      EXPECT_GE(percent, lastPercent) << drawn;
      // The bar has a # for each full 1/30 of the total.
      const std::string bar = match[1];
      EXPECT_EQ(bar.find_first_not_of('#'), bar.find('-')) << drawn;
      lastPercent = percent;
    }
    const std::string full = "loading [" + std::string(30, '#') + "] 100%  " +
                             grouped(ndjsonBytes_) + "/" + grouped(ndjsonBytes_) + "  bytes, " +
                             grouped(kRecords) + " records saved\x1b[K\n";
    EXPECT_TRUE(states.back().starts_with(full)) << states.back();
  }

  std::string db_;
  int64_t ndjsonBytes_ = 0;
};

TEST_F(RlProgress, LoadDrawsABarOnATerminalAndItsSummaryOnStandardOutput) {
  const RunResult r = runRlOnTerminal(load(), TerminalStdout::kPipe);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, loaded());
  expectLoadBar(r.err);
  // The bar's line is ended, and nothing else went to the terminal.
  EXPECT_TRUE(r.err.starts_with("\rloading [")) << r.err;
  EXPECT_TRUE(r.err.ends_with(" records saved\x1b[K\n")) << r.err;
  // Every record was saved, as without a terminal.
  const RunResult check = runRl({"check", "--db", db_, "--path", kStore});
  EXPECT_EQ(check.exitCode, 0) << check.out;
  EXPECT_NE(check.out.find(": 2,000 records (4,000 keys), 2,000 index entries expected"),
            std::string::npos)
      << check.out;
}

TEST_F(RlProgress, WithStandardOutputOnTheTerminalTooTheSummaryFollowsTheBarsLine) {
  const RunResult r = runRlOnTerminal(load(), TerminalStdout::kTerminal);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_TRUE(r.err.ends_with(" records saved\x1b[K\n" + loaded())) << r.err;
  expectLoadBar(r.err.substr(0, r.err.size() - loaded().size()));
}

TEST_F(RlProgress, DemoDrawsItsSavingBarOnATerminal) {
  const RunResult r = runRlOnTerminal({"demo", "--db", "memory:", "--no-delay", "--records", "300"},
                                      TerminalStdout::kPipe);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Both fetch methods returned the orders saved, row for row, in every scan."),
            std::string::npos)
      << r.out;
  const std::vector<std::string> states = drawnStates(r.err);
  ASSERT_FALSE(states.empty()) << r.err;
  for (const std::string& drawn : states) {
    EXPECT_TRUE(std::regex_match(drawn, std::regex("saving orders \\[[#-]{30}\\] +\\d+%  "
                                                   "[\\d,]+/300  [\\d.,]+ (MB|B)\x1b\\[K\n?")))
        << drawn;
  }
  EXPECT_TRUE(
      states.back().starts_with("saving orders [" + std::string(30, '#') + "] 100%  300/300  "))
      << states.back();
  EXPECT_TRUE(r.err.ends_with("\x1b[K\n")) << r.err;
}

// States that must each match `state`, the last one being `last` with its line ended.
void expectStates(const std::vector<std::string>& states, const std::string& state,
                  const std::string& last) {
  ASSERT_FALSE(states.empty());
  for (const std::string& drawn : states) {
    EXPECT_TRUE(std::regex_match(drawn, std::regex(state + "\x1b\\[K\n?"))) << drawn;
  }
  EXPECT_EQ(states.back(), last + "\x1b[K\n");
}

TEST_F(RlProgress, BackupAndRestoreDrawTheirProgressOnATerminal) {
  ASSERT_EQ(runRl(load()).exitCode, 0);
  const std::string file = (dir_ / "shop.rlb").string();
  const RunResult backup =
      runRlOnTerminal({"backup", "--db", db_, "--path", kStore, file}, TerminalStdout::kPipe);
  EXPECT_EQ(backup.exitCode, 0) << backup.err;
  // A count of what was read, with no total (the snapshot's size is not known in advance),
  // ending at the summary's keys and bytes.
  std::smatch summary;
  ASSERT_TRUE(std::regex_match(backup.out, summary,
                               std::regex("Backed up the record store .* at version \\d+: "
                                          "([\\d,]+) keys \\(([\\d,.]+ (B|MB))\\) in 1 "
                                          "transaction, to .*\n")))
      << backup.out;
  const std::string keys = summary[1];
  const std::string bytes = summary[2];
  // A version, a record and a price index entry each; the header and the metadata.
  EXPECT_EQ(keys, grouped(3 * kRecords + 2));
  expectStates(drawnStates(backup.err), "backing up: [\\d,]+ keys, [\\d,.]+ (B|MB)",
               "backing up: " + keys + " keys, " + bytes);

  // A restore verifies the whole file (a bar over its bytes), then writes its keys (a bar over
  // the count the file holds).
  const std::string target = "file:" + (dir_ / "target").string();
  const RunResult restore =
      runRlOnTerminal({"restore", "--db", target, file}, TerminalStdout::kPipe);
  EXPECT_EQ(restore.exitCode, 0) << restore.err;
  EXPECT_TRUE(restore.out.starts_with("Restored " + keys + " keys (" + bytes + ") into " + target))
      << restore.out;
  const std::string fileBytes = grouped(static_cast<int64_t>(std::filesystem::file_size(file)));
  const std::vector<std::string> states = drawnStates(restore.err);
  std::vector<std::string> verifying;
  std::vector<std::string> restoring;
  for (const std::string& drawn : states) {
    (drawn.starts_with("verifying") ? verifying : restoring).push_back(drawn);
  }
  ASSERT_FALSE(verifying.empty()) << restore.err;
  ASSERT_FALSE(restoring.empty()) << restore.err;
  EXPECT_TRUE(restore.err.starts_with("\rverifying")) << restore.err;  // the one before the other
  expectStates(
      verifying, "verifying \\[[#-]{30}\\] +\\d+%  [\\d,]+/" + fileBytes + "  bytes",
      "verifying [" + std::string(30, '#') + "] 100%  " + fileBytes + "/" + fileBytes + "  bytes");
  expectStates(restoring, "restoring \\[[#-]{30}\\] +\\d+%  [\\d,]+/" + keys + "  keys",
               "restoring [" + std::string(30, '#') + "] 100%  " + keys + "/" + keys + "  keys");
  const RunResult check = runRl({"check", "--db", target, "--path", kStore});
  EXPECT_EQ(check.exitCode, 0) << check.out;
  EXPECT_NE(check.out.find(": 2,000 records (4,000 keys), "), std::string::npos) << check.out;
}

TEST_F(RlProgress, IndexBuildCountsTheRecordsScannedOnATerminal) {
  ASSERT_EQ(runRl(load()).exitCode, 0);
  // Over 200 records: a new index is left DISABLED, for rl index build.
  const RunResult open = runRl({"store", "open", "--db", db_, "--path", kStore, "--proto",
                                (dir_ / "orders.proto").string(), "--index", "Order:customer"});
  ASSERT_EQ(open.exitCode, 0) << open.err;
  ASSERT_NE(open.out.find("New index Order$customer: DISABLED"), std::string::npos) << open.out;
  const RunResult build = runRlOnTerminal(
      {"index", "build", "--db", db_, "--path", kStore, "Order$customer"}, TerminalStdout::kPipe);
  EXPECT_EQ(build.exitCode, 0) << build.err;
  EXPECT_NE(build.out.find(": 2,000 records scanned (2,000 indexed) in 4 transactions; it is "
                           "READABLE.\n"),
            std::string::npos)
      << build.out;
  expectStates(drawnStates(build.err), "building Order\\$customer: [\\d,]+ records",
               "building Order$customer: 2,000 records");
  const RunResult check = runRl({"check", "--db", db_, "--path", kStore});
  EXPECT_EQ(check.exitCode, 0) << check.out;
  EXPECT_NE(check.out.find("Indexes checked: Order$customer, Order$price.\n"), std::string::npos)
      << check.out;
}

TEST_F(RlProgress, NoBarWithoutATerminal) {
  // Standard error a pipe: a load says nothing there; the demo prints a plain line at each
  // quarter instead of a bar.
  const RunResult r = runRl(load());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, loaded());
  EXPECT_EQ(r.err, "");

  const RunResult demo = runRl({"demo", "--db", "memory:", "--no-delay", "--records", "300"});
  EXPECT_EQ(demo.exitCode, 0) << demo.err;
  EXPECT_EQ(demo.err.find('\r'), std::string::npos) << demo.err;
  EXPECT_EQ(demo.err.find('\x1b'), std::string::npos) << demo.err;
  EXPECT_TRUE(
      std::regex_match(demo.err, std::regex("(saving orders: [\\d,]+/300  [\\d.,]+ (MB|B)\n)+")))
      << demo.err;
  EXPECT_TRUE(demo.err.find("saving orders: 300/300  ") != std::string::npos) << demo.err;

  // Nor for rl backup, rl restore and rl index build.
  const std::string file = (dir_ / "shop.rlb").string();
  const RunResult backup = runRl({"backup", "--db", db_, "--path", kStore, file});
  EXPECT_EQ(backup.exitCode, 0) << backup.err;
  EXPECT_EQ(backup.err, "");
  const RunResult restore = runRl({"restore", "--db", "file:" + (dir_ / "target").string(), file});
  EXPECT_EQ(restore.exitCode, 0) << restore.err;
  EXPECT_EQ(restore.err, "");
  ASSERT_EQ(runRl({"store", "open", "--db", db_, "--path", kStore, "--proto",
                   (dir_ / "orders.proto").string(), "--index", "Order:customer"})
                .exitCode,
            0);
  const RunResult build =
      runRl({"index", "build", "--db", db_, "--path", kStore, "Order$customer"});
  EXPECT_EQ(build.exitCode, 0) << build.err;
  EXPECT_EQ(build.err, "");
}

}  // namespace
}  // namespace rl::test
