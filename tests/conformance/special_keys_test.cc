// The special key space [\xff\xff, \xff\xff\xff) (docs/semantics.md, "Special keys"): the keys
// that describe the database are readable; reads stay inside one module (2112 across modules,
// 2113 outside every one) unless SPECIAL_KEY_SPACE_RELAXED; with SPECIAL_KEY_SPACE_ENABLE_WRITES a
// write goes to the module that takes it and is never dropped: 2115 where no module takes it,
// 2116 for a clear across modules, tenants_disabled (2136) at commit for the tenant map, and
// special_keys_api_failure (2117), with \xff\xff/error_message, for management commands.
//
// Nothing here changes a real cluster: the only management command written is an exclusion of
// an address that does not parse, which FoundationDB refuses too.

#include "conformance/backends.h"

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace conformance {
namespace {

using fdb::Bytes;
using fdb::KeyRange;
using fdb::Transaction;
using fdb::TransactionOption;

const Bytes kConnectionString = "\xff\xff/connection_string";
const Bytes kClusterFilePath = "\xff\xff/cluster_file_path";
const Bytes kStatusJson = "\xff\xff/status/json";
const Bytes kErrorMessage = "\xff\xff/error_message";
const Bytes kTenantMap = "\xff\xff/management/tenant/map/";

class SpecialKeysTest : public ConformanceTest {
 protected:
  // What the database was opened with: an engine address names itself; an fdb:<cluster file>
  // address reads the cluster file, whose content (trimmed) is the connection string.
  std::string expectedClusterFilePath() const {
    const std::string& address = GetParam();
    return address.starts_with("fdb:") ? address.substr(4) : address;
  }
  std::string expectedConnectionString() const {
    const std::string& address = GetParam();
    if (!address.starts_with("fdb:")) return address;
    std::ifstream file(address.substr(4));
    std::stringstream content;
    content << file.rdbuf();
    std::string text = content.str();
    size_t first = text.find_first_not_of(" \t\r\n");
    size_t last = text.find_last_not_of(" \t\r\n");
    return first == std::string::npos ? "" : text.substr(first, last - first + 1);
  }

  Transaction writer() {
    Transaction tr = db().createTransaction();
    tr.setOption(TransactionOption::kSpecialKeySpaceEnableWrites);
    return tr;
  }
};

// --- Reads ----------------------------------------------------------------------------------

TEST_P(SpecialKeysTest, ConnectionStringAndClusterFilePathAreWhatTheDatabaseWasOpenedWith) {
  Transaction tr = db().createTransaction();
  EXPECT_EQ(tr.get(kConnectionString).get(), expectedConnectionString());
  EXPECT_EQ(tr.get(kClusterFilePath).get(), expectedClusterFilePath());
  EXPECT_EQ(tr.snapshot().get(kConnectionString).get(), expectedConnectionString());
}

TEST_P(SpecialKeysTest, StatusJsonDescribesAnAvailableDatabase) {
  Transaction tr = db().createTransaction();
  std::optional<Bytes> text = tr.get(kStatusJson).get();
  ASSERT_TRUE(text.has_value());
  nlohmann::json status = nlohmann::json::parse(*text);
  EXPECT_EQ(status["client"]["database_status"]["available"], true);
  EXPECT_EQ(status["client"]["cluster_file"]["path"], expectedClusterFilePath());
  EXPECT_TRUE(status["client"]["timestamp"].is_number());
  EXPECT_EQ(status["cluster"]["database_available"], true);
  EXPECT_EQ(status["cluster"]["connection_string"], expectedConnectionString());
  EXPECT_TRUE(status["cluster"]["configuration"]["redundancy_mode"].is_string());
  EXPECT_TRUE(status["cluster"]["workload"]["transactions"]["committed"]["counter"].is_number());
}

TEST_P(SpecialKeysTest, SingleKeyModulesReadAsRanges) {
  Transaction tr = db().createTransaction();
  fdb::RangeRows rows =
      tr.getRange(KeyRange{kConnectionString, keyAfter(kConnectionString)}).get().rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, kConnectionString);
  EXPECT_EQ(rows[0].value, expectedConnectionString());
  rows = tr.getRange(KeyRange{kStatusJson, keyAfter(kStatusJson)}, {.reverse = true}).get().rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, kStatusJson);
}

TEST_P(SpecialKeysTest, KeysOutsideEveryModuleCannotBeRead) {
  Transaction tr = db().createTransaction();
  EXPECT_FDB_ERROR(2113, tr.get("\xff\xff/no_such_module").get());
  EXPECT_FDB_ERROR(2113, tr.get("\xff\xff").get());
  EXPECT_FDB_ERROR(2113, tr.getRange(KeyRange{"\xff\xff/no", "\xff\xff/np"}).get());
}

TEST_P(SpecialKeysTest, RangeReadsStayInOneModuleUnlessRelaxed) {
  // [cluster_file_path, cluster_id\0) spans two single-key modules.
  const KeyRange twoModules{kClusterFilePath, keyAfter("\xff\xff/cluster_id")};
  {
    Transaction tr = db().createTransaction();
    EXPECT_FDB_ERROR(2112, tr.getRange(twoModules).get());
    EXPECT_FDB_ERROR(2112, tr.getRange(KeyRange{"\xff\xff", "\xff\xff\xff"}).get());
  }
  Transaction tr = db().createTransaction();
  tr.setOption(TransactionOption::kSpecialKeySpaceRelaxed);
  fdb::RangeRows rows = tr.getRange(twoModules).get().rows;
  ASSERT_GE(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, kClusterFilePath);
  EXPECT_EQ(rows[0].value, expectedClusterFilePath());
}

TEST_P(SpecialKeysTest, SpecialKeysAreReadableAfterCommit) {
  // FoundationDB's special key space answers after commit() too (only a cancelled or timed-out
  // transaction stops it): that is how a client reads \xff\xff/error_message after a failure.
  Transaction tr = db().createTransaction();
  tr.set("k", "v");
  tr.commit().get();
  EXPECT_EQ(tr.get(kConnectionString).get(), expectedConnectionString());
}

// --- Writes ---------------------------------------------------------------------------------

TEST_P(SpecialKeysTest, AWriteNoModuleTakesFails) {
  {
    Transaction tr = writer();
    tr.set("\xff\xff/no_such_module", "x");
    EXPECT_FDB_ERROR(2115, tr.commit().get());
  }
  {
    Transaction tr = writer();  // read-only modules take no writes either
    tr.set(kConnectionString, "x");
    EXPECT_FDB_ERROR(2115, tr.commit().get());
  }
  {
    Transaction tr = writer();
    tr.clear(kStatusJson);
    EXPECT_FDB_ERROR(2115, tr.get("k").get());
  }
  {
    Transaction tr = writer();
    tr.clearRange("\xff\xff/no", "\xff\xff/np");
    EXPECT_FDB_ERROR(2115, tr.commit().get());
  }
}

TEST_P(SpecialKeysTest, AClearAcrossModulesFails) {
  Transaction tr = writer();
  tr.clearRange(kTenantMap, "\xff\xff/tracing0");
  EXPECT_FDB_ERROR(2116, tr.commit().get());
}

TEST_P(SpecialKeysTest, TenantMapWritesFailWithTenantsDisabled) {
  // Creating a tenant, and clearing the tenant map as FoundationDB's binding tester does: the
  // database has no tenants (tenant mode disabled), so the commit fails, and nothing was written.
  {
    Transaction tr = writer();
    tr.set(kTenantMap + "tenant1", "");
    tr.set("k", "v");
    EXPECT_FDB_ERROR(2136, tr.commit().get());
  }
  EXPECT_EQ(read("k"), std::nullopt);
  {
    Transaction tr = writer();
    tr.clearRange(kTenantMap, "\xff\xff/management/tenant/map0");
    EXPECT_FDB_ERROR(2136, tr.commit().get());
  }
  {
    Transaction tr = writer();  // and 2136 is not retried
    tr.clear(kTenantMap + "tenant1");
    EXPECT_FDB_ERROR(2136, tr.commit().get());
    EXPECT_FDB_ERROR(2136, tr.onError(fdb::Error(2136)).get());
  }
}

TEST_P(SpecialKeysTest, AManagementCommandThatFailsLeavesAnErrorMessage) {
  Transaction tr = writer();
  tr.set("\xff\xff/management/excluded/not-an-address", "");
  EXPECT_FDB_ERROR(2117, tr.commit().get());
  std::optional<Bytes> message = tr.get(kErrorMessage).get();
  ASSERT_TRUE(message.has_value());
  nlohmann::json error = nlohmann::json::parse(*message);
  EXPECT_EQ(error["command"], "exclude");
  EXPECT_EQ(error["retriable"], false);
  EXPECT_TRUE(error["message"].is_string());
  tr.reset();
  EXPECT_EQ(tr.get(kErrorMessage).get(), std::nullopt);  // reset forgets it
}

TEST_P(SpecialKeysTest, ManagementOptionsAreAccepted) {
  // management/options/ holds options for other commands; writing one alone changes nothing.
  Transaction tr = writer();
  tr.set("\xff\xff/management/options/excluded/force", "");
  tr.set("k", "v");
  EXPECT_NO_THROW(tr.commit().get());
  EXPECT_EQ(read("k"), "v");
}

TEST_P(SpecialKeysTest, TracingOptionsComeBeforeAnyWrite) {
  {
    Transaction tr = writer();
    tr.set("\xff\xff/tracing/token", "maybe");  // true or false only
    EXPECT_FDB_ERROR(2117, tr.commit().get());
  }
  {
    Transaction tr = writer();
    tr.set("\xff\xff/tracing/token", "true");
    tr.set("k", "v");
    EXPECT_NO_THROW(tr.commit().get());
  }
  {
    Transaction tr = writer();
    tr.set("k", "v");
    tr.set("\xff\xff/tracing/token", "true");
    EXPECT_FDB_ERROR(2117, tr.commit().get());
  }
  {
    Transaction tr = writer();
    tr.clear("\xff\xff/tracing/token");
    EXPECT_FDB_ERROR(2117, tr.commit().get());
  }
}

TEST_P(SpecialKeysTest, WritesNeedEnableWritesEvenWhereNoModuleTakesThem) {
  Transaction tr = db().createTransaction();
  tr.set("\xff\xff/no_such_module", "x");
  EXPECT_FDB_ERROR(2114, tr.commit().get());
}

RL_CONFORMANCE_INSTANTIATE(SpecialKeysTest);

}  // namespace
}  // namespace conformance
