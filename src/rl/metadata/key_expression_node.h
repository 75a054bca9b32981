// The one node type behind every rl::KeyExpression (private to the library).
//
// A tagged struct rather than a class hierarchy: evaluation dispatches on `kind` with a
// switch, and each kind uses the members its comment names.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fdb/tuple.h"
#include "rl/metadata/key_expression.h"

namespace rl {

// Which field of the Value proto a literal came from (Java keeps int and long apart).
enum class LiteralType { kNull, kInt, kLong, kFloat, kDouble, kBool, kString, kBytes };

struct KeyExpression::Node {
  Kind kind = Kind::kEmpty;
  int columnSize = 0;
  // kField; kNesting: the parent field.
  std::string fieldName;
  FanType fanType = FanType::kScalar;
  NullInterpretation nulls = NullInterpretation::kNotUnique;
  // kThen, kList: the children; kNesting: {child}; kGrouping, kKeyWithValue: {inner}.
  std::vector<KeyExpression> children;
  // kGrouping: grouped count; kKeyWithValue: split point.
  int count = 0;
  // kLiteral.
  fdb::TupleElement literal;
  LiteralType literalType = LiteralType::kNull;
};

// Builds expressions from nodes and reads nodes back (the library's own access).
class KeyExpressionFactory {
 public:
  static KeyExpression make(KeyExpression::Node node) {
    return KeyExpression(std::make_shared<const KeyExpression::Node>(std::move(node)));
  }
  static const KeyExpression::Node& node(const KeyExpression& expression) {
    return expression.node();
  }
};

}  // namespace rl
