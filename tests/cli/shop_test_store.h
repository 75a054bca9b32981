// What the record-store tests of `rl` share: the shop schema, the store's path, and a test
// with a scratch directory of its own.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace rl::test {

// The schema of the tests: examples/record_layer/orders.proto, less its comments.
inline constexpr char kOrdersProto[] = R"(syntax = "proto2";
package shop;
import "record_metadata_options.proto";
option (com.apple.foundationdb.record.schema).split_long_records = true;
option (com.apple.foundationdb.record.schema).store_record_versions = true;
message Order {
  optional int64 id = 1 [(com.apple.foundationdb.record.field).primary_key = true];
  optional int64 price = 2 [(com.apple.foundationdb.record.field).index = {}];
  optional string customer = 3;
  repeated string tags = 4;
  optional bytes payload = 5;
}
message RecordTypeUnion {
  option (com.apple.foundationdb.record.record).usage = UNION;
  optional Order _Order = 1;
}
)";

// The store the tests make, as `--path` takes it.
inline constexpr char kStore[] = R"(("shop", "orders"))";

// A test with its own empty directory (named after the suite, the process and the test),
// removed after it, holding the schema as orders.proto.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("rl-" + std::string(test->test_suite_name()) + "-" + std::to_string(::getpid()) + "-" +
            test->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    write("orders.proto", kOrdersProto);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `text` to `name` in the test's directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  // The path of `name` in the test's directory.
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace rl::test
