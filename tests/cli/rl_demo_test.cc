// `rl demo`, run as a user would run it: it completes, both fetch methods print the same rows,
// the measurement table has a row per store, delay, scan and method with numbers in it, and
// bad options give one error line. No timing thresholds: times are only checked to be times.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_rl.h"

namespace rl::test {
namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A table row's cells: the line split at runs of two or more spaces (cells themselves hold
// single spaces: "250 us", "all 120").
std::vector<std::string> cellsOf(const std::string& line) {
  std::vector<std::string> cells;
  static const std::regex kGap(" {2,}");
  const std::string trimmed = std::regex_replace(line, std::regex("^ +| +$"), "");
  for (std::sregex_token_iterator it(trimmed.begin(), trimmed.end(), kGap, -1), end; it != end;
       ++it) {
    cells.push_back(*it);
  }
  return cells;
}

// The lines of the block that follows the line starting with `heading`, up to a blank line
// (or the end).
std::vector<std::string> blockAfter(const std::vector<std::string>& lines,
                                    const std::string& heading) {
  std::vector<std::string> block;
  size_t i = 0;
  while (i < lines.size() && !lines[i].starts_with(heading)) ++i;
  for (++i; i < lines.size() && !lines[i].empty(); ++i) block.push_back(lines[i]);
  return block;
}

bool isCount(const std::string& cell) {
  return std::regex_match(cell, std::regex("[0-9]{1,3}(,[0-9]{3})*"));
}
bool isDuration(const std::string& cell) {
  return std::regex_match(cell, std::regex("[0-9]+(\\.[0-9]+)? (us|ms|s)"));
}
int64_t countOf(const std::string& cell) {
  return std::stoll(std::regex_replace(cell, std::regex(","), ""));
}

struct Measurement {
  std::string delay, store, scan, method;
  int64_t rows = 0, roundTrips = 0, rangeReads = 0, mappedReads = 0;
};

// The measurement table, checked for shape: every cell where it belongs and numeric where a
// number belongs.
std::vector<Measurement> measurementsOf(const std::vector<std::string>& lines) {
  std::vector<std::string> table = blockAfter(lines, "the median of");
  std::vector<Measurement> out;
  EXPECT_FALSE(table.empty());
  if (table.empty()) return out;
  EXPECT_EQ(cellsOf(table[0]),
            (std::vector<std::string>{"delay", "store", "scan", "method", "rows", "time",
                                      "round trips", "range reads", "mapped reads"}));
  for (size_t i = 1; i < table.size() && !table[i].starts_with("round trips:"); ++i) {
    const std::vector<std::string> cells = cellsOf(table[i]);
    EXPECT_EQ(cells.size(), 9u) << table[i];
    if (cells.size() != 9) continue;
    for (size_t c : {4, 6, 7, 8}) EXPECT_TRUE(isCount(cells[c])) << cells[c] << " in " << table[i];
    EXPECT_TRUE(isDuration(cells[5])) << cells[5] << " in " << table[i];
    if (!isCount(cells[4]) || !isCount(cells[6]) || !isCount(cells[7]) || !isCount(cells[8])) {
      continue;
    }
    out.push_back({cells[0], cells[1], cells[2], cells[3], countOf(cells[4]), countOf(cells[6]),
                   countOf(cells[7]), countOf(cells[8])});
  }
  return out;
}

// The query the demo plans and runs: its text, its plan, the rows it found (as many as a
// filter over the orders saved, which the demo checks row for row), and the first of them:
// lamps and desks under $250.00, by price.
void checkQuery(const std::vector<std::string>& lines) {
  auto at = std::find(lines.begin(), lines.end(),
                      "A query, planned: --where 'price < 25000 AND item IN (\"lamp\", \"desk\")' "
                      "--sort price");
  ASSERT_NE(at, lines.end());
  ASSERT_GE(lines.end() - at, 4);
  EXPECT_EQ(at[1], "  plan: Index(Order$price ([null],[25000])) | item IN [lamp, desk]");
  std::smatch found;
  ASSERT_TRUE(std::regex_match(
      at[2], found,
      std::regex("  ([0-9,]+) orders? in [0-9.]+ (us|ms|s), [0-9,]+ round trips \\(a load per "
                 "order under \\$250\\.00, then the filter\\);")))
      << at[2];
  const int64_t rows = countOf(found[1]);
  const size_t shown = static_cast<size_t>(std::min<int64_t>(rows, 5));
  EXPECT_EQ(at[3], std::string("  the same as a filter over every order saved") +
                       (rows == 0   ? "."
                        : rows <= 5 ? ":"
                                    : ". The first 5:"));
  if (shown == 0) return;
  const std::vector<std::string> table = blockAfter(lines, at[3]);
  ASSERT_EQ(table.size(), 1 + shown);
  double lastPrice = 0;
  for (size_t i = 1; i < table.size(); ++i) {
    const std::vector<std::string> cells = cellsOf(table[i]);
    ASSERT_EQ(cells.size(), 7u) << table[i];
    EXPECT_TRUE(cells[3] == "lamp" || cells[3] == "desk") << table[i];
    const double price = std::stod(std::regex_replace(cells[1], std::regex("[$,]"), ""));
    EXPECT_LT(price, 250.0) << table[i];
    EXPECT_GE(price, lastPrice) << table[i];
    lastPrice = price;
  }
}

// What every successful demo shows: the same first rows under both methods, and for each
// store, delay and scan one row per method with the same row count, scan-and-fetch reading
// ranges and no mapped batches, remote fetch reading mapped batches.
void checkDemoOutput(const RunResult& r, int64_t records, const std::set<std::string>& delays) {
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  const std::vector<std::string> lines = linesOf(r.out);

  const std::vector<std::string> scanAndFetch = blockAfter(
      lines, "The first orders by price (index Order$price), fetched with SCAN_AND_FETCH");
  const std::vector<std::string> remoteFetch = blockAfter(
      lines, "The first orders by price (index Order$price), fetched with USE_REMOTE_FETCH");
  ASSERT_EQ(scanAndFetch.size(), 1 + std::min<size_t>(static_cast<size_t>(records), 10)) << r.out;
  EXPECT_EQ(scanAndFetch, remoteFetch);
  EXPECT_EQ(cellsOf(scanAndFetch[0]), (std::vector<std::string>{"id", "price", "customer", "item",
                                                                "qty", "payload", "keys"}));
  for (size_t i = 1; i < scanAndFetch.size(); ++i) {
    const std::vector<std::string> cells = cellsOf(scanAndFetch[i]);
    ASSERT_EQ(cells.size(), 7u) << scanAndFetch[i];
    EXPECT_TRUE(isCount(cells[0])) << scanAndFetch[i];
    EXPECT_TRUE(std::regex_match(cells[1], std::regex("\\$[0-9,]+\\.[0-9]{2}"))) << cells[1];
    EXPECT_TRUE(std::regex_match(cells[5], std::regex("[0-9,]+ B"))) << cells[5];
  }

  checkQuery(lines);

  const std::vector<Measurement> measurements = measurementsOf(lines);
  std::map<std::string, std::map<std::string, Measurement>> byRun;  // run -> method -> row
  std::set<std::string> delaysSeen;
  for (const Measurement& m : measurements) {
    byRun[m.delay + "|" + m.store + "|" + m.scan][m.method] = m;
    delaysSeen.insert(m.delay);
  }
  EXPECT_EQ(delaysSeen, delays);
  const size_t scans = records > 10 ? 2 : 1;
  EXPECT_EQ(byRun.size(), delays.size() * scans) << r.out;
  for (const auto& [run, methods] : byRun) {
    ASSERT_EQ(methods.size(), 2u) << run;
    const Measurement& sf = methods.at("SCAN_AND_FETCH");
    const Measurement& rf = methods.at("USE_REMOTE_FETCH");
    EXPECT_EQ(sf.rows, rf.rows) << run;
    EXPECT_EQ(sf.rows, sf.scan.starts_with("all") ? records : std::min<int64_t>(records, 10))
        << run;
    // The path each method takes: a load per record, or mapped batches only.
    EXPECT_GE(sf.rangeReads, sf.rows) << run;
    EXPECT_EQ(sf.mappedReads, 0) << run;
    EXPECT_GT(rf.mappedReads, 0) << run;
    EXPECT_GE(sf.roundTrips, sf.rangeReads + sf.mappedReads) << run;
    EXPECT_GE(rf.roundTrips, rf.rangeReads + rf.mappedReads) << run;
  }
  EXPECT_NE(r.out.find("Both fetch methods returned the orders saved, row for row"),
            std::string::npos)
      << r.out;
}

TEST(RlDemo, RunsOnATemporaryStoreAndRemovesIt) {
  RunResult r = runRl({"demo", "--records", "120"});
  checkDemoOutput(r, 120, {"none", "250 us"});
  EXPECT_NE(r.out.find("rl demo: 120 orders in a temporary durable store, file:"),
            std::string::npos)
      << r.out;
  // Orders 0 and 100 carry the large payload: stored split.
  EXPECT_NE(r.out.find("Saved 120 orders in 1 transaction "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of the orders with 250,000 B each, stored split"), std::string::npos)
      << r.out;
  std::smatch removed;
  ASSERT_TRUE(std::regex_search(r.out, removed, std::regex("Removed the temporary store (.*)\\.")))
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(removed[1].str())) << removed[1];
}

TEST(RlDemo, RunsOnAnInMemoryDatabase) {
  RunResult r = runRl({"demo", "--db", "memory:", "--records", "60"});
  checkDemoOutput(r, 60, {"none", "250 us"});
  EXPECT_NE(r.out.find("memory: copy"), std::string::npos) << r.out;
}

TEST(RlDemo, NoDelaySkipsTheDelayedRuns) {
  RunResult r = runRl({"demo", "--db", "memory:demo", "--records", "5", "--no-delay"});
  checkDemoOutput(r, 5, {"none"});
}

TEST(RlDemo, KeepsAStoreGivenByDbAndRunsOnItAgain) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rl-demo-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (int run = 0; run < 2; ++run) {
    RunResult r =
        runRl({"demo", "--db", "file:" + dir.string(), "--records", "30", "--delay-us", "100"});
    checkDemoOutput(r, 30, {"none", "100 us"});
    EXPECT_NE(r.out.find("in the durable store file:" + dir.string()), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Removed"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::exists(dir));
  }
  std::filesystem::remove_all(dir);
}

// fdb:<cluster file> through the FoundationDB backend (src/fdbc/) on this build's
// libfdb_c.so, loaded on purpose: the cluster file names an in-memory database of the rl
// process.
class RlDemoThroughLibfdbC : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(clusterFile_) << "memory:rl-demo-fdbc\n"; }
  void TearDown() override { std::filesystem::remove(clusterFile_); }

  std::string address() const { return "fdb:" + clusterFile_.string(); }

  // Our library, allowed, with `delay` (nullopt: unset) as its simulated one-way delay.
  static Environment environment(std::optional<std::string> delay) {
    return {{"RL_FDB_C_LIBRARY", RL_FDB_C_EMBEDDED_LIBRARY},
            {"RL_FDB_C_ALLOW_EMBEDDED", "1"},
            {"RECORDLAYER_ONE_WAY_DELAY_US", std::move(delay)}};
  }

 private:
  std::filesystem::path clusterFile_ = std::filesystem::temp_directory_path() /
                                       ("rl-demo-test-" + std::to_string(::getpid()) + ".cluster");
};

TEST_F(RlDemoThroughLibfdbC, RunsWithoutDelayAndSaysOnWhichLibrary) {
  RunResult r = runRl({"demo", "--db", address(), "--records", "60"}, environment(std::nullopt));
  // No delayed runs: the demo cannot give a libfdb_c a delay.
  checkDemoOutput(r, 60, {"none"});
  EXPECT_NE(r.out.find("through libfdb_c "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(RecordLayer's embedded engine)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fdb: ran on RecordLayer's own libfdb_c, the embedded engine behind "
                       "FoundationDB's C API,\nnot on FoundationDB (client version "
                       "7.3.0-recordlayer,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Its simulated delay: none (RECORDLAYER_ONE_WAY_DELAY_US unset or 0)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("there are no runs with --delay-us"), std::string::npos) << r.out;
}

TEST_F(RlDemoThroughLibfdbC, LabelsTheLibrarysDelay) {
  RunResult r = runRl({"demo", "--db", address(), "--records", "30"}, environment("250"));
  // The table says the delay the library has, which the demo read where the library does.
  checkDemoOutput(r, 30, {"250 us"});
  EXPECT_NE(r.out.find("Its simulated delay: 250 us one way (RECORDLAYER_ONE_WAY_DELAY_US; a "
                       "round trip takes 500 us)"),
            std::string::npos)
      << r.out;
}

TEST_F(RlDemoThroughLibfdbC, RefusesOurLibraryUnlessAllowed) {
  Environment env = environment(std::nullopt);
  env["RL_FDB_C_ALLOW_EMBEDDED"] = std::nullopt;
  RunResult r = runRl({"demo", "--db", address(), "--records", "5"}, env);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(
      r.err.starts_with("rl: error: client_invalid_operation (2000): cannot open "
                        "libfdb_c: refusing "))
      << r.err;
  EXPECT_NE(r.err.find("RL_FDB_C_ALLOW_EMBEDDED=1"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(RlDemo, BadAddressIsOneErrorLine) {
  RunResult r = runRl({"demo", "--db", "nosuch:x"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(
      r.err.starts_with("rl: error: client_invalid_operation (2000): cannot open "
                        "'nosuch:x'"))
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(RlDemo, RecordsMustBePositive) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"demo", "--records", "0"},
                                               std::vector<std::string>{"demo", "--records", "-5"},
                                               std::vector<std::string>{"demo", "--records=-5"}}) {
    RunResult r = runRl(args);
    EXPECT_EQ(r.exitCode, 1) << args.back();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("rl: error: --records must be between 1 and 100,000 (got "))
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(RlDemo, HelpListsTheOptions) {
  RunResult r = runRl({"demo", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  for (const char* option : {"--records", "--db", "--delay-us", "--no-delay"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
  }
}

}  // namespace
}  // namespace rl::test
