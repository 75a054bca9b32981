#include "rl/query/java_format.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/tuple_text.h"

namespace rl::query {
namespace {

// Java's Double.toString / Float.toString: the shortest digits that read back, as a plain
// decimal for magnitudes in [1e-3, 1e7), else as d.dddE±n.
template <typename F>
std::string javaFloatingString(F value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  const F magnitude = std::fabs(value);
  if (magnitude >= F(1e-3) && magnitude < F(1e7)) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
    std::string text(buffer, end);
    if (text.find('.') == std::string::npos) text += ".0";
    return text;
  }
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<size_t>(end - buffer));
  const size_t e = text.find('e');
  std::string mantissa(text.substr(0, e));
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  std::string_view exponent = text.substr(e + 1);
  bool negative = false;
  if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
    negative = exponent[0] == '-';
    exponent.remove_prefix(1);
  }
  while (exponent.size() > 1 && exponent[0] == '0') exponent.remove_prefix(1);
  return mantissa + "E" + (negative ? "-" : "") + std::string(exponent);
}

std::string itemString(const fdb::TupleElement& value, bool bytesAsArray) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          return "null";
        } else if constexpr (std::is_same_v<T, fdb::ByteString>) {
          if (!bytesAsArray) return fdb::printable(v.bytes);
          std::string out = "[";
          for (size_t i = 0; i < v.bytes.size(); ++i) {
            if (i > 0) out += ", ";
            out += std::to_string(static_cast<int>(static_cast<signed char>(v.bytes[i])));
          }
          return out + "]";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<T, fdb::Tuple>) {
          return fdb::formatTuple(v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, fdb::BigInt>) {
          return v.toString();
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return javaFloatingString(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, fdb::Uuid>) {
          return v.toString();
        } else if constexpr (std::is_same_v<T, fdb::Versionstamp>) {
          // Java's Versionstamp.toString().
          if (!v.isComplete()) return fmt::format("Versionstamp(<incomplete> {})", v.userVersion());
          const auto& global = v.transactionVersion();
          return fmt::format("Versionstamp({} {})",
                             fdb::printable(std::string_view(
                                 reinterpret_cast<const char*>(global.data()), global.size())),
                             v.userVersion());
        } else {
          return fdb::formatTuple(fdb::Tuple{value});
        }
      },
      value.value());
}

std::string fanTypeName(FanType fan) {
  switch (fan) {
    case FanType::kScalar: return "None";
    case FanType::kFanOut: return "FanOut";
    case FanType::kConcatenate: return "Concatenate";
  }
  return "None";
}

}  // namespace

std::string javaTupleItemString(const fdb::TupleElement& value) { return itemString(value, true); }

std::string javaComparandString(const fdb::TupleElement& value) { return itemString(value, false); }

std::string javaListString(const std::vector<fdb::TupleElement>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += javaComparandString(values[i]);
  }
  return out + "]";
}

std::string javaTupleString(const fdb::Tuple& tuple) {
  std::string out = "[";
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (i > 0) out += ", ";
    out += javaTupleItemString(tuple[i]);
  }
  return out + "]";
}

std::string javaKeyExpressionString(const KeyExpression& expression) {
  using Kind = KeyExpression::Kind;
  switch (expression.kind()) {
    case Kind::kField:
      return "Field { '" + expression.fieldName() + "' " + fanTypeName(expression.fanType()) + "}";
    case Kind::kNesting:
      return "Field { '" + expression.fieldName() + "' " + fanTypeName(expression.fanType()) +
             "}/" + javaKeyExpressionString(expression.children()[0]);
    case Kind::kThen:
    case Kind::kList: {
      std::string out = "[";
      const auto& children = expression.children();
      for (size_t i = 0; i < children.size(); ++i) {
        if (i > 0) out += ", ";
        out += javaKeyExpressionString(children[i]);
      }
      return out + "]";
    }
    case Kind::kGrouping:
    case Kind::kKeyWithValue: return javaKeyExpressionString(expression.children()[0]);
    case Kind::kVersion: return "Version";
    case Kind::kRecordTypeKey: return "RecordTypeKey";
    case Kind::kEmpty: return "Empty";
    case Kind::kLiteral: return javaTupleItemString(expression.literalValue());
  }
  return expression.toString();
}

}  // namespace rl::query
