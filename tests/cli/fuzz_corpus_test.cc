// Replays the committed corpora of the command line's fuzz targets (tests/fuzz/corpus/)
// through their checks (tests/fuzz/cli_checks.h).
#include <gtest/gtest.h>

#include "fuzz/cli_checks.h"
#include "fuzz/corpus_replay.h"

namespace {

using rl::fuzz::replayCorpus;

TEST(CliFuzzCorpus, PrintableCorpusHoldsItsProperties) {
  EXPECT_GE(replayCorpus("printable", rl::fuzz::checkPrintable), 8);
}

TEST(CliFuzzCorpus, BackupFileCorpusHoldsItsProperties) {
  EXPECT_GE(replayCorpus("backup_file", rl::fuzz::checkBackupFile), 6);
}

// Inputs the decoders refuse still hold the properties: refused the way the checks allow.
TEST(CliFuzzCorpus, RefusedInputsHoldTheProperties) {
  // A bad escape is refused with the character named: the property holds.
  EXPECT_EQ(rl::fuzz::checkPrintable("ab\\xZZ"), "");
  EXPECT_EQ(rl::fuzz::checkPrintable("orders\\x00\\x15*"), "");
  // Not a backup at all: refused, as the property allows.
  EXPECT_EQ(rl::fuzz::checkBackupFile("not a backup"), "");
  EXPECT_EQ(rl::fuzz::checkBackupFile(""), "");
}

}  // namespace
