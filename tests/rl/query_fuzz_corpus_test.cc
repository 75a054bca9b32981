// Replays the committed corpus of the query fuzz target (tests/fuzz/corpus/query/) through
// its check (tests/fuzz/query_checks.h).
#include <gtest/gtest.h>

#include <string>

#include "fuzz/corpus_replay.h"
#include "fuzz/query_checks.h"

namespace {

TEST(QueryFuzzCorpus, CorpusHoldsItsProperty) {
  EXPECT_GE(rl::fuzz::replayCorpus("query", rl::fuzz::checkQuery), 10);
}

// The check's oracle sees what a query returns: a filter that passes some records, run with a
// row limit and resumed, holds the property; the world has the records the check expects.
TEST(QueryFuzzCorpus, TheWorldAndItsOracle) {
  EXPECT_EQ(rl::fuzz::checkQuery(std::string("\x04price >= 10\0price\0", 19)), "");
  EXPECT_EQ(rl::fuzz::detail::queryWorld().records.size(),
            static_cast<size_t>(rl::fuzz::detail::kQueryRecords));
}

}  // namespace
