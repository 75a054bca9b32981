// Replays the committed fuzz corpora (tests/fuzz/corpus/) through the fuzz targets'
// checks, so every build, not only the clang fuzz stage, keeps them passing.
#include <gtest/gtest.h>

#include "fuzz/corpus_replay.h"
#include "fuzz/tuple_checks.h"

namespace {

using rl::fuzz::replayCorpus;

TEST(TupleFuzzCorpus, UnpackCorpusHoldsItsProperties) {
  EXPECT_GE(replayCorpus("tuple_unpack", rl::fuzz::checkTupleUnpack), 20);
}

TEST(TupleFuzzCorpus, TextCorpusHoldsItsProperties) {
  EXPECT_GE(replayCorpus("tuple_text", rl::fuzz::checkTupleText), 10);
}

}  // namespace
