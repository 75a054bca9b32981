// Building, inspecting and serializing key expressions (evaluation is in
// key_expression_evaluate.cc).
#include "rl/metadata/key_expression.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <string>
#include <utility>

#include "rl/metadata/field_values.h"
#include "rl/metadata/key_expression_node.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

namespace pb = ::com::apple::foundationdb::record::expressions;
using Kind = KeyExpression::Kind;
using Node = KeyExpression::Node;

const char* kindName(Kind kind) {
  switch (kind) {
    case Kind::kField: return "field";
    case Kind::kNesting: return "nesting";
    case Kind::kThen: return "concat";
    case Kind::kList: return "list";
    case Kind::kGrouping: return "grouping";
    case Kind::kKeyWithValue: return "keyWithValue";
    case Kind::kVersion: return "version";
    case Kind::kRecordTypeKey: return "recordType";
    case Kind::kEmpty: return "empty";
    case Kind::kLiteral: return "value";
  }
  return "?";
}

const Node& nodeOf(const KeyExpression& expression) {
  return KeyExpressionFactory::node(expression);
}

void requireKind(const Node& node, std::initializer_list<Kind> kinds, const char* what) {
  if (std::find(kinds.begin(), kinds.end(), node.kind) == kinds.end()) {
    throw MetaDataException(std::string(what) + " is not defined on a " + kindName(node.kind) +
                            " key expression");
  }
}

KeyExpression singleton(Kind kind, int columnSize) {
  Node node;
  node.kind = kind;
  node.columnSize = columnSize;
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression literal(LiteralType type, fdb::TupleElement element) {
  Node node;
  node.kind = Kind::kLiteral;
  node.columnSize = 1;
  node.literalType = type;
  node.literal = std::move(element);
  return KeyExpressionFactory::make(std::move(node));
}

pb::Field::FanType fanTypeToProto(FanType fanType) {
  switch (fanType) {
    case FanType::kScalar: return pb::Field::SCALAR;
    case FanType::kFanOut: return pb::Field::FAN_OUT;
    case FanType::kConcatenate: return pb::Field::CONCATENATE;
  }
  return pb::Field::SCALAR;
}

pb::Field::NullInterpretation nullsToProto(NullInterpretation nulls) {
  switch (nulls) {
    case NullInterpretation::kNotUnique: return pb::Field::NOT_UNIQUE;
    case NullInterpretation::kUnique: return pb::Field::UNIQUE;
    case NullInterpretation::kNotNull: return pb::Field::NOT_NULL;
  }
  return pb::Field::NOT_UNIQUE;
}

pb::Field fieldToProto(const Node& node) {
  pb::Field proto;
  proto.set_field_name(node.fieldName);
  proto.set_fan_type(fanTypeToProto(node.fanType));
  proto.set_nullinterpretation(nullsToProto(node.nulls));
  return proto;
}

KeyExpression fieldFromProto(const pb::Field& proto) {
  if (!proto.has_field_name()) throw MetaDataException("serialized Field has no field_name");
  if (!proto.has_fan_type()) throw MetaDataException("serialized Field has no fan_type");
  FanType fanType = FanType::kScalar;
  switch (proto.fan_type()) {
    case pb::Field::SCALAR: fanType = FanType::kScalar; break;
    case pb::Field::FAN_OUT: fanType = FanType::kFanOut; break;
    case pb::Field::CONCATENATE: fanType = FanType::kConcatenate; break;
  }
  NullInterpretation nulls = NullInterpretation::kNotUnique;
  switch (proto.nullinterpretation()) {
    case pb::Field::NOT_UNIQUE: nulls = NullInterpretation::kNotUnique; break;
    case pb::Field::UNIQUE: nulls = NullInterpretation::kUnique; break;
    case pb::Field::NOT_NULL: nulls = NullInterpretation::kNotNull; break;
  }
  return field(proto.field_name(), fanType, nulls);
}

void literalToProto(const Node& node, pb::Value& proto) {
  const auto& value = node.literal.value();
  switch (node.literalType) {
    case LiteralType::kNull: break;
    case LiteralType::kInt:
      proto.set_int_value(static_cast<int32_t>(std::get<int64_t>(value)));
      break;
    case LiteralType::kLong: proto.set_long_value(std::get<int64_t>(value)); break;
    case LiteralType::kFloat: proto.set_float_value(std::get<float>(value)); break;
    case LiteralType::kDouble: proto.set_double_value(std::get<double>(value)); break;
    case LiteralType::kBool: proto.set_bool_value(std::get<bool>(value)); break;
    case LiteralType::kString: proto.set_string_value(std::get<std::string>(value)); break;
    case LiteralType::kBytes: proto.set_bytes_value(std::get<fdb::ByteString>(value).bytes); break;
  }
}

void appendString(const KeyExpression& expression, std::string& out);

void appendChildren(const std::vector<KeyExpression>& children, std::string& out) {
  for (size_t i = 0; i < children.size(); ++i) {
    if (i > 0) out += ", ";
    appendString(children[i], out);
  }
}

void appendFieldString(const Node& node, std::string& out) {
  out += "field(";
  out += node.fieldName;
  if (node.fanType == FanType::kFanOut) out += ", fanOut";
  if (node.fanType == FanType::kConcatenate) out += ", concatenate";
  if (node.nulls == NullInterpretation::kUnique) out += ", unique nulls";
  if (node.nulls == NullInterpretation::kNotNull) out += ", not null";
  out += ")";
}

void appendString(const KeyExpression& expression, std::string& out) {
  const Node& node = nodeOf(expression);
  switch (node.kind) {
    case Kind::kField: appendFieldString(node, out); break;
    case Kind::kNesting:
      appendFieldString(node, out);
      out += ".nest(";
      appendString(node.children[0], out);
      out += ")";
      break;
    case Kind::kThen:
    case Kind::kList:
      out += kindName(node.kind);
      out += "(";
      appendChildren(node.children, out);
      out += ")";
      break;
    case Kind::kGrouping:
      out += "grouping(";
      appendString(node.children[0], out);
      out += ", " + std::to_string(node.count) + ")";
      break;
    case Kind::kKeyWithValue:
      out += "keyWithValue(";
      appendString(node.children[0], out);
      out += ", " + std::to_string(node.count) + ")";
      break;
    case Kind::kVersion: out += "version()"; break;
    case Kind::kRecordTypeKey: out += "recordType()"; break;
    case Kind::kEmpty: out += "empty()"; break;
    case Kind::kLiteral: {
      out += "value(";
      const auto& value = node.literal.value();
      switch (node.literalType) {
        case LiteralType::kNull: out += "null"; break;
        case LiteralType::kInt:
        case LiteralType::kLong: out += std::to_string(std::get<int64_t>(value)); break;
        case LiteralType::kFloat: out += std::to_string(std::get<float>(value)) + "f"; break;
        case LiteralType::kDouble: out += std::to_string(std::get<double>(value)); break;
        case LiteralType::kBool: out += std::get<bool>(value) ? "true" : "false"; break;
        case LiteralType::kString: out += "\"" + std::get<std::string>(value) + "\""; break;
        case LiteralType::kBytes:
          out += "0x" + fdb::toHex(std::get<fdb::ByteString>(value).bytes);
          break;
      }
      out += ")";
      break;
    }
  }
}

bool sameField(const Node& a, const Node& b, bool compareNulls) {
  return a.fieldName == b.fieldName && a.fanType == b.fanType &&
         (!compareNulls || a.nulls == b.nulls);
}

bool equalNodes(const Node& a, const Node& b, bool compareNulls) {
  if (&a == &b) return true;
  if (a.kind != b.kind) return false;
  auto equalChildren = [&](const std::vector<KeyExpression>& x,
                           const std::vector<KeyExpression>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!equalNodes(nodeOf(x[i]), nodeOf(y[i]), compareNulls)) return false;
    }
    return true;
  };
  switch (a.kind) {
    case Kind::kField: return sameField(a, b, compareNulls);
    case Kind::kNesting:
      return sameField(a, b, compareNulls) && equalChildren(a.children, b.children);
    case Kind::kThen:
    case Kind::kList: return equalChildren(a.children, b.children);
    case Kind::kGrouping:
    case Kind::kKeyWithValue: return a.count == b.count && equalChildren(a.children, b.children);
    case Kind::kVersion:
    case Kind::kRecordTypeKey:
    case Kind::kEmpty: return true;
    case Kind::kLiteral: return a.literalType == b.literalType && a.literal == b.literal;
  }
  return false;
}

void validateField(const Node& node, const google::protobuf::Descriptor& descriptor,
                   bool allowMessage) {
  const google::protobuf::FieldDescriptor* fd = descriptor.FindFieldByName(node.fieldName);
  if (fd == nullptr) {
    throw MetaDataException("message " + descriptor.full_name() + " has no field named " +
                            node.fieldName);
  }
  if (node.fanType == FanType::kScalar && fd->is_repeated()) {
    throw MetaDataException("field " + descriptor.full_name() + "." + node.fieldName +
                            " is repeated: read it with fan-out or concatenate");
  }
  if (node.fanType != FanType::kScalar && !fd->is_repeated()) {
    throw MetaDataException("field " + descriptor.full_name() + "." + node.fieldName +
                            " is not repeated: it cannot fan out or concatenate");
  }
  if (!allowMessage && fd->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
      !isTupleFieldMessage(*fd->message_type())) {
    throw MetaDataException("field " + descriptor.full_name() + "." + node.fieldName +
                            " holds a message: nest into it rather than reading it as a value");
  }
}

}  // namespace

fdb::Tuple EvaluatedKey::subTuple(size_t begin, size_t end) const {
  fdb::Tuple out;
  end = std::min(end, columns.size());
  for (size_t i = begin; i < end; ++i) out.append(columns[i]);
  return out;
}

KeyExpression::KeyExpression() : KeyExpression(empty()) {}

KeyExpression::Kind KeyExpression::kind() const { return node_->kind; }
int KeyExpression::columnSize() const { return node_->columnSize; }

KeyExpression KeyExpression::nest(const KeyExpression& child) const {
  if (node_->kind != Kind::kField) {
    throw MetaDataException("only a field key expression can nest, not " + toString());
  }
  if (node_->fanType == FanType::kConcatenate) {
    throw MetaDataException("a concatenated field cannot nest: " + toString());
  }
  Node node = *node_;
  node.kind = Kind::kNesting;
  node.children = {child};
  node.columnSize = child.columnSize();
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression KeyExpression::nest(std::string_view fieldName, FanType fanType) const {
  return nest(field(fieldName, fanType));
}

KeyExpression KeyExpression::groupByAll(const std::vector<KeyExpression>& groupingKeys) const {
  if (groupingKeys.empty()) return ungrouped();
  std::vector<KeyExpression> whole = groupingKeys;
  whole.push_back(*this);
  KeyExpression wholeKey = whole.size() == 1 ? whole[0] : concatAll(whole);
  return grouping(wholeKey, columnSize());
}

KeyExpression KeyExpression::ungrouped() const {
  // Java groups a record type key ungrouped with zero aggregated columns.
  return grouping(*this, node_->kind == Kind::kRecordTypeKey ? 0 : columnSize());
}

const std::string& KeyExpression::fieldName() const {
  requireKind(*node_, {Kind::kField, Kind::kNesting}, "fieldName()");
  return node_->fieldName;
}

FanType KeyExpression::fanType() const {
  requireKind(*node_, {Kind::kField, Kind::kNesting}, "fanType()");
  return node_->fanType;
}

NullInterpretation KeyExpression::nullInterpretation() const {
  requireKind(*node_, {Kind::kField, Kind::kNesting}, "nullInterpretation()");
  return node_->nulls;
}

const std::vector<KeyExpression>& KeyExpression::children() const {
  requireKind(*node_,
              {Kind::kThen, Kind::kList, Kind::kNesting, Kind::kGrouping, Kind::kKeyWithValue},
              "children()");
  return node_->children;
}

int KeyExpression::groupedCount() const {
  requireKind(*node_, {Kind::kGrouping}, "groupedCount()");
  return node_->count;
}

int KeyExpression::groupingCount() const {
  requireKind(*node_, {Kind::kGrouping}, "groupingCount()");
  return node_->columnSize - node_->count;
}

int KeyExpression::splitPoint() const {
  requireKind(*node_, {Kind::kKeyWithValue}, "splitPoint()");
  return node_->count;
}

const fdb::TupleElement& KeyExpression::literalValue() const {
  requireKind(*node_, {Kind::kLiteral}, "literalValue()");
  return node_->literal;
}

bool KeyExpression::createsDuplicates() const {
  switch (node_->kind) {
    case Kind::kField: return node_->fanType == FanType::kFanOut;
    case Kind::kNesting:
      return node_->fanType == FanType::kFanOut || node_->children[0].createsDuplicates();
    case Kind::kThen:
    case Kind::kList:
    case Kind::kGrouping:
    case Kind::kKeyWithValue:
      return std::any_of(node_->children.begin(), node_->children.end(),
                         [](const KeyExpression& c) { return c.createsDuplicates(); });
    default: return false;
  }
}

bool KeyExpression::hasRecordTypeKey() const {
  if (node_->kind == Kind::kRecordTypeKey) return true;
  if (node_->kind == Kind::kList) return false;  // a nested tuple is not a type prefix
  return std::any_of(node_->children.begin(), node_->children.end(),
                     [](const KeyExpression& c) { return c.hasRecordTypeKey(); });
}

int KeyExpression::versionColumns() const {
  if (node_->kind == Kind::kVersion) return 1;
  int count = 0;
  for (const KeyExpression& child : node_->children) count += child.versionColumns();
  return count;
}

void KeyExpression::validate(const google::protobuf::Descriptor& recordType) const {
  switch (node_->kind) {
    case Kind::kField: validateField(*node_, recordType, false); break;
    case Kind::kNesting: {
      validateField(*node_, recordType, true);
      const google::protobuf::FieldDescriptor* fd = recordType.FindFieldByName(node_->fieldName);
      if (fd->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
        throw MetaDataException("field " + recordType.full_name() + "." + node_->fieldName +
                                " is not a message: it cannot nest");
      }
      node_->children[0].validate(*fd->message_type());
      break;
    }
    case Kind::kThen:
    case Kind::kList:
    case Kind::kGrouping:
      for (const KeyExpression& child : node_->children) child.validate(recordType);
      break;
    case Kind::kKeyWithValue:
      if (node_->children[0].columnSize() < node_->count) {
        throw MetaDataException("keyWithValue splits at column " + std::to_string(node_->count) +
                                " but its key has only " +
                                std::to_string(node_->children[0].columnSize()) + " columns");
      }
      node_->children[0].validate(recordType);
      break;
    case Kind::kVersion:
    case Kind::kRecordTypeKey:
    case Kind::kEmpty:
    case Kind::kLiteral: break;
  }
}

std::vector<KeyExpression> KeyExpression::normalizeKeyForPositions() const {
  switch (node_->kind) {
    case Kind::kNesting: {
      Node parent = *node_;
      parent.kind = Kind::kField;
      parent.children.clear();
      parent.columnSize = 1;
      KeyExpression parentField = KeyExpressionFactory::make(std::move(parent));
      std::vector<KeyExpression> out;
      for (const KeyExpression& child : node_->children[0].normalizeKeyForPositions()) {
        out.push_back(parentField.nest(child));
      }
      return out;
    }
    case Kind::kThen: {
      std::vector<KeyExpression> out;
      for (const KeyExpression& child : node_->children) {
        std::vector<KeyExpression> part = child.normalizeKeyForPositions();
        out.insert(out.end(), part.begin(), part.end());
      }
      return out;
    }
    case Kind::kList: {
      if (node_->children.size() <= 1) {
        return node_->children.empty() ? std::vector<KeyExpression>{}
                                       : std::vector<KeyExpression>{*this};
      }
      std::vector<KeyExpression> out;
      for (const KeyExpression& child : node_->children) out.push_back(list(child));
      return out;
    }
    case Kind::kGrouping:
    case Kind::kKeyWithValue: return node_->children[0].normalizeKeyForPositions();
    default: return {*this};
  }
}

bool KeyExpression::matchesColumn(const KeyExpression& other) const {
  return equalNodes(*node_, *other.node_, /*compareNulls=*/false);
}

KeyExpressionProto KeyExpression::toProto() const {
  KeyExpressionProto proto;
  switch (node_->kind) {
    case Kind::kField: *proto.mutable_field() = fieldToProto(*node_); break;
    case Kind::kNesting: {
      pb::Nesting* nesting = proto.mutable_nesting();
      *nesting->mutable_parent() = fieldToProto(*node_);
      *nesting->mutable_child() = node_->children[0].toProto();
      break;
    }
    case Kind::kThen:
      for (const KeyExpression& child : node_->children) {
        *proto.mutable_then()->add_child() = child.toProto();
      }
      break;
    case Kind::kList:
      proto.mutable_list();
      for (const KeyExpression& child : node_->children) {
        *proto.mutable_list()->add_child() = child.toProto();
      }
      break;
    case Kind::kGrouping:
      *proto.mutable_grouping()->mutable_whole_key() = node_->children[0].toProto();
      proto.mutable_grouping()->set_grouped_count(node_->count);
      break;
    case Kind::kKeyWithValue:
      *proto.mutable_key_with_value()->mutable_inner_key() = node_->children[0].toProto();
      proto.mutable_key_with_value()->set_split_point(node_->count);
      break;
    case Kind::kVersion: proto.mutable_version(); break;
    case Kind::kRecordTypeKey: proto.mutable_record_type_key(); break;
    case Kind::kEmpty: proto.mutable_empty(); break;
    case Kind::kLiteral: literalToProto(*node_, *proto.mutable_value()); break;
  }
  return proto;
}

KeyExpression KeyExpression::fromProto(const KeyExpressionProto& proto) {
  int found = proto.has_then() + proto.has_nesting() + proto.has_field() + proto.has_grouping() +
              proto.has_empty() + proto.has_split() + proto.has_version() + proto.has_value() +
              proto.has_function() + proto.has_key_with_value() + proto.has_record_type_key() +
              proto.has_list() + proto.has_dimensions();
  if (found == 0) throw MetaDataException("serialized KeyExpression sets no expression");
  if (found > 1) throw MetaDataException("serialized KeyExpression sets more than one expression");
  if (proto.has_field()) return fieldFromProto(proto.field());
  if (proto.has_nesting()) {
    if (!proto.nesting().has_parent()) throw MetaDataException("serialized Nesting has no parent");
    return fieldFromProto(proto.nesting().parent()).nest(fromProto(proto.nesting().child()));
  }
  if (proto.has_then()) {
    std::vector<KeyExpression> children;
    for (const KeyExpressionProto& child : proto.then().child())
      children.push_back(fromProto(child));
    return concatAll(children);
  }
  if (proto.has_list()) {
    std::vector<KeyExpression> children;
    for (const KeyExpressionProto& child : proto.list().child())
      children.push_back(fromProto(child));
    return listAll(children);
  }
  if (proto.has_grouping()) {
    return grouping(fromProto(proto.grouping().whole_key()), proto.grouping().grouped_count());
  }
  if (proto.has_key_with_value()) {
    return keyWithValue(fromProto(proto.key_with_value().inner_key()),
                        proto.key_with_value().split_point());
  }
  if (proto.has_empty()) return empty();
  if (proto.has_version()) return version();
  if (proto.has_record_type_key()) return recordType();
  if (proto.has_value()) return valueFromProto(proto.value());
  const char* kind = proto.has_function() ? "Function" : proto.has_split() ? "Split" : "Dimensions";
  throw MetaDataException(std::string("serialized KeyExpression uses ") + kind +
                          ", which this library does not support");
}

std::string KeyExpression::toString() const {
  std::string out;
  appendString(*this, out);
  return out;
}

bool operator==(const KeyExpression& a, const KeyExpression& b) {
  return equalNodes(*a.node_, *b.node_, /*compareNulls=*/true);
}

KeyExpression field(std::string_view name, FanType fanType, NullInterpretation nulls) {
  Node node;
  node.kind = Kind::kField;
  node.columnSize = 1;
  node.fieldName = std::string(name);
  node.fanType = fanType;
  node.nulls = nulls;
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression concatAll(const std::vector<KeyExpression>& children) {
  Node node;
  node.kind = Kind::kThen;
  for (const KeyExpression& child : children) {
    const Node& childNode = nodeOf(child);
    if (childNode.kind == Kind::kThen) {
      node.children.insert(node.children.end(), childNode.children.begin(),
                           childNode.children.end());
    } else {
      node.children.push_back(child);
    }
  }
  if (node.children.size() < 2) {
    throw MetaDataException("concat needs at least two key expressions");
  }
  for (const KeyExpression& child : node.children) node.columnSize += child.columnSize();
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression listAll(const std::vector<KeyExpression>& children) {
  Node node;
  node.kind = Kind::kList;
  node.children = children;
  node.columnSize = static_cast<int>(children.size());
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression grouping(const KeyExpression& wholeKey, int groupedCount) {
  if (groupedCount < 0 || groupedCount > wholeKey.columnSize()) {
    throw MetaDataException("grouping of " + wholeKey.toString() + " cannot aggregate " +
                            std::to_string(groupedCount) + " columns");
  }
  Node node;
  node.kind = Kind::kGrouping;
  node.children = {wholeKey};
  node.count = groupedCount;
  node.columnSize = wholeKey.columnSize();
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression keyWithValue(const KeyExpression& inner, int splitPoint) {
  if (splitPoint < 0 || splitPoint > inner.columnSize()) {
    throw MetaDataException("keyWithValue cannot split " + inner.toString() + " at column " +
                            std::to_string(splitPoint));
  }
  Node node;
  node.kind = Kind::kKeyWithValue;
  node.children = {inner};
  node.count = splitPoint;
  node.columnSize = splitPoint;
  return KeyExpressionFactory::make(std::move(node));
}

KeyExpression version() {
  static const KeyExpression instance = singleton(Kind::kVersion, 1);
  return instance;
}

KeyExpression recordType() {
  static const KeyExpression instance = singleton(Kind::kRecordTypeKey, 1);
  return instance;
}

KeyExpression empty() {
  static const KeyExpression instance = singleton(Kind::kEmpty, 0);
  return instance;
}

KeyExpression value(std::nullptr_t) { return literal(LiteralType::kNull, nullptr); }
KeyExpression value(bool v) { return literal(LiteralType::kBool, v); }
KeyExpression value(int32_t v) { return literal(LiteralType::kInt, static_cast<int64_t>(v)); }
KeyExpression value(int64_t v) { return literal(LiteralType::kLong, v); }
KeyExpression value(float v) { return literal(LiteralType::kFloat, v); }
KeyExpression value(double v) { return literal(LiteralType::kDouble, v); }
KeyExpression value(std::string_view v) { return literal(LiteralType::kString, v); }
KeyExpression value(const fdb::ByteString& v) { return literal(LiteralType::kBytes, v); }

KeyExpression valueFromProto(const KeyExpressionValueProto& proto) {
  int found = proto.has_double_value() + proto.has_float_value() + proto.has_long_value() +
              proto.has_bool_value() + proto.has_string_value() + proto.has_bytes_value() +
              proto.has_int_value();
  if (found > 1) throw MetaDataException("serialized Value sets more than one value");
  if (proto.has_double_value()) return value(proto.double_value());
  if (proto.has_float_value()) return value(proto.float_value());
  if (proto.has_long_value()) return value(static_cast<int64_t>(proto.long_value()));
  if (proto.has_bool_value()) return value(proto.bool_value());
  if (proto.has_string_value()) return value(std::string_view(proto.string_value()));
  if (proto.has_bytes_value()) return value(fdb::ByteString{proto.bytes_value()});
  if (proto.has_int_value()) return value(static_cast<int32_t>(proto.int_value()));
  return value(nullptr);
}

fdb::TupleElement tupleElementFromValueProto(const KeyExpressionValueProto& proto) {
  return valueFromProto(proto).literalValue();
}

}  // namespace rl
