// VERSION indexes from the command line: `rl store create --index version:...`, `rl index
// scan` over one in commit order, and `--since VERSION [--prefix TUPLE]` for the records
// changed after a version (docs/cli.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_rl.h"
#include "cli/shop_test_store.h"

namespace rl::test {
namespace {

class RlVersionIndex : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = "file:" + (dir_ / "db").string();
  }

  RunResult rl(std::vector<std::string> command, std::vector<std::string> args = {}) const {
    command.insert(command.end(), {"--db", db_, "--path", kStore});
    command.insert(command.end(), args.begin(), args.end());
    return runRl(command);
  }
  std::string ok(std::vector<std::string> command, std::vector<std::string> args = {}) const {
    RunResult r = rl(std::move(command), std::move(args));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }
  void expectError(std::vector<std::string> command, std::vector<std::string> args,
                   const std::string& error) const {
    RunResult r = rl(std::move(command), std::move(args));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "rl: error: " + error + "\n");
  }
  void load(const std::string& lines) const { ok({"load"}, {write("load.ndjson", lines)}); }

  // The ids of the records `rl index scan ... --json` printed, and each line's fields.
  static std::vector<nlohmann::json> lines(const std::string& out) {
    std::vector<nlohmann::json> parsed;
    size_t start = 0;
    while (start < out.size()) {
      const size_t end = out.find('\n', start);
      parsed.push_back(nlohmann::json::parse(out.substr(start, end - start)));
      start = end + 1;
    }
    return parsed;
  }
  static std::vector<std::string> ids(const std::string& out) {
    std::vector<std::string> found;
    for (const nlohmann::json& line : lines(out)) {
      found.push_back(line.at("record").at("id").get<std::string>());
    }
    return found;
  }

  std::string db_;
};

TEST_F(RlVersionIndex, CreateScanAndChangesSinceAVersion) {
  EXPECT_EQ(ok({"store", "create"},
               {"--proto", file("orders.proto"), "--index", "version:Order:customer,version()",
                "--index", "version:Order:version()"}),
            "Created the record store (\"shop\", \"orders\") in " + db_ +
                ": format version 7, metadata version 3, record types Order, 3 indexes.\n");
  const std::string info = ok({"store", "info"});
  EXPECT_NE(info.find("Order$customer-version  version"), std::string::npos) << info;
  EXPECT_NE(info.find("Order$version           version"), std::string::npos) << info;

  load(
      "{\"id\": 1, \"customer\": \"a\"}\n{\"id\": 2, \"customer\": \"b\"}\n"
      "{\"id\": 3, \"customer\": \"a\"}\n");
  load("{\"id\": 2, \"customer\": \"b\", \"price\": 7}\n");  // changed later
  // In commit order: 1 and 3 from the first load, 2 from the second.
  const std::string all = ok({"index", "scan"}, {"Order$version", "--json"});
  EXPECT_EQ(ids(all), (std::vector<std::string>{"1", "3", "2"}));
  for (const nlohmann::json& line : lines(all)) {
    // The entry holds the record's version: vs(<10-byte global hex>, <local>), then the id.
    const std::string entry = line.at("index_entry");
    const std::string version = line.at("version");
    ASSERT_EQ(version.size(), 24u);
    EXPECT_EQ(entry.rfind("(vs(" + version.substr(0, 20), 0), 0u) << entry << " " << version;
  }
  // Since the version of record 1: 3 and 2; since record 3's: only 2.
  const std::string v1 = lines(all)[0].at("version");
  const std::string v3 = lines(all)[1].at("version");
  EXPECT_EQ(ids(ok({"index", "scan"}, {"Order$version", "--since", v1, "--json"})),
            (std::vector<std::string>{"3", "2"}));
  EXPECT_EQ(ids(ok({"index", "scan"}, {"Order$version", "--since", v3, "--json"})),
            (std::vector<std::string>{"2"}));
  // Customer "a" since the version of record 1; and all of customer "a".
  EXPECT_EQ(
      ok({"index", "scan"}, {"Order$customer-version", "--prefix", "(\"a\",)", "--since", v1}),
      "{\"id\":\"3\",\"customer\":\"a\"}\n");
  EXPECT_EQ(ids(ok({"index", "scan"},
                   {"Order$customer-version", "--from", "(\"a\",)", "--to", "(\"b\",)", "--json"})),
            (std::vector<std::string>{"1", "3"}));
  EXPECT_NE(ok({"check"}).find("No problems."), std::string::npos);
  // The same through a query: version() compared with the entry's versionstamp.
  const std::string entry1 = lines(all)[0].at("index_entry");  // (vs(G, L), 1)
  const std::string stamp1 = entry1.substr(1, entry1.find(')'));
  EXPECT_EQ(ids(ok({"query"}, {"--where", "customer = \"a\" AND version() > " + stamp1, "--sort",
                               "version()", "--json"})),
            (std::vector<std::string>{"3"}));
  const std::string plan = ok({"explain"}, {"--where", "customer = \"a\" AND version() > " + stamp1,
                                            "--sort", "version()"});
  EXPECT_NE(plan.find("Index(Order$customer-version ([a, Versionstamp("), std::string::npos)
      << plan;

  expectError({"index", "scan"}, {"Order$price", "--since", v1},
              "--since: index Order$price is a value index; --since scans a version index");
  expectError({"index", "scan"}, {"Order$customer-version", "--since", v1},
              "--since on index Order$customer-version (concat(field(customer), version())): "
              "--prefix gives the 1 column(s) before the version, not 0");
  expectError({"index", "scan"}, {"Order$version", "--since", v1, "--from", "1"},
              "--since takes the place of --from and --to");
}

TEST_F(RlVersionIndex, AVersionIndexNeedsStoredVersions) {
  RunResult r = rl({"store", "create"}, {"--proto", file("orders.proto"), "--store-record-versions",
                                         "false", "--index", "version:Order:version()"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("version index Order$version needs record versions"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace rl::test
