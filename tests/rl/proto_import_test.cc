// Schemas compiled at run time: they may import the library's own schema files without any
// .proto file installed, give the same metadata and evaluations as the generated code,
// and fail with the file and line of what is wrong.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "rl/metadata/metadata.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/metadata/proto_schema_loader.h"
#include "test_records.pb.h"

namespace {

namespace fs = std::filesystem;

// A fresh directory of schema files, removed afterwards.
class SchemaDir {
 public:
  SchemaDir() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            (std::string("rl_proto_import_") + test->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~SchemaDir() { fs::remove_all(path_); }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// The MetaDataException message loading `file` from `dir` gives.
std::string loadError(const SchemaDir& dir, const std::string& file) {
  try {
    rl::loadRecordMetaData(file, {dir.path()});
  } catch (const rl::MetaDataException& e) {
    return e.what();
  }
  ADD_FAILURE() << "loading " << file << " did not fail";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

constexpr const char* kHeader =
    "syntax = \"proto2\";\n"
    "import \"record_metadata_options.proto\";\n";

TEST(ProtoImport, SameSchemaGivesTheSameMetaData) {
  rl::RecordMetaData generated = rl::RecordMetaData::build(rl::test::Order::descriptor()->file());
  rl::RecordMetaData dynamic = rl::loadRecordMetaData("test_records.proto", {RL_TEST_PROTO_DIR});
  EXPECT_NE(&dynamic.recordsDescriptor(), &generated.recordsDescriptor());
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(dynamic.toProto(), generated.toProto()))
      << dynamic.toProto().DebugString() << "\nvs\n"
      << generated.toProto().DebugString();
  EXPECT_EQ(dynamic.version(), 2);
  EXPECT_TRUE(dynamic.storeRecordVersions());
  EXPECT_EQ(dynamic.recordType("Person").recordTypeKey(), fdb::TupleElement("person"));
  EXPECT_TRUE(dynamic.index("Order$email").isUnique());
}

TEST(ProtoImport, DynamicRecordsEvaluateAsGeneratedOnes) {
  rl::LoadedSchema schema = rl::ProtoSchemaLoader({RL_TEST_PROTO_DIR}).load("test_records.proto");
  rl::RecordMetaData metaData = rl::RecordMetaData::build(schema.file, schema.owner);

  rl::test::Order order;
  order.set_id(42);
  order.set_price(300);
  order.add_tags("a");
  order.add_tags("b");
  order.mutable_customer()->set_id(7);
  order.mutable_uuid()->set_most_significant_bits(1);
  order.mutable_discount()->set_value(5);
  order.set_color(rl::test::GREEN);
  std::unique_ptr<google::protobuf::Message> dynamicOrder = schema.newMessage("rl.test.Order");
  ASSERT_TRUE(dynamicOrder->ParseFromString(order.SerializeAsString()));
  EXPECT_NE(dynamicOrder->GetDescriptor(), rl::test::Order::descriptor());

  const rl::RecordType& type = metaData.recordTypeForDescriptor(*dynamicOrder->GetDescriptor());
  rl::KeyExpression expression = rl::concat(
      rl::recordType(), rl::field("tags", rl::FanType::kFanOut), rl::field("customer").nest("id"),
      rl::field("uuid"), rl::field("discount"), rl::field("color"), rl::field("price"));
  rl::EvaluationContext context = type.evaluationContext();
  std::vector<rl::EvaluatedKey> fromGenerated = expression.evaluate(order, context);
  std::vector<rl::EvaluatedKey> fromDynamic = expression.evaluate(*dynamicOrder, context);
  ASSERT_EQ(fromGenerated.size(), 2u);
  EXPECT_EQ(fromDynamic, fromGenerated);
  EXPECT_EQ(type.primaryKey().evaluateSingleton(*dynamicOrder), fdb::Tuple{42});
}

TEST(ProtoImport, LibraryFilesNeedNoImportDirectory) {
  SchemaDir dir;
  dir.write("shop.proto", std::string(kHeader) +
                              "import \"tuple_fields.proto\";\n"
                              "package shop;\n"
                              "option (com.apple.foundationdb.record.schema).split_long_records "
                              "= true;\n"
                              "message Item {\n"
                              "  optional string sku = 1 "
                              "[(com.apple.foundationdb.record.field).primary_key = true];\n"
                              "  optional com.apple.foundationdb.record.UUID ref = 2 "
                              "[(com.apple.foundationdb.record.field).index = {}];\n"
                              "}\n"
                              "message RecordTypeUnion { optional Item _Item = 1; }\n");
  rl::RecordMetaData metaData = rl::loadRecordMetaData("shop.proto", {dir.path()});
  EXPECT_TRUE(metaData.splitLongRecords());
  EXPECT_EQ(metaData.recordType("Item").primaryKey(), rl::field("sku"));
  EXPECT_TRUE(metaData.hasIndex("Item$ref"));
  // A path on disk works without import directories too.
  EXPECT_NO_THROW(rl::loadRecordMetaData(dir.path() + "/shop.proto"));
}

TEST(ProtoImport, UserImportsTravelInTheMetaDataProto) {
  SchemaDir dir;
  dir.write("common.proto",
            "syntax = \"proto2\";\npackage shop;\n"
            "message Money { optional int64 cents = 1; }\n");
  dir.write("orders.proto", std::string(kHeader) +
                                "import \"common.proto\";\npackage shop;\n"
                                "message Order {\n"
                                "  optional int64 id = 1 "
                                "[(com.apple.foundationdb.record.field).primary_key = true];\n"
                                "  optional Money total = 2;\n"
                                "}\n"
                                "message RecordTypeUnion { optional Order _Order = 1; }\n");
  rl::MetaDataProto proto;
  {
    rl::LoadedSchema schema = rl::ProtoSchemaLoader({dir.path()}).load("orders.proto");
    rl::RecordMetaDataBuilder withIndex(schema.file, true, schema.owner);
    withIndex.addIndex("Order", rl::Index("by_total", rl::field("total").nest("cents")));
    proto = withIndex.build().toProto();
  }
  ASSERT_EQ(proto.dependencies_size(), 1);
  EXPECT_EQ(proto.dependencies(0).name(), "common.proto");
  // Read back with no .proto file around: the dependency comes from the proto itself.
  rl::RecordMetaData back = rl::RecordMetaData::fromProto(proto);
  EXPECT_EQ(back.index("by_total").rootExpression(), rl::field("total").nest("cents"));
}

TEST(ProtoImport, SyntaxErrorNamesFileAndLine) {
  SchemaDir dir;
  dir.write("bad.proto", std::string(kHeader) + "message Broken {\n  optional int64 id = ;\n}\n");
  std::string message = loadError(dir, "bad.proto");
  EXPECT_TRUE(contains(message, "bad.proto:4:")) << message;
}

TEST(ProtoImport, MissingImportNamesFileAndLine) {
  SchemaDir dir;
  dir.write("lonely.proto",
            std::string(kHeader) + "import \"missing.proto\";\n" + "message RecordTypeUnion {}\n");
  std::string message = loadError(dir, "lonely.proto");
  EXPECT_TRUE(contains(message, "missing.proto")) << message;
  EXPECT_TRUE(contains(message, "lonely.proto:3:")) << message;
}

TEST(ProtoImport, MissingFile) {
  SchemaDir dir;
  std::string message = loadError(dir, "absent.proto");
  EXPECT_TRUE(contains(message, "absent.proto")) << message;
}

// The schema errors of docs/format.md, "Metadata from a schema", each from a small schema.
struct SchemaError {
  const char* body;
  const char* expected;  // part of the message
};

// Names the case by the message it expects, so that test names (and ctest's) are stable
// from run to run instead of the struct's bytes.
void PrintTo(const SchemaError& error, std::ostream* out) { *out << error.expected; }

class ProtoImportSchemaErrors : public ::testing::TestWithParam<SchemaError> {};

TEST_P(ProtoImportSchemaErrors, AreReported) {
  SchemaDir dir;
  dir.write("schema.proto", std::string(kHeader) + GetParam().body);
  std::string message = loadError(dir, "schema.proto");
  EXPECT_TRUE(contains(message, GetParam().expected)) << message;
}

constexpr const char* kPk = " [(com.apple.foundationdb.record.field).primary_key = true]";

INSTANTIATE_TEST_SUITE_P(
    Schemas, ProtoImportSchemaErrors,
    ::testing::Values(
        SchemaError{"message A { optional int64 id = 1; }\n", "no union message"},
        SchemaError{"message A { optional int64 id = 1; }\n"
                    "message RecordTypeUnion { repeated A _A = 1; }\n",
                    "must not be repeated"},
        SchemaError{"message RecordTypeUnion { optional int64 x = 1; }\n", "is not a message"},
        SchemaError{"message A { option (com.apple.foundationdb.record.record).usage = RECORD;\n"
                    "  optional int64 id = 1; }\n"
                    "message B { optional int64 id = 1; }\n"
                    "message RecordTypeUnion { optional B _B = 1; }\n",
                    "record message type A must be a field of the union"},
        SchemaError{"message A { optional int64 id = 1; }\n"
                    "message RecordTypeUnion { optional A _A = 1; }\n",
                    "must have a primary key"},
        SchemaError{"message A { optional uint64 id = 1; }\n"
                    "message RecordTypeUnion { optional A _A = 1; }\n",
                    "unsigned"},
        SchemaError{"message A { repeated int64 id = 1" /* pk on a repeated field */
                    " [(com.apple.foundationdb.record.field).primary_key = true]; }\n"
                    "message RecordTypeUnion { optional A _A = 1; }\n",
                    "must not be repeated"},
        SchemaError{"message U1 { option (com.apple.foundationdb.record.record).usage = UNION; }\n"
                    "message RecordTypeUnion { }\n",
                    "more than one union"}));

// kPk keeps the primary-key option spelled once for schemas that need it.
TEST(ProtoImport, TwoPrimaryKeyFieldsAreRefused) {
  SchemaDir dir;
  dir.write("schema.proto", std::string(kHeader) + "message A { optional int64 a = 1" + kPk +
                                "; optional int64 b = 2" + kPk +
                                "; }\nmessage RecordTypeUnion { optional A _A = 1; }\n");
  std::string message = loadError(dir, "schema.proto");
  EXPECT_TRUE(contains(message, "only one primary_key")) << message;
}

}  // namespace
