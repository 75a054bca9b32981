#include "fdb/database.h"

#include <gtest/gtest.h>

namespace fdb {
namespace {

TEST(Database, UnknownAddressIsAClearError) {
  for (const char* address : {"", "bogus:", "memory", "foundationdb:/etc/fdb.cluster"}) {
    try {
      Database::open(address);
      ADD_FAILURE() << "opened '" << address << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errors::kClientInvalidOperation) << address;
      EXPECT_NE(e.detail().find("cannot open"), std::string::npos) << e.detail();
    }
  }
}

TEST(Database, RunReturnsWhatTheFunctionReturns) {
  Database db = Database::open("memory:");
  db.run([](Transaction& tr) { tr.set("k", "v"); });
  EXPECT_EQ(db.run([](Transaction& tr) { return tr.get("k").get(); }), "v");
}

TEST(Database, RunRethrowsWhatOnErrorDoesNotRetry) {
  Database db = Database::open("memory:");
  int attempts = 0;
  try {
    db.run([&](Transaction& tr) {
      ++attempts;
      tr.set("\xff/system", "x");  // key_outside_legal_range, surfaced at commit
    });
    FAIL() << "run returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errors::kKeyOutsideLegalRange);
  }
  EXPECT_EQ(attempts, 1);
}

}  // namespace
}  // namespace fdb
