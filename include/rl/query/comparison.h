// rl::Comparison — how a query compares one field value: `=`, `!=`, `<`, `<=`, `>`, `>=`,
// starts-with, is-null, not-null, or `IN` a list, against a constant or a parameter bound when
// the plan runs (the Java Record Layer's Comparisons; docs/query.md, "Comparisons").
//
//   rl::Comparison cheap = rl::Comparison::of(rl::ComparisonType::kLessThan, 100);
//   rl::Comparison maxPrice = rl::Comparison::ofParameter(rl::ComparisonType::kLessThan, "max");
//   rl::Comparison some = rl::Comparison::in({1, 2, 3});
//   cheap.eval(fdb::TupleElement(50), {});   // true
//   cheap.toString();                        // "LESS_THAN 100"
//
// Evaluation is three-valued, as in the Java Record Layer: a missing (null) value makes every
// comparison unknown (nullopt) except IS_NULL (true) and NOT_NULL (false); a record passes a
// filter only when it evaluates to true. Values compare in tuple order (the order of index
// entries) once the comparand has the field's type (ComparandType: set when a query is
// checked against its record types, so 10 compared with a double field is 10.0).
//
// Thread-safety: a value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fdb/tuple.h"
#include "rl/query/bindings.h"

namespace rl {

enum class ComparisonType {
  kEquals,
  kNotEquals,
  kLessThan,
  kLessThanOrEquals,
  kGreaterThan,
  kGreaterThanOrEquals,
  kStartsWith,
  kNotNull,
  kIsNull,
  kIn,
};
// The Java Record Layer's names: "EQUALS", "LESS_THAN", "STARTS_WITH", "IS_NULL", "IN", ...
std::string_view comparisonTypeName(ComparisonType type);

// The tuple type of the field a comparison reads; its comparand is converted to it.
enum class ComparandType { kAny, kInteger, kFloat, kDouble, kBool, kString, kBytes, kUuid };
std::string_view comparandTypeName(ComparandType type);  // "any", "integer", "float", ...

// A parameter of a query, named where a comparand would be given.
struct Parameter {
  std::string name;
};
inline Parameter parameter(std::string name) { return Parameter{std::move(name)}; }

class Comparison {
 public:
  // A comparison with a constant: any type but IS_NULL, NOT_NULL and IN.
  // RecordCoreArgumentException for those, and for a null comparand (use isNull()).
  static Comparison of(ComparisonType type, fdb::TupleElement comparand);
  // A comparison with the parameter `name` (IN: a list parameter).
  static Comparison ofParameter(ComparisonType type, std::string name);
  static Comparison isNull();
  static Comparison notNull();
  // IN a list of constants (none of them null).
  static Comparison in(std::vector<fdb::TupleElement> values);
  // The record's type is `typeName` (whose record type key is `key`): the planner's
  // comparison on a primary key or index that starts with recordType(). Prints "IS Order".
  static Comparison recordTypeIs(std::string typeName, fdb::TupleElement key);

  ComparisonType type() const { return type_; }
  bool hasParameter() const { return !parameter_.empty(); }
  const std::string& parameterName() const { return parameter_; }
  // The constant comparand (null for IS_NULL, NOT_NULL, IN and parameters).
  const fdb::TupleElement& comparand() const { return comparand_; }
  // IN a list of constants: the list.
  const std::vector<fdb::TupleElement>& values() const { return values_; }
  bool isRecordTypeComparison() const { return !recordTypeName_.empty(); }
  ComparandType comparandType() const { return comparandType_; }

  // The comparand this comparison compares with under `bindings`, converted to the field's
  // type. RecordCoreArgumentException for an unbound parameter, a list where one value is
  // wanted, a null, or a value that does not convert.
  fdb::TupleElement comparandValue(const Bindings& bindings) const;
  // IN: the values, converted likewise.
  std::vector<fdb::TupleElement> listValue(const Bindings& bindings) const;

  // Whether `value` (null: the field is missing) satisfies the comparison; nullopt: unknown.
  std::optional<bool> eval(const fdb::TupleElement& value, const Bindings& bindings) const;

  // The same comparison whose comparand converts to `type`; a constant comparand is
  // converted now (RecordCoreArgumentException when it does not convert).
  Comparison withComparandType(ComparandType type) const;
  // The same kind of comparison against another comparand: a parameter (the planner's IN
  // bindings) or a constant.
  Comparison withParameter(ComparisonType type, std::string name) const;

  // "LESS_THAN 100", "EQUALS $max", "IS_NULL", "IN [1, 2]", "IS Order" (docs/query.md,
  // "Plans and explain").
  std::string toString() const;

  friend bool operator==(const Comparison&, const Comparison&) = default;

 private:
  Comparison() = default;

  ComparisonType type_ = ComparisonType::kEquals;
  fdb::TupleElement comparand_;
  std::vector<fdb::TupleElement> values_;
  std::string parameter_;
  std::string recordTypeName_;
  ComparandType comparandType_ = ComparandType::kAny;
};

// `value` converted to `type` (an integer to a float or double, a float to a double and back);
// RecordCoreArgumentException naming both types when it does not convert.
fdb::TupleElement convertComparand(const fdb::TupleElement& value, ComparandType type);

}  // namespace rl
