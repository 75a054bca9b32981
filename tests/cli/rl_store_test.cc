// `rl store`, `rl load`, `rl get`, `rl scan`, `rl check` and `rl keys`, run as a user would run
// them: every command a separate process on one durable file: store in a temporary directory, so
// each test also shows that the metadata one process keeps in the metadata store is what the next
// one opens.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/run_rl.h"
#include "cli/shop_test_store.h"

namespace rl::test {
namespace {

class RlStore : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = "file:" + (dir_ / "db").string();
  }

  // `rl COMMAND... --db file:<dir>/db --path STORE args...`
  RunResult rl(std::vector<std::string> command, std::vector<std::string> args = {},
               const std::string& store = kStore) const {
    command.insert(command.end(), {"--db", db_, "--path", store});
    command.insert(command.end(), args.begin(), args.end());
    return runRl(command);
  }

  // A command that must succeed with nothing on standard error; returns its standard output.
  std::string ok(std::vector<std::string> command, std::vector<std::string> args = {}) const {
    RunResult r = rl(std::move(command), std::move(args));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }

  // A command that must fail with exactly `error` (one line, status 1, nothing on stdout).
  void expectError(std::vector<std::string> command, std::vector<std::string> args,
                   const std::string& error, const std::string& store = kStore) const {
    RunResult r = rl(std::move(command), std::move(args), store);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "rl: error: " + error + "\n");
  }

  void create() const {
    EXPECT_EQ(ok({"store", "create"}, {"--proto", file("orders.proto")}),
              "Created the record store (\"shop\", \"orders\") in " + db_ +
                  ": format version 7, metadata version 1, record types Order, 1 index.\n");
  }

  // Loads `lines` (NDJSON) from a file; returns standard output.
  std::string load(const std::string& lines) const {
    return ok({"load"}, {write("load.ndjson", lines)});
  }

  // Every record, by a scan with no limit.
  std::string scanAll() const { return ok({"scan"}); }

  std::string db_;
};

// NDJSON for orders first..last: {"id": N, "price": N * 10}.
std::string orders(int first, int last) {
  std::string lines;
  for (int id = first; id <= last; ++id) {
    lines += "{\"id\": " + std::to_string(id) + ", \"price\": " + std::to_string(id * 10) + "}\n";
  }
  return lines;
}

// The records of orders(first, last) as rl scan prints them.
std::string scanned(int first, int last) {
  std::string lines;
  for (int id = first; id <= last; ++id) {
    lines +=
        "{\"id\":\"" + std::to_string(id) + "\",\"price\":\"" + std::to_string(id * 10) + "\"}\n";
  }
  return lines;
}

TEST_F(RlStore, CreateThenInfoInAnotherProcess) {
  create();
  EXPECT_EQ(ok({"store", "info"}),
            "Record store (\"shop\", \"orders\") in " + db_ +
                "\n"
                "  format version  metadata version  split long records  store record versions\n"
                "  7               1                 yes                 yes\n"
                "\n"
                "Record types:\n"
                "  type   primary key\n"
                "  Order  field(id)\n"
                "\n"
                "Indexes:\n"
                "  index        type   on     key           unique  state\n"
                "  Order$price  value  Order  field(price)  no      READABLE\n");
  EXPECT_EQ(ok({"store", "info"}, {"--json"}),
            R"json({
  "store": "(\"shop\", \"orders\")",
  "format_version": 7,
  "metadata_version": 1,
  "split_long_records": true,
  "store_record_versions": true,
  "record_types": [
    {
      "name": "Order",
      "primary_key": "field(id)"
    }
  ],
  "indexes": [
    {
      "name": "Order$price",
      "type": "value",
      "record_types": [
        "Order"
      ],
      "key": "field(price)",
      "unique": false,
      "state": "READABLE"
    }
  ]
}
)json");
}

TEST_F(RlStore, CreateWithMetadataOptions) {
  EXPECT_EQ(
      ok({"store", "create"}, {"--proto", file("orders.proto"), "--split-long-records", "false",
                               "--store-record-versions", "false", "--index", "Order:customer",
                               "--unique-index", "Order:customer,price", "--version", "7"}),
      "Created the record store (\"shop\", \"orders\") in " + db_ +
          ": format version 7, metadata version 7, record types Order, 3 indexes.\n");
  EXPECT_EQ(ok({"store", "info"}),
            "Record store (\"shop\", \"orders\") in " + db_ +
                "\n"
                "  format version  metadata version  split long records  store record versions\n"
                "  7               7                 no                  no\n"
                "\n"
                "Record types:\n"
                "  type   primary key\n"
                "  Order  field(id)\n"
                "\n"
                "Indexes:\n"
                "  index                 type   on     key                                    "
                "unique  state\n"
                "  Order$customer        value  Order  field(customer)                        "
                "no      READABLE\n"
                "  Order$customer-price  value  Order  concat(field(customer), field(price))  "
                "yes     READABLE\n"
                "  Order$price           value  Order  field(price)                           "
                "no      READABLE\n");
  // The unique index refuses a second record with its value; the one before stays.
  write("dup.ndjson",
        "{\"id\": 1, \"customer\": \"a\", \"price\": 5}\n"
        "{\"id\": 2, \"customer\": \"a\", \"price\": 5}\n");
  expectError({"load"}, {file("dup.ndjson")},
              "line 2: unique index Order$customer-price: record (2,) has the value (\"a\", 5), "
              "as record (1,) already does; the record before it is loaded");
  EXPECT_EQ(scanAll(), "{\"id\":\"1\",\"price\":\"5\",\"customer\":\"a\"}\n");
}

TEST_F(RlStore, AggregateIndexesFromTheCommandLine) {
  ok({"store", "create"}, {"--proto", file("orders.proto"), "--index", "count:Order:customer",
                           "--index", "sum:Order:customer,price", "--index", "max_ever:Order:price",
                           "--index", "count:Order:id", "--index", "Order:customer"});
  const std::string info = ok({"store", "info"});
  for (const char* key :
       {"grouping(field(customer), 0)", "grouping(concat(field(customer), field(price)), 1)",
        "grouping(field(price), 1)", "grouping(field(id), 0)"}) {
    EXPECT_NE(info.find(key), std::string::npos) << key << "\n" << info;
  }
  load(
      "{\"id\": 1, \"customer\": \"alice\", \"price\": 5}\n"
      "{\"id\": 2, \"customer\": \"alice\", \"price\": 7}\n"
      "{\"id\": 3, \"customer\": \"bob\", \"price\": 30}\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer$count", "alice"}), "2\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer$count", "\"bob\""}), "1\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer$count"}), "3\n");  // every group
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer$count", "carol"}), "0\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer-price$sum", "alice"}), "12\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$price$max_ever"}), "30\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$id$count", "2"}), "1\n");  // 2 is an integer
  const nlohmann::json json =
      nlohmann::json::parse(ok({"index", "get"}, {"Order$customer-price$sum", "bob", "--json"}));
  EXPECT_EQ(json["index"], "Order$customer-price$sum");
  EXPECT_EQ(json["type"], "sum");
  EXPECT_EQ(json["group"], "(\"bob\",)");
  EXPECT_EQ(json["value"], 30);
  // A delete takes the record out of its group.
  ok({"delete"}, {"1"});
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer$count", "alice"}), "1\n");
  EXPECT_EQ(ok({"index", "get"}, {"Order$customer-price$sum", "alice"}), "7\n");
  EXPECT_NE(ok({"check"}).find("Indexes checked: Order$customer, Order$customer$count, "
                               "Order$customer-price$sum"),
            std::string::npos);
  expectError({"index", "get"}, {"Order$customer"},
              "no readable index can evaluate aggregate function value(field(customer)) over "
              "record types Order");
  expectError({"index", "get"}, {"Order$price$max_ever", "5"},
              "index Order$price$max_ever has 0 group columns (grouping(field(price), 1)); 1 "
              "value given");
  expectError({"index", "get"}, {"Order$nosuch"},
              "no index Order$nosuch (the store's indexes: Order$customer, "
              "Order$customer$count, Order$customer-price$sum, Order$id$count, Order$price, "
              "Order$price$max_ever)");
}

TEST_F(RlStore, CreateAndOpenTakeTheSameSchemaOptions) {
  auto options = [](const std::string& command) {
    RunResult r = runRl({"store", command, "--help"});
    EXPECT_EQ(r.exitCode, 0);
    return r.out.substr(r.out.find("Options:"));
  };
  const std::string create = options("create");
  // Open has the same, then the evolution rules' relaxations.
  const std::string open = options("open");
  EXPECT_EQ(open.substr(0, create.size() - 1), create.substr(0, create.size() - 1));
  for (const char* option :
       {"--allow-index-rebuilds", "--allow-field-renames", "--allow-deprecated-field-renames",
        "--allow-undeprecating-fields", "--allow-unsplit-to-split", "--disallow-type-renames"}) {
    EXPECT_EQ(create.find(option), std::string::npos) << option;
    EXPECT_NE(open.find(option), std::string::npos) << option;
  }
  for (const char* option : {"--proto", "--import-dir", "--split-long-records",
                             "--store-record-versions", "--index", "--unique-index", "--version"}) {
    EXPECT_NE(create.find(option), std::string::npos) << option;
  }
}

TEST_F(RlStore, BadMetadataOptions) {
  const std::string proto = file("orders.proto");
  expectError({"store", "create"}, {"--proto", proto, "--index", "Order"},
              "--index Order: an index is [TYPE:]RecordType:field[,field...], e.g. "
              "Order:customer or count:Order:customer");
  expectError({"store", "create"}, {"--proto", proto, "--unique-index", "sum:Order:customer,price"},
              "--unique-index sum:Order:customer,price: only a value index can be unique");
  expectError({"store", "create"}, {"--proto", proto, "--index", "count:Order:price,nosuch"},
              "index Order$price-nosuch$count on record type Order: message shop.Order has no "
              "field named nosuch");
  expectError({"store", "create"}, {"--proto", proto, "--index", "Order:nosuch"},
              "index Order$nosuch on record type Order: message shop.Order has no field named "
              "nosuch");
  expectError({"store", "create"}, {"--proto", proto, "--unique-index", "Nope:id"},
              "unknown record type Nope");
  expectError({"store", "create"}, {"--proto", proto, "--version", "0"},
              "--version 0: the metadata's version is at least 1 (one per index)");
  // None of them created anything, not even the database.
  expectError(
      {"store", "info"}, {},
      "no database at " + db_ + " (no such directory); a command that only reads creates none");
}

TEST_F(RlStore, OpenCreatesThenEvolvesTheMetadata) {
  const std::string proto = file("orders.proto");
  const std::string store = "(\"shop\", \"orders\") in " + db_;
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto}),
            "Created the record store " + store + ": format version 7, metadata version 1.\n");
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto}),
            "The record store " + store + " has this schema: metadata version 1.\n");
  load("{\"id\": 1, \"customer\": \"cy\"}\n{\"id\": 2, \"customer\": \"ann\"}\n");
  // A new index is built at once on a store this small.
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--index", "Order:customer"}),
            "Updated the record store " + store +
                ": metadata version 1 -> 2.\nNew index Order$customer: READABLE\n");
  EXPECT_EQ(ok({"index", "scan"}, {"Order$customer"}),
            "{\"id\":\"2\",\"customer\":\"ann\"}\n{\"id\":\"1\",\"customer\":\"cy\"}\n");
  expectError({"store", "open"}, {"--proto", proto},
              "the store's metadata version 2 is above this schema's 1: an older schema cannot "
              "replace it");
  expectError({"store", "open"}, {"--proto", proto, "--version", "2"},
              "the store's metadata version 2 is this schema's, but the metadata differs: a "
              "changed schema needs a higher --version");
  // Dropping the index takes a higher version.
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--version", "3"}),
            "Updated the record store " + store + ": metadata version 2 -> 3.\n");
  const std::string info = ok({"store", "info"});
  EXPECT_EQ(info.find("Order$customer"), std::string::npos) << info;
  EXPECT_NE(info.find("  7               3  "), std::string::npos) << info;
  expectError({"index", "scan"}, {"Order$customer"},
              "no index Order$customer (the store's indexes: Order$price)");
}

// rl store open checks the new schema against the stored metadata by the evolution rules: a
// refused change names the rule and the field or index, exits with status 1 and changes nothing.
TEST_F(RlStore, OpenRefusesAnUnsafeSchemaChange) {
  create();
  load("{\"id\": 1, \"customer\": \"cy\"}\n{\"id\": 2, \"customer\": \"ann\"}\n");
  const std::string records = scanAll();
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string proto = kOrdersProto;
    proto.replace(proto.find(from), from.size(), to);
    return write(name, proto);
  };
  const std::string removed = variant("removed.proto", "  optional string customer = 3;\n", "");
  expectError({"store", "open"}, {"--proto", removed, "--version", "2"},
              "field removed from message descriptor: field customer (= 3) of Order");
  const std::string retyped =
      variant("retyped.proto", "optional string customer = 3", "optional int64 customer = 3");
  expectError({"store", "open"}, {"--proto", retyped, "--version", "2"},
              "field type changed: field customer of Order: string is now int64");
  expectError({"store", "open"}, {"--proto", file("orders.proto"), "--split-long-records", "false"},
              "new meta-data no longer splits long records: split_long_records turned off "
              "(records already split could not be read)");
  // Nothing changed: the metadata, the records.
  const std::string info = ok({"store", "info"});
  EXPECT_NE(info.find("  7               1  "), std::string::npos) << info;
  EXPECT_EQ(scanAll(), records);

  // A renamed field takes --allow-field-renames.
  const std::string renamed =
      variant("renamed.proto", "optional string customer = 3", "optional string buyer = 3");
  expectError({"store", "open"}, {"--proto", renamed, "--version", "2"},
              "field renamed: field customer of Order is now named buyer (--allow-field-renames "
              "allows it)");
  const std::string store = "(\"shop\", \"orders\") in " + db_;
  EXPECT_EQ(ok({"store", "open"}, {"--proto", renamed, "--version", "2", "--allow-field-renames"}),
            "Updated the record store " + store + ": metadata version 1 -> 2.\n");
  EXPECT_EQ(scanAll(), "{\"id\":\"1\",\"buyer\":\"cy\"}\n{\"id\":\"2\",\"buyer\":\"ann\"}\n");
}

// Each of rl store open's evolution options turns its rule's refusal into an update.
TEST_F(RlStore, OpenEvolutionOptionsRelaxTheirRules) {
  const std::string store = "(\"shop\", \"orders\") in " + db_;
  EXPECT_EQ(
      ok({"store", "create"}, {"--proto", file("orders.proto"), "--split-long-records", "false"}),
      "Created the record store " + store +
          ": format version 7, metadata version 2, record types Order, 1 index.\n");
  load("{\"id\": 1, \"customer\": \"cy\"}\n");
  // The .proto's schema as `edits` (from, to) change it.
  auto variant = [&](const std::string& name,
                     const std::vector<std::pair<std::string, std::string>>& edits) {
    std::string proto = kOrdersProto;
    for (const auto& [from, to] : edits) proto.replace(proto.find(from), from.size(), to);
    return write(name, proto);
  };
  auto open = [&](const std::string& proto, int version, std::vector<std::string> flags = {}) {
    std::vector<std::string> args = {"--proto", proto, "--version", std::to_string(version)};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
  };
  auto updated = [&](int from, int to) {
    return "Updated the record store " + store + ": metadata version " + std::to_string(from) +
           " -> " + std::to_string(to) + ".\n";
  };

  // split_long_records turned on.
  expectError({"store", "open"}, open(file("orders.proto"), 3),
              "new meta-data splits long records: split_long_records turned on (stores created "
              "before format version 5 keep unsplit records without a suffix; "
              "--allow-unsplit-to-split allows it)");
  EXPECT_EQ(ok({"store", "open"}, open(file("orders.proto"), 3, {"--allow-unsplit-to-split"})),
            updated(2, 3));

  // A field deprecated (fine), then renamed.
  const std::string deprecated = variant(
      "deprecated.proto", {{"string customer = 3;", "string customer = 3 [deprecated = true];"}});
  EXPECT_EQ(ok({"store", "open"}, open(deprecated, 4)), updated(3, 4));
  const std::string renamed =
      variant("renamed.proto", {{"string customer = 3;", "string buyer = 3 [deprecated = true];"}});
  expectError({"store", "open"}, open(renamed, 5),
              "field renamed: field customer of Order is now named buyer (--allow-field-renames "
              "allows it)");
  EXPECT_EQ(ok({"store", "open"}, open(renamed, 5, {"--allow-deprecated-field-renames"})),
            updated(4, 5));

  // Deprecated no more.
  const std::string undeprecated =
      variant("undeprecated.proto", {{"string customer = 3;", "string buyer = 3;"}});
  expectError({"store", "open"}, open(undeprecated, 6),
              "field is no longer deprecated: field buyer of Order (--allow-undeprecating-fields "
              "allows it)");
  EXPECT_EQ(ok({"store", "open"}, open(undeprecated, 6, {"--allow-undeprecating-fields"})),
            updated(5, 6));

  // A record type renamed: allowed, unless refused. Its field-option index is a new index
  // (Purchase$price); Order$price becomes a former index.
  const std::string purchase =
      variant("purchase.proto", {{"string customer = 3;", "string buyer = 3;"},
                                 {"message Order {", "message Purchase {"},
                                 {"optional Order _Order", "optional Purchase _Order"}});
  expectError({"store", "open"}, open(purchase, 7, {"--disallow-type-renames"}),
              "record type name changed: record type Order is now Purchase");
  EXPECT_EQ(ok({"store", "open"}, open(purchase, 7)),
            updated(6, 7) + "New index Purchase$price: READABLE\n");
  EXPECT_EQ(scanAll(), "{\"id\":\"1\",\"buyer\":\"cy\"}\n");
  EXPECT_NE(ok({"check"}).find("No problems."), std::string::npos);
}

// An index whose definition changes keeps its name and is rebuilt, with --allow-index-rebuilds;
// a removed index becomes a former index and stays one.
TEST_F(RlStore, OpenRebuildsAChangedIndexOnlyWhenAllowed) {
  create();
  load("{\"id\": 1, \"customer\": \"cy\"}\n{\"id\": 2, \"customer\": \"ann\"}\n");
  const std::string proto = file("orders.proto");
  const std::string store = "(\"shop\", \"orders\") in " + db_;
  ok({"store", "open"}, {"--proto", proto, "--index", "Order:customer"});
  // Unique now: a rebuild.
  expectError({"store", "open"},
              {"--proto", proto, "--unique-index", "Order:customer", "--version", "3"},
              "last modified version of index changed: index Order$customer: 2 is now 3 (a "
              "rebuild; --allow-index-rebuilds allows it)");
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--unique-index", "Order:customer",
                                   "--version", "3", "--allow-index-rebuilds"}),
            "Updated the record store " + store +
                ": metadata version 2 -> 3.\nRebuilt index Order$customer: READABLE\n");
  EXPECT_NE(ok({"store", "info"})
                .find("  Order$customer  value  Order  field(customer)  yes     "
                      "READABLE\n"),
            std::string::npos);
  EXPECT_EQ(ok({"index", "scan"}, {"Order$customer"}),
            "{\"id\":\"2\",\"customer\":\"ann\"}\n{\"id\":\"1\",\"customer\":\"cy\"}\n");
  // Removed: it becomes a former index, which later versions keep; the same schema at the same
  // version changes nothing.
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--version", "4"}),
            "Updated the record store " + store + ": metadata version 3 -> 4.\n");
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--version", "4"}),
            "The record store " + store + " has this schema: metadata version 4.\n");
  // Added again: a new index, in a subspace of its own.
  EXPECT_EQ(
      ok({"store", "open"}, {"--proto", proto, "--index", "Order:customer", "--version", "5"}),
      "Updated the record store " + store +
          ": metadata version 4 -> 5.\nNew index Order$customer: READABLE\n");
  EXPECT_EQ(ok({"index", "scan"}, {"Order$customer"}),
            "{\"id\":\"2\",\"customer\":\"ann\"}\n{\"id\":\"1\",\"customer\":\"cy\"}\n");
  EXPECT_NE(ok({"check"}).find("No problems."), std::string::npos);
}

// NDJSON for orders 1..count with customers c00..c12 (id % 13), so a customer index is in
// (customer, id) order.
std::string ordersWithCustomers(int count) {
  std::string lines;
  for (int id = 1; id <= count; ++id) {
    lines += fmt::format("{{\"id\": {}, \"price\": {}, \"customer\": \"c{:02}\"}}\n", id, id * 10,
                         id % 13);
  }
  return lines;
}

TEST_F(RlStore, IndexBuildBuildsAnIndexOpenLeftDisabled) {
  create();
  load(ordersWithCustomers(1'000));
  const std::string proto = file("orders.proto");
  const std::string store = "(\"shop\", \"orders\") in " + db_;
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--index", "Order:customer"}),
            "Updated the record store " + store +
                ": metadata version 1 -> 2.\nNew index Order$customer: DISABLED\n");
  const std::string disabled = ok({"store", "info"});
  EXPECT_NE(disabled.find("  Order$customer  value  Order  field(customer)  no      DISABLED\n"),
            std::string::npos)
      << disabled;
  expectError({"index", "scan"}, {"Order$customer"},
              "Cannot scan non-readable index Order$customer (DISABLED); rl index build builds it");

  EXPECT_EQ(ok({"index", "build"}, {"Order$customer", "--records-per-transaction", "300"}),
            "Built the index Order$customer of the record store " + store +
                ": 1,000 records scanned (1,000 indexed) in 4 transactions; it is READABLE.\n");
  const std::string readable = ok({"store", "info"});
  EXPECT_NE(readable.find("  Order$customer  value  Order  field(customer)  no      READABLE\n"),
            std::string::npos)
      << readable;
  // The records of one customer, in primary-key order within it.
  std::string expected;
  for (int id = 3; id <= 1'000; id += 13) {
    expected +=
        fmt::format("{{\"id\":\"{}\",\"price\":\"{}\",\"customer\":\"c03\"}}\n", id, id * 10);
  }
  EXPECT_EQ(ok({"index", "scan"}, {"Order$customer", "--from", "\"c03\"", "--to", "\"c04\""}),
            expected);
  EXPECT_EQ(ok({"index", "scan"},
               {"Order$customer", "--from", "\"c03\"", "--to", "\"c04\"", "--fetch", "remote"}),
            expected);
  // The whole index: every record once, by customer then id.
  const std::string all = ok({"index", "scan"}, {"Order$customer"});
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1'000);
  EXPECT_EQ(all.substr(0, all.find('\n') + 1),
            "{\"id\":\"13\",\"price\":\"130\",\"customer\":\"c00\"}\n");
  const std::string check = ok({"check"});
  EXPECT_NE(check.find("Indexes checked: Order$customer, Order$price.\nNo problems.\n"),
            std::string::npos)
      << check;
  EXPECT_EQ(ok({"index", "build"}, {"Order$customer"}),
            "The index Order$customer of the record store " + store +
                " is READABLE already: nothing to build.\n");

  // --json, on a second new index, in the default 500 records a transaction.
  ok({"store", "open"},
     {"--proto", proto, "--index", "Order:customer", "--index", "Order:price,customer"});
  const nlohmann::json built =
      nlohmann::json::parse(ok({"index", "build"}, {"Order$price-customer", "--json"}));
  EXPECT_EQ(built["store"], "(\"shop\", \"orders\")");
  EXPECT_EQ(built["index"], "Order$price-customer");
  EXPECT_EQ(built["state"], "READABLE");
  EXPECT_EQ(built["already_readable"], false);
  EXPECT_EQ(built["transactions"], 2);
  EXPECT_EQ(built["records_scanned"], 1'000);
  EXPECT_EQ(built["records_indexed"], 1'000);
  EXPECT_EQ(built["uniqueness_violations"], 0);
  EXPECT_NE(ok({"check"}).find("No problems."), std::string::npos);

  expectError({"index", "build"}, {"Order$nope"},
              "no index Order$nope (the store's indexes: Order$customer, Order$price, "
              "Order$price-customer)");
  expectError({"index", "build"}, {"Order$customer", "--records-per-transaction", "0"},
              "--records-per-transaction 0: at least 1");
}

// A rebuilt index on a store too big to build it while opening: cleared and DISABLED, then
// built by rl index build with its new definition.
TEST_F(RlStore, ARebuiltIndexOnABigStoreIsBuiltByIndexBuild) {
  create();
  load(ordersWithCustomers(300));
  const std::string proto = file("orders.proto");
  const std::string store = "(\"shop\", \"orders\") in " + db_;
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--index", "Order:customer"}),
            "Updated the record store " + store +
                ": metadata version 1 -> 2.\nNew index Order$customer: DISABLED\n");
  ok({"index", "build"}, {"Order$customer"});
  EXPECT_EQ(ok({"store", "open"}, {"--proto", proto, "--unique-index", "Order:customer",
                                   "--version", "3", "--allow-index-rebuilds"}),
            "Updated the record store " + store +
                ": metadata version 2 -> 3.\nRebuilt index Order$customer: DISABLED\n");
  expectError({"index", "scan"}, {"Order$customer"},
              "Cannot scan non-readable index Order$customer (DISABLED); rl index build builds it");
  // Built again with its new definition: unique, which these records break.
  expectError({"index", "build"}, {"Order$customer"},
              "unique index Order$customer: 300 records share a value with another record "
              "(recorded as uniqueness violations); the index is built but stays WRITE_ONLY");
}

TEST_F(RlStore, IndexBuildOfAUniqueIndexTheRecordsViolate) {
  create();
  load(ordersWithCustomers(300));  // each customer has about 23 orders
  EXPECT_NE(
      ok({"store", "open"}, {"--proto", file("orders.proto"), "--unique-index", "Order:customer"})
          .find("New index Order$customer: DISABLED"),
      std::string::npos);
  expectError({"index", "build"}, {"Order$customer"},
              "unique index Order$customer: 300 records share a value with another record "
              "(recorded as uniqueness violations); the index is built but stays WRITE_ONLY");
  EXPECT_NE(ok({"store", "info"}).find("  yes     WRITE_ONLY\n"), std::string::npos);
}

TEST_F(RlStore, CreateFromAnAbsoluteProtoPathWithImportDirs) {
  // The schema imports a file found only through -I; the .proto itself is named by its
  // absolute path, which an import directory must not be prefixed to.
  std::filesystem::create_directories(dir_ / "imports");
  std::filesystem::create_directories(dir_ / "schemas");
  write("imports/shared.proto",
        "syntax = \"proto2\";\npackage shop;\nmessage Note {\n"
        "  optional string text = 1;\n}\n");
  std::string proto = kOrdersProto;
  proto.replace(proto.find("import "), 0, "import \"shared.proto\";\n");
  proto.replace(proto.find("  repeated string tags"), 0, "  optional Note note = 6;\n");
  const std::string path = write("schemas/orders.proto", proto);
  ASSERT_TRUE(std::filesystem::path(path).is_absolute());
  EXPECT_EQ(ok({"store", "create"}, {"--proto", path, "-I", (dir_ / "imports").string()}),
            "Created the record store (\"shop\", \"orders\") in " + db_ +
                ": format version 7, metadata version 1, record types Order, 1 index.\n");
  // The same with the .proto's own directory also given as an import directory.
  EXPECT_EQ(ok({"store", "open"}, {"--proto", path, "-I", (dir_ / "schemas").string(), "-I",
                                   (dir_ / "imports").string()}),
            "The record store (\"shop\", \"orders\") in " + db_ +
                " has this schema: metadata version 1.\n");
}

TEST_F(RlStore, CreateTwiceFails) {
  create();
  expectError({"store", "create"}, {"--proto", file("orders.proto")},
              "Record store already exists: tuple (\"shop\", \"orders\")");
}

TEST_F(RlStore, LoadThenGetAndScanInOtherProcesses) {
  create();
  EXPECT_EQ(load("{\"id\": 1, \"price\": 1250, \"customer\": \"ann\", \"tags\": [\"a\", \"b\"]}\n"
                 "{\"id\": \"2\", \"price\": 399, \"customer\": \"bob\", \"payload\": \"aGk=\"}\n"
                 "\n"
                 "{\"id\": 3, \"price\": 99}\n"),
            "Loaded 3 Order records into (\"shop\", \"orders\") in 1 transaction.\n");
  EXPECT_EQ(ok({"get"}, {"(2,)"}),
            "{\"id\":\"2\",\"price\":\"399\",\"customer\":\"bob\",\"payload\":\"aGk=\"}\n");
  EXPECT_EQ(ok({"get"}, {"1"}),  // one element alone is a primary key too
            "{\"id\":\"1\",\"price\":\"1250\",\"customer\":\"ann\",\"tags\":[\"a\",\"b\"]}\n");
  expectError({"get"}, {"4"}, "no record with primary key (4,)");
  const std::string all =
      "{\"id\":\"1\",\"price\":\"1250\",\"customer\":\"ann\",\"tags\":[\"a\",\"b\"]}\n"
      "{\"id\":\"2\",\"price\":\"399\",\"customer\":\"bob\",\"payload\":\"aGk=\"}\n"
      "{\"id\":\"3\",\"price\":\"99\"}\n";
  EXPECT_EQ(scanAll(), all);
  EXPECT_EQ(ok({"scan"}, {"--reverse"}),
            "{\"id\":\"3\",\"price\":\"99\"}\n"
            "{\"id\":\"2\",\"price\":\"399\",\"customer\":\"bob\",\"payload\":\"aGk=\"}\n"
            "{\"id\":\"1\",\"price\":\"1250\",\"customer\":\"ann\",\"tags\":[\"a\",\"b\"]}\n");
  // Loading again updates in place (insert or update).
  EXPECT_EQ(load("{\"id\": 3, \"price\": 100}\n"),
            "Loaded 1 Order record into (\"shop\", \"orders\") in 1 transaction.\n");
  EXPECT_EQ(ok({"get"}, {"3"}), "{\"id\":\"3\",\"price\":\"100\"}\n");
}

TEST_F(RlStore, DeleteRemovesTheRecordAndItsIndexEntry) {
  create();
  load(orders(1, 3));
  // The price index's entries, (2, "Order$price", price, id), as raw keys.
  auto indexKeys = [&] {
    RunResult r = runRl(
        {"kv", "--db", db_, "--tuple", "getrangekeys", R"(("shop", "orders", 2))", "--limit", "0"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
  };
  const std::string before = indexKeys();
  EXPECT_NE(before.find(R"(("shop", "orders", 2, "Order$price", 20, 2))"), std::string::npos)
      << before;
  EXPECT_EQ(ok({"delete"}, {"2"}), "Deleted the record with primary key (2,).\n");
  expectError({"get"}, {"2"}, "no record with primary key (2,)");
  expectError({"delete"}, {"(2,)"}, "no record with primary key (2,)");
  EXPECT_EQ(scanAll(), scanned(1, 1) + scanned(3, 3));
  const std::string after = indexKeys();
  EXPECT_EQ(after.find(R"(("shop", "orders", 2, "Order$price", 20, 2))"), std::string::npos)
      << after;
  EXPECT_NE(after.find(R"(("shop", "orders", 2, "Order$price", 30, 3))"), std::string::npos)
      << after;
}

TEST_F(RlStore, CheckFindsAClearedIndexEntryAndRecord) {
  create();
  load(orders(1, 3));
  // `rl kv --tuple clear KEY`: damage the store under the record layer's back.
  auto clear = [&](const std::string& key) {
    RunResult r = runRl({"kv", "--db", db_, "--tuple", "clear", key});
    EXPECT_EQ(r.exitCode, 0) << r.err;
  };
  const std::string checked =
      "Checked the record store (\"shop\", \"orders\") in " + db_ + " in 1 transaction: ";
  // Each record is two keys: (1, id, 0) and its version at (1, id, -1).
  EXPECT_EQ(ok({"check"}), checked +
                               "3 records (6 keys), 3 index entries expected, 3 scanned.\n"
                               "Indexes checked: Order$price.\n"
                               "No problems.\n");

  clear(R"(("shop", "orders", 2, "Order$price", 20, 2))");
  RunResult r = rl({"check"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, checked +
                       "3 records (6 keys), 3 index entries expected, 2 scanned.\n"
                       "Indexes checked: Order$price.\n"
                       "1 problem:\n"
                       "  missing_index_entry at (\"shop\", \"orders\", 2, \"Order$price\", 20, "
                       "2): index Order$price lacks the entry of its record\n");

  clear(R"(("shop", "orders", 1, 3, 0))");
  clear(R"(("shop", "orders", 1, 3, -1))");
  r = rl({"check"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, checked +
                       "2 records (4 keys), 2 index entries expected, 2 scanned.\n"
                       "Indexes checked: Order$price.\n"
                       "2 problems:\n"
                       "  missing_index_entry at (\"shop\", \"orders\", 2, \"Order$price\", 20, "
                       "2): index Order$price lacks the entry of its record\n"
                       "  dangling_index_entry at (\"shop\", \"orders\", 2, \"Order$price\", 30, "
                       "3): index Order$price has an entry for primary key \\x15\\x03, which has "
                       "no record\n");

  r = rl({"check"}, {"--json"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("\"ok\": false,\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"records\": 2,\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \"dangling_index_entry\",\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"x("tuple": "(\"shop\", \"orders\", 2, \"Order$price\", 30, 3)",)x"),
            std::string::npos)
      << r.out;

  expectError({"check"}, {},
              "no record store at (\"nope\",) (no metadata at (\"rl-metadata\", \"nope\")): rl "
              "store create makes one",
              R"(("nope",))");
}

TEST_F(RlStore, CheckCountsEachKeyOnceAcrossTransactions) {
  // 4,000 records take two transactions of 2,000 at least (rl::CheckOptions), and a step
  // stops inside a batch of rows: the keys after the stop are counted by the next step only.
  // The counts are grouped by thousands, as the other commands print them.
  create();
  load(orders(1, 4000));
  const std::string out = ok({"check"});
  EXPECT_TRUE(std::regex_search(
      out, std::regex(" in [2-9]\\d* transactions: 4,000 records \\(8,000 keys\\), 4,000 "
                      "index entries expected, 4,000 scanned\\.\n")))
      << out;
  EXPECT_NE(out.find("No problems.\n"), std::string::npos) << out;
}

TEST_F(RlStore, KeysAnnotatesTheLayout) {
  create();
  load(orders(1, 2));
  EXPECT_EQ(ok({"keys"}),
            "(0,)  header\n"
            "(1, 1, -1)  record (1,): version\n"
            "(1, 1, 0)  record (1,)\n"
            "(1, 2, -1)  record (2,): version\n"
            "(1, 2, 0)  record (2,)\n"
            "(2, \"Order$price\", 10, 1)  index Order$price entry\n"
            "(2, \"Order$price\", 20, 2)  index Order$price entry\n");
  EXPECT_EQ(ok({"keys"}, {"--limit", "2"}), "(0,)  header\n(1, 1, -1)  record (1,): version\n");
  expectError({"keys"}, {"--limit", "-1"}, "--limit -1: a limit is 0 (every key) or more");
}

// Every line of `out` parsed as JSON.
std::vector<nlohmann::json> jsonLines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  size_t start = 0;
  while (start < out.size()) {
    const size_t end = out.find('\n', start);
    lines.push_back(nlohmann::json::parse(out.substr(start, end - start)));
    start = end + 1;
  }
  return lines;
}

TEST_F(RlStore, JsonOutputsForScripts) {
  create();
  const nlohmann::json loaded =
      nlohmann::json::parse(ok({"load"}, {"--json", write("load.ndjson", orders(1, 5))}));
  EXPECT_EQ(loaded["store"], "(\"shop\", \"orders\")");
  EXPECT_EQ(loaded["type"], "Order");
  EXPECT_EQ(loaded["records"], 5);
  EXPECT_EQ(loaded["transactions"], 1);

  // A record with its primary key, type and version (12 bytes, hex).
  const nlohmann::json got = nlohmann::json::parse(ok({"get"}, {"--json", "2"}));
  EXPECT_EQ(got["primary_key"], "(2,)");
  EXPECT_EQ(got["type"], "Order");
  EXPECT_TRUE(std::regex_match(got["version"].get<std::string>(), std::regex("[0-9a-f]{24}")));
  EXPECT_EQ(got["record"]["id"], "2");
  EXPECT_EQ(got["record"]["price"], "20");

  // A scan: one envelope a line, the continuation as a last line on standard output.
  RunResult first = rl({"scan"}, {"--json", "--limit", "3"});
  EXPECT_EQ(first.exitCode, 0);
  EXPECT_EQ(first.err, "");
  std::vector<nlohmann::json> lines = jsonLines(first.out);
  ASSERT_EQ(lines.size(), 4u) << first.out;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(lines[i]["primary_key"], "(" + std::to_string(i + 1) + ",)");
    EXPECT_EQ(lines[i]["record"]["id"], std::to_string(i + 1));
  }
  EXPECT_EQ(lines[1]["version"], got["version"]);
  const std::string continuation = lines[3]["continuation"];
  lines = jsonLines(ok({"scan"}, {"--json", "--continuation", continuation}));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["primary_key"], "(4,)");
  EXPECT_EQ(lines[1]["primary_key"], "(5,)");
  EXPECT_FALSE(lines[1].contains("continuation"));

  // An index scan adds the entry.
  lines = jsonLines(ok({"index", "scan"}, {"Order$price", "--json", "--from", "30", "--reverse"}));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["index_entry"], "(50, 5)");
  EXPECT_EQ(lines[0]["primary_key"], "(5,)");
  EXPECT_EQ(lines[2]["index_entry"], "(30, 3)");

  // Keys: the whole key printable (for rl kv), its tuple after the prefix, what it is.
  lines = jsonLines(ok({"keys"}, {"--json", "--limit", "2"}));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["key"], "\\x02shop\\x00\\x02orders\\x00\\x14");
  EXPECT_EQ(lines[0]["tuple"], "(0,)");
  EXPECT_EQ(lines[0]["what"], "header");
  EXPECT_EQ(lines[1]["tuple"], "(1, 1, -1)");
  EXPECT_EQ(lines[1]["what"], "record (1,): version");

  // A store that keeps no versions: null.
  const std::string unversioned = R"(("shop", "unversioned"))";
  EXPECT_EQ(rl({"store", "create"},
               {"--proto", file("orders.proto"), "--store-record-versions", "false"}, unversioned)
                .exitCode,
            0);
  EXPECT_EQ(rl({"load"}, {write("one.ndjson", orders(1, 1))}, unversioned).exitCode, 0);
  const RunResult plain = rl({"get"}, {"--json", "1"}, unversioned);
  EXPECT_TRUE(nlohmann::json::parse(plain.out)["version"].is_null()) << plain.out;
}

TEST_F(RlStore, LoadFromStandardInput) {
  create();
  RunResult r = runRl({"load", "--db", db_, "--path", kStore, "-"}, orders(1, 2));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "Loaded 2 Order records into (\"shop\", \"orders\") in 1 transaction.\n");
  EXPECT_EQ(scanAll(), scanned(1, 2));
}

TEST_F(RlStore, LoadsInBatchesOf500) {
  create();
  EXPECT_EQ(load(orders(1, 1200)),
            "Loaded 1,200 Order records into (\"shop\", \"orders\") in 3 transactions.\n");
  EXPECT_EQ(scanAll(), scanned(1, 1200));  // a scan of more than one transaction's 1,000
}

TEST_F(RlStore, ScanWithLimitResumesExactly) {
  create();
  load(orders(1, 10));
  for (const bool reverse : {false, true}) {
    std::string rows;
    std::vector<std::string> args = {"--limit", "3"};
    if (reverse) args.emplace_back("--reverse");
    int scans = 0;
    while (true) {
      RunResult r = rl({"scan"}, args);
      ASSERT_EQ(r.exitCode, 0) << r.err;
      ++scans;
      rows += r.out;
      if (r.err.empty()) break;
      std::smatch match;
      ASSERT_TRUE(std::regex_match(r.err, match, std::regex("continuation: ([0-9a-f]+)\n")))
          << r.err;
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3);
      args = {"--limit", "3", "--continuation", match[1]};
      if (reverse) args.emplace_back("--reverse");
      ASSERT_LE(scans, 5);
    }
    std::string expected;
    if (reverse) {
      for (int id = 10; id >= 1; --id) expected += scanned(id, id);
    } else {
      expected = scanned(1, 10);
    }
    EXPECT_EQ(rows, expected) << (reverse ? "reverse" : "forward");
    EXPECT_EQ(scans, 4);  // 3 + 3 + 3 + 1
  }
}

// Orders 1..8 with prices out of id order, and one without a price.
constexpr char kPricedOrders[] =
    "{\"id\": 1, \"price\": 500}\n{\"id\": 2, \"price\": 100}\n{\"id\": 3, \"price\": 300}\n"
    "{\"id\": 4, \"price\": 100}\n{\"id\": 5, \"price\": 800}\n{\"id\": 6}\n"
    "{\"id\": 7, \"price\": 200}\n{\"id\": 8, \"price\": 300}\n";

// rl scan's line for order `id` of kPricedOrders.
std::string pricedLine(int id) {
  static const int kPrices[] = {0, 500, 100, 300, 100, 800, 0, 200, 300};
  if (id == 6) return "{\"id\":\"6\"}\n";
  return "{\"id\":\"" + std::to_string(id) + "\",\"price\":\"" + std::to_string(kPrices[id]) +
         "\"}\n";
}

std::string pricedLines(const std::vector<int>& ids) {
  std::string lines;
  for (const int id : ids) lines += pricedLine(id);
  return lines;
}

TEST_F(RlStore, IndexScanInIndexOrderByEveryFetchMethod) {
  create();
  load(kPricedOrders);
  // By (price, id); no price (null) first.
  const std::string byPrice = pricedLines({6, 2, 4, 7, 3, 8, 1, 5});
  for (const char* fetch : {"adaptive", "scan", "remote", "fallback"}) {
    EXPECT_EQ(ok({"index", "scan"}, {"Order$price", "--fetch", fetch}), byPrice) << fetch;
    // [100, 300): prices 100 and 200.
    EXPECT_EQ(
        ok({"index", "scan"}, {"Order$price", "--fetch", fetch, "--from", "100", "--to", "(300,)"}),
        pricedLines({2, 4, 7}))
        << fetch;
    EXPECT_EQ(ok({"index", "scan"}, {"Order$price", "--fetch", fetch, "--reverse"}),
              pricedLines({5, 1, 8, 3, 7, 4, 2, 6}))
        << fetch;
  }
  EXPECT_EQ(ok({"index", "scan"}, {"Order$price"}), byPrice);  // scan is the default
}

TEST_F(RlStore, IndexScanResumesAcrossFetchMethods) {
  create();
  load(kPricedOrders);
  // A scan stopped under one method resumes under another (the continuations are the same).
  const std::vector<std::string> methods = {"scan", "remote", "fallback", "scan"};
  std::string rows;
  std::vector<std::string> args = {"Order$price", "--limit", "3"};
  for (size_t i = 0;; ++i) {
    ASSERT_LT(i, methods.size());
    std::vector<std::string> withFetch = args;
    withFetch.insert(withFetch.end(), {"--fetch", methods[i]});
    RunResult r = rl({"index", "scan"}, withFetch);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rows += r.out;
    if (r.err.empty()) break;
    std::smatch match;
    ASSERT_TRUE(std::regex_match(r.err, match, std::regex("continuation: ([0-9a-f]+)\n"))) << r.err;
    args = {"Order$price", "--limit", "3", "--continuation", match[1]};
  }
  EXPECT_EQ(rows, pricedLines({6, 2, 4, 7, 3, 8, 1, 5}));
}

TEST_F(RlStore, BadIndexScanArguments) {
  create();
  expectError({"index", "scan"}, {"Order$nope"},
              "no index Order$nope (the store's indexes: Order$price)");
  expectError({"index", "scan"}, {"Order$price", "--fetch", "x"},
              "--fetch x: the methods are adaptive, scan, remote and fallback");
}

TEST_F(RlStore, RankIndexScannedByRank) {
  EXPECT_EQ(ok({"store", "create"},
               {"--proto", file("orders.proto"), "--index", "rank:Order:customer,price"}),
            "Created the record store (\"shop\", \"orders\") in " + db_ +
                ": format version 7, metadata version 2, record types Order, 2 indexes.\n");
  EXPECT_NE(ok({"store", "info"})
                .find("Order$customer-price$rank  rank   Order  grouping(concat(field(customer), "
                      "field(price)), 1)"),
            std::string::npos)
      << ok({"store", "info"});
  load(
      "{\"id\": 1, \"customer\": \"a\", \"price\": 30}\n"
      "{\"id\": 2, \"customer\": \"a\", \"price\": 10}\n"
      "{\"id\": 3, \"customer\": \"b\", \"price\": 5}\n"
      "{\"id\": 4, \"customer\": \"a\", \"price\": 20}\n");
  // Ranks 0 through 1 of customer a: prices 10 and 20.
  EXPECT_EQ(
      ok({"index", "scan"}, {"Order$customer-price$rank", "--by-rank", "(\"a\", 0)", "(\"a\", 1)"}),
      "{\"id\":\"2\",\"price\":\"10\",\"customer\":\"a\"}\n"
      "{\"id\":\"4\",\"price\":\"20\",\"customer\":\"a\"}\n");
  const std::string json = ok({"index", "scan"}, {"Order$customer-price$rank", "--by-rank",
                                                  "(\"a\", 2)", "(\"a\", 9)", "--json"});
  const nlohmann::json row = nlohmann::json::parse(json);
  EXPECT_EQ(row["primary_key"], "(1,)") << json;
  EXPECT_EQ(row["index_entry"], "(\"a\", 30, 1)") << json;
  // Paged with --limit 1, resumed from the continuation.
  RunResult first = rl({"index", "scan"}, {"Order$customer-price$rank", "--by-rank", "(\"a\", 0)",
                                           "(\"a\", 2)", "--limit", "1"});
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_EQ(first.out, "{\"id\":\"2\",\"price\":\"10\",\"customer\":\"a\"}\n");
  std::smatch match;
  ASSERT_TRUE(std::regex_match(first.err, match, std::regex("continuation: ([0-9a-f]+)\n")))
      << first.err;
  EXPECT_EQ(ok({"index", "scan"}, {"Order$customer-price$rank", "--by-rank", "(\"a\", 0)",
                                   "(\"a\", 2)", "--continuation", match[1]}),
            "{\"id\":\"4\",\"price\":\"20\",\"customer\":\"a\"}\n"
            "{\"id\":\"1\",\"price\":\"30\",\"customer\":\"a\"}\n");
  EXPECT_EQ(rl({"check"}).exitCode, 0);
  // The same ranks as a query.
  EXPECT_EQ(ok({"explain"},
               {"--type", "Order", "--where", "customer = \"a\" AND rank(price BY customer) < 2"}),
            "Index(Order$customer-price$rank ([a, null],[a, 2]) BY_RANK)\n");
  EXPECT_EQ(ok({"query"},
               {"--type", "Order", "--where", "customer = \"a\" AND rank(price BY customer) < 2"}),
            "{\"id\":\"2\",\"price\":\"10\",\"customer\":\"a\"}\n"
            "{\"id\":\"4\",\"price\":\"20\",\"customer\":\"a\"}\n");
  expectError({"index", "scan"}, {"Order$price", "--by-rank", "0", "1"},
              "index Order$price has type value, not rank");
  expectError({"index", "scan"},
              {"Order$customer-price$rank", "--by-rank", "0", "1", "--from", "0"},
              "--by-rank FROM TO takes the place of --from, --to and --since");
}

TEST_F(RlStore, UnknownIndexTypePrefix) {
  expectError({"store", "create"},
              {"--proto", file("orders.proto"), "--index", "text:Order:customer"},
              "index Order$customer$text has type text, for which no index maintainer is "
              "registered (registered types: count, count_not_null, count_updates, max_ever, "
              "max_ever_long, max_ever_tuple, max_ever_version, min_ever, min_ever_long, "
              "min_ever_tuple, rank, sum, value, version)");
}

TEST_F(RlStore, BadScanArguments) {
  create();
  expectError({"scan"}, {"--continuation", "abc"},
              "--continuation: 'abc' is not an even number of hex digits");
  expectError({"scan"}, {"--limit", "-1"}, "--limit -1: a limit is 0 (every record) or more");
}

TEST_F(RlStore, MissingOrMalformedProto) {
  expectError({"store", "create"}, {"--proto", file("nosuch.proto")},
              "cannot load schema " + file("nosuch.proto") + ": no such file");
  write("bad.proto", "syntax = \"proto2\";\nmessage A { optional int64 id = 1 }\n");
  expectError({"store", "create"}, {"--proto", file("bad.proto")},
              "cannot load schema bad.proto: bad.proto:2:35: Expected \";\".");
  // Neither created anything, not even the database.
  expectError(
      {"store", "info"}, {},
      "no database at " + db_ + " (no such directory); a command that only reads creates none");
}

TEST_F(RlStore, MalformedJsonLineKeepsTheLinesBefore) {
  create();
  load(orders(1, 2));
  // Lines 1 and 2 are saved (in the batch the bad line interrupts), none after line 3.
  write("bad.ndjson", orders(3, 4) + "{\"id\": 5,\n" + orders(6, 6));
  expectError({"load"}, {file("bad.ndjson")},
              "line 3: not a valid Order: Unexpected end of string. Expected an object key or "
              "}.; the 2 records before it are loaded");
  EXPECT_EQ(scanAll(), scanned(1, 4));
}

TEST_F(RlStore, LoadResumesFromTheLineItStoppedAt) {
  create();
  write("bad.ndjson", orders(1, 2) + "{\"id\": 3, \"colour\": \"red\"}\n" + orders(4, 5));
  expectError({"load"}, {file("bad.ndjson")},
              "line 3: not a valid Order: colour: Cannot find field.; the 2 records before it are "
              "loaded");
  // Skipping the bad line; line numbers stay the file's.
  EXPECT_EQ(ok({"load"}, {"--from-line", "4", file("bad.ndjson")}),
            "Loaded 2 Order records into (\"shop\", \"orders\") in 1 transaction.\n");
  EXPECT_EQ(scanAll(), scanned(1, 2) + scanned(4, 5));
  expectError({"load"}, {"--from-line", "2", file("bad.ndjson")},
              "line 3: not a valid Order: colour: Cannot find field.; the record before it is "
              "loaded");
  expectError({"load"}, {"--from-line", "0", file("bad.ndjson")},
              "--from-line 0: lines are counted from 1");
}

TEST_F(RlStore, LoadsAJsonArray) {
  create();
  // 2^53 + 1: a 64-bit integer survives the array's parser exactly.
  write("orders.json",
        "\n  [{\"id\": 1, \"price\": 9007199254740993}, {\"id\": 2},\n"
        "   {\"id\": 3, \"colour\": 1}, {\"id\": 4}]\n");
  expectError({"load"}, {file("orders.json")},
              "element 3: not a valid Order: colour: Cannot find field.; the 2 records before it "
              "are loaded");
  EXPECT_EQ(ok({"load"}, {"--from-line", "4", file("orders.json")}),
            "Loaded 1 Order record into (\"shop\", \"orders\") in 1 transaction.\n");
  EXPECT_EQ(scanAll(),
            "{\"id\":\"1\",\"price\":\"9007199254740993\"}\n{\"id\":\"2\"}\n"
            "{\"id\":\"4\"}\n");
  // Malformed JSON saves nothing: the array is parsed whole first.
  write("bad.json", "[{\"id\": 5},\n {\"id\": 6]\n");
  expectError({"load"}, {file("bad.json")},
              "not valid JSON: [json.exception.parse_error.101] parse error at line 2, column 10: "
              "syntax error while parsing object - unexpected ']'; expected '}'");
  expectError({"get"}, {"5"}, "no record with primary key (5,)");
}

TEST_F(RlStore, FailureAfterFullBatchesKeepsEveryLineBefore) {
  create();
  // Two full batches (1..1000) committed, then 1001..1099 of the third, then line 1100 fails.
  write("bad.ndjson", orders(1, 1099) + "{\"id\": 1100, \"price\": \"x\"}\n" + orders(1101, 1102));
  expectError({"load"}, {file("bad.ndjson")},
              "line 1100: not a valid Order: (price): invalid value \"x\" for type TYPE_INT64; "
              "the 1,099 records before it are loaded");
  EXPECT_EQ(scanAll(), scanned(1, 1099));
}

TEST_F(RlStore, UnknownFieldKeepsTheLinesBefore) {
  create();
  write("bad.ndjson", orders(1, 1) + "{\"id\": 2, \"colour\": \"red\"}\n");
  expectError({"load"}, {file("bad.ndjson")},
              "line 2: not a valid Order: colour: Cannot find field.; the record before it is "
              "loaded");
  EXPECT_EQ(scanAll(), scanned(1, 1));
}

TEST_F(RlStore, RecordTypeNotInTheSchema) {
  create();
  load(orders(1, 1));
  expectError({"load"}, {"--type", "Customer", write("more.ndjson", orders(2, 2))},
              "--type Customer: the store has no such record type (its record types: Order)");
  EXPECT_EQ(scanAll(), scanned(1, 1));
}

TEST_F(RlStore, OversizedRecordInAnUnsplitStore) {
  std::string proto = kOrdersProto;
  proto.replace(proto.find("split_long_records = true"), 25, "split_long_records = false");
  write("orders.proto", proto);
  create();
  // 120,000 bytes of payload (160,000 in base64): over the 100,000 of an unsplit record.
  const std::string big = "{\"id\": 3, \"payload\": \"" + std::string(160'000, 'A') + "\"}\n";
  write("big.ndjson", orders(1, 2) + big + orders(4, 4));
  RunResult r = rl({"load"}, {file("big.ndjson")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("rl: error: line 3: ")) << r.err;
  EXPECT_TRUE(r.err.ends_with("; the 2 records before it are loaded\n")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(scanAll(), scanned(1, 2));
}

TEST_F(RlStore, NoStoreAtThePath) {
  create();  // the database exists; the store at ("elsewhere",) does not
  expectError({"scan"}, {},
              "no record store at (\"elsewhere\",) (no metadata at (\"rl-metadata\", "
              "\"elsewhere\")): rl store create makes one",
              R"(("elsewhere",))");
  expectError({"get"}, {"1"}, "--path: a store's tuple has at least one element", "()");
}

}  // namespace
}  // namespace rl::test
