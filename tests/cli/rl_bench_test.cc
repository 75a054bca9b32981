// `rl bench campaign`: the campaign runner started through rl, its output and exit status
// passed through (docs/campaigns/README.md). The campaigns here run the runner's stand-in
// benchmark (tools/campaign/tests/fake_bench.py), so they take a second.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/run_rl.h"

namespace rl::test {
namespace {

const std::string kSource = RL_SOURCE_DIR;

std::string tempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "rl_bench_test.XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  return made != nullptr ? std::string(made) : std::string();
}

// A two-arm plan on the stand-in benchmark; arm b's digest is `digestB`.
std::string writePlan(const std::string& dir, const std::string& digestB) {
  const std::string fake = kSource + "/tools/campaign/tests/fake_bench.py";
  const std::string path = dir + "/plan.toml";
  std::ofstream(path) << "[campaign]\nname = \"through rl\"\nreference = \"a\"\nblocks = 2\n"
                         "repeats = 1\nresamples = 200\n"
                         "[gates]\ncpu_idle_min = 0.0\ncpu_window = 0.01\nretries = 0\n"
                         "[[arms]]\nname = \"a\"\nbinary = \""
                      << fake
                      << "\"\nenv = { FAKE_NS = \"1000\" }\n"
                         "[[arms]]\nname = \"b\"\nbinary = \""
                      << fake << "\"\nenv = { FAKE_NS = \"1500\", FAKE_DIGEST = \"" << digestB
                      << "\" }\n"
                         "[[cases]]\nname = \"one\"\nbenchmark = \"one/real_time\"\n";
  return path;
}

TEST(RlBench, CheckValidatesACommittedPlan) {
  RunResult r = runRl({"bench", "campaign", "--check", "--scale", "quick",
                       kSource + "/docs/campaigns/c1-indexfetch.toml"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("C1: index fetch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arms scan, remote"), std::string::npos) << r.out;
}

TEST(RlBench, ABadPlanIsRefusedWithTheReason) {
  const std::string dir = tempDir();
  const std::string path = dir + "/bad.toml";
  std::ofstream(path) << "[campaign]\nname = \"x\"\nreference = \"a\"\nbogus = 1\n";
  RunResult r = runRl({"bench", "campaign", path});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("plan error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown key 'bogus'"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(RlBench, ACampaignRunsAndWritesItsReports) {
  const std::string dir = tempDir();
  RunResult r = runRl({"bench", "campaign", writePlan(dir, "00000000000000aa"), "--out",
                       dir + "/out", "--repo", dir});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("campaign: complete"), std::string::npos) << r.err;
  for (const char* file : {"report.md", "report.html", "runs.csv", "runs.json", "summary.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/" + file)) << file;
  }
  std::filesystem::remove_all(dir);
}

TEST(RlBench, ArmsThatDisagreeStopTheCampaignWithStatus3) {
  const std::string dir = tempDir();
  RunResult r = runRl({"bench", "campaign", writePlan(dir, "00000000000000bb"), "--out",
                       dir + "/out", "--repo", dir});
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_NE(r.err.find("different results"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(RlBench, AMissingRunnerIsNamed) {
  RunResult r = runRl({"bench", "campaign", "plan.toml"},
                      Environment{{"RL_CAMPAIGN_RUNNER", "/nonexistent/run"}});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("the campaign runner /nonexistent/run is not there"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("RL_CAMPAIGN_RUNNER"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rl::test
