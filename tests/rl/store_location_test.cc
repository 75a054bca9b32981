#include "rl/store/store_location.h"

#include <gtest/gtest.h>

#include <string>

#include "fdb/database.h"
#include "fdb/error.h"
#include "test_database.h"

namespace {

using rl::StoreLocation;

TEST(StoreLocation, RawAndTuplePrefixesNeedNoReads) {
  fdb::Database db = rl::tests::openTestDatabase();
  fdb::Transaction tr = db.createTransaction();
  StoreLocation raw = StoreLocation::rawPrefix(std::string("\xfe\x01", 2));
  EXPECT_EQ(raw.resolve(tr).key(), std::string("\xfe\x01", 2));
  EXPECT_EQ(raw.knownPrefix(), std::string("\xfe\x01", 2));
  EXPECT_EQ(raw.describe(), "prefix \\xfe\\x01");

  StoreLocation tuple = StoreLocation::tuple(fdb::Tuple{"app", 5});
  EXPECT_EQ(tuple.resolve(tr).key(), std::string("\x02"
                                                 "app\x00\x15\x05",
                                                 7));
  EXPECT_EQ(tuple.describe(), "tuple (\"app\", 5)");
  EXPECT_EQ(tr.roundTrips().total(), 0);
}

TEST(StoreLocation, DirectoryLocationsAreTheDirectoryPrefixThenTheTuple) {
  fdb::Database db = rl::tests::openTestDatabase();
  StoreLocation orders = StoreLocation::directory({"app", "orders"}, fdb::Tuple{42});
  EXPECT_FALSE(orders.knownPrefix().has_value());
  EXPECT_EQ(orders.describe(), "directory /app/orders + (42,)");

  // Opening a directory that does not exist fails with FoundationDB's code; nothing is made.
  try {
    db.run([&](fdb::Transaction& tr) { orders.resolve(tr, StoreLocation::kOpen); });
    FAIL() << "opened a missing directory";
  } catch (const fdb::Error& e) {
    EXPECT_EQ(e.code(), fdb::errors::kDirectoryDoesNotExist);
  }

  fdb::Subspace created =
      db.run([&](fdb::Transaction& tr) { return orders.resolve(tr, StoreLocation::kCreate); });
  fdb::Bytes directoryPrefix = db.run([&](fdb::Transaction& tr) {
    return fdb::DirectoryLayer().open(tr, {"app", "orders"}).key();
  });
  EXPECT_EQ(created.key(), directoryPrefix + std::string("\x15\x2a", 2));
  fdb::Subspace reopened = db.run([&](fdb::Transaction& tr) { return orders.resolve(tr); });
  EXPECT_EQ(reopened, created);
}

TEST(StoreLocation, AppendPrefixAppendsWhatResolveReturns) {
  fdb::Database db = rl::tests::openTestDatabase();
  for (const StoreLocation& location :
       {StoreLocation::rawPrefix(std::string("\xfe\x01", 2)),
        StoreLocation::tuple(fdb::Tuple{"app", 5}),
        StoreLocation::directory({"app", "orders"}, fdb::Tuple{42})}) {
    db.run([&](fdb::Transaction& tr) {
      fdb::Bytes out = "before";
      location.appendPrefix(tr, StoreLocation::kCreate, out);
      EXPECT_EQ(out, "before" + location.resolve(tr).key()) << location.describe();
    });
  }
}

}  // namespace
