// `rl backup` and `rl restore`, run as a user runs them: every command its own process, on
// durable file: stores in a temporary directory (and once through the FoundationDB backend, on
// this build's libfdb_c.so). A backup restored into a fresh database gives the same records,
// keys and check; bad files, missing files and non-empty targets are refused with one line and
// change nothing.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_rl.h"
#include "cli/shop_test_store.h"

namespace rl::test {
namespace {

class RlBackup : public ScratchDirTest {
 protected:
  std::string db(const std::string& name) const { return "file:" + file(name); }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // A command that must succeed with nothing on standard error; returns its standard output.
  static std::string ok(const std::vector<std::string>& args) {
    RunResult r = runRl(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }
  // A command that must fail with exactly `error` (one line, status 1, nothing on stdout).
  static void expectError(const std::vector<std::string>& args, const std::string& error) {
    RunResult r = runRl(args);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "rl: error: " + error + "\n");
  }

  // The shop store in `address`, with `records` orders: id, price id * 10, a customer; every
  // tenth has a payload of `payloadBytes` (250,000: split across three keys).
  void makeStore(const std::string& address, int records, int payloadBytes = 250'000,
                 const std::string& store = kStore) const {
    ok({"store", "create", "--db", address, "--path", store, "--proto", file("orders.proto")});
    std::string lines;
    for (int id = 1; id <= records; ++id) {
      lines += "{\"id\": " + std::to_string(id) + ", \"price\": " + std::to_string(id * 10) +
               ", \"customer\": \"c" + std::to_string(id % 7) + "\"";
      if (id % 10 == 0) lines += ", \"payload\": \"" + base64(payloadBytes, id) + "\"";
      lines += "}\n";
    }
    ok({"load", "--db", address, "--path", store, write("orders.ndjson", lines)});
  }

  // `bytes` pseudo-random bytes as base64 (so the records do not compress to nothing).
  static std::string base64(int bytes, int seed) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    uint32_t state = static_cast<uint32_t>(seed) * 2654435761u + 1;
    for (int i = 0; i < bytes / 3 * 4; ++i) {
      state = state * 1664525u + 1013904223u;
      out += kAlphabet[state >> 26];
    }
    return out;
  }

  static std::string scan(const std::string& address, const std::string& store = kStore) {
    return ok({"scan", "--db", address, "--path", store});
  }
  static std::string keys(const std::string& address, const std::string& store = kStore) {
    return ok({"keys", "--db", address, "--path", store});
  }
  // Every key and value below \xff, as rl kv prints them.
  static std::string everything(const std::string& address) {
    return ok({"kv", "--db", address, "getrange", "", "--limit", "0"});
  }
};

TEST_F(RlBackup, AStoreRestoredIntoAFreshDatabaseHasTheSameRecordsKeysAndCheck) {
  const std::string source = db("source");
  makeStore(source, 60);
  ok({"delete", "--db", source, "--path", kStore, "7"});
  const std::string backup = file("shop.rlb");
  const std::string out = ok({"backup", "--db", source, "--path", kStore, backup});
  EXPECT_TRUE(std::regex_match(
      out, std::regex("Backed up the record store \\(\"shop\", \"orders\"\\) and its metadata "
                      "in " +
                      source +
                      " at version [0-9]+: [0-9,]+ keys \\([0-9.]+ MB\\) in 1 transaction, to " +
                      backup + " \\([0-9.]+ MB\\)\\.\n")))
      << out;
  EXPECT_FALSE(std::filesystem::exists(backup + ".partial-" + std::to_string(::getpid())));

  const std::string target = db("target");
  const std::string restored = ok({"restore", "--db", target, backup});
  EXPECT_TRUE(std::regex_match(
      restored, std::regex("Restored [0-9,]+ keys \\([0-9.]+ MB\\) into " + target +
                           " in [0-9]+ transactions?, from " + backup +
                           ": the record store \\(\"shop\", \"orders\"\\) and its metadata in " +
                           source + " at version [0-9]+\\.\n")))
      << restored;

  EXPECT_EQ(scan(target), scan(source));
  EXPECT_EQ(keys(target), keys(source));
  EXPECT_EQ(ok({"get", "--db", target, "--path", kStore, "30"}),
            ok({"get", "--db", source, "--path", kStore, "30"}));
  expectError({"get", "--db", target, "--path", kStore, "7"}, "no record with primary key (7,)");
  EXPECT_EQ(
      ok({"index", "scan", "--db", target, "--path", kStore, "Order$price", "--from", "500"}),
      ok({"index", "scan", "--db", source, "--path", kStore, "Order$price", "--from", "500"}));
  const std::string check = ok({"check", "--db", target, "--path", kStore});
  EXPECT_NE(check.find("59 records"), std::string::npos) << check;
  EXPECT_NE(check.find("No problems."), std::string::npos) << check;
  // The store's metadata came with it: info reads it.
  auto info = [](const std::string& address) {
    const std::string out = ok({"store", "info", "--db", address, "--path", kStore});
    return out.substr(out.find('\n'));  // after "Record store ... in ADDRESS"
  };
  EXPECT_EQ(info(target), info(source));
  // The restored store takes new records.
  ok({"load", "--db", target, "--path", kStore, write("more.ndjson", "{\"id\": 1000}\n")});
}

TEST_F(RlBackup, AStoreBackupHoldsThatStoreOnly) {
  const std::string source = db("source");
  makeStore(source, 5, 100);
  makeStore(source, 3, 100, R"(("shop", "other"))");
  ok({"kv", "--db", source, "set", "raw", "key"});
  const std::string backup = file("orders.rlb");
  ok({"backup", "--db", source, "--path", kStore, backup});
  const std::string target = db("target");
  ok({"restore", "--db", target, backup});
  EXPECT_EQ(scan(target), scan(source));
  expectError(
      {"scan", "--db", target, "--path", R"(("shop", "other"))"},
      R"(no record store at ("shop", "other") (no metadata at ("rl-metadata", "shop", "other")): rl store create makes one)");
  EXPECT_EQ(ok({"kv", "--db", target, "get", "raw"}), "`raw': not found\n");
  // Into a database that has another store: the ranges are apart, so it is restored.
  const std::string third = db("third");
  makeStore(third, 2, 100, R"(("shop", "other"))");
  const std::string otherStore = scan(third, R"(("shop", "other"))");
  ok({"restore", "--db", third, backup});
  EXPECT_EQ(scan(third), scan(source));
  EXPECT_EQ(scan(third, R"(("shop", "other"))"), otherStore);
}

TEST_F(RlBackup, AStoreBackupRestoresAsAnotherStoreWithPath) {
  const std::string source = db("source");
  makeStore(source, 25, 100);
  ok({"delete", "--db", source, "--path", kStore, "4"});
  const std::string backup = file("orders.rlb");
  ok({"backup", "--db", source, "--path", kStore, backup});

  // Next to the original, in the same database: the copy's records, index entries, header
  // and metadata all moved under ("shop", "copy").
  const std::string copy = R"(("shop", "copy"))";
  const std::string restored = ok({"restore", "--db", source, "--path", copy, backup});
  EXPECT_TRUE(std::regex_match(
      restored,
      std::regex("Restored [0-9,]+ keys \\([0-9.,]+ [kM]?B\\) into " + source +
                 " in 1 transaction, from " + backup +
                 ": the record store \\(\"shop\", \"orders\"\\) and its metadata in " + source +
                 " at version [0-9]+, as the record store \\(\"shop\", \"copy\"\\)\\.\n")))
      << restored;
  EXPECT_EQ(scan(source, copy), scan(source));
  EXPECT_EQ(ok({"index", "scan", "--db", source, "--path", copy, "Order$price"}),
            ok({"index", "scan", "--db", source, "--path", kStore, "Order$price"}));
  const std::string check = ok({"check", "--db", source, "--path", copy});
  EXPECT_NE(check.find("24 records"), std::string::npos) << check;
  EXPECT_NE(check.find("No problems."), std::string::npos) << check;
  // Under the copy's path only: the original's keys are the ones they were.
  EXPECT_EQ(keys(source, copy).size(), keys(source).size());
  ok({"load", "--db", source, "--path", copy, write("more.ndjson", "{\"id\": 1000}\n")});
  EXPECT_NE(scan(source, copy), scan(source));

  // Into a deeper path of another database, as JSON; and refused where the copy now is.
  const std::string other = db("other");
  const std::string deep = R"(("tenants", 7, "orders"))";
  nlohmann::json json =
      nlohmann::json::parse(ok({"restore", "--db", other, "--path", deep, "--json", backup}));
  EXPECT_EQ(json["target_store"], R"(("tenants", 7, "orders"))");
  EXPECT_EQ(json["store"], R"(("shop", "orders"))");
  EXPECT_EQ(scan(other, deep), scan(source));
  expectError(
      {"scan", "--db", other, "--path", kStore},
      R"(no record store at ("shop", "orders") (no metadata at ("rl-metadata", "shop", "orders")): rl store create makes one)");
  RunResult refused = runRl({"restore", "--db", source, "--path", copy, backup});
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_NE(refused.err.find("is not empty where the backup restores (the record store (\"shop\", "
                             "\"copy\") and its metadata)"),
            std::string::npos)
      << refused.err;

  // --path needs a store backup; a bad tuple is refused before anything is written.
  const std::string whole = file("whole.rlb");
  ok({"backup", "--db", source, whole});
  const std::string empty = db("empty");
  expectError({"restore", "--db", empty, "--path", copy, whole},
              "--path restores a store backup as another store; this file is a backup of every "
              "key below \\xff (restore it without --path)");
  RunResult bad = runRl({"restore", "--db", empty, "--path", "(\"unclosed", backup});
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("--path"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(file("empty")));  // refused before anything was written
}

TEST_F(RlBackup, ADatabaseBackupHoldsEveryKeyBelowFF) {
  const std::string source = db("source");
  makeStore(source, 12, 150'000);
  makeStore(source, 3, 100, R"(("shop", "other"))");
  ok({"kv", "--db", source, "set", "raw\\x00\\xfe", "\\x01\\x02"});
  ok({"kv", "--db", source, "set", "", "the empty key"});
  const std::string backup = file("all.rlb");
  const std::string out = ok({"backup", "--db", source, backup});
  EXPECT_NE(out.find("Backed up every key below \\xff in " + source), std::string::npos) << out;
  const std::string target = db("target");
  ok({"restore", "--db", target, backup});
  EXPECT_EQ(everything(target), everything(source));
  EXPECT_EQ(scan(target, R"(("shop", "other"))"), scan(source, R"(("shop", "other"))"));
  EXPECT_NE(ok({"check", "--db", target, "--path", kStore}).find("No problems."),
            std::string::npos);
}

TEST_F(RlBackup, JsonSummaries) {
  const std::string source = db("source");
  makeStore(source, 4, 100);
  const std::string backup = file("shop.rlb");
  const nlohmann::json made =
      nlohmann::json::parse(ok({"backup", "--db", source, "--path", kStore, "--json", backup}));
  EXPECT_EQ(made["file"], backup);
  EXPECT_EQ(made["scope"], "store");
  EXPECT_EQ(made["store"], R"(("shop", "orders"))");
  EXPECT_EQ(made["source"], source);
  EXPECT_GT(made["version"].get<int64_t>(), 0);
  EXPECT_EQ(made["transactions"], 1);
  EXPECT_EQ(made["file_bytes"].get<int64_t>(),
            static_cast<int64_t>(std::filesystem::file_size(backup)));
  const int64_t keyCount = made["keys"].get<int64_t>();
  EXPECT_GT(keyCount, 4 * 3);  // versions, records, index entries, header, metadata

  const nlohmann::json verified =
      nlohmann::json::parse(ok({"restore", "--verify-only", "--json", backup}));
  EXPECT_EQ(verified["valid"], true);
  EXPECT_EQ(verified["keys"], keyCount);
  EXPECT_EQ(verified["bytes"], made["bytes"]);
  EXPECT_EQ(verified["version"], made["version"]);
  EXPECT_EQ(verified["source"], source);

  const std::string target = db("target");
  const nlohmann::json restored =
      nlohmann::json::parse(ok({"restore", "--db", target, "--json", backup}));
  EXPECT_EQ(restored["target"], target);
  EXPECT_EQ(restored["keys"], keyCount);
  EXPECT_EQ(restored["transactions"], 1);
  EXPECT_EQ(scan(target), scan(source));
}

TEST_F(RlBackup, VerifyOnlySaysWhatTheFileHoldsAndWritesNothing) {
  const std::string source = db("source");
  makeStore(source, 2, 100);
  const std::string backup = file("shop.rlb");
  ok({"backup", "--db", source, "--path", kStore, backup});
  const std::string out = ok({"restore", "--verify-only", backup});
  EXPECT_TRUE(std::regex_match(
      out, std::regex(backup +
                      " is a valid backup of the record store \\(\"shop\", \"orders\"\\) and its "
                      "metadata in " +
                      source +
                      " at version [0-9]+ \\(made [0-9T:-]+Z\\): [0-9,]+ keys \\([0-9,]+ "
                      "B\\)\\.\n")))
      << out;
}

TEST_F(RlBackup, ARestoreRefusesATargetWithKeysWhereItRestores) {
  const std::string source = db("source");
  makeStore(source, 10, 100);
  const std::string backup = file("shop.rlb");
  ok({"backup", "--db", source, "--path", kStore, backup});
  const std::string target = db("target");
  ok({"restore", "--db", target, backup});
  // A record the backup does not have, then a second restore: refused, the target unchanged.
  ok({"load", "--db", target, "--path", kStore, write("extra.ndjson", "{\"id\": 99}\n")});
  const std::string before = everything(target);
  expectError({"restore", "--db", target, backup},
              target +
                  " is not empty where the backup restores (the record store (\"shop\", "
                  "\"orders\") and its metadata): it has the key (\"rl-metadata\", \"shop\", "
                  "\"orders\", null, 0); restore into an empty database, or --overwrite to "
                  "clear those keys first");
  EXPECT_EQ(everything(target), before);
  // A target with only a store's key (no metadata) is refused too.
  const std::string other = db("other");
  ok({"kv", "--db", other, "--tuple", "set", R"(("shop", "orders", 99))", "x"});
  RunResult refused = runRl({"restore", "--db", other, backup});
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_NE(refused.err.find("it has the key (\"shop\", \"orders\", 99)"), std::string::npos)
      << refused.err;
  // --overwrite: the backup's ranges are cleared first, so the target is the backup again.
  ok({"restore", "--db", target, "--overwrite", backup});
  EXPECT_EQ(scan(target), scan(source));
  EXPECT_EQ(keys(target), keys(source));
  ok({"restore", "--db", other, "--overwrite", backup});
  EXPECT_EQ(everything(other), everything(db("target")));
}

TEST_F(RlBackup, ACorruptOrTruncatedBackupIsRefusedAndNothingIsWritten) {
  const std::string source = db("source");
  makeStore(source, 60, 200'000);
  const std::string backup = file("shop.rlb");
  ok({"backup", "--db", source, "--path", kStore, backup});
  const std::string bytes = read(backup);
  ASSERT_GT(bytes.size(), 1'000'000u);
  const std::string bad = file("bad.rlb");
  const std::string target = db("target");
  auto expectRefused = [&](const std::string& contents, const std::string& what) {
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << contents;
    RunResult r = runRl({"restore", "--db", target, bad});
    EXPECT_EQ(r.exitCode, 1) << what;
    EXPECT_EQ(r.out, "") << what;
    EXPECT_TRUE(std::regex_match(r.err, std::regex("rl: error: " + bad +
                                                   " is not a valid backup: [^\n]+; nothing was "
                                                   "restored\n")))
        << what << ": " << r.err;
    // The target was never opened: nothing written, not even a new store.
    EXPECT_FALSE(std::filesystem::exists(file("target"))) << what;
    return r.err;
  };
  // Truncated: in the header, in a data frame, in the end frame, one byte short.
  for (size_t length : {size_t{0}, size_t{10}, size_t{100}, bytes.size() / 2, bytes.size() - 25,
                        bytes.size() - 1}) {
    expectRefused(bytes.substr(0, length), "truncated to " + std::to_string(length));
  }
  EXPECT_TRUE(std::regex_match(
      expectRefused(bytes.substr(0, bytes.size() / 2), "half"),
      std::regex("rl: error: " + bad + " is not a valid backup: truncated: the file ends at byte " +
                 std::to_string(bytes.size() / 2) +
                 ", inside the data frame at byte [0-9]+; nothing was restored\n")));
  // A flipped bit: in the header, in the middle of the data, in the end frame.
  for (size_t at : {size_t{20}, bytes.size() / 3, bytes.size() - 10}) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    expectRefused(flipped, "bit flipped at " + std::to_string(at));
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 3] = static_cast<char>(flipped[bytes.size() / 3] ^ 0x10);
  std::ofstream(bad, std::ios::binary | std::ios::trunc) << flipped;
  RunResult r = runRl({"restore", "--db", target, bad});
  EXPECT_TRUE(std::regex_match(r.err, std::regex("rl: error: " + bad +
                                                 " is not a valid backup: corrupt: the checksum "
                                                 "of the data frame at byte [0-9]+ does not "
                                                 "match; nothing was restored\n")))
      << r.err;
  // Not a backup at all, and a newer format.
  expectRefused("{\"id\": 1}\n", "not a backup");
  std::string newer = bytes;
  newer[8] = 2;
  EXPECT_EQ(expectRefused(newer, "format 2"),
            "rl: error: " + bad +
                " is not a valid backup: backup format version 2, which this rl does not read (it "
                "reads version 1); nothing was restored\n");
  // The good file still restores.
  ok({"restore", "--db", target, backup});
  EXPECT_EQ(scan(target), scan(source));
}

TEST_F(RlBackup, AMissingFileAndOtherMistakesAreOneLineErrors) {
  const std::string missing = file("nope.rlb");
  expectError({"restore", "--db", db("target"), missing},
              "cannot open " + missing + ": No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(file("target")));
  expectError({"restore", "--verify-only", missing},
              "cannot open " + missing + ": No such file or directory");
  expectError({"restore", missing},
              "--db ADDRESS is required: where to restore (memory:<name>, file:<dir>, a directory "
              "path, fdb:<cluster file> or fdb:); --verify-only checks the file alone");

  const std::string source = db("source");
  makeStore(source, 3, 100);
  const std::string backup = file("shop.rlb");
  expectError(
      {"backup", "--db", source, "--path", R"(("nope",))", backup},
      R"(no record store at ("nope",) (no metadata at ("rl-metadata", "nope")): nothing to back up)");
  EXPECT_FALSE(std::filesystem::exists(backup));
  expectError({"backup", "--path", kStore, backup},
              "--db ADDRESS is required: memory:<name>, file:<dir>, a directory path, "
              "fdb:<cluster file> or fdb:");
  // An existing file is kept unless --force.
  write("shop.rlb", "precious");
  expectError({"backup", "--db", source, "--path", kStore, backup},
              backup + " exists: rl backup does not replace a file without --force");
  EXPECT_EQ(read(backup), "precious");
  ok({"backup", "--db", source, "--path", kStore, "--force", backup});
  EXPECT_NE(read(backup), "precious");
  ok({"restore", "--verify-only", backup});
  // A directory that does not exist.
  const std::string nowhere = file("no/such/dir/b.rlb");
  RunResult r = runRl({"backup", "--db", source, "--path", kStore, nowhere});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(std::regex_match(r.err, std::regex("rl: error: cannot create [^\n]*: No such file "
                                                 "or directory\n")))
      << r.err;
}

TEST_F(RlBackup, AStoreLargerThanOneTransactionRoundTrips) {
  // 4,000 records, 15 MB: more than FoundationDB lets one transaction write (10 MB), so the
  // backup reads in several transactions (each at the backup's read version) and the restore
  // writes in several.
  const std::string source = db("source");
  ok({"store", "create", "--db", source, "--path", kStore, "--proto", file("orders.proto")});
  std::string lines;
  for (int id = 1; id <= 4'000; ++id) {
    lines += "{\"id\": " + std::to_string(id) + ", \"price\": " + std::to_string(id % 977) +
             ", \"payload\": \"" + base64(3'750, id) + "\"}\n";
  }
  ok({"load", "--db", source, "--path", kStore, write("big.ndjson", lines)});
  const std::string backup = file("big.rlb");
  const nlohmann::json made =
      nlohmann::json::parse(ok({"backup", "--db", source, "--path", kStore, "--json", backup}));
  EXPECT_GT(made["bytes"].get<int64_t>(), 15'000'000);
  EXPECT_GE(made["transactions"].get<int64_t>(), 2);
  // A version, a record and an index entry a record; the header and the metadata.
  EXPECT_GT(made["keys"].get<int64_t>(), 4'000 * 3 + 1);
  const std::string target = db("target");
  const nlohmann::json restored =
      nlohmann::json::parse(ok({"restore", "--db", target, "--json", backup}));
  EXPECT_GE(restored["transactions"].get<int64_t>(), 15);
  EXPECT_EQ(restored["keys"], made["keys"]);
  EXPECT_EQ(scan(target), scan(source));
  const std::string check = ok({"check", "--db", target, "--path", kStore});
  EXPECT_NE(check.find(" 4,000 records (8,000 keys), "), std::string::npos) << check;
  EXPECT_NE(check.find("No problems."), std::string::npos) << check;
}

TEST_F(RlBackup, ThroughTheFoundationDBBackend) {
  // fdb:<cluster file> on this build's libfdb_c.so, whose cluster file names a file: store:
  // the backup reads at one read version through libfdb_c, the restore writes through it.
  const std::string source = db("source");
  makeStore(source, 25, 150'000);
  const std::string cluster = write("source.cluster", source + "\n");
  const std::string targetCluster = write("target.cluster", db("target") + "\n");
  ::setenv("RL_FDB_C_LIBRARY", RL_FDB_C_EMBEDDED_LIBRARY, 1);
  ::setenv("RL_FDB_C_ALLOW_EMBEDDED", "1", 1);
  const std::string backup = file("fdb.rlb");
  const std::string out = ok({"backup", "--db", "fdb:" + cluster, "--path", kStore, backup});
  EXPECT_NE(out.find("in fdb:" + cluster + " at version"), std::string::npos) << out;
  ok({"restore", "--db", "fdb:" + targetCluster, backup});
  const std::string throughFdb = scan("fdb:" + targetCluster);
  ::unsetenv("RL_FDB_C_LIBRARY");
  ::unsetenv("RL_FDB_C_ALLOW_EMBEDDED");
  EXPECT_EQ(throughFdb, scan(source));
  EXPECT_EQ(scan(db("target")), scan(source));
  EXPECT_EQ(keys(db("target")), keys(source));
}

}  // namespace
}  // namespace rl::test
