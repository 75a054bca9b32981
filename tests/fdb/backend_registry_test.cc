#include "fdb/backend_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fdb/database.h"

namespace fdb {
namespace {

// A backend for a made-up scheme: the in-memory engine, remembering what it was asked for.
struct Recorded {
  std::vector<std::string> rests;
  std::vector<int64_t> delays;
};

BackendScheme recordingScheme(std::string scheme, Recorded* recorded, bool barePaths = false) {
  return BackendScheme{.scheme = std::move(scheme),
                       .forms = {"made-up:<name>"},
                       .open =
                           [recorded](std::string_view rest, const EngineOptions& options) {
                             recorded->rests.emplace_back(rest);
                             recorded->delays.push_back(options.oneWayDelayMicros);
                             return Database::open("memory:").backend();
                           },
                       .servesBarePaths = barePaths};
}

int errorCode(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

TEST(BackendRegistry, BuiltInSchemesAreTheEngineAndFoundationDB) {
  BackendRegistry registry;
  registerBuiltinBackends(registry);
  EXPECT_EQ(registry.schemes(), (std::vector<std::string>{"memory", "file", "fdb"}));
  const std::vector<std::string> process = Database::addressSchemes();
  ASSERT_GE(process.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(process.begin(), process.begin() + 3), registry.schemes());
}

TEST(BackendRegistry, AnUnknownAddressNamesEveryRegisteredForm) {
  BackendRegistry registry;
  registerBuiltinBackends(registry);
  try {
    registry.open("bogus:x", {});
    FAIL() << "opened bogus:x";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
    EXPECT_EQ(std::string(e.detail()),
              "cannot open 'bogus:x': addresses are memory:, memory:<name>, file:<dir>, a "
              "directory path, fdb:<cluster file> or fdb:");
  }
}

TEST(BackendRegistry, ARegisteredSchemeOpensThroughDatabaseOpen) {
  Recorded recorded;
  BackendRegistry::instance().add(recordingScheme("made-up", &recorded));
  EngineOptions options;
  options.oneWayDelayMicros = 7;
  Database db = Database::open("made-up:some/name", options);
  db.run([](Transaction& tr) { tr.set("k", "v"); });
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get("k").get(); }), "v");
  EXPECT_EQ(recorded.rests, std::vector<std::string>{"some/name"});
  EXPECT_EQ(recorded.delays, std::vector<int64_t>{7});
}

TEST(BackendRegistry, ASchemeIsRegisteredOnce) {
  BackendRegistry registry;
  Recorded recorded;
  registry.add(recordingScheme("twice", &recorded));
  EXPECT_EQ(errorCode([&] { registry.add(recordingScheme("twice", &recorded)); }),
            errors::kClientInvalidOperation);
  EXPECT_EQ(registry.schemes(), std::vector<std::string>{"twice"});
}

TEST(BackendRegistry, BarePathsGoToTheOneSchemeThatServesThem) {
  BackendRegistry registry;
  Recorded first, second;
  registry.add(recordingScheme("first", &first, /*barePaths=*/true));
  EXPECT_EQ(errorCode([&] { registry.add(recordingScheme("second", &second, true)); }),
            errors::kClientInvalidOperation);
  registry.open("./data/store", {});
  registry.open("first:x", {});
  EXPECT_EQ(first.rests, (std::vector<std::string>{"./data/store", "x"}));
  // A word alone is a mistyped address, not a path; "./a:b" is a path despite its ':'.
  EXPECT_EQ(errorCode([&] { registry.open("first", {}); }), errors::kClientInvalidOperation);
  registry.open("./a:b", {});
  EXPECT_EQ(first.rests.back(), "./a:b");
}

TEST(BackendRegistry, ABareDirectoryPathIsADurableStore) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("backend_registry_test_" +
       std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  {
    Database db = Database::open(dir.string() + "/");
    db.run([](Transaction& tr) { tr.set("k", "v"); });
  }
  EXPECT_TRUE(std::filesystem::exists(dir));
  {
    Database again = Database::open("file:" + dir.string());
    EXPECT_EQ(again.run([](Transaction& tr) { return tr.get("k").get(); }), "v");
  }
  std::filesystem::remove_all(dir);
}

TEST(BackendRegistry, FoundationDBRefusesEngineOptions) {
  EngineOptions options;
  options.oneWayDelayMicros = 250;
  try {
    Database::open("fdb:/nonexistent.cluster", options);
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kClientInvalidOperation);
    EXPECT_NE(std::string(e.detail()).find("EngineOptions"), std::string::npos) << e.detail();
  }
}

}  // namespace
}  // namespace fdb
