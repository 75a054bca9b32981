#include "rl/query/query_component.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "rl/metadata/field_values.h"
#include "rl/record_core_exception.h"

namespace rl {

struct QueryComponent::Node {
  Kind kind = Kind::kAnd;
  std::string fieldName;
  std::optional<Comparison> comparison;
  std::vector<QueryComponent> children;      // kAnd, kOr; {child} for the others with one
  std::optional<KeyExpression> rankOperand;  // kRank
};

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using Kind = QueryComponent::Kind;

const FieldDescriptor* findField(const Message* message, const std::string& name) {
  return message == nullptr ? nullptr : message->GetDescriptor()->FindFieldByName(name);
}

std::string joined(const std::vector<QueryComponent>& children) {
  std::string out;
  for (size_t i = 0; i < children.size(); ++i) {
    if (i > 0) out += ", ";
    out += children[i].toString();
  }
  return out;
}

}  // namespace

Kind QueryComponent::kind() const { return node_->kind; }

const std::string& QueryComponent::fieldName() const {
  if (node_->kind == Kind::kAnd || node_->kind == Kind::kOr || node_->kind == Kind::kNot) {
    throw RecordCoreArgumentException("a " + toString() + " component names no field");
  }
  return node_->fieldName;
}

const Comparison& QueryComponent::comparison() const {
  if (!node_->comparison) {
    throw RecordCoreArgumentException("component " + toString() + " has no comparison");
  }
  return *node_->comparison;
}

const KeyExpression& QueryComponent::rankOperand() const {
  if (!node_->rankOperand) {
    throw RecordCoreArgumentException("component " + toString() + " is not a rank comparison");
  }
  return *node_->rankOperand;
}

const QueryComponent& QueryComponent::child() const {
  if (node_->kind != Kind::kNested && node_->kind != Kind::kOneOfThemNested &&
      node_->kind != Kind::kNot) {
    throw RecordCoreArgumentException("component " + toString() + " has no single child");
  }
  return node_->children[0];
}

const std::vector<QueryComponent>& QueryComponent::children() const {
  if (node_->kind != Kind::kAnd && node_->kind != Kind::kOr) {
    throw RecordCoreArgumentException("component " + toString() + " is not an AND or an OR");
  }
  return node_->children;
}

std::optional<bool> QueryComponent::eval(const Message* record, const Bindings& bindings,
                                         const fdb::Versionstamp* version) const {
  const Node& node = *node_;
  switch (node.kind) {
    case Kind::kVersion:
      return node.comparison->eval(
          version != nullptr ? fdb::TupleElement(*version) : fdb::TupleElement(), bindings);
    case Kind::kField: {
      const FieldDescriptor* field = findField(record, node.fieldName);
      fdb::TupleElement value;
      if (field != nullptr && !field->is_repeated() &&
          record->GetReflection()->HasField(*record, field)) {
        value = fieldValue(*record, *field);
      }
      return node.comparison->eval(value, bindings);
    }
    case Kind::kOneOfThem: {
      if (record == nullptr) return node.comparison->eval(nullptr, bindings);
      const FieldDescriptor* field = findField(record, node.fieldName);
      if (field == nullptr || !field->is_repeated()) return std::nullopt;
      const int size = record->GetReflection()->FieldSize(*record, field);
      for (int i = 0; i < size; ++i) {
        if (node.comparison->eval(repeatedFieldValue(*record, *field, i), bindings) ==
            std::optional<bool>(true)) {
          return true;
        }
      }
      return false;
    }
    case Kind::kNested: {
      const FieldDescriptor* field = findField(record, node.fieldName);
      const Message* nested = nullptr;
      if (field != nullptr && !field->is_repeated() &&
          field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
          record->GetReflection()->HasField(*record, field)) {
        nested = &record->GetReflection()->GetMessage(*record, field);
      }
      return node.children[0].eval(nested, bindings);
    }
    case Kind::kOneOfThemNested: {
      if (record == nullptr) return std::nullopt;
      const FieldDescriptor* field = findField(record, node.fieldName);
      if (field == nullptr || !field->is_repeated() ||
          field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        return std::nullopt;
      }
      const auto* reflection = record->GetReflection();
      const int size = reflection->FieldSize(*record, field);
      for (int i = 0; i < size; ++i) {
        if (node.children[0].eval(&reflection->GetRepeatedMessage(*record, field, i), bindings) ==
            std::optional<bool>(true)) {
          return true;
        }
      }
      return false;
    }
    case Kind::kAnd: {
      bool unknown = false;
      for (const QueryComponent& child : node.children) {
        const std::optional<bool> result = child.eval(record, bindings, version);
        if (result == std::optional<bool>(false)) return false;
        if (!result) unknown = true;
      }
      if (unknown) return std::nullopt;
      return true;
    }
    case Kind::kOr: {
      bool unknown = false;
      for (const QueryComponent& child : node.children) {
        const std::optional<bool> result = child.eval(record, bindings, version);
        if (result == std::optional<bool>(true)) return true;
        if (!result) unknown = true;
      }
      if (unknown) return std::nullopt;
      return false;
    }
    case Kind::kRank:
      // The rank is the index's to know (the planner scans it by rank).
      throw RecordCoreException("the filter " + toString() +
                                " is answered by a BY_RANK scan of its rank index, not record "
                                "by record");
    case Kind::kNot: {
      const std::optional<bool> result = node.children[0].eval(record, bindings, version);
      if (!result) return std::nullopt;
      return !*result;
    }
  }
  return std::nullopt;
}

QueryComponent QueryComponent::withComparison(Comparison comparison) const {
  if (!node_->comparison) {
    throw RecordCoreArgumentException("component " + toString() + " has no comparison");
  }
  Node node = *node_;
  node.comparison = std::move(comparison);
  return Query::make(std::move(node));
}

QueryComponent QueryComponent::withChildren(std::vector<QueryComponent> children) const {
  Node node = *node_;
  const bool several = node.kind == Kind::kAnd || node.kind == Kind::kOr;
  if (node.comparison || (!several && children.size() != 1) || (several && children.empty())) {
    throw RecordCoreArgumentException("component " + toString() + " cannot take " +
                                      std::to_string(children.size()) + " children");
  }
  node.children = std::move(children);
  return Query::make(std::move(node));
}

std::string QueryComponent::toString() const {
  const Node& node = *node_;
  switch (node.kind) {
    case Kind::kField: return node.fieldName + " " + node.comparison->toString();
    case Kind::kOneOfThem: return "one of " + node.fieldName + " " + node.comparison->toString();
    case Kind::kNested: return node.fieldName + "/{" + node.children[0].toString() + "}";
    case Kind::kOneOfThemNested:
      return "one of " + node.fieldName + "/{" + node.children[0].toString() + "}";
    case Kind::kAnd: return "And([" + joined(node.children) + "])";
    case Kind::kOr: return "Or([" + joined(node.children) + "])";
    case Kind::kNot: return "Not(" + node.children[0].toString() + ")";
    case Kind::kVersion: return "version " + node.comparison->toString();  // Java's form
    case Kind::kRank:
      return "rank(" + node.rankOperand->toString() + ") " + node.comparison->toString();
  }
  return "?";
}

bool operator==(const QueryComponent& a, const QueryComponent& b) {
  if (a.node_ == b.node_) return true;
  const QueryComponent::Node& x = *a.node_;
  const QueryComponent::Node& y = *b.node_;
  return x.kind == y.kind && x.fieldName == y.fieldName && x.comparison == y.comparison &&
         x.children == y.children && x.rankOperand == y.rankOperand;
}

// --- Builders ---

QueryComponent Query::make(QueryComponent::Node node) {
  return QueryComponent(std::make_shared<const QueryComponent::Node>(std::move(node)));
}

Query::Rank Query::rank(std::string_view field) { return Rank(rl::field(field)); }

QueryComponent Query::Rank::withComparison(Comparison comparison) const {
  QueryComponent::Node node;
  node.kind = Kind::kRank;
  node.rankOperand = operand_;
  node.comparison = std::move(comparison);
  return make(std::move(node));
}

QueryComponent Query::Rank::compare(ComparisonType type, Comparand c) const {
  if (auto* p = std::get_if<Parameter>(&c.value)) {
    return withComparison(Comparison::ofParameter(type, std::move(p->name)));
  }
  return withComparison(Comparison::of(type, std::move(std::get<fdb::TupleElement>(c.value))));
}

QueryComponent Query::Rank::equalsValue(Comparand c) const {
  return compare(ComparisonType::kEquals, std::move(c));
}
QueryComponent Query::Rank::lessThan(Comparand c) const {
  return compare(ComparisonType::kLessThan, std::move(c));
}
QueryComponent Query::Rank::lessThanOrEquals(Comparand c) const {
  return compare(ComparisonType::kLessThanOrEquals, std::move(c));
}
QueryComponent Query::Rank::greaterThan(Comparand c) const {
  return compare(ComparisonType::kGreaterThan, std::move(c));
}
QueryComponent Query::Rank::greaterThanOrEquals(Comparand c) const {
  return compare(ComparisonType::kGreaterThanOrEquals, std::move(c));
}

QueryComponent Query::Field::withComparison(Comparison comparison) const {
  QueryComponent::Node node;
  if (version_ && comparison.type() == ComparisonType::kIn) refuseOnVersion("IN");
  if (version_ && comparison.type() == ComparisonType::kStartsWith) refuseOnVersion("STARTS_WITH");
  node.kind = version_ ? Kind::kVersion : oneOfThem_ ? Kind::kOneOfThem : Kind::kField;
  node.fieldName = name_;
  node.comparison = std::move(comparison);
  return make(std::move(node));
}

void Query::Field::refuseOnVersion(std::string_view what) const {
  throw RecordCoreArgumentException("version() cannot take " + std::string(what) +
                                    ": it compares the record's version with =, !=, <, <=, >, "
                                    ">=, is null or not null");
}

QueryComponent Query::Field::compare(ComparisonType type, Comparand c) const {
  if (auto* p = std::get_if<Parameter>(&c.value)) {
    return withComparison(Comparison::ofParameter(type, std::move(p->name)));
  }
  return withComparison(Comparison::of(type, std::move(std::get<fdb::TupleElement>(c.value))));
}

QueryComponent Query::Field::equalsValue(Comparand c) const {
  return compare(ComparisonType::kEquals, std::move(c));
}
QueryComponent Query::Field::notEquals(Comparand c) const {
  return compare(ComparisonType::kNotEquals, std::move(c));
}
QueryComponent Query::Field::lessThan(Comparand c) const {
  return compare(ComparisonType::kLessThan, std::move(c));
}
QueryComponent Query::Field::lessThanOrEquals(Comparand c) const {
  return compare(ComparisonType::kLessThanOrEquals, std::move(c));
}
QueryComponent Query::Field::greaterThan(Comparand c) const {
  return compare(ComparisonType::kGreaterThan, std::move(c));
}
QueryComponent Query::Field::greaterThanOrEquals(Comparand c) const {
  return compare(ComparisonType::kGreaterThanOrEquals, std::move(c));
}
QueryComponent Query::Field::startsWith(Comparand prefix) const {
  return compare(ComparisonType::kStartsWith, std::move(prefix));
}
QueryComponent Query::Field::isNull() const { return withComparison(Comparison::isNull()); }
QueryComponent Query::Field::notNull() const { return withComparison(Comparison::notNull()); }
QueryComponent Query::Field::in(std::vector<fdb::TupleElement> values) const {
  return withComparison(Comparison::in(std::move(values)));
}
QueryComponent Query::Field::in(Parameter list) const {
  return withComparison(Comparison::ofParameter(ComparisonType::kIn, std::move(list.name)));
}

QueryComponent Query::Field::matches(QueryComponent child) const {
  if (version_) refuseOnVersion("a nested match");
  QueryComponent::Node node;
  node.kind = oneOfThem_ ? Kind::kOneOfThemNested : Kind::kNested;
  node.fieldName = name_;
  node.children.push_back(std::move(child));
  return make(std::move(node));
}

QueryComponent Query::allOf(std::vector<QueryComponent> children) {
  if (children.size() < 2) throw RecordCoreArgumentException("an AND needs two or more children");
  QueryComponent::Node node;
  node.kind = Kind::kAnd;
  node.children = std::move(children);
  return make(std::move(node));
}

QueryComponent Query::anyOf(std::vector<QueryComponent> children) {
  if (children.size() < 2) throw RecordCoreArgumentException("an OR needs two or more children");
  QueryComponent::Node node;
  node.kind = Kind::kOr;
  node.children = std::move(children);
  return make(std::move(node));
}

QueryComponent Query::negate(QueryComponent child) {
  QueryComponent::Node node;
  node.kind = Kind::kNot;
  node.children.push_back(std::move(child));
  return make(std::move(node));
}

}  // namespace rl
