// Replays a committed fuzz corpus (tests/fuzz/corpus/<name>/) through a fuzz target's check,
// so that every build, not only the clang fuzz stage, keeps the corpus passing. Needs
// RL_FUZZ_CORPUS_DIR defined to tests/fuzz/corpus.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rl::fuzz {

// Runs `check` on every file of the corpus (EXPECTs "" from each); the number of files.
template <typename Check>
int replayCorpus(const std::string& name, Check check) {
  const std::filesystem::path dir = std::filesystem::path(RL_FUZZ_CORPUS_DIR) / name;
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream content;
    content << file.rdbuf();
    EXPECT_EQ(check(content.str()), "") << entry.path();
    ++inputs;
  }
  return inputs;
}

}  // namespace rl::fuzz
