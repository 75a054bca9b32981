// The first steps of a new user, run as processes: `rl --version`, a read on a mistyped path,
// a plain .proto with its primary key named on the command line, a UUID as people write it,
// and shell completion (docs/cli.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "cli/run_rl.h"
#include "cli/shop_test_store.h"

namespace rl::test {
namespace {

TEST(RlVersion, SaysTheVersionTheCommitAndWhatIsBuiltIn) {
  RunResult r = runRl({"--version"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^rl \d+\.\d+\.\d+ \(commit [0-9a-z-]+\)\n)")))
      << r.out;
  EXPECT_NE(r.out.find("\naddresses: memory:, file:, fdb:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("durable on RocksDB "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(API 730)"), std::string::npos) << r.out;
}

// A command that only reads, on a path where there is no database: one line, status 1, and
// nothing created.
class RlReadsCreateNothing : public ScratchDirTest {
 protected:
  void expectNoDatabase(std::vector<std::string> command, const std::string& address,
                        const std::string& why) {
    SCOPED_TRACE(command.front());
    RunResult r = runRl(command);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "rl: error: no database at " + address + " (" + why +
                         "); a command that only reads creates none\n");
  }
};

TEST_F(RlReadsCreateNothing, OnAMissingDirectory) {
  const std::string missing = file("typo-dir");
  for (const std::string& address : {"file:" + missing, missing + "/"}) {
    const std::vector<std::vector<std::string>> reads = {
        {"get", "--db", address, "--path", kStore, "1"},
        {"scan", "--db", address, "--path", kStore},
        {"index", "scan", "--db", address, "--path", kStore, "Order$price"},
        {"keys", "--db", address, "--path", kStore},
        {"check", "--db", address, "--path", kStore},
        {"store", "info", "--db", address, "--path", kStore},
        {"backup", "--db", address, "--path", kStore, file("backup.rlb")},
        {"kv", "--db", address, "get", "a"},
        {"kv", "--db", address, "getrange", "a", "z"},
        {"kv", "--db", address, "getrangekeys", "a", "z"},
    };
    for (const std::vector<std::string>& read : reads) {
      expectNoDatabase(read, address, "no such directory");
    }
    EXPECT_FALSE(std::filesystem::exists(missing));
    EXPECT_FALSE(std::filesystem::exists(file("backup.rlb")));
  }
}

TEST_F(RlReadsCreateNothing, OnAnEmptyDirectory) {
  const std::string empty = file("empty");
  std::filesystem::create_directories(empty);
  expectNoDatabase({"scan", "--db", "file:" + empty, "--path", kStore}, "file:" + empty,
                   "the directory holds no store");
  expectNoDatabase({"kv", "--db", "file:" + empty, "get", "a"}, "file:" + empty,
                   "the directory holds no store");
  EXPECT_TRUE(std::filesystem::is_empty(empty));
}

TEST_F(RlReadsCreateNothing, WritesStillCreateTheDatabaseAndReadsThenFindIt) {
  const std::string address = "file:" + file("db");
  RunResult set = runRl({"kv", "--db", address, "set", "a", "1"});
  ASSERT_EQ(set.exitCode, 0) << set.err;
  RunResult get = runRl({"kv", "--db", address, "get", "a"});
  EXPECT_EQ(get.exitCode, 0) << get.err;
  EXPECT_EQ(get.out, "`a' is `1'\n");
}

// A schema without record_metadata_options.proto: the union found by its name, no options.
constexpr char kPlainProto[] = R"(syntax = "proto2";
package plain;
message User {
  optional int64 id = 1;
  optional string region = 2;
  optional string name = 3;
}
message RecordTypeUnion {
  optional User _User = 1;
}
)";

class RlPrimaryKeyOption : public ScratchDirTest {
 protected:
  RunResult create(std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "store",  "create", "--db",    "file:" + file("db"),
        "--path", kStore,   "--proto", write("plain.proto", kPlainProto)};
    args.insert(args.end(), extra.begin(), extra.end());
    return runRl(args);
  }
};

TEST_F(RlPrimaryKeyOption, APlainProtoNeedsItAndWorksWithIt) {
  RunResult without = create({});
  EXPECT_EQ(without.exitCode, 1);
  EXPECT_EQ(without.err, "rl: error: record type User must have a primary key\n");

  RunResult with = create({"--primary-key", "User:region,id"});
  ASSERT_EQ(with.exitCode, 0) << with.err;
  // Kept in the metadata: another process opens the store with it.
  RunResult load =
      runRl({"load", "--db", "file:" + file("db"), "--path", kStore, "--type", "User",
             write("users.ndjson", "{\"id\": 1, \"region\": \"eu\", \"name\": \"Ada\"}\n")});
  ASSERT_EQ(load.exitCode, 0) << load.err;
  RunResult get = runRl({"get", "--db", "file:" + file("db"), "--path", kStore, R"(("eu", 1))"});
  EXPECT_EQ(get.exitCode, 0) << get.err;
  EXPECT_EQ(get.out, "{\"id\":\"1\",\"region\":\"eu\",\"name\":\"Ada\"}\n");
  RunResult info = runRl({"store", "info", "--db", "file:" + file("db"), "--path", kStore});
  EXPECT_NE(info.out.find("User  concat(field(region), field(id))"), std::string::npos) << info.out;
}

TEST_F(RlPrimaryKeyOption, BadFormsSayWhat) {
  RunResult noFields = create({"--primary-key", "User"});
  EXPECT_EQ(noFields.exitCode, 1);
  EXPECT_EQ(
      noFields.err,
      "rl: error: --primary-key User: a primary key is TYPE:FIELD[,FIELD...], e.g. User:id\n");
  RunResult unknownType = create({"--primary-key", "Customer:id"});
  EXPECT_EQ(unknownType.exitCode, 1);
  EXPECT_EQ(unknownType.err,
            "rl: error: --primary-key Customer:id: unknown record type Customer\n");
  RunResult unknownField = create({"--primary-key", "User:uid"});
  EXPECT_EQ(unknownField.exitCode, 1);
  EXPECT_NE(unknownField.err.find("uid"), std::string::npos) << unknownField.err;
  EXPECT_FALSE(std::filesystem::exists(file("db")));  // nothing written for a bad schema
}

TEST(RlUuid, TheDashedQuotedFormPacksAndPrintsDashed) {
  RunResult pack = runRl({"tuple", "pack", R"((uuid("00000000-0000-0000-0000-000000000001"),))"});
  EXPECT_EQ(pack.exitCode, 0) << pack.err;
  EXPECT_EQ(pack.out, "3000000000000000000000000000000001\n");
  RunResult unpack = runRl({"tuple", "unpack", "3000000000000000000000000000000001"});
  EXPECT_EQ(unpack.exitCode, 0) << unpack.err;
  EXPECT_EQ(unpack.out, "(uuid(00000000-0000-0000-0000-000000000001),)\n");
}

// What bash completes for the words typed so far, with the script rl prints.
std::string completions(const std::string& script, const std::vector<std::string>& words) {
  std::string array;
  for (const std::string& word : words) array += " '" + word + "'";
  const std::string command = "bash --norc --noprofile -c 'source \"$0\"; COMP_WORDS=(" + array +
                              "); COMP_CWORD=" + std::to_string(words.size() - 1) +
                              "; _rl; echo \"${COMPREPLY[*]}\"' " + script;
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "(popen failed)";
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

class RlCompletion : public ScratchDirTest {};

TEST_F(RlCompletion, BashCompletesCommandsAndOptionsFromTheDefinitions) {
  RunResult r = runRl({"completion", "bash"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("complete -o default -F _rl rl\n"), std::string::npos);
  const std::string script = write("rl.bash", r.out);
  EXPECT_EQ(completions(script, {"rl", "st"}), "store\n");
  EXPECT_EQ(completions(script, {"rl", "store", ""}), "create open info\n");
  EXPECT_EQ(completions(script, {"rl", "store", "create", "--pr"}), "--proto --primary-key\n");
  EXPECT_EQ(completions(script, {"rl", "index", "scan", "--fe"}), "--fetch\n");
  EXPECT_EQ(completions(script, {"rl", "--ver"}), "--version\n");
  EXPECT_EQ(completions(script, {"rl", "completion", ""}), "bash\n");
}

}  // namespace
}  // namespace rl::test
