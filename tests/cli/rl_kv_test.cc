// `rl kv`, run as a user would run it: every command a separate process on one durable
// file: store in a temporary directory, so each test also shows that what one process
// commits the next one reads.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_rl.h"

namespace rl::test {
namespace {

class RlKv : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rl-kv-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `rl kv --db file:<dir> args...`
  RunResult kv(std::vector<std::string> args) const {
    args.insert(args.begin(), {"kv", "--db", "file:" + dir_.string()});
    return runRl(args);
  }

  // Runs a command that must succeed; returns its standard output.
  std::string ok(std::vector<std::string> args) const {
    RunResult r = kv(std::move(args));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
  }

  // `rl kv --db file:<dir> [args...]` with no command: the shell, reading `script`.
  RunResult shell(const std::string& script, std::vector<std::string> args = {}) const {
    args.insert(args.begin(), {"kv", "--db", "file:" + dir_.string()});
    return runRl(args, script);
  }

  // Every key and value in the store, as getrange prints them.
  std::string everything() const { return ok({"getrange", "", "--limit", "0"}); }

  // A command that must fail with exactly `error` (one line, status 1, nothing on stdout).
  void expectError(std::vector<std::string> args, const std::string& error) const {
    RunResult r = kv(std::move(args));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "rl: error: " + error + "\n");
  }

  std::filesystem::path dir_;
};

const std::regex kCommitted("Committed \\(\\d+\\)\n");

TEST_F(RlKv, SetThenGetInAnotherProcess) {
  EXPECT_TRUE(std::regex_match(ok({"set", "hello", "world"}), kCommitted));
  EXPECT_EQ(ok({"get", "hello"}), "`hello' is `world'\n");
  // The options may follow the command.
  RunResult r = runRl({"kv", "get", "hello", "--db", dir_.string()});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "`hello' is `world'\n");
}

TEST_F(RlKv, NotFound) { EXPECT_EQ(ok({"get", "nothing"}), "`nothing': not found\n"); }

TEST_F(RlKv, Clear) {
  ok({"set", "a", "1"});
  ok({"set", "b", "2"});
  EXPECT_TRUE(std::regex_match(ok({"clear", "a"}), kCommitted));
  EXPECT_EQ(ok({"get", "a"}), "`a': not found\n");
  EXPECT_EQ(everything(), "`b' is `2'\n");
}

TEST_F(RlKv, ClearRangeIsHalfOpen) {
  for (const char* key : {"a", "b", "c", "d"}) ok({"set", key, key});
  EXPECT_TRUE(std::regex_match(ok({"clearrange", "b", "d"}), kCommitted));
  EXPECT_EQ(everything(), "`a' is `a'\n`d' is `d'\n");
}

TEST_F(RlKv, GetRangeWithLimitAndReverse) {
  for (const char* key : {"k1", "k2", "k3", "k4", "k5"}) ok({"set", key, std::string("v") + key});
  ok({"set", "z", "outside"});

  RunResult limited = kv({"getrange", "k", "l", "--limit", "2"});
  EXPECT_EQ(limited.exitCode, 0) << limited.err;
  EXPECT_EQ(limited.out, "`k1' is `vk1'\n`k2' is `vk2'\n");
  EXPECT_EQ(limited.err, "rl kv: the range has more keys than the 2 shown (--limit; 0 for all)\n");

  RunResult reversed = kv({"getrange", "k", "l", "--limit", "3", "--reverse"});
  EXPECT_EQ(reversed.exitCode, 0) << reversed.err;
  EXPECT_EQ(reversed.out, "`k5' is `vk5'\n`k4' is `vk4'\n`k3' is `vk3'\n");

  // The end is exclusive; a limit the range fits in says nothing more.
  RunResult exact = kv({"getrange", "k2", "k4", "--limit", "2"});
  EXPECT_EQ(exact.out, "`k2' is `vk2'\n`k3' is `vk3'\n");
  EXPECT_EQ(exact.err, "");

  // Without END the range runs to \xff.
  EXPECT_EQ(ok({"getrangekeys", "k4"}), "`k4'\n`k5'\n`z'\n");
  EXPECT_EQ(ok({"getrangekeys", "k", "l", "--reverse", "--limit", "0"}),
            "`k5'\n`k4'\n`k3'\n`k2'\n`k1'\n");
}

TEST_F(RlKv, GetRangeDefaultsToTwentyFiveKeys) {
  for (int i = 0; i < 30; ++i) ok({"set", "key" + std::to_string(100 + i), "v"});
  RunResult r = kv({"getrangekeys", "key"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 25);
  EXPECT_TRUE(r.out.starts_with("`key100'\n")) << r.out;
  EXPECT_TRUE(r.out.ends_with("`key124'\n")) << r.out;
  EXPECT_NE(r.err.find("more keys than the 25 shown"), std::string::npos) << r.err;
}

TEST_F(RlKv, BinaryBytesRoundTrip) {
  ok({"set", R"(a\x00\xff)", R"(\x00\xff\\\x7f)"});
  ok({"set", R"(\xfe)", ""});
  EXPECT_EQ(ok({"get", R"(a\x00\xFF)"}), "`a\\x00\\xff' is `\\x00\\xff\\\\\\x7f'\n");
  EXPECT_EQ(ok({"get", "a"}), "`a': not found\n");
  EXPECT_EQ(everything(), "`a\\x00\\xff' is `\\x00\\xff\\\\\\x7f'\n`\\xfe' is `'\n");
  EXPECT_EQ(ok({"--json", "getrange", ""}),
            "[\n"
            "  {\n"
            "    \"key\": \"a\\\\x00\\\\xff\",\n"
            "    \"value\": \"\\\\x00\\\\xff\\\\\\\\\\\\x7f\"\n"
            "  },\n"
            "  {\n"
            "    \"key\": \"\\\\xfe\",\n"
            "    \"value\": \"\"\n"
            "  }\n"
            "]\n");
}

TEST_F(RlKv, TupleKeysRoundTrip) {
  ok({"--tuple", "set", R"(("orders", 42))", "forty-two"});
  ok({"--tuple", "set", R"(("orders", 7, "x"))", R"(seven\x00)"});
  ok({"--tuple", "set", R"(("orders",))", "the tuple itself"});
  ok({"--tuple", "set", "(\"orders\\x00x\",)", "a longer string, not in (\"orders\",)"});
  ok({"set", "orders", "not a tuple"});

  EXPECT_EQ(ok({"--tuple", "get", R"(("orders", 42))"}), "(\"orders\", 42) is `forty-two'\n");
  EXPECT_EQ(ok({"get", R"(\x02orders\x00\x15*)"}), "`\\x02orders\\x00\\x15*' is `forty-two'\n");
  EXPECT_EQ(ok({"--tuple", "get", R"(("orders", 43))"}), "(\"orders\", 43): not found\n");

  // One tuple: every key it prefixes, its own included.
  EXPECT_EQ(ok({"--tuple", "getrange", R"(("orders",))"}),
            "(\"orders\",) is `the tuple itself'\n"
            "(\"orders\", 7, \"x\") is `seven\\x00'\n"
            "(\"orders\", 42) is `forty-two'\n");
  // Keys that are not tuples are shown in printable form.
  EXPECT_EQ(ok({"--tuple", "getrangekeys", "()"}),
            "(\"orders\",)\n(\"orders\", 7, \"x\")\n(\"orders\", 42)\n(\"orders\\x00x\",)\n"
            "`orders'\n");
  EXPECT_EQ(ok({"--tuple", "--json", "getrangekeys", R"(("orders", 7))", R"(("orders", 8))"}),
            "[\n"
            "  {\n"
            "    \"key\": \"\\\\x02orders\\\\x00\\\\x15\\\\x07\\\\x02x\\\\x00\",\n"
            "    \"tuple\": \"(\\\"orders\\\", 7, \\\"x\\\")\"\n"
            "  }\n"
            "]\n");

  ok({"--tuple", "clearrange", R"(("orders", 0))", R"(("orders", 10))"});
  EXPECT_EQ(ok({"--tuple", "getrangekeys", R"(("orders",))"}), "(\"orders\",)\n(\"orders\", 42)\n");
  ok({"--tuple", "clear", R"(("orders",))"});
  EXPECT_EQ(ok({"--tuple", "getrangekeys", R"(("orders",))"}), "(\"orders\", 42)\n");
}

TEST_F(RlKv, BadInputChangesNothing) {
  ok({"set", "a", "1"});
  ok({"set", "b", "2"});
  const std::string before = everything();

  expectError({"set", R"(a\xZZ)", "3"},
              R"(bad escape at character 2 of `a\xZZ': \x takes two hex digits (\x00 to \xff))");
  expectError({"set", "a", R"(3\q)"},
              "bad escape at character 2 of `3\\q': a backslash starts \\xNN (a byte) or \\\\ (a "
              "backslash)");
  expectError({"clearrange", "b", "a"},
              "inverted_range (2005): the range's begin `b' is after its end `a'");
  expectError({"getrange", "b", "a"},
              "inverted_range (2005): the range's begin `b' is after its end `a'");
  expectError({"set", std::string(10'001, 'k'), "v"}, "key_too_large (2102): key of 10001 bytes");
  expectError({"set", "a", std::string(100'001, 'v')},
              "value_too_large (2103): value of 100001 bytes");
  expectError({"set", R"(\xff/x)", "v"},
              "key_outside_legal_range (2004): set of '\\xff/x' outside the writable key space");
  expectError({"getrange", "a", "--limit", "-1"}, "--limit -1: a limit is 0 (every key) or more");

  RunResult badTuple = kv({"--tuple", "clear", R"(("a", 1 2))"});
  EXPECT_EQ(badTuple.exitCode, 1);
  EXPECT_TRUE(badTuple.err.starts_with("rl: error: bad tuple at character 9: ")) << badTuple.err;

  EXPECT_EQ(everything(), before);
}

TEST_F(RlKv, NeedsAnAddress) {
  RunResult r = runRl({"kv", "get", "a"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err,
            "rl: error: rl kv needs --db ADDRESS (raw keys have no default store): memory:, "
            "memory:<name>, file:<dir>, a directory path, fdb:<cluster file> or fdb:\n");
  RunResult bad = runRl({"kv", "--db", "nosuch:x", "get", "a"});
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_TRUE(bad.err.starts_with("rl: error: client_invalid_operation (2000): cannot open"))
      << bad.err;
}

TEST_F(RlKv, AKeyStartingWithADashAfterTwoDashes) {
  ok({"set", "--", "-x", "-1"});
  EXPECT_EQ(ok({"get", "--", "-x"}), "`-x' is `-1'\n");
}

// --- The shell: `rl kv --db ADDRESS` with commands on standard input ---

TEST_F(RlKv, ShellTransactionCommitsItsWritesTogether) {
  RunResult r = shell(
      "set a 1\n"
      "begin\n"
      "set b 2\n"
      "get b\n"
      "getrange \"\" \\xff\n"
      "commit\n");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::regex_match(r.out, std::regex("Committed \\(\\d+\\)\n"
                                                 "Transaction started\n"
                                                 "`b' is `2'\n"
                                                 "`a' is `1'\n"
                                                 "`b' is `2'\n"
                                                 "Committed \\(\\d+\\)\n")))
      << r.out;
  EXPECT_EQ(everything(), "`a' is `1'\n`b' is `2'\n");  // read by another process
}

TEST_F(RlKv, ShellRollbackAndAnUnfinishedTransactionWriteNothing) {
  RunResult r = shell(
      "begin\n"
      "set c 3\n"
      "rollback\n"
      "get c\n"
      "# a comment, and an empty line\n"
      "\n"
      "begin\n"
      "set d 4\n");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out,
            "Transaction started\nTransaction rolled back\n`c': not found\nTransaction started\n");
  EXPECT_EQ(r.err,
            "rl: error: the transaction begun at line 7 was not committed; its writes are "
            "discarded\n");
  EXPECT_EQ(everything(), "");
}

TEST_F(RlKv, ShellPrintsErrorsAndGoesOn) {
  RunResult r = shell(
      "set k\\xZZ 1\n"
      "set k 1\n"
      "commit\n"
      "bogus\n"
      "begin\n"
      "set " +
      std::string(10'001, 'k') +
      " v\n"
      "commit\n"
      "get k\n"
      "clearrange b a\n"
      "exit\n"
      "set after exit\n");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(std::regex_match(
      r.out, std::regex("Committed \\(\\d+\\)\nTransaction started\n`k' is `1'\n")))
      << r.out;
  EXPECT_EQ(r.err,
            "rl: error: line 1: bad escape at character 2 of `k\\xZZ': \\x takes two hex digits "
            "(\\x00 to \\xff)\n"
            "rl: error: line 3: no transaction is open (begin opens one)\n"
            "rl: error: line 4: unknown command 'bogus' (help lists the commands)\n"
            "rl: error: line 7: key_too_large (2102): key of 10001 bytes (the transaction begun "
            "at line 5 is rolled back)\n"
            "rl: error: line 9: inverted_range (2005): the range's begin `b' is after its end "
            "`a'\n");
  EXPECT_EQ(everything(), "`k' is `1'\n");
}

TEST_F(RlKv, ShellOptions) {
  RunResult r = shell(
      "set \\xff/x 1\n"
      "option on access_system_keys\n"
      "option on TIMEOUT 5000\n"
      "option\n"
      "set \\xff/x 1\n"
      "get \\xff/x\n"
      "option off ACCESS_SYSTEM_KEYS\n"
      "get \\xff/x\n"
      "begin\n"
      "option on ACCESS_SYSTEM_KEYS\n"
      "get \\xff/x\n"
      "option off TIMEOUT\n"
      "option\n"
      "rollback\n"
      "option on NOPE\n"
      "option on TIMEOUT x\n");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(std::regex_match(r.out, std::regex("Option enabled for all transactions\n"
                                                 "Option enabled for all transactions\n"
                                                 "Enabled options:\n"
                                                 "  ACCESS_SYSTEM_KEYS\n"
                                                 "  TIMEOUT 5000\n"
                                                 "Committed \\(\\d+\\)\n"
                                                 "`\\\\xff/x' is `1'\n"
                                                 "Option disabled for all transactions\n"
                                                 "Transaction started\n"
                                                 "Option enabled for the current transaction\n"
                                                 "`\\\\xff/x' is `1'\n"
                                                 "Enabled options:\n"
                                                 "  TIMEOUT 5000\n"
                                                 "  ACCESS_SYSTEM_KEYS\n"
                                                 "Transaction rolled back\n")))
      << r.out;
  const std::string err = r.err;
  EXPECT_NE(err.find("rl: error: line 1: key_outside_legal_range (2004): set of '\\xff/x' "
                     "outside the writable key space\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("rl: error: line 8: key_outside_legal_range (2004)"), std::string::npos)
      << err;
  EXPECT_NE(err.find("rl: error: line 12: options cannot be turned off in a transaction begun "
                     "with begin (rollback first)\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("rl: error: line 15: unknown option 'NOPE'; options: ACCESS_SYSTEM_KEYS, "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("rl: error: line 16: TIMEOUT 'x' is not an integer\n"), std::string::npos)
      << err;
}

TEST_F(RlKv, ShellWordsQuotesAndTuples) {
  RunResult quoted = shell(
      "set \"with space\" \"v \\\" q\"\n"
      "get \"with space\"\n");
  EXPECT_EQ(quoted.exitCode, 0) << quoted.err;
  EXPECT_TRUE(quoted.out.ends_with("`with space' is `v \" q'\n")) << quoted.out;

  RunResult tuples = shell(
      "set (\"a)b\", \"x y\") v\n"
      "getrange (\"a)b\",)\n"
      "get (\"open\", 1\n"
      "getrangekeys () (\"b\",) 1\n",
      {"--tuple"});
  EXPECT_EQ(tuples.exitCode, 1);
  EXPECT_TRUE(std::regex_search(tuples.out, std::regex("^Committed \\(\\d+\\)\n"))) << tuples.out;
  EXPECT_TRUE(
      tuples.out.ends_with(")\n"
                           "(\"a)b\", \"x y\") is `v'\n"
                           "(\"a)b\", \"x y\")\n"))
      << tuples.out;
  EXPECT_EQ(tuples.err, "rl: error: line 3: the tuple at character 5 is not closed\n");
}

TEST_F(RlKv, ShellStatus) {
  RunResult r = shell(
      "status\n"
      "option on TIMEOUT 5000\n"
      "begin\n"
      "set a 1\n"
      "status\n"
      "commit\n");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const std::string store = "file:" + dir_.string();
  EXPECT_NE(r.out.find("Store: " + store +
                       "\nTransaction: none (each command commits on its own)\nOptions: none\n"
                       "Keys: printable bytes\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Transaction: open \\(begun at line 3\\), read "
                                                  "version \\d+, about \\d+ bytes\n"
                                                  "Options: TIMEOUT 5000\n")))
      << r.out;
  EXPECT_EQ(everything(), "`a' is `1'\n");
}

}  // namespace
}  // namespace rl::test
