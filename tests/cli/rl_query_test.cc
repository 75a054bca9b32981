// `rl query` and `rl explain`, run as a user would run them: each a separate process on one
// durable file: store, checked for exact output and exit status, including the bad queries.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/run_rl.h"
#include "cli/shop_test_store.h"

namespace rl::test {
namespace {

// The shop store with Order$price and Order$customer-price, holding orders 1..12: price
// id * 10, customer c-(id % 3), tags t(id % 2).
class RlQuery : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = "file:" + (dir_ / "db").string();
    ok({"store", "create"}, {"--proto", file("orders.proto"), "--index", "Order:customer,price"});
    std::string lines;
    for (int id = 1; id <= 12; ++id) lines += order(id) + "\n";
    ok({"load"}, {write("orders.ndjson", lines)});
  }

  // An order as NDJSON for `rl load`.
  static std::string order(int id) {
    return fmt::format(R"({{"id": {}, "price": {}, "customer": "c-{}", "tags": ["t{}"]}})", id,
                       id * 10, id % 3, id % 2);
  }

  // Order `id` as rl query prints it (protobuf's JSON: 64-bit integers quoted).
  static std::string printed(int id) {
    return fmt::format(R"({{"id":"{}","price":"{}","customer":"c-{}","tags":["t{}"]}})", id,
                       id * 10, id % 3, id % 2) +
           "\n";
  }
  static std::string printed(const std::vector<int>& ids) {
    std::string out;
    for (int id : ids) out += printed(id);
    return out;
  }

  RunResult rl(std::vector<std::string> command, const std::vector<std::string>& args) const {
    command.insert(command.end(), {"--db", db_, "--path", kStore});
    command.insert(command.end(), args.begin(), args.end());
    return runRl(command);
  }

  // A command that must succeed with nothing on standard error; its standard output.
  std::string ok(std::vector<std::string> command, const std::vector<std::string>& args) const {
    RunResult r = rl(std::move(command), args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }
  std::string query(const std::vector<std::string>& args) const { return ok({"query"}, args); }
  std::string explain(const std::vector<std::string>& args) const { return ok({"explain"}, args); }

  // `rl query` and `rl explain` with `args` must both fail with exactly `error`: one line,
  // status 1, nothing on standard output.
  void expectError(const std::vector<std::string>& args, const std::string& error) const {
    for (const char* command : {"query", "explain"}) {
      RunResult r = rl({command}, args);
      EXPECT_EQ(r.exitCode, 1) << command;
      EXPECT_EQ(r.out, "") << command;
      EXPECT_EQ(r.err, "rl: error: " + error + "\n") << command;
    }
  }

  std::string db_;
};

TEST_F(RlQuery, PrintsTheRecordsTheQueryFinds) {
  EXPECT_EQ(query({"--type", "Order", "--where", R"(price >= 50 AND customer = "c-1")"}),
            printed({7, 10}));
  // No --type: every type; no --where: every record.
  EXPECT_EQ(query({}), printed({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(query({"--where", R"(ANY(tags) = "t1" AND price < 60)"}), printed({1, 3, 5}));
  EXPECT_EQ(query({"--where", "NOT (price > 20 OR customer IN ('c-0', 'c-2'))"}), printed({1}));
  EXPECT_EQ(query({"--where", "customer STARTS WITH 'c-2' AND price <= 50"}), printed({2, 5}));
  EXPECT_EQ(query({"--where", "payload IS NULL AND id = 4"}), printed({4}));
  EXPECT_EQ(query({"--where", "price = 1000"}), "");
}

TEST_F(RlQuery, ExplainPrintsThePlan) {
  EXPECT_EQ(explain({"--type", "Order", "--where", R"(price >= 50 AND customer = "c-1")"}),
            "Index(Order$customer-price [[c-1, 50],[c-1]])\n");
  EXPECT_EQ(explain({"--where", "price < 30"}), "Index(Order$price ([null],[30]))\n");
  EXPECT_EQ(explain({"--where", "ANY(tags) = 't1'"}), "Scan(<,>) | one of tags EQUALS t1\n");
  EXPECT_EQ(explain({"--where", "price > 5", "--sort", "customer", "--reverse"}),
            "Index(Order$customer-price <,> REVERSE) | price GREATER_THAN 5\n");
  // The arguments that do not change the plan are taken, so a query's line explains as is.
  EXPECT_EQ(explain({"--where", "price < 30", "--limit", "1", "--skip", "2", "--fetch", "remote"}),
            "Index(Order$price ([null],[30]))\n");
}

TEST_F(RlQuery, ExplainVerboseSaysWhyEachOtherCandidateLost) {
  const std::string candidates =
      "Index(Order$customer-price [[c-1, 50],[c-1]])\n"
      "candidates for [price GREATER_THAN_OR_EQUALS 50, customer EQUALS c-1]:\n"
      "  the primary-key scan: answers no comparison\n"
      "  index Order$customer-price: chosen (2 comparison(s), 0 left to a filter): "
      "Index(Order$customer-price [[c-1, 50],[c-1]])\n"
      "  index Order$price: lost, answers 1 comparison(s), the chosen scan 2: "
      "Index(Order$price [[50],>)\n";
  EXPECT_EQ(
      explain({"--where", R"(price >= 50 AND customer = "c-1")", "--verbose", "--fetch", "scan"}),
      candidates + "fetch Order$customer-price: SCAN_AND_FETCH (as asked)\n");
  // ADAPTIVE (the default) says what it would choose now and the estimate behind it (the
  // round-trip time observed varies, so only its shape is checked).
  const std::string adaptive =
      explain({"--where", R"(price >= 50 AND customer = "c-1")", "--verbose", "--limit", "3"});
  ASSERT_EQ(adaptive.substr(0, candidates.size()), candidates);
  const std::string fetch = adaptive.substr(candidates.size());
  EXPECT_EQ(fetch.rfind("fetch Order$customer-price: ADAPTIVE chooses ", 0), 0u) << fetch;
  EXPECT_NE(fetch.find("3 rows (the row limit)"), std::string::npos) << fetch;
  EXPECT_NE(fetch.find("SCAN_AND_FETCH ~"), std::string::npos) << fetch;
  EXPECT_NE(fetch.find("USE_REMOTE_FETCH ~"), std::string::npos) << fetch;
  EXPECT_EQ(explain({"--where", "price < 30", "--json"}),
            R"j({"plan":"Index(Order$price ([null],[30]))","indexes":["Order$price"],)j"
            R"j("full_scan":false})j"
            "\n");
  EXPECT_EQ(explain({"--where", "ANY(tags) = 't1'", "--json", "--verbose"}),
            R"({"plan":"Scan(<,>) | one of tags EQUALS t1","indexes":[],"full_scan":true,)"
            R"("trace":["candidates for [one of tags EQUALS t1]:",)"
            R"("  the primary-key scan: answers no comparison",)"
            R"("  index Order$customer-price: answers no comparison",)"
            R"("  index Order$price: answers no comparison"],"fetch":[]})"
            "\n");
}

TEST_F(RlQuery, SortReverseSkipAndLimit) {
  EXPECT_EQ(query({"--where", "price >= 50", "--sort", "price"}),
            printed({5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(query({"--where", "price >= 50", "--sort", "price", "--reverse"}),
            printed({12, 11, 10, 9, 8, 7, 6, 5}));
  EXPECT_EQ(query({"--where", "price >= 50", "--sort", "price", "--skip", "3"}),
            printed({8, 9, 10, 11, 12}));
  EXPECT_EQ(query({"--sort", "customer, price", "--limit", "0"}),
            printed({3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11}));
}

// With --limit the continuation comes as rl scan gives it: on standard error, or with --json
// as a last line; --continuation resumes right after the last record printed, also in
// reverse and under another fetch method, until no continuation is printed.
TEST_F(RlQuery, LimitPrintsTheContinuationToResumeFrom) {
  for (const bool reverse : {false, true}) {
    std::vector<std::string> base = {"--where", "price >= 20 AND price < 120", "--sort", "price"};
    if (reverse) base.push_back("--reverse");
    std::string all;
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--limit", "3"});
    for (int run = 0; run < 10; ++run) {
      RunResult r = rl({"query"}, args);
      ASSERT_EQ(r.exitCode, 0) << r.err;
      all += r.out;
      std::smatch match;
      if (r.err.empty()) break;
      ASSERT_TRUE(std::regex_match(r.err, match, std::regex("continuation: ([0-9a-f]+)\n")))
          << r.err;
      args = base;
      args.insert(args.end(), {"--limit", "3", "--continuation", match[1], "--fetch",
                               run % 2 == 0 ? "remote" : "fallback"});
    }
    EXPECT_EQ(all, reverse ? printed({11, 10, 9, 8, 7, 6, 5, 4, 3, 2})
                           : printed({2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  }
}

TEST_F(RlQuery, JsonOutputResumesFromItsLastLine) {
  const std::vector<std::string> base = {"--where", R"(customer = "c-1" OR price < 30)", "--json"};
  std::vector<std::string> ids;
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--limit", "2"});
  for (int run = 0; run < 10; ++run) {
    const std::string out = query(args);
    std::istringstream lines(out);
    std::optional<std::string> continuation;
    for (std::string line; std::getline(lines, line);) {
      const nlohmann::json row = nlohmann::json::parse(line);
      if (row.contains("continuation")) {
        continuation = row["continuation"].get<std::string>();
        continue;
      }
      EXPECT_EQ(row["type"], "Order");
      EXPECT_EQ(row["primary_key"], "(" + row["record"]["id"].get<std::string>() + ",)");
      EXPECT_TRUE(row["version"].is_string());
      ids.push_back(row["record"]["id"].get<std::string>());
    }
    if (!continuation) break;
    args = base;
    args.insert(args.end(), {"--limit", "2", "--continuation", *continuation});
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "2", "4", "7", "10"}));
  // Rows found through an index carry the entry.
  EXPECT_EQ(query({"--where", "price < 20", "--json"}).substr(0, 36),
            R"j({"index_entry":"(10, 1)","primary_ke)j");
}

TEST_F(RlQuery, EveryFetchMethodFindsTheSameRecords) {
  const std::string scanned = query({"--where", "price > 40", "--fetch", "scan"});
  EXPECT_EQ(scanned, printed({5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(query({"--where", "price > 40", "--fetch", "remote"}), scanned);
  EXPECT_EQ(query({"--where", "price > 40", "--fetch", "fallback"}), scanned);
  EXPECT_EQ(query({"--where", "price > 40", "--fetch", "adaptive"}), scanned);
}

TEST_F(RlQuery, Parameters) {
  const std::vector<std::string> args = {"--where", "price < $max AND customer IN $cs",
                                         "--param", "max=40",
                                         "--param", R"(cs=("c-1", "c-2"))"};
  EXPECT_EQ(query(args), printed({1, 2}));
  EXPECT_EQ(explain(args),
            "Index(Order$customer-price [EQUALS $__in_customer__0, [LESS_THAN $max]]) WHERE "
            "__in_customer__0 IN $cs\n");
  // A plan is made without the values: rl explain needs none.
  EXPECT_EQ(explain({"--where", "price < $max"}), "Index(Order$price [[LESS_THAN $max]])\n");
  RunResult r = rl({"query"}, {"--where", "price < $max"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "rl: error: --where uses $max: give its value with --param max=VALUE\n");
}

TEST_F(RlQuery, PagesThroughManyRecordsInSeveralTransactions) {
  std::string lines;
  for (int id = 13; id <= 2'600; ++id) lines += order(id) + "\n";
  ok({"load"}, {write("more.ndjson", lines)});
  // 2,588 rows through the index, 1,000 a transaction.
  const std::string out = query({"--where", "price > 120", "--sort", "price"});
  std::vector<int> ids;
  for (int id = 13; id <= 2'600; ++id) ids.push_back(id);
  EXPECT_EQ(out, printed(ids));
  EXPECT_EQ(query({"--where", "price > 120", "--skip", "2586", "--limit", "1500"}),
            printed({2'599, 2'600}));
}

TEST_F(RlQuery, BadQueriesAreOneErrorLine) {
  expectError({"--type", "Ordr"}, "--type Ordr: no record type Ordr (the store's types: Order)");
  expectError({"--where", "pricee >= 10"},
              "--where at character 1 (pricee >= 10): query on Order: Order has no field "
              "pricee (its fields: id, price, customer, tags, payload)");
  expectError({"--where", R"(price > 1 AND customer = 3)"},
              "--where at character 15 (customer = 3): query on Order: customer EQUALS 3 "
              "compares field customer: an integer 3 does not fit a field of type string");
  expectError({"--where", "tags = 'x'"},
              "--where at character 1 (tags = 'x'): query on Order: field tags is repeated: "
              "compare one of its elements with ANY(...)");
  expectError({"--where", "price >= 10 ANDD customer = 'c'"},
              "--where at character 13: expected AND, OR or the end of the query, found 'ANDD'");
  // Characters, not bytes: "é" is one.
  expectError({"--where", "customer = 'é' AND"},
              "--where at character 19: expected a condition, found the end of the query");
  expectError({"--where", "customer = c3"},
              "--where at character 12: expected a value after =, found 'c3': a string is "
              "quoted, \"c3\"");
  expectError({"--sort", "payload"},
              "--sort payload: Cannot sort without appropriate index: field(payload) (no "
              "readable index on Order gives that order; add one, or allow an in-memory sort)");
  expectError({"--sort", "pricee"},
              "--sort pricee: query on Order: sort field(pricee): message shop.Order has no "
              "field named pricee");
  expectError({"--sort", "price,"},
              "--sort at character 7: expected a field to sort by, found the end of the text");
  expectError({"--reverse"}, "--reverse reverses the --sort: give one, e.g. --sort price");
  expectError({"--fetch", "fast"},
              "--fetch fast: the methods are adaptive, scan, remote and fallback");
  expectError({"--where", "price < $max", "--param", "max"},
              "--param max: a parameter is NAME=VALUE, e.g. max=100 or 'statuses=(1, 2)'");
  expectError({"--where", "price < $max", "--param", "max=ten"},
              "--param max: bad value ten: unknown name 'ten'");
  for (const char* command : {"query"}) {
    RunResult r = rl({command}, {"--skip", "-1"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.err, "rl: error: --skip -1: a skip is 0 (none) or more\n");
  }
}

TEST_F(RlQuery, PlansAroundAnIndexNotYetBuilt) {
  // A new index on a store that holds records starts DISABLED; the planner leaves it out.
  std::string lines;
  for (int id = 13; id <= 1'100; ++id) lines += order(id) + "\n";
  ok({"load"}, {write("more.ndjson", lines)});
  ok({"store", "open"}, {"--proto", file("orders.proto"), "--index", "Order:customer,price",
                         "--index", "Order:customer"});
  EXPECT_EQ(explain({"--where", "customer = 'c-1'"}),
            "Index(Order$customer-price [[c-1],[c-1]])\n");
  ok({"index", "build"}, {"Order$customer"});
  EXPECT_EQ(explain({"--where", "customer = 'c-1'"}), "Index(Order$customer [[c-1],[c-1]])\n");
}

TEST_F(RlQuery, HelpListsTheOptions) {
  for (const char* command : {"query", "explain"}) {
    RunResult r = runRl({command, "--help"});
    EXPECT_EQ(r.exitCode, 0);
    for (const char* option :
         {"--db", "--path", "--type", "--where", "--sort", "--reverse", "--skip", "--limit",
          "--fetch", "--continuation", "--param", "--json"}) {
      EXPECT_NE(r.out.find(option), std::string::npos) << command << " " << option;
    }
  }
  EXPECT_NE(runRl({"explain", "--help"}).out.find("--verbose"), std::string::npos);
}

}  // namespace
}  // namespace rl::test
