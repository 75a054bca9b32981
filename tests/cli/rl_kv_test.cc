// `rl kv`, run as a user would run it: every command a separate process on one durable
// file: store in a temporary directory, so each test also shows that what one process
// commits the next one reads.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

TEST_F(RlKv, NotFound) {
  ok({"set", "something", "1"});
  EXPECT_EQ(ok({"get", "nothing"}), "`nothing': not found\n");
}

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
                       "Keys: printable bytes\nWatches: none\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Transaction: open \\(begun at line 3\\), read "
                                                  "version \\d+, about \\d+ bytes\n"
                                                  "Options: TIMEOUT 5000\n")))
      << r.out;
  EXPECT_EQ(everything(), "`a' is `1'\n");
}

// --- Watches in the shell ---

// `out` with every committed version replaced by V, so a script's output compares exactly.
std::string withoutVersions(const std::string& out) {
  return std::regex_replace(out, std::regex("Committed \\(\\d+\\)"), "Committed (V)");
}

TEST_F(RlKv, ShellWatchFiresWhenTheValueChangesAndNotOnTheSameValue) {
  RunResult r = shell(
      "set a 1\n"
      "watch a\n"
      "set a 1\n"  // the same value: a watch fires only when the value changes
      "get a\n"
      "set a 2\n"  // another value, in a later transaction: fires
      "watch a\n"
      "clear a\n"  // cleared: fires
      "watch a\n"
      "clear a\n"  // not there before either: the same "value"
      "set a 3\n"
      "watch a\n"
      "clearrange \"\" b\n"  // a range over it: fires
      "watch a\n"
      "status\n"
      "watches\n");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(withoutVersions(r.out),
            "Committed (V)\n"
            "Watching `a' (value `1')\n"
            "Committed (V)\n"
            "`a' is `1'\n"
            "Committed (V)\n"
            "Watch on `a' (line 2) fired\n"
            "Watching `a' (value `2')\n"
            "Committed (V)\n"
            "Watch on `a' (line 6) fired\n"
            "Watching `a' (not found)\n"
            "Committed (V)\n"
            "Committed (V)\n"
            "Watch on `a' (line 8) fired\n"
            "Watching `a' (value `3')\n"
            "Committed (V)\n"
            "Watch on `a' (line 11) fired\n"
            "Watching `a' (not found)\n"
            "Store: file:" +
                dir_.string() +
                "\n"
                "Transaction: none (each command commits on its own)\n"
                "Options: none\n"
                "Keys: printable bytes\n"
                "Watches: 1 not fired (watches lists them)\n"
                "Watches that have not fired:\n"
                "  `a' (line 13)\n");
  // The one left is cancelled when the shell ends, which is no error.
  EXPECT_EQ(r.err, "rl kv: 1 watch had not fired when the shell ended; cancelled: `a' (line 13)\n");
}

TEST_F(RlKv, ShellWatchInATransaction) {
  RunResult r = shell(
      "set a 1\n"
      "begin\n"
      "watch a\n"  // 3: armed when the transaction commits
      "set b 1\n"
      "watches\n"
      "commit\n"
      "set a 2\n"  // fires line 3's
      "begin\n"
      "watch a\n"  // 9
      "set a 3\n"  // the transaction's own write changes the value: fires at once
      "commit\n"
      "begin\n"
      "watch a\n"  // 13
      "rollback\n"
      "set a 4\n"  // nothing fires: line 13's watch went with its transaction
      "begin\n"
      "watch b\n"  // 17
      "set " +
      std::string(10'001, 'k') +
      " v\n"
      "commit\n"  // 19: fails with the set's error, which rolls the transaction back
      "begin\n"
      "watch c\n");  // 21: the input ends with the transaction open
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(withoutVersions(r.out),
            "Committed (V)\n"
            "Transaction started\n"
            "Watching `a' (value `1') once the transaction commits\n"
            "Watches that have not fired:\n"
            "  `a' (line 3), once the transaction commits\n"
            "Committed (V)\n"
            "Committed (V)\n"
            "Watch on `a' (line 3) fired\n"
            "Transaction started\n"
            "Watching `a' (value `2') once the transaction commits\n"
            "Watch on `a' (line 9) fired\n"
            "Committed (V)\n"
            "Transaction started\n"
            "Watching `a' (value `3') once the transaction commits\n"
            "Transaction rolled back\n"
            "Watch on `a' (line 13) dropped with the transaction\n"
            "Committed (V)\n"
            "Transaction started\n"
            "Watching `b' (value `1') once the transaction commits\n"
            "Watch on `b' (line 17) dropped with the transaction\n"
            "Transaction started\n"
            "Watching `c' (not found) once the transaction commits\n"
            "Watch on `c' (line 21) dropped with the transaction\n");
  EXPECT_EQ(r.err,
            "rl: error: line 19: key_too_large (2102): key of 10001 bytes (the transaction begun "
            "at line 16 is rolled back)\n"
            "rl: error: the transaction begun at line 20 was not committed; its writes are "
            "discarded\n");
  EXPECT_EQ(everything(), "`a' is `4'\n`b' is `1'\n");
}

TEST_F(RlKv, ShellWatchErrorsAreOneLineEachAndChangeNothing) {
  RunResult r = shell(
      "watch\n"
      "watch a b\n"
      "watch k\\xZZ\n"
      "watch \\xff\\xff\n"
      "watch " +
      std::string(10'001, 'k') +
      "\n"
      "option on READ_YOUR_WRITES_DISABLE\n"
      "watch a\n"
      "option off READ_YOUR_WRITES_DISABLE\n"
      "watches now\n"
      "wait x\n"
      "wait -1\n"
      "wait 1 2\n"
      "wait\n"  // 13: no watch: nothing to wait for, returns at once
      "watch a\n"
      "wait\n"  // 15: a file: store has one writer, this shell
      "wait 0\n"
      "begin\n"
      "wait 0\n"
      "rollback\n"
      "watches\n");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out,
            "Option enabled for all transactions\n"
            "Option disabled for all transactions\n"
            "Watching `a' (not found)\n"
            "No watch fired in 0 s\n"
            "Transaction started\n"
            "Transaction rolled back\n"
            "Watches that have not fired:\n"
            "  `a' (line 14)\n");
  const std::string store = "file:" + dir_.string();
  EXPECT_EQ(r.err,
            "rl: error: line 1: usage: watch KEY\n"
            "rl: error: line 2: usage: watch KEY\n"
            "rl: error: line 3: bad escape at character 2 of `k\\xZZ': \\x takes two hex digits "
            "(\\x00 to \\xff)\n"
            "rl: error: line 4: key_outside_legal_range (2004): watch of '\\xff\\xff' outside the "
            "readable key space\n"
            "rl: error: line 5: key_too_large (2102): watched key of 10001 bytes\n"
            "rl: error: line 7: watches_disabled (1034): watches need read-your-writes\n"
            "rl: error: line 9: watches takes no arguments\n"
            "rl: error: line 10: wait takes a number of seconds from 0 to 1000000, not 'x'\n"
            "rl: error: line 11: wait takes a number of seconds from 0 to 1000000, not '-1'\n"
            "rl: error: line 12: usage: wait [SECONDS]\n"
            "rl: error: line 15: wait needs SECONDS here: only this shell writes to the store (" +
                store +
                "), so no other client can fire a watch\n"
                "rl: error: line 18: wait cannot run in a transaction: its watches are armed only "
                "when it commits (commit or rollback first)\n"
                "rl kv: 1 watch had not fired when the shell ended; cancelled: `a' (line 14)\n");
  EXPECT_EQ(everything(), "");
}

TEST_F(RlKv, ShellWatchJsonAndTupleKeys) {
  RunResult r = shell(
      "watch (\"orders\", 42)\n"
      "watches\n"
      "set (\"orders\", 42) v\n",
      {"--json", "--tuple"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(withoutVersions(std::regex_replace(r.out, std::regex("\"committed_version\": \\d+"),
                                               "\"committed_version\": V")),
            "{\n"
            "  \"active\": true,\n"
            "  \"key\": \"\\\\x02orders\\\\x00\\\\x15*\",\n"
            "  \"line\": 1,\n"
            "  \"tuple\": \"(\\\"orders\\\", 42)\",\n"
            "  \"value\": null,\n"
            "  \"watch\": \"set\"\n"
            "}\n"
            "[\n"
            "  {\n"
            "    \"active\": true,\n"
            "    \"key\": \"\\\\x02orders\\\\x00\\\\x15*\",\n"
            "    \"line\": 1,\n"
            "    \"tuple\": \"(\\\"orders\\\", 42)\"\n"
            "  }\n"
            "]\n"
            "{\n"
            "  \"committed_version\": V\n"
            "}\n"
            "{\n"
            "  \"key\": \"\\\\x02orders\\\\x00\\\\x15*\",\n"
            "  \"line\": 1,\n"
            "  \"tuple\": \"(\\\"orders\\\", 42)\",\n"
            "  \"watch\": \"fired\"\n"
            "}\n");
  EXPECT_EQ(r.err, "");

  RunResult text = shell("watch (\"orders\", 7)\nset (\"orders\", 7) w\n", {"--tuple"});
  EXPECT_EQ(text.exitCode, 0) << text.err;
  EXPECT_EQ(withoutVersions(text.out),
            "Watching (\"orders\", 7) (not found)\n"
            "Committed (V)\n"
            "Watch on (\"orders\", 7) (line 1) fired\n");
}

TEST_F(RlKv, ShellHelpListsTheWatchCommands) {
  RunResult r = shell("help\n");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  for (const char* line :
       {"\n  watch KEY ", "\n  unwatch KEY ", "\n  watches ", "\n  wait [SECONDS] "}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  RunResult usage = runRl({"kv", "--help"});
  EXPECT_NE(usage.out.find("option, watch, unwatch, watches, wait, status, help"),
            std::string::npos)
      << usage.out;
}

TEST_F(RlKv, ShellUnwatchCancelsTheWatchesOnAKey) {
  RunResult r = shell(
      "set a 1\n"
      "watch a\n"    // 2
      "watch a\n"    // 3
      "watch b\n"    // 4
      "unwatch a\n"  // cancels 2 and 3
      "unwatch a\n"  // none left
      "set a 2\n"    // nothing fires: they were cancelled
      "begin\n"
      "watch a\n"    // 9: in the transaction, armed at its commit
      "unwatch a\n"  // cancelled before it is armed
      "commit\n"
      "set a 3\n"
      "watch a\n"  // 13
      "set a 4\n"  // fires 13: it is reported, and unwatch finds nothing
      "unwatch a\n"
      "unwatch\n"
      "watches\n");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(withoutVersions(r.out),
            "Committed (V)\n"
            "Watching `a' (value `1')\n"
            "Watching `a' (value `1')\n"
            "Watching `b' (not found)\n"
            "Cancelled 2 watches on `a' (lines 2, 3)\n"
            "There are no watches on `a'\n"
            "Committed (V)\n"
            "Transaction started\n"
            "Watching `a' (value `2') once the transaction commits\n"
            "Cancelled the watch on `a' (line 9)\n"
            "Committed (-1)\n"  // read-only: a watch writes nothing
            "Committed (V)\n"
            "Watching `a' (value `3')\n"
            "Committed (V)\n"
            "Watch on `a' (line 13) fired\n"
            "There are no watches on `a'\n"
            "Watches that have not fired:\n"
            "  `b' (line 4)\n");
  EXPECT_EQ(r.err,
            "rl: error: line 16: usage: unwatch KEY\n"
            "rl kv: 1 watch had not fired when the shell ended; cancelled: `b' (line 4)\n");

  RunResult json = shell("watch a\nunwatch a\n", {"--json"});
  EXPECT_EQ(json.exitCode, 0) << json.err;
  EXPECT_NE(json.out.find("\"lines\": [\n    1\n  ],"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"watch\": \"cancelled\""), std::string::npos) << json.out;
}

TEST_F(RlKv, ShellTooManyWatches) {
  // FoundationDB allows 10,000 outstanding watches a database by default (max_watches): the
  // 10,001st is refused with too_many_watches (1032), and the shell goes on.
  std::string script;
  for (int i = 1; i <= 10'001; ++i) script += "watch k" + std::to_string(i) + "\n";
  script += "set k1 x\n";
  script += "watch k10001\n";  // one fired, so there is room again
  RunResult r = runRl({"kv", "--db", "memory:"}, script);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(r.out.starts_with("Watching `k1' (not found)\nWatching `k2' (not found)\n"));
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Watching `k10000' \\(not found\\)\n"
                                                  "Committed \\(\\d+\\)\n"
                                                  "Watch on `k1' \\(line 1\\) fired\n"
                                                  "Watching `k10001' \\(not found\\)\n$")))
      << r.out.substr(r.out.size() - 200);
  EXPECT_EQ(r.err,
            "rl: error: line 10001: too_many_watches (1032): too many watches are outstanding on "
            "this database; this shell has 10,000 watches that have not fired (watches lists "
            "them)\n"
            "rl kv: 10,000 watches had not fired when the shell ended; cancelled: `k2' (line 2), "
            "`k3' (line 3), `k4' (line 4), `k5' (line 5), `k6' (line 6), `k7' (line 7), `k8' "
            "(line 8), `k9' (line 9), `k10' (line 10), `k11' (line 11) and 9,990 more\n");
}

TEST_F(RlKv, ShellWatchThroughTheFoundationDBBackend) {
  // fdb:<cluster file> on this build's libfdb_c.so: a watch's future is completed through the
  // C API's callbacks, with 250 us of simulated delay on the library's network thread, so it
  // may be ready a little after the commit that fired it; `wait` makes the output the same
  // either way.
  const std::filesystem::path cluster = dir_.string() + ".cluster";
  std::ofstream(cluster) << "memory:rl-kv-watch\n";
  const std::string script =
      "watch a\n"
      "set a 1\n"
      "wait\n"
      "watch a\n"
      "clear a\n"
      "wait\n"
      "watches\n";
  for (const char* delay : {"0", "250"}) {
    SCOPED_TRACE(delay);
    RunResult r = runRl({"kv", "--db", "fdb:" + cluster.string()}, script,
                        {{"RL_FDB_C_LIBRARY", RL_FDB_C_EMBEDDED_LIBRARY},
                         {"RL_FDB_C_ALLOW_EMBEDDED", "1"},
                         {"RECORDLAYER_ONE_WAY_DELAY_US", delay}});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(withoutVersions(r.out),
              "Watching `a' (not found)\n"
              "Committed (V)\n"
              "Watch on `a' (line 1) fired\n"
              "Watching `a' (value `1')\n"
              "Committed (V)\n"
              "Watch on `a' (line 4) fired\n"
              "There are no watches\n");
  }
  std::filesystem::remove(cluster);
}

}  // namespace
}  // namespace rl::test
