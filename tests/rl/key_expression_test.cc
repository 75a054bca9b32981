// Key expressions evaluate records into the tuples the Java Record Layer would write
// (docs/format.md, "Key expressions"). Every expected value is the tuple encoding written out by
// hand from docs/tuple.md: 02 string 00, 01 bytes 00 (0x00 escaped 00 ff), 14 zero, 15 one byte of
// positive integer, 13 one byte of negative (one's complement), 00 null, 05 ... 00 a
// nested tuple (a null inside is 00 ff), 20 float / 21 double (sign bit flipped when
// positive), 26 false, 27 true, 30 UUID, 33 versionstamp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata_exception.h"
#include "test_records.pb.h"

namespace {

using rl::test::Order;

// The hex of each key's packed columns.
std::vector<std::string> packedKeys(const rl::KeyExpression& expression, const Order& order,
                                    const rl::EvaluationContext& context = {}) {
  std::vector<std::string> out;
  for (const rl::EvaluatedKey& key : expression.evaluate(order, context)) {
    out.push_back(fdb::toHex(key.columns.pack()));
  }
  return out;
}

std::string packedSingle(const rl::KeyExpression& expression, const Order& order,
                         const rl::EvaluationContext& context = {}) {
  return fdb::toHex(expression.evaluateSingleton(order, context).pack());
}

using Keys = std::vector<std::string>;

TEST(KeyExpressionField, StringBecomesAUnicodeString) {
  Order order;
  order.set_name("abc");
  EXPECT_EQ(packedKeys(rl::field("name"), order), Keys{"0261626300"});
  EXPECT_EQ(rl::field("name").columnSize(), 1);
}

TEST(KeyExpressionField, ScalarTypesBecomeTheirTupleElements) {
  Order order;
  order.set_price(300);
  order.set_payload(std::string("\x00\x01", 2));
  order.set_paid(true);
  order.set_weight(1.5f);
  order.set_total(2.5);
  order.set_color(rl::test::BLUE);
  order.set_delta(-5);
  EXPECT_EQ(packedSingle(rl::field("price"), order), "16012c");
  EXPECT_EQ(packedSingle(rl::field("payload"), order), "0100ff0100");
  EXPECT_EQ(packedSingle(rl::field("paid"), order), "27");
  EXPECT_EQ(packedSingle(rl::field("weight"), order), "20bfc00000");
  EXPECT_EQ(packedSingle(rl::field("total"), order), "21c004000000000000");
  EXPECT_EQ(packedSingle(rl::field("color"), order), "1502");  // the enum's number
  EXPECT_EQ(packedSingle(rl::field("delta"), order), "13fa");
  order.set_paid(false);
  EXPECT_EQ(packedSingle(rl::field("paid"), order), "26");
}

TEST(KeyExpressionField, TupleFieldWrappersAreUnwrapped) {
  Order order;
  order.mutable_uuid()->set_most_significant_bits(0x0011223344556677LL);
  order.mutable_uuid()->set_least_significant_bits(static_cast<int64_t>(0x8899aabbccddeeffULL));
  EXPECT_EQ(packedSingle(rl::field("uuid"), order), "3000112233445566778899aabbccddeeff");

  EXPECT_EQ(packedSingle(rl::field("discount"), order), "00");  // unset wrapper: null
  order.mutable_discount();
  EXPECT_EQ(packedSingle(rl::field("discount"), order), "14");  // set, no value: default
  order.mutable_discount()->set_value(9);
  EXPECT_EQ(packedSingle(rl::field("discount"), order), "1509");
}

TEST(KeyExpressionField, NullInterpretations) {
  Order order;
  std::vector<rl::EvaluatedKey> keys = rl::field("name").evaluate(order);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(fdb::toHex(keys[0].columns.pack()), "00");
  EXPECT_TRUE(keys[0].containsNonUniqueNull);

  keys = rl::field("name", rl::FanType::kScalar, rl::NullInterpretation::kUnique).evaluate(order);
  EXPECT_EQ(fdb::toHex(keys[0].columns.pack()), "00");
  EXPECT_FALSE(keys[0].containsNonUniqueNull);

  auto notNull = [](const char* name) {
    return rl::field(name, rl::FanType::kScalar, rl::NullInterpretation::kNotNull);
  };
  keys = notNull("name").evaluate(order);
  EXPECT_EQ(fdb::toHex(keys[0].columns.pack()), "0200");
  EXPECT_FALSE(keys[0].containsNonUniqueNull);
  EXPECT_EQ(packedSingle(notNull("price"), order), "14");
  EXPECT_EQ(packedSingle(notNull("paid"), order), "26");
  EXPECT_EQ(packedSingle(notNull("discount"), order), "14");  // default wrapper's default
}

TEST(KeyExpressionField, FanOutMakesOneKeyPerElement) {
  Order order;
  order.add_tags("a");
  order.add_tags("b");
  rl::KeyExpression tags = rl::field("tags", rl::FanType::kFanOut);
  EXPECT_EQ(packedKeys(tags, order), (Keys{"026100", "026200"}));
  EXPECT_TRUE(tags.createsDuplicates());
  EXPECT_THROW(tags.evaluateSingleton(order), rl::MetaDataException);
}

TEST(KeyExpressionField, FanOutOnAnEmptyFieldMakesNoKey) {
  Order order;
  EXPECT_TRUE(rl::field("tags", rl::FanType::kFanOut).evaluate(order).empty());
  // ...and so no key for anything concatenated with it.
  order.set_name("x");
  EXPECT_TRUE(rl::concat(rl::field("name"), rl::field("tags", rl::FanType::kFanOut))
                  .evaluate(order)
                  .empty());
}

TEST(KeyExpressionField, ConcatenateMakesOneNestedTuple) {
  Order order;
  rl::KeyExpression tags = rl::field("tags", rl::FanType::kConcatenate);
  EXPECT_EQ(packedKeys(tags, order), Keys{"0500"});  // empty list: an empty nested tuple
  order.add_tags("a");
  order.add_tags("b");
  EXPECT_EQ(packedKeys(tags, order), Keys{"05026100026200"
                                          "00"});
  order.add_scores(1);
  order.add_scores(-1);
  EXPECT_EQ(packedKeys(rl::field("scores", rl::FanType::kConcatenate), order),
            Keys{"05150113fe00"});
}

TEST(KeyExpressionNest, ReadsTheChildOfTheParentMessage) {
  Order order;
  order.mutable_customer()->set_id(7);
  EXPECT_EQ(packedKeys(rl::field("customer").nest("id"), order), Keys{"1507"});
  EXPECT_EQ(rl::field("customer").nest("id").columnSize(), 1);
}

TEST(KeyExpressionNest, AnUnsetParentYieldsTheChildsNull) {
  Order order;
  std::vector<rl::EvaluatedKey> keys = rl::field("customer").nest("id").evaluate(order);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(fdb::toHex(keys[0].columns.pack()), "00");
  EXPECT_TRUE(keys[0].containsNonUniqueNull);
  // A two-column child gives two nulls.
  EXPECT_EQ(packedKeys(rl::field("customer").nest(rl::concatenateFields("id", "name")), order),
            Keys{"0000"});
  // A not-null parent reads its default message: the child's own rules apply.
  rl::KeyExpression notNullParent =
      rl::field("customer", rl::FanType::kScalar, rl::NullInterpretation::kNotNull)
          .nest(rl::field("id", rl::FanType::kScalar, rl::NullInterpretation::kNotNull));
  EXPECT_EQ(packedKeys(notNullParent, order), Keys{"14"});
}

TEST(KeyExpressionNest, FanOutParentEvaluatesTheChildOnEachElement) {
  Order order;
  order.add_items()->set_sku("x");
  order.add_items()->set_sku("y");
  rl::KeyExpression skus = rl::field("items", rl::FanType::kFanOut).nest("sku");
  EXPECT_EQ(packedKeys(skus, order), (Keys{"027800", "027900"}));
  order.clear_items();
  EXPECT_TRUE(skus.evaluate(order).empty());
}

TEST(KeyExpressionConcat, IsTheCartesianProductInJavasOrder) {
  Order order;
  order.add_tags("a");
  order.add_tags("b");
  order.add_scores(1);
  order.add_scores(2);
  order.set_id(9);
  rl::KeyExpression expression =
      rl::concat(rl::field("tags", rl::FanType::kFanOut), rl::field("scores", rl::FanType::kFanOut),
                 rl::field("id"));
  EXPECT_EQ(expression.columnSize(), 3);
  EXPECT_EQ(packedKeys(expression, order), (Keys{"0261001501"
                                                 "1509",
                                                 "0261001502"
                                                 "1509",
                                                 "0262001501"
                                                 "1509",
                                                 "0262001502"
                                                 "1509"}));
}

TEST(KeyExpressionConcat, FlattensNestedConcats) {
  rl::KeyExpression flat = rl::concat(rl::concat(rl::field("a"), rl::field("b")), rl::field("c"));
  EXPECT_EQ(flat.children().size(), 3u);
  EXPECT_EQ(flat, rl::concatenateFields("a", "b", "c"));
}

TEST(KeyExpressionList, EachChildIsOneNestedTupleColumn) {
  Order order;
  order.set_name("abc");
  order.set_price(42);
  rl::KeyExpression expression = rl::list(rl::field("name"), rl::field("price"));
  EXPECT_EQ(expression.columnSize(), 2);
  EXPECT_EQ(packedKeys(expression, order), Keys{"05026162630000"
                                                "05152a00"});
  // A null inside a nested tuple is 00 ff.
  order.clear_name();
  EXPECT_EQ(packedKeys(expression, order), Keys{"0500ff00"
                                                "05152a00"});
}

TEST(KeyExpressionGrouping, CountsGroupAndGroupedColumns) {
  Order order;
  order.set_name("n");
  order.set_price(5);
  rl::KeyExpression grouped = rl::field("price").groupBy(rl::field("name"));
  EXPECT_EQ(grouped.kind(), rl::KeyExpression::Kind::kGrouping);
  EXPECT_EQ(grouped.columnSize(), 2);
  EXPECT_EQ(grouped.groupedCount(), 1);
  EXPECT_EQ(grouped.groupingCount(), 1);
  EXPECT_EQ(packedKeys(grouped, order), Keys{"026e00"
                                             "1505"});  // group first

  rl::KeyExpression two = rl::concatenateFields("name", "price").groupBy(rl::field("id"));
  EXPECT_EQ(two.columnSize(), 3);
  EXPECT_EQ(two.groupedCount(), 2);
  EXPECT_EQ(two.groupingCount(), 1);

  EXPECT_EQ(rl::field("price").ungrouped().groupedCount(), 1);
  EXPECT_EQ(rl::concatenateFields("name", "price").ungrouped().groupedCount(), 2);
  EXPECT_EQ(rl::recordType().ungrouped().groupedCount(), 0);  // as Java has it
  EXPECT_THROW(rl::grouping(rl::field("price"), 2), rl::MetaDataException);
}

TEST(KeyExpressionKeyWithValue, SplitsKeyFromValue) {
  Order order;
  order.set_name("n");
  order.set_price(5);
  order.set_id(1);
  rl::KeyExpression covering = rl::keyWithValue(rl::concatenateFields("name", "price", "id"), 1);
  EXPECT_EQ(covering.columnSize(), 1);
  EXPECT_EQ(covering.splitPoint(), 1);
  std::vector<rl::EvaluatedKey> keys = covering.evaluate(order);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(fdb::toHex(keys[0].subTuple(0, 1).pack()), "026e00");
  EXPECT_EQ(fdb::toHex(keys[0].subTuple(1, 3).pack()), "15051501");
  EXPECT_THROW(rl::keyWithValue(rl::field("name"), 2), rl::MetaDataException);
}

TEST(KeyExpressionVersion, IsTheRecordsVersionstampOrNull) {
  Order order;
  EXPECT_EQ(packedKeys(rl::version(), order), Keys{"00"});
  rl::EvaluationContext context;
  context.version = fdb::Versionstamp::complete({0, 0, 0, 0, 0, 0, 0, 1, 0, 2}, 3);
  EXPECT_EQ(packedKeys(rl::version(), order, context), Keys{"33"
                                                            "00000000000000010002"
                                                            "0003"});
  EXPECT_EQ(rl::version().versionColumns(), 1);
}

TEST(KeyExpressionRecordType, IsTheContextsRecordTypeKey) {
  Order order;
  order.set_id(42);
  rl::EvaluationContext context;
  context.recordTypeKey = 3;
  EXPECT_EQ(packedKeys(rl::concat(rl::recordType(), rl::field("id")), order, context),
            Keys{"1503152a"});
  EXPECT_TRUE(rl::concat(rl::recordType(), rl::field("id")).hasRecordTypeKey());
}

TEST(KeyExpressionEmpty, IsOneKeyOfNoColumns) {
  Order order;
  std::vector<rl::EvaluatedKey> keys = rl::empty().evaluate(order);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_TRUE(keys[0].columns.empty());
  EXPECT_EQ(rl::empty().columnSize(), 0);
}

TEST(KeyExpressionLiteral, IsAConstant) {
  Order order;
  EXPECT_EQ(packedKeys(rl::value("x"), order), Keys{"027800"});
  EXPECT_EQ(packedKeys(rl::value(7), order), Keys{"1507"});
  EXPECT_EQ(packedKeys(rl::value(int64_t{-1}), order), Keys{"13fe"});
  EXPECT_EQ(packedKeys(rl::value(nullptr), order), Keys{"00"});
  EXPECT_EQ(packedKeys(rl::value(true), order), Keys{"27"});
  // Java keeps Integer and Long apart in the proto, not in the tuple.
  EXPECT_TRUE(rl::value(7).toProto().value().has_int_value());
  EXPECT_TRUE(rl::value(int64_t{7}).toProto().value().has_long_value());
  EXPECT_FALSE(rl::value(7) == rl::value(int64_t{7}));
}

TEST(KeyExpressionProto, FieldSerializesAsJavaDoes) {
  // KeyExpression.field (3) { field_name (1) "price", fan_type (2) SCALAR=1,
  // nullInterpretation (3) NOT_UNIQUE=1 }
  EXPECT_EQ(fdb::toHex(rl::field("price").toProto().SerializeAsString()),
            "1a0b"
            "0a057072696365"
            "1001"
            "1801");
}

TEST(KeyExpressionProto, EveryKindRoundTrips) {
  std::vector<rl::KeyExpression> expressions = {
      rl::field("name"),
      rl::field("tags", rl::FanType::kFanOut, rl::NullInterpretation::kUnique),
      rl::field("tags", rl::FanType::kConcatenate, rl::NullInterpretation::kNotNull),
      rl::field("customer").nest("id"),
      rl::field("items", rl::FanType::kFanOut).nest(rl::concatenateFields("sku", "quantity")),
      rl::concat(rl::recordType(), rl::field("id"), rl::version()),
      rl::list(rl::field("name"), rl::field("price")),
      rl::field("price").groupBy(rl::field("name")),
      rl::keyWithValue(rl::concatenateFields("name", "price"), 1),
      rl::empty(),
      rl::value("s"),
      rl::value(1.5),
      rl::value(2.5f),
      rl::value(7),
      rl::value(int64_t{8}),
      rl::value(false),
      rl::value(fdb::ByteString{"\x01\x02"}),
      rl::value(nullptr),
  };
  for (const rl::KeyExpression& expression : expressions) {
    rl::KeyExpressionProto proto = expression.toProto();
    rl::KeyExpressionProto reparsed;
    ASSERT_TRUE(reparsed.ParseFromString(proto.SerializeAsString()));
    rl::KeyExpression back = rl::KeyExpression::fromProto(reparsed);
    EXPECT_EQ(back, expression) << expression.toString() << " came back as " << back.toString();
    EXPECT_EQ(back.columnSize(), expression.columnSize()) << expression.toString();
  }
}

TEST(KeyExpressionProto, RejectsEmptyAndUnsupportedKinds) {
  rl::KeyExpressionProto none;
  EXPECT_THROW(rl::KeyExpression::fromProto(none), rl::MetaDataException);
  rl::KeyExpressionProto function;
  function.mutable_function()->set_name("add");
  EXPECT_THROW(rl::KeyExpression::fromProto(function), rl::MetaDataException);
  rl::KeyExpressionProto two = rl::field("a").toProto();
  two.mutable_empty();
  EXPECT_THROW(rl::KeyExpression::fromProto(two), rl::MetaDataException);
}

TEST(KeyExpressionValidate, NamesTheProblem) {
  const auto& descriptor = *Order::descriptor();
  EXPECT_NO_THROW(rl::field("customer").nest("id").validate(descriptor));
  EXPECT_NO_THROW(rl::field("uuid").validate(descriptor));  // a tuple-field wrapper
  try {
    rl::field("nope").validate(descriptor);
    FAIL() << "an unknown field validated";
  } catch (const rl::MetaDataException& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rl::field("tags").validate(descriptor), rl::MetaDataException);
  EXPECT_THROW(rl::field("name", rl::FanType::kFanOut).validate(descriptor), rl::MetaDataException);
  EXPECT_THROW(rl::field("customer").validate(descriptor), rl::MetaDataException);
  EXPECT_THROW(rl::field("customer").nest("nope").validate(descriptor), rl::MetaDataException);
  EXPECT_THROW(rl::field("tags", rl::FanType::kConcatenate).nest("x"), rl::MetaDataException);
}

TEST(KeyExpressionEvaluate, RefusesAMessageReadAsAValue) {
  Order order;
  order.mutable_customer()->set_id(1);
  EXPECT_THROW(rl::field("customer").evaluate(order), rl::MetaDataException);
  EXPECT_THROW(rl::field("tags").evaluate(order), rl::MetaDataException);
}

TEST(KeyExpressionPositions, NormalizeToSingleColumns) {
  rl::KeyExpression expression = rl::concat(
      rl::field("customer").nest(rl::concatenateFields("id", "name")), rl::field("price"));
  std::vector<rl::KeyExpression> columns = expression.normalizeKeyForPositions();
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0], rl::field("customer").nest("id"));
  EXPECT_EQ(columns[1], rl::field("customer").nest("name"));
  EXPECT_EQ(columns[2], rl::field("price"));
  // Columns match whatever their null interpretation.
  EXPECT_TRUE(rl::field("id").matchesColumn(
      rl::field("id", rl::FanType::kScalar, rl::NullInterpretation::kNotNull)));
  EXPECT_FALSE(rl::field("id") ==
               rl::field("id", rl::FanType::kScalar, rl::NullInterpretation::kNotNull));
}

TEST(KeyExpressionEvaluate, ReusesTheCallersBuffer) {
  Order order;
  order.set_id(1);
  std::vector<rl::EvaluatedKey> keys;
  rl::KeyExpression id = rl::field("id");
  id.evaluateInto(order, {}, keys);
  order.set_id(2);
  id.evaluateInto(order, {}, keys);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(fdb::toHex(keys[0].columns.pack()), "1502");
}

}  // namespace
