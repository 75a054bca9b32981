// Replays the committed corpus of the record decoding fuzz target (tests/fuzz/corpus/
// stored_records/) through its check (tests/fuzz/record_checks.h), and checks the check.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/corpus_replay.h"
#include "fuzz/record_checks.h"

namespace {

TEST(StoredRecordsFuzzCorpus, CorpusHoldsItsProperty) {
  EXPECT_GE(rl::fuzz::replayCorpus("stored_records", rl::fuzz::checkStoredRecords), 8);
}

// A program that saves a split record and reads it back whole, forward, resumed after each
// row: the property holds, and the input reader sees what the program says.
TEST(StoredRecordsFuzzCorpus, ASavedSplitRecordHoldsTheProperty) {
  // read flags 0 (forward, no limit); record 3 of 0x9000 * 5 bytes (split) with a version;
  // record 5 of 16 bytes.
  const std::string program(
      "\x00"
      "\x79\x00\x90\x41\x07\x34\x12"
      "\xa0\x10\x00\x42",
      12);
  EXPECT_EQ(rl::fuzz::checkStoredRecords(program), "");
  rl::fuzz::InputReader in(program);
  EXPECT_EQ(in.byte(), 0);
  EXPECT_EQ(in.byte(), 0x79);
  EXPECT_EQ(in.u16(), 0x9000);
  EXPECT_EQ(in.bytes(100).size(), 8u);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(in.byte(), 0);
}

}  // namespace
