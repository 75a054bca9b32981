// Evaluating key expressions on records (docs/format.md, "Key expressions").
//
// Evaluation runs on every save, so it works in place: it keeps the list of keys built
// so far and lets each expression extend it, appending its columns to every key (the
// cartesian product with its own keys). A scalar expression appends one element to each
// key without copying any; only a fan-out copies keys, one per element.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <utility>
#include <vector>

#include "rl/metadata/field_values.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/key_expression_node.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using Kind = KeyExpression::Kind;
using Node = KeyExpression::Node;

// One column value, with whether it is a non-unique null.
struct Column {
  fdb::TupleElement element;
  bool nonUniqueNull = false;
};

Column nullColumn(NullInterpretation nulls) {
  return Column{nullptr, nulls == NullInterpretation::kNotUnique};
}

void appendColumn(std::vector<EvaluatedKey>& keys, Column column) {
  if (keys.empty()) return;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    keys[i].columns.append(column.element);
    keys[i].containsNonUniqueNull |= column.nonUniqueNull;
  }
  keys.back().columns.append(std::move(column.element));
  keys.back().containsNonUniqueNull |= column.nonUniqueNull;
}

// keys × choices: every key followed by each choice in turn.
void appendEachColumn(std::vector<EvaluatedKey>& keys, std::vector<Column>& choices) {
  if (choices.size() == 1) {
    appendColumn(keys, std::move(choices[0]));
    return;
  }
  std::vector<EvaluatedKey> out;
  out.reserve(keys.size() * choices.size());
  for (EvaluatedKey& key : keys) {
    for (const Column& choice : choices) {
      EvaluatedKey& extended = out.emplace_back(key);
      extended.columns.append(choice.element);
      extended.containsNonUniqueNull |= choice.nonUniqueNull;
    }
  }
  keys = std::move(out);
}

class Evaluator {
 public:
  explicit Evaluator(const EvaluationContext& context) : context_(context) {}

  // Replaces `keys` by keys × (the keys `expression` yields on `message`); `message` is
  // null below an unset parent field.
  void extend(const KeyExpression& expression, const Message* message,
              std::vector<EvaluatedKey>& keys) const {
    const Node& node = KeyExpressionFactory::node(expression);
    switch (node.kind) {
      case Kind::kField: extendField(node, message, keys); break;
      case Kind::kNesting: extendNesting(node, message, keys); break;
      case Kind::kThen:
        for (const KeyExpression& child : node.children) {
          if (keys.empty()) break;
          extend(child, message, keys);
        }
        break;
      case Kind::kList: extendList(node, message, keys); break;
      case Kind::kGrouping:
      case Kind::kKeyWithValue: extend(node.children[0], message, keys); break;
      case Kind::kVersion:
        if (context_.version) {
          appendColumn(keys, Column{*context_.version});
        } else {
          appendColumn(keys, Column{nullptr});
        }
        break;
      case Kind::kRecordTypeKey: appendColumn(keys, Column{context_.recordTypeKey}); break;
      case Kind::kEmpty: break;
      case Kind::kLiteral: appendColumn(keys, Column{node.literal}); break;
    }
  }

 private:
  static const FieldDescriptor* findField(const Node& node, const Message& message) {
    return message.GetDescriptor()->FindFieldByName(node.fieldName);
  }

  static void requireRepeated(const Node& node, const FieldDescriptor& field, bool repeated) {
    if (field.is_repeated() != repeated) {
      throw MetaDataException("field " + field.full_name() + (repeated ? " is not" : " is") +
                              " repeated, but the key expression reads it as " +
                              (repeated ? "repeated" : "a scalar") + " (" + node.fieldName + ")");
    }
  }

  // What a field yields when there is no message or the field is unset/absent.
  static void extendWithNull(const Node& node, std::vector<EvaluatedKey>& keys) {
    switch (node.fanType) {
      case FanType::kFanOut: keys.clear(); break;
      case FanType::kConcatenate:
        if (node.nulls == NullInterpretation::kNotNull) {
          appendColumn(keys, Column{fdb::Tuple{}});
        } else {
          appendColumn(keys, nullColumn(node.nulls));
        }
        break;
      case FanType::kScalar: appendColumn(keys, nullColumn(node.nulls)); break;
    }
  }

  static void extendField(const Node& node, const Message* message,
                          std::vector<EvaluatedKey>& keys) {
    const FieldDescriptor* field = message ? findField(node, *message) : nullptr;
    if (field == nullptr) {
      extendWithNull(node, keys);
      return;
    }
    if (node.fanType == FanType::kScalar) {
      requireRepeated(node, *field, false);
      if (node.nulls != NullInterpretation::kNotNull &&
          !message->GetReflection()->HasField(*message, field)) {
        appendColumn(keys, nullColumn(node.nulls));
      } else {
        appendColumn(keys, Column{fieldValue(*message, *field)});
      }
      return;
    }
    requireRepeated(node, *field, true);
    const int size = message->GetReflection()->FieldSize(*message, field);
    if (node.fanType == FanType::kConcatenate) {
      fdb::Tuple all;
      for (int i = 0; i < size; ++i) all.append(repeatedFieldValue(*message, *field, i));
      appendColumn(keys, Column{std::move(all)});
      return;
    }
    if (size == 0) {
      keys.clear();
      return;
    }
    std::vector<Column> choices;
    choices.reserve(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i)
      choices.push_back(Column{repeatedFieldValue(*message, *field, i)});
    appendEachColumn(keys, choices);
  }

  void extendNesting(const Node& node, const Message* message,
                     std::vector<EvaluatedKey>& keys) const {
    const KeyExpression& child = node.children[0];
    const FieldDescriptor* field = message ? findField(node, *message) : nullptr;
    if (field != nullptr && field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      throw MetaDataException("field " + field->full_name() +
                              " is not a message, but the key expression nests into it");
    }
    if (node.fanType == FanType::kScalar) {
      const Message* submessage = nullptr;
      if (field != nullptr) {
        requireRepeated(node, *field, false);
        const auto* reflection = message->GetReflection();
        if (node.nulls == NullInterpretation::kNotNull || reflection->HasField(*message, field)) {
          submessage = &reflection->GetMessage(*message, field);
        }
      }
      extend(child, submessage, keys);
      return;
    }
    // Fan-out: the child on each element, in the order Java combines them (every key
    // before this one's outermost, then the elements).
    int size = 0;
    if (field != nullptr) {
      requireRepeated(node, *field, true);
      size = message->GetReflection()->FieldSize(*message, field);
    }
    if (size == 0) {
      keys.clear();
      return;
    }
    const auto* reflection = message->GetReflection();
    if (size == 1) {
      extend(child, &reflection->GetRepeatedMessage(*message, field, 0), keys);
      return;
    }
    std::vector<EvaluatedKey> out;
    std::vector<EvaluatedKey> scratch;
    for (const EvaluatedKey& key : keys) {
      for (int i = 0; i < size; ++i) {
        scratch.assign(1, key);
        extend(child, &reflection->GetRepeatedMessage(*message, field, i), scratch);
        for (EvaluatedKey& extended : scratch) out.push_back(std::move(extended));
      }
    }
    keys = std::move(out);
  }

  void extendList(const Node& node, const Message* message, std::vector<EvaluatedKey>& keys) const {
    std::vector<EvaluatedKey> childKeys;
    std::vector<Column> choices;
    for (const KeyExpression& child : node.children) {
      if (keys.empty()) return;
      childKeys.assign(1, EvaluatedKey{});
      extend(child, message, childKeys);
      choices.clear();
      for (EvaluatedKey& childKey : childKeys) {
        choices.push_back(Column{std::move(childKey.columns)});
      }
      if (choices.empty()) {
        keys.clear();
        return;
      }
      appendEachColumn(keys, choices);
    }
  }

  const EvaluationContext& context_;
};

}  // namespace

void KeyExpression::evaluateInto(const Message& record, const EvaluationContext& context,
                                 std::vector<EvaluatedKey>& keys) const {
  keys.clear();
  keys.emplace_back();
  Evaluator(context).extend(*this, &record, keys);
}

std::vector<EvaluatedKey> KeyExpression::evaluate(const Message& record,
                                                  const EvaluationContext& context) const {
  std::vector<EvaluatedKey> keys;
  evaluateInto(record, context, keys);
  return keys;
}

fdb::Tuple KeyExpression::evaluateSingleton(const Message& record,
                                            const EvaluationContext& context) const {
  std::vector<EvaluatedKey> keys;
  evaluateInto(record, context, keys);
  if (keys.size() != 1) {
    throw MetaDataException("key expression " + toString() + " yielded " +
                            std::to_string(keys.size()) + " keys where exactly one was expected");
  }
  return std::move(keys[0].columns);
}

}  // namespace rl
