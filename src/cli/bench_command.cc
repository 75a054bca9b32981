// `rl bench campaign PLAN`: runs a benchmark campaign (docs/campaigns/README.md) with the
// campaign runner, tools/campaign/run, in this source tree (RL_CAMPAIGN_RUNNER overrides
// where it is). The runner replaces this process, so its progress bar, output and exit status
// (0 complete, 1 an error, 2 a bad plan, 3 arms that disagree) are the command's own.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"

#ifndef RL_SOURCE_DIR
#define RL_SOURCE_DIR "."
#endif

namespace rl::cli {
namespace {

struct CampaignArguments {
  std::string plan;
  std::string scale = "full";
  std::string out;
  std::string repo;
  int seed = -1;
  int blocks = -1;
  bool check = false;
};

std::string runnerPath() {
  if (const char* env = std::getenv("RL_CAMPAIGN_RUNNER"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::string(RL_SOURCE_DIR) + "/tools/campaign/run";
}

[[noreturn]] void runCampaign(const CampaignArguments& args) {
  const std::string runner = runnerPath();
  if (::access(runner.c_str(), X_OK) != 0) {
    throw std::runtime_error("the campaign runner " + runner + " is not there (" +
                             std::strerror(errno) +
                             "); set RL_CAMPAIGN_RUNNER to tools/campaign/run of a source tree");
  }
  std::vector<std::string> argv = {runner, args.plan, "--scale", args.scale};
  if (!args.out.empty()) argv.insert(argv.end(), {"--out", args.out});
  if (!args.repo.empty()) argv.insert(argv.end(), {"--repo", args.repo});
  if (args.seed >= 0) argv.insert(argv.end(), {"--seed", std::to_string(args.seed)});
  if (args.blocks >= 0) argv.insert(argv.end(), {"--blocks", std::to_string(args.blocks)});
  if (args.check) argv.push_back("--check");
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  ::execv(runner.c_str(), raw.data());
  throw std::runtime_error("cannot run " + runner + ": " + std::strerror(errno));
}

}  // namespace

void addBenchCommand(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmark campaigns (docs/campaigns/README.md)");
  bench->require_subcommand(1);
  auto args = std::make_shared<CampaignArguments>();
  CLI::App* campaign = bench->add_subcommand(
      "campaign",
      "Run a campaign plan: counterbalanced fresh-process runs, paired ratios with bootstrap "
      "intervals, a Markdown report and an HTML page (tools/campaign/run)");
  campaign->add_option("plan", args->plan, "The plan file (TOML)")->required();
  campaign->add_option("--scale", args->scale, "quick, medium or full (default)")
      ->check(CLI::IsMember({"quick", "medium", "full"}));
  campaign->add_option("--out", args->out, "Output directory (default build/campaigns/...)");
  campaign->add_option("--repo", args->repo,
                       "Repository whose binaries and revisions the plan names");
  campaign->add_option("--seed", args->seed, "Override the plan's seed")
      ->check(CLI::NonNegativeNumber);
  campaign->add_option("--blocks", args->blocks, "Override the number of blocks")
      ->check(CLI::Range(2, 1000000));
  campaign->add_flag("--check", args->check, "Validate the plan and print it; run nothing");
  campaign->callback([args] { runCampaign(*args); });
}

}  // namespace rl::cli
