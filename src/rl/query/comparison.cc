#include "rl/query/comparison.h"

#include <fmt/format.h>

#include <algorithm>

#include "rl/query/java_format.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

bool isInteger(const fdb::TupleElement& value) { return value.type() == fdb::TupleType::kInteger; }

double integerAsDouble(const fdb::TupleElement& value) {
  if (const auto* small = std::get_if<int64_t>(&value.value())) return static_cast<double>(*small);
  // A BigInt: through its text, which is exact enough for a comparison with a double.
  return std::stod(value.asBigInt().toString());
}

void checkNotNull(const fdb::TupleElement& value, std::string_view what) {
  if (value.isNull()) {
    throw RecordCoreArgumentException(fmt::format(
        "{} is null; compare with null by IS_NULL / NOT_NULL (isNull(), notNull())", what));
  }
}

}  // namespace

std::string_view comparisonTypeName(ComparisonType type) {
  switch (type) {
    case ComparisonType::kEquals: return "EQUALS";
    case ComparisonType::kNotEquals: return "NOT_EQUALS";
    case ComparisonType::kLessThan: return "LESS_THAN";
    case ComparisonType::kLessThanOrEquals: return "LESS_THAN_OR_EQUALS";
    case ComparisonType::kGreaterThan: return "GREATER_THAN";
    case ComparisonType::kGreaterThanOrEquals: return "GREATER_THAN_OR_EQUALS";
    case ComparisonType::kStartsWith: return "STARTS_WITH";
    case ComparisonType::kNotNull: return "NOT_NULL";
    case ComparisonType::kIsNull: return "IS_NULL";
    case ComparisonType::kIn: return "IN";
  }
  return "UNKNOWN";
}

std::string_view comparandTypeName(ComparandType type) {
  switch (type) {
    case ComparandType::kAny: return "any";
    case ComparandType::kInteger: return "integer";
    case ComparandType::kFloat: return "float";
    case ComparandType::kDouble: return "double";
    case ComparandType::kBool: return "bool";
    case ComparandType::kString: return "string";
    case ComparandType::kBytes: return "bytes";
    case ComparandType::kUuid: return "UUID";
  }
  return "unknown";
}

fdb::TupleElement convertComparand(const fdb::TupleElement& value, ComparandType type) {
  const fdb::TupleType have = value.type();
  auto mismatch = [&]() {
    return RecordCoreArgumentException(
        fmt::format("{} {} does not fit a field of type {}", fdb::tupleTypeName(have),
                    query::javaComparandString(value), comparandTypeName(type)));
  };
  switch (type) {
    case ComparandType::kAny: return value;
    case ComparandType::kInteger:
      if (have == fdb::TupleType::kInteger) return value;
      throw mismatch();
    case ComparandType::kFloat:
      if (have == fdb::TupleType::kFloat) return value;
      if (have == fdb::TupleType::kDouble) return static_cast<float>(value.asDouble());
      if (isInteger(value)) return static_cast<float>(integerAsDouble(value));
      throw mismatch();
    case ComparandType::kDouble:
      if (have == fdb::TupleType::kDouble) return value;
      if (have == fdb::TupleType::kFloat) return static_cast<double>(value.asFloat());
      if (isInteger(value)) return integerAsDouble(value);
      throw mismatch();
    case ComparandType::kBool:
      if (have == fdb::TupleType::kBool) return value;
      throw mismatch();
    case ComparandType::kString:
      if (have == fdb::TupleType::kString) return value;
      throw mismatch();
    case ComparandType::kBytes:
      if (have == fdb::TupleType::kBytes) return value;
      throw mismatch();
    case ComparandType::kUuid:
      if (have == fdb::TupleType::kUuid) return value;
      throw mismatch();
  }
  return value;
}

Comparison Comparison::of(ComparisonType type, fdb::TupleElement comparand) {
  if (type == ComparisonType::kIsNull || type == ComparisonType::kNotNull ||
      type == ComparisonType::kIn) {
    throw RecordCoreArgumentException(fmt::format(
        "{} takes no single comparand (isNull(), notNull(), in())", comparisonTypeName(type)));
  }
  checkNotNull(comparand, fmt::format("the comparand of {}", comparisonTypeName(type)));
  if (type == ComparisonType::kStartsWith && comparand.type() != fdb::TupleType::kString) {
    throw RecordCoreArgumentException("STARTS_WITH takes a string, not " +
                                      std::string(fdb::tupleTypeName(comparand.type())));
  }
  Comparison c;
  c.type_ = type;
  c.comparand_ = std::move(comparand);
  return c;
}

Comparison Comparison::ofParameter(ComparisonType type, std::string name) {
  if (type == ComparisonType::kIsNull || type == ComparisonType::kNotNull) {
    throw RecordCoreArgumentException(
        fmt::format("{} takes no comparand", comparisonTypeName(type)));
  }
  if (name.empty()) throw RecordCoreArgumentException("a parameter needs a name");
  Comparison c;
  c.type_ = type;
  c.parameter_ = std::move(name);
  return c;
}

Comparison Comparison::isNull() {
  Comparison c;
  c.type_ = ComparisonType::kIsNull;
  return c;
}

Comparison Comparison::notNull() {
  Comparison c;
  c.type_ = ComparisonType::kNotNull;
  return c;
}

Comparison Comparison::in(std::vector<fdb::TupleElement> values) {
  for (const fdb::TupleElement& value : values) checkNotNull(value, "a value of an IN list");
  Comparison c;
  c.type_ = ComparisonType::kIn;
  c.values_ = std::move(values);
  return c;
}

Comparison Comparison::recordTypeIs(std::string typeName, fdb::TupleElement key) {
  Comparison c;
  c.type_ = ComparisonType::kEquals;
  c.comparand_ = std::move(key);
  c.recordTypeName_ = std::move(typeName);
  return c;
}

fdb::TupleElement Comparison::comparandValue(const Bindings& bindings) const {
  if (!hasParameter()) return comparand_;
  const fdb::TupleElement& bound = bindings.value(parameter_);
  checkNotNull(bound, "parameter $" + parameter_);
  try {
    fdb::TupleElement converted = convertComparand(bound, comparandType_);
    if (type_ == ComparisonType::kStartsWith && converted.type() != fdb::TupleType::kString) {
      throw RecordCoreArgumentException("STARTS_WITH takes a string");
    }
    return converted;
  } catch (const RecordCoreArgumentException& e) {
    throw RecordCoreArgumentException("parameter $" + parameter_ + ": " + e.what());
  }
}

std::vector<fdb::TupleElement> Comparison::listValue(const Bindings& bindings) const {
  if (!hasParameter()) return values_;
  std::vector<fdb::TupleElement> converted;
  try {
    for (const fdb::TupleElement& value : bindings.list(parameter_)) {
      checkNotNull(value, "a value of parameter $" + parameter_);
      converted.push_back(convertComparand(value, comparandType_));
    }
  } catch (const RecordCoreArgumentException& e) {
    if (std::string_view(e.what()).starts_with("parameter $")) throw;
    throw RecordCoreArgumentException("parameter $" + parameter_ + ": " + e.what());
  }
  return converted;
}

std::optional<bool> Comparison::eval(const fdb::TupleElement& value,
                                     const Bindings& bindings) const {
  switch (type_) {
    case ComparisonType::kIsNull: return value.isNull();
    case ComparisonType::kNotNull: return !value.isNull();
    default: break;
  }
  if (value.isNull()) return std::nullopt;
  if (type_ == ComparisonType::kIn) {
    const std::vector<fdb::TupleElement> values = listValue(bindings);
    return std::find(values.begin(), values.end(), value) != values.end();
  }
  const fdb::TupleElement comparand = comparandValue(bindings);
  switch (type_) {
    case ComparisonType::kEquals: return value == comparand;
    case ComparisonType::kNotEquals: return value != comparand;
    case ComparisonType::kLessThan: return value < comparand;
    case ComparisonType::kLessThanOrEquals: return value <= comparand;
    case ComparisonType::kGreaterThan: return value > comparand;
    case ComparisonType::kGreaterThanOrEquals: return value >= comparand;
    case ComparisonType::kStartsWith:
      if (value.type() != fdb::TupleType::kString) return false;
      return value.asString().starts_with(comparand.asString());
    default: return std::nullopt;
  }
}

Comparison Comparison::withComparandType(ComparandType type) const {
  Comparison c = *this;
  c.comparandType_ = type;
  if (isRecordTypeComparison() || hasParameter()) return c;
  switch (type_) {
    case ComparisonType::kIsNull:
    case ComparisonType::kNotNull: break;
    case ComparisonType::kIn:
      for (fdb::TupleElement& value : c.values_) value = convertComparand(value, type);
      break;
    case ComparisonType::kStartsWith:
      if (type != ComparandType::kString && type != ComparandType::kAny) {
        throw RecordCoreArgumentException(fmt::format(
            "STARTS_WITH compares strings, not a field of type {}", comparandTypeName(type)));
      }
      break;
    default: c.comparand_ = convertComparand(comparand_, type); break;
  }
  return c;
}

Comparison Comparison::withParameter(ComparisonType type, std::string name) const {
  Comparison c = ofParameter(type, std::move(name));
  c.comparandType_ = comparandType_;
  return c;
}

std::string Comparison::toString() const {
  if (isRecordTypeComparison()) return "IS " + recordTypeName_;
  const std::string_view name = comparisonTypeName(type_);
  if (type_ == ComparisonType::kIsNull || type_ == ComparisonType::kNotNull) {
    return std::string(name);
  }
  if (hasParameter()) return fmt::format("{} ${}", name, parameter_);
  if (type_ == ComparisonType::kIn)
    return fmt::format("{} {}", name, query::javaListString(values_));
  return fmt::format("{} {}", name, query::javaComparandString(comparand_));
}

}  // namespace rl
