// Replays the committed fuzz corpora (tests/fuzz/corpus/) through the fuzz targets'
// checks, so every build, not only the clang fuzz stage, keeps them passing.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "fuzz/tuple_checks.h"

namespace {

template <typename Check>
int replayCorpus(const std::string& name, Check check) {
  std::filesystem::path dir = std::filesystem::path(RL_FUZZ_CORPUS_DIR) / name;
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

TEST(TupleFuzzCorpus, UnpackCorpusHoldsItsProperties) {
  EXPECT_GE(replayCorpus("tuple_unpack", rl::fuzz::checkTupleUnpack), 20);
}

TEST(TupleFuzzCorpus, TextCorpusHoldsItsProperties) {
  EXPECT_GE(replayCorpus("tuple_text", rl::fuzz::checkTupleText), 10);
}

}  // namespace
