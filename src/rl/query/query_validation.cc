#include "rl/query/query_validation.h"

#include <google/protobuf/descriptor.h>

#include <fmt/format.h>

#include <algorithm>

#include "rl/metadata/field_values.h"
#include "rl/metadata/metadata_exception.h"

namespace rl::query {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Kind = QueryComponent::Kind;

std::string typeNames(const RecordMetaData& metaData) {
  std::string out;
  for (const auto& [name, type] : metaData.recordTypes()) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// The comparand type of a scalar field (or a tuple_fields.proto wrapper).
std::optional<ComparandType> comparandTypeOf(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
    case FieldDescriptor::CPPTYPE_ENUM: return ComparandType::kInteger;
    case FieldDescriptor::CPPTYPE_FLOAT: return ComparandType::kFloat;
    case FieldDescriptor::CPPTYPE_DOUBLE: return ComparandType::kDouble;
    case FieldDescriptor::CPPTYPE_BOOL: return ComparandType::kBool;
    case FieldDescriptor::CPPTYPE_STRING:
      return field.type() == FieldDescriptor::TYPE_BYTES ? ComparandType::kBytes
                                                         : ComparandType::kString;
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Descriptor& wrapper = *field.message_type();
      if (!isTupleFieldMessage(wrapper)) return std::nullopt;
      if (wrapper.name() == "UUID") return ComparandType::kUuid;
      return comparandTypeOf(*wrapper.FindFieldByNumber(1));
    }
  }
  return std::nullopt;
}

class FilterChecker {
 public:
  FilterChecker(const RecordType& type) : type_(type) {}

  // The component with its comparands converted for `message`'s fields; `path` names where.
  QueryComponent check(const QueryComponent& component, const Descriptor& message,
                       const std::string& path) const {
    switch (component.kind()) {
      case Kind::kAnd:
      case Kind::kOr: {
        std::vector<QueryComponent> children;
        for (const QueryComponent& child : component.children()) {
          children.push_back(check(child, message, path));
        }
        return component.withChildren(std::move(children));
      }
      case Kind::kNot: return component.withChildren({check(component.child(), message, path)});
      case Kind::kVersion: {
        if (!path.empty()) {
          throw InvalidQueryException(
              fmt::format("{}: {} compares the record's version, which a nested message does not "
                          "have",
                          where(), component.toString()));
        }
        const Comparison& comparison = component.comparison();
        if (comparison.type() == ComparisonType::kIn ||
            comparison.type() == ComparisonType::kStartsWith) {
          throw InvalidQueryException(
              fmt::format("{}: {}: a record's version takes no IN or STARTS_WITH", where(),
                          component.toString()));
        }
        if (!comparison.hasParameter() && !comparison.comparand().isNull() &&
            comparison.comparand().type() != fdb::TupleType::kVersionstamp) {
          throw InvalidQueryException(
              fmt::format("{}: {} compares the record's version with something that is not a "
                          "versionstamp",
                          where(), component.toString()));
        }
        return component;
      }
      case Kind::kField:
      case Kind::kOneOfThem: {
        const bool repeated = component.kind() == Kind::kOneOfThem;
        const FieldDescriptor& field = findField(component, message, path);
        const std::string name = path + field.name();
        if (field.is_repeated() != repeated) {
          throw InvalidQueryException(
              repeated ? fmt::format("{}: field {} is not repeated, but the query compares "
                                     "\"one of\" its elements",
                                     where(), name)
                       : fmt::format("{}: field {} is repeated: compare one of its elements "
                                     "(oneOfThem)",
                                     where(), name));
        }
        const std::optional<ComparandType> type = comparandTypeOf(field);
        if (!type) {
          throw InvalidQueryException(fmt::format(
              "{}: field {} holds a message ({}): match inside it instead of comparing it", where(),
              name, field.message_type()->full_name()));
        }
        try {
          return component.withComparison(component.comparison().withComparandType(*type));
        } catch (const RecordCoreArgumentException& e) {
          throw InvalidQueryException(fmt::format("{}: {} compares field {}: {}", where(),
                                                  component.toString(), name, e.what()));
        }
      }
      case Kind::kRank: {
        if (!path.empty()) {
          throw InvalidQueryException(
              fmt::format("{}: {} is inside a nested match; compare a rank at the top", where(),
                          component.toString()));
        }
        try {
          component.rankOperand().validate(type_.descriptor());
          return component.withComparison(
              component.comparison().withComparandType(ComparandType::kInteger));
        } catch (const std::exception& e) {
          throw InvalidQueryException(
              fmt::format("{}: {}: {}", where(), component.toString(), e.what()));
        }
      }
      case Kind::kNested:
      case Kind::kOneOfThemNested: {
        const bool repeated = component.kind() == Kind::kOneOfThemNested;
        const FieldDescriptor& field = findField(component, message, path);
        const std::string name = path + field.name();
        if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
            isTupleFieldMessage(*field.message_type())) {
          throw InvalidQueryException(
              fmt::format("{}: field {} does not hold a message to match inside", where(), name));
        }
        if (field.is_repeated() != repeated) {
          throw InvalidQueryException(
              repeated ? fmt::format("{}: field {} is not repeated, but the query matches "
                                     "\"one of\" its elements",
                                     where(), name)
                       : fmt::format("{}: field {} is repeated: match one of its elements "
                                     "(oneOfThem().matches)",
                                     where(), name));
        }
        return component.withChildren(
            {check(component.child(), *field.message_type(), name + ".")});
      }
    }
    return component;
  }

 private:
  std::string where() const { return "query on " + type_.name(); }

  const FieldDescriptor& findField(const QueryComponent& component, const Descriptor& message,
                                   const std::string& path) const {
    const FieldDescriptor* field = message.FindFieldByName(component.fieldName());
    if (field == nullptr) {
      std::string fields;
      for (int i = 0; i < message.field_count(); ++i) {
        if (!fields.empty()) fields += ", ";
        fields += message.field(i)->name();
      }
      throw InvalidQueryException(fmt::format("{}: {} has no field {}{} (its fields: {})", where(),
                                              message.name(), path, component.fieldName(), fields));
    }
    return *field;
  }

  const RecordType& type_;
};

bool hasFanOut(const KeyExpression& expression) {
  switch (expression.kind()) {
    case KeyExpression::Kind::kField: return expression.fanType() != FanType::kScalar;
    case KeyExpression::Kind::kNesting:
      return expression.fanType() != FanType::kScalar || hasFanOut(expression.children()[0]);
    case KeyExpression::Kind::kThen:
    case KeyExpression::Kind::kList:
      return std::any_of(expression.children().begin(), expression.children().end(), hasFanOut);
    default: return false;
  }
}

void checkKey(const KeyExpression& key, const std::vector<const RecordType*>& types,
              std::string_view what) {
  for (const RecordType* type : types) {
    try {
      key.validate(type->descriptor());
    } catch (const MetaDataException& e) {
      throw InvalidQueryException(
          fmt::format("query on {}: {} {}: {}", type->name(), what, key.toString(), e.what()));
    }
  }
}

}  // namespace

ValidatedQuery validateQuery(const RecordMetaData& metaData, const RecordQuery& query) {
  ValidatedQuery out;
  for (const std::string& name : query.recordTypes) {
    const RecordType* type = metaData.findRecordType(name);
    if (type == nullptr) {
      throw InvalidQueryException(
          fmt::format("unknown record type {} (the metadata has: {})", name, typeNames(metaData)));
    }
    if (std::find(out.types.begin(), out.types.end(), type) == out.types.end()) {
      out.types.push_back(type);
    }
  }
  if (out.types.empty() || out.types.size() == metaData.recordTypes().size()) {
    out.allTypes = true;
    if (out.types.empty()) {
      for (const auto& [name, type] : metaData.recordTypes()) out.types.push_back(&type);
    }
  }
  if (query.filter) {
    std::optional<QueryComponent> checked;
    for (const RecordType* type : out.types) {
      QueryComponent forType = FilterChecker(*type).check(*query.filter, type->descriptor(), "");
      if (checked && !(*checked == forType)) {
        throw InvalidQueryException(fmt::format(
            "query on {}: the filter {} reads fields whose types differ between the record types",
            type->name(), query.filter->toString()));
      }
      checked = std::move(forType);
    }
    out.filter = std::move(checked);
  }
  if (query.sort) {
    checkKey(*query.sort, out.types, "sort");
    if (hasFanOut(*query.sort)) {
      throw InvalidQueryException(
          fmt::format("query sorts by {}, which reads a repeated field; a sort needs one value "
                      "per record",
                      query.sort->toString()));
    }
  }
  if (query.requiredResults) {
    for (const KeyExpression& required : *query.requiredResults) {
      checkKey(required, out.types, "required result");
    }
  }
  if (query.allowedIndexes) {
    for (const std::string& name : *query.allowedIndexes) {
      if (!metaData.hasIndex(name)) {
        throw InvalidQueryException(
            fmt::format("allowed index {} is not an index of the metadata", name));
      }
    }
  }
  return out;
}

}  // namespace rl::query
