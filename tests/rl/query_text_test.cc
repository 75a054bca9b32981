// The query text grammar (rl/query/query_text.h, docs/query.md "Query text"): every construct
// and the filter it makes, in the Java Record Layer's form; syntax errors and errors against
// the metadata, each with its position.
#include "rl/query/query_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "query_test_records.pb.h"
#include "rl/metadata/metadata_builder.h"

namespace rl {
namespace {

std::string filterOf(std::string_view text) { return parseQueryFilter(text).toString(); }

// "<position>: <message>" of the error `parse` throws, or what it returned.
template <typename Parse>
std::string errorOf(Parse&& parse) {
  try {
    parse();
  } catch (const QueryTextException& e) {
    return std::to_string(e.position()) + ": " + e.what();
  }
  return "no error";
}

std::string syntaxErrorOf(std::string_view text) {
  return errorOf([&] { parseQueryFilter(text); });
}

TEST(QueryText, Comparisons) {
  EXPECT_EQ(filterOf("price = 10"), "price EQUALS 10");
  EXPECT_EQ(filterOf("price != 10"), "price NOT_EQUALS 10");
  EXPECT_EQ(filterOf("price <> 10"), "price NOT_EQUALS 10");
  EXPECT_EQ(filterOf("price < 10"), "price LESS_THAN 10");
  EXPECT_EQ(filterOf("price <= 10"), "price LESS_THAN_OR_EQUALS 10");
  EXPECT_EQ(filterOf("price > 10"), "price GREATER_THAN 10");
  EXPECT_EQ(filterOf("price >= 10"), "price GREATER_THAN_OR_EQUALS 10");
  EXPECT_EQ(filterOf("price>=10"), "price GREATER_THAN_OR_EQUALS 10");
  EXPECT_EQ(filterOf("customer STARTS WITH \"c-\""), "customer STARTS_WITH c-");
  EXPECT_EQ(filterOf("gift IS NULL"), "gift IS_NULL");
  EXPECT_EQ(filterOf("gift IS NOT NULL"), "gift NOT_NULL");
  EXPECT_EQ(filterOf("status IN (1, 2, 3)"), "status IN [1, 2, 3]");
  EXPECT_EQ(filterOf("status IN (1)"), "status IN [1]");
  EXPECT_EQ(filterOf("status NOT IN (1, 2)"), "Not(status IN [1, 2])");
  EXPECT_EQ(filterOf("customer NOT STARTS WITH 'c'"), "Not(customer STARTS_WITH c)");
}

TEST(QueryText, KeywordsInAnyCase) {
  EXPECT_EQ(filterOf("a = 1 and b = 2 or not c is not null"),
            "Or([And([a EQUALS 1, b EQUALS 2]), Not(c NOT_NULL)])");
  EXPECT_EQ(filterOf("x starts with 'p' AND y In (1) AND any(t) = 1"),
            "And([x STARTS_WITH p, y IN [1], one of t EQUALS 1])");
}

TEST(QueryText, Literals) {
  const auto comparand = [](std::string_view text) {
    return parseQueryFilter(text).comparison().comparand();
  };
  EXPECT_EQ(comparand("a = \"text\""), fdb::TupleElement("text"));
  EXPECT_EQ(comparand("a = 'it\\'s'"), fdb::TupleElement("it's"));
  EXPECT_EQ(comparand("a = \"caf\\u00e9\""), fdb::TupleElement("caf\xc3\xa9"));
  EXPECT_EQ(comparand("a = b\"\\x00\\xff\""),
            fdb::TupleElement(fdb::ByteString{std::string("\x00\xff", 2)}));
  EXPECT_EQ(comparand("a = 42"), fdb::TupleElement(42));
  EXPECT_EQ(comparand("a = -7"), fdb::TupleElement(-7));
  EXPECT_EQ(comparand("a = +5"), fdb::TupleElement(5));
  EXPECT_EQ(fdb::formatElement(comparand("a = 18446744073709551616")), "18446744073709551616");
  EXPECT_EQ(comparand("a = -2.5"), fdb::TupleElement(-2.5));
  EXPECT_EQ(comparand("a = 1e10"), fdb::TupleElement(1e10));
  EXPECT_EQ(comparand("a = 2.5E-3"), fdb::TupleElement(2.5e-3));
  EXPECT_EQ(comparand("a = .5"), fdb::TupleElement(0.5));
  EXPECT_EQ(comparand("a = -inf"), fdb::TupleElement(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(comparand("a = f32(1.5)"), fdb::TupleElement(1.5f));
  EXPECT_EQ(comparand("a = true"), fdb::TupleElement(true));
  EXPECT_EQ(comparand("a = False"), fdb::TupleElement(false));
  EXPECT_EQ(comparand("a = TRUE"), fdb::TupleElement(true));
  EXPECT_EQ(fdb::formatElement(comparand("a = uuid(01234567-89ab-cdef-0123-456789abcdef)")),
            "uuid(01234567-89ab-cdef-0123-456789abcdef)");
  EXPECT_EQ(fdb::formatElement(comparand("a = uuid(\"0123456789abcdef0123456789abcdef\")")),
            "uuid(01234567-89ab-cdef-0123-456789abcdef)");
  EXPECT_EQ(filterOf("a IN ('x', b\"y\", 1, 2.5, true)"), "a IN [x, y, 1, 2.5, true]");
}

TEST(QueryText, Parameters) {
  const QueryComponent filter = parseQueryFilter("price < $max AND status IN $statuses");
  EXPECT_EQ(filter.toString(), "And([price LESS_THAN $max, status IN $statuses])");
  EXPECT_EQ(filter.children()[0].comparison().parameterName(), "max");
  EXPECT_EQ(filterOf("customer STARTS WITH $prefix"), "customer STARTS_WITH $prefix");
}

TEST(QueryText, AndOrNotAndParentheses) {
  EXPECT_EQ(filterOf("a = 1 AND b = 2 AND c = 3"), "And([a EQUALS 1, b EQUALS 2, c EQUALS 3])");
  // AND binds tighter than OR; NOT tighter than AND.
  EXPECT_EQ(filterOf("a = 1 OR b = 2 AND c = 3"),
            "Or([a EQUALS 1, And([b EQUALS 2, c EQUALS 3])])");
  EXPECT_EQ(filterOf("(a = 1 OR b = 2) AND c = 3"),
            "And([Or([a EQUALS 1, b EQUALS 2]), c EQUALS 3])");
  EXPECT_EQ(filterOf("NOT a = 1 AND b = 2"), "And([Not(a EQUALS 1), b EQUALS 2])");
  EXPECT_EQ(filterOf("NOT (a = 1 AND b = 2)"), "Not(And([a EQUALS 1, b EQUALS 2]))");
  EXPECT_EQ(filterOf("NOT NOT a = 1"), "Not(Not(a EQUALS 1))");
  // Chains of one kind are flattened, parentheses or not.
  EXPECT_EQ(filterOf("(a = 1 AND b = 2) AND (c = 3 AND d = 4)"),
            "And([a EQUALS 1, b EQUALS 2, c EQUALS 3, d EQUALS 4])");
  EXPECT_EQ(filterOf("a = 1 OR (b = 2 OR c = 3)"), "Or([a EQUALS 1, b EQUALS 2, c EQUALS 3])");
  EXPECT_EQ(filterOf("((a = 1))"), "a EQUALS 1");
}

TEST(QueryText, NestedAndRepeatedFields) {
  EXPECT_EQ(filterOf("ship_to.city = 'Paris'"), "ship_to/{city EQUALS Paris}");
  EXPECT_EQ(filterOf("a.b.c > 1"), "a/{b/{c GREATER_THAN 1}}");
  EXPECT_EQ(filterOf("ANY(tags) = 'gift'"), "one of tags EQUALS gift");
  EXPECT_EQ(filterOf("ANY(tags) IN ('a', 'b')"), "one of tags IN [a, b]");
  EXPECT_EQ(filterOf("ANY(items).sku = 'A'"), "one of items/{sku EQUALS A}");
  EXPECT_EQ(filterOf("ANY(a.tags) = 1"), "a/{one of tags EQUALS 1}");
  EXPECT_EQ(filterOf("ANY(items).(sku = 'A' AND qty > 2)"),
            "one of items/{And([sku EQUALS A, qty GREATER_THAN 2])}");
  EXPECT_EQ(filterOf("ship_to.(city = 'P' OR zip IS NULL)"),
            "ship_to/{Or([city EQUALS P, zip IS_NULL])}");
  EXPECT_EQ(filterOf("ship_to . city = 'P'"), "ship_to/{city EQUALS P}");
  EXPECT_EQ(filterOf("`and` = 1 AND `weird name` = 2"), "And([and EQUALS 1, weird name EQUALS 2])");
}

TEST(QueryText, Sort) {
  EXPECT_EQ(parseQuerySort("price").toString(), field("price").toString());
  EXPECT_EQ(parseQuerySort(" customer , price ").toString(),
            concat(field("customer"), field("price")).toString());
  EXPECT_EQ(parseQuerySort("ship_to.city").toString(), field("ship_to").nest("city").toString());
  EXPECT_EQ(errorOf([] { parseQuerySort("price,"); }),
            "6: expected a field to sort by, found the end of the text");
  EXPECT_EQ(errorOf([] { parseQuerySort("price desc"); }),
            "6: expected ',' or the end of the sort, found 'desc'");
}

TEST(QueryText, SyntaxErrorsSayWhatAndWhere) {
  EXPECT_EQ(syntaxErrorOf(""), "0: the query is empty: write a condition, e.g. price >= 10");
  EXPECT_EQ(syntaxErrorOf("price >="), "8: expected a value after >=, found the end of the query");
  EXPECT_EQ(syntaxErrorOf("price"),
            "5: expected a comparison after price: =, !=, <, <=, >, >=, IN, STARTS WITH, IS "
            "NULL or IS NOT NULL; found the end of the query");
  EXPECT_EQ(syntaxErrorOf("price == 10"), "7: expected a value after =, found '='");
  EXPECT_EQ(syntaxErrorOf("customer = c3"),
            "11: expected a value after =, found 'c3': a string is quoted, \"c3\"");
  EXPECT_EQ(syntaxErrorOf("customer = \"c3"), "11: unterminated string literal");
  EXPECT_EQ(syntaxErrorOf("code = b\"\\q\""), "9: '\\q' is not a valid escape");
  EXPECT_EQ(syntaxErrorOf("price > 10x"), "10: unexpected 'x' in a number");
  EXPECT_EQ(syntaxErrorOf("price > 1e400"),
            "8: '1e400' is outside the range of a double (overflow or underflow)");
  EXPECT_EQ(syntaxErrorOf("price = null"),
            "8: a value is never null: test for null with IS NULL or IS NOT NULL");
  EXPECT_EQ(syntaxErrorOf("price = NULL"),
            "8: a value is never null: test for null with IS NULL or IS NOT NULL");
  EXPECT_EQ(syntaxErrorOf("price >= 10 customer = 'a'"),
            "12: expected AND, OR or the end of the query, found 'customer'");
  EXPECT_EQ(syntaxErrorOf("price >= 10 AND"),
            "15: expected a condition, found the end of the query");
  EXPECT_EQ(syntaxErrorOf("price >= 10 AND OR x = 1"),
            "16: expected a condition (a field, NOT or '('), found OR");
  EXPECT_EQ(syntaxErrorOf("(price >= 10"),
            "12: expected ')' or AND, OR, found the end of the query");
  EXPECT_EQ(syntaxErrorOf("price >= 10)"),
            "11: expected AND, OR or the end of the query, found ')'");
  EXPECT_EQ(syntaxErrorOf("> 10"), "0: expected a condition (a field, NOT or '('), found '>'");
  EXPECT_EQ(syntaxErrorOf("status IN 1"),
            "10: expected '(' and a list of values, or a $parameter, after IN; found '1'");
  EXPECT_EQ(syntaxErrorOf("status IN ()"), "11: IN () has no values: give at least one");
  EXPECT_EQ(syntaxErrorOf("status IN (1 2)"), "13: expected ',' or ')' in the IN list, found '2'");
  EXPECT_EQ(syntaxErrorOf("status IN (1, $x)"),
            "14: a parameter inside an IN list: a list parameter is written IN $name");
  EXPECT_EQ(syntaxErrorOf("gift IS 1"), "8: expected NULL after IS, found '1'");
  EXPECT_EQ(syntaxErrorOf("gift IS NOT"),
            "11: expected NULL after IS NOT, found the end of the query");
  EXPECT_EQ(syntaxErrorOf("customer STARTS 'c'"), "16: expected WITH after STARTS, found '''");
  EXPECT_EQ(syntaxErrorOf("customer NOT = 'c'"),
            "13: expected IN or STARTS WITH after customer NOT: =, !=, <, <=, >, >=, IN, STARTS "
            "WITH, IS NULL or IS NOT NULL; found '='");
  EXPECT_EQ(syntaxErrorOf("ANY tags = 1"),
            "4: expected '(' after ANY, as in ANY(tags) = \"x\"; found 'tags'");
  EXPECT_EQ(syntaxErrorOf("ANY(tags = 1"), "9: expected ')' to close ANY(, found '='");
  EXPECT_EQ(syntaxErrorOf("ship_to. = 1"), "9: expected a field name, found '='");
  EXPECT_EQ(syntaxErrorOf("ship_to.(city = 1"),
            "17: expected ')' or AND, OR, found the end of the query");
  EXPECT_EQ(syntaxErrorOf("price < $"), "8: expected a parameter name after '$', as in $max");
  EXPECT_EQ(syntaxErrorOf("`price = 1"), "0: unterminated `name`");
  EXPECT_EQ(syntaxErrorOf("a.in = 1"),
            "2: expected a field name, found in (a field of that name is written `in`)");
  EXPECT_EQ(syntaxErrorOf("price = 1 AND"), "13: expected a condition, found the end of the query");
  EXPECT_EQ(syntaxErrorOf("price = AND"), "8: expected a value after =, found AND");
  EXPECT_EQ(syntaxErrorOf("price = f32(x)"), "12: expected a number, found 'x'");
  EXPECT_EQ(syntaxErrorOf("price \x01 1"),
            "6: expected a comparison after price: =, !=, <, <=, >, >=, IN, STARTS WITH, IS "
            "NULL or IS NOT NULL; found byte 0x01");
}

TEST(QueryText, NestingIsBounded) {
  EXPECT_EQ(syntaxErrorOf(std::string(100'000, '(')), "201: the query nests more than 200 deep");
  std::string nots;
  for (int i = 0; i < 1000; ++i) nots += "NOT ";
  EXPECT_EQ(syntaxErrorOf(nots + "a = 1"), "804: the query nests more than 200 deep");
  EXPECT_EQ(filterOf(std::string(150, '(') + "a = 1" + std::string(150, ')')), "a EQUALS 1");
}

RecordMetaData queryMetaData() {
  return RecordMetaDataBuilder(query_test::Order::descriptor()->file()).build();
}

// "<position>+<length>: <message>" of the error checking `text` against the metadata.
std::string checkErrorOf(std::string_view text, std::vector<std::string> types = {"Order"}) {
  const RecordMetaData metaData = queryMetaData();
  try {
    parseQueryFilter(text, metaData, types);
  } catch (const QueryTextException& e) {
    return std::to_string(e.position()) + "+" + std::to_string(e.length()) + ": " + e.what();
  }
  return "no error";
}

TEST(QueryText, CheckedAgainstTheMetaData) {
  const RecordMetaData metaData = queryMetaData();
  EXPECT_EQ(parseQueryFilter("price >= 10 AND ANY(items).(sku = 'A' AND qty > 2) AND weight < 2",
                             metaData, {"Order"})
                .toString(),
            "And([price GREATER_THAN_OR_EQUALS 10, one of items/{And([sku EQUALS A, qty "
            "GREATER_THAN 2])}, weight LESS_THAN 2])");
  EXPECT_EQ(checkErrorOf("price > 1 AND pricee >= 10"),
            "14+12: query on Order: Order has no field pricee (its fields: id, price, customer, "
            "status, tags, ship_to, items, weight, gift, code)");
  EXPECT_EQ(checkErrorOf("price = 1 OR customer = 3"),
            "13+12: query on Order: customer EQUALS 3 compares field customer: an integer 3 "
            "does not fit a field of type string");
  EXPECT_EQ(checkErrorOf("tags = 'x'"),
            "0+10: query on Order: field tags is repeated: compare one of its elements with "
            "ANY(...)");
  EXPECT_EQ(checkErrorOf("items.sku = 'A'"),
            "0+15: query on Order: field items is repeated: match one of its elements with "
            "ANY(...).field");
  EXPECT_EQ(checkErrorOf("ANY(price) = 1"),
            "0+14: query on Order: field price is not repeated, but the query compares \"one of\" "
            "its elements");
  EXPECT_EQ(checkErrorOf("ship_to = 1"),
            "0+11: query on Order: field ship_to holds a message (rl.query_test.Address): match "
            "inside it instead of comparing it");
  // Inside a group, the comparison at fault is named with the fields around it.
  EXPECT_EQ(checkErrorOf("ship_to.(city = 'P' AND zipp = 1)"),
            "24+8: query on Order: Address has no field ship_to.zipp (its fields: city, zip)");
  EXPECT_EQ(checkErrorOf("NOT status IN (1, 'x')"),
            "4+18: query on Order: status IN [1, x] compares field status: a unicode string x "
            "does not fit a field of type integer");
  EXPECT_EQ(checkErrorOf("customer = 'a'", {"Order", "Invoice"}), "no error");
  EXPECT_EQ(checkErrorOf("weight = 1", {"Order", "Invoice"}),
            "0+10: query on Invoice: Invoice has no field weight (its fields: id, price, "
            "customer, status, tags)");
  // An unknown record type is not in the text: no position.
  EXPECT_THROW(
      {
        try {
          parseQueryFilter("price = 1", metaData, {"Ordr"});
        } catch (const QueryTextException&) {
          FAIL() << "a record type is not in the text";
        }
      },
      InvalidQueryException);
}

}  // namespace
}  // namespace rl

namespace rl {
namespace {

TEST(QueryText, RankComparisons) {
  EXPECT_EQ(filterOf("rank(price) < 10"), "rank(field(price)) LESS_THAN 10");
  EXPECT_EQ(filterOf("RANK(price BY customer) <= $top AND customer = \"a\""),
            "And([rank(grouping(concat(field(customer), field(price)), 1)) LESS_THAN_OR_EQUALS "
            "$top, customer EQUALS a])");
  // A field named rank is still a field.
  EXPECT_EQ(filterOf("rank = 3"), "rank EQUALS 3");
  EXPECT_EQ(errorOf([] { parseQueryFilter("rank(price) IN (1, 2)"); }),
            "12: a rank is compared by =, <, <=, > or >=");
  EXPECT_EQ(errorOf([] { parseQueryFilter("rank(price"); }),
            "10: expected ')' to close RANK(, found the end of the query");
}

}  // namespace
}  // namespace rl
