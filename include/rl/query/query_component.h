// rl::QueryComponent — a query's filter: comparisons of fields, any-element matches on
// repeated fields, matches inside nested messages, and AND / OR / NOT of those (the Java
// Record Layer's QueryComponents; docs/query.md, "Filters"). Built with rl::Query:
//
//   using rl::Query;
//   rl::QueryComponent filter = Query::allOf(
//       Query::field("price").greaterThanOrEquals(10),
//       Query::field("customer").matches(Query::field("name").equalsValue("c-3")),
//       Query::field("tags").oneOfThem().equalsValue("gift"),
//       Query::negate(Query::field("status").in({1, 2})));
//   Query::version().greaterThan(v.toVersionstamp());   // changed after the version v
//   filter.toString();
//   // And([price GREATER_THAN_OR_EQUALS 10, customer/{name EQUALS c-3},
//   //      one of tags EQUALS gift, Not(status IN [1, 2])])
//
// Evaluation (eval) is three-valued: an unset field is null, a nested field of an unset
// message is null, and a comparison with null is unknown (nullopt) but for IS_NULL /
// NOT_NULL; AND is false if any child is false, else unknown if any is, else true; OR the
// reverse; NOT of unknown is unknown. A record passes when its filter evaluates to true.
//
// Thread-safety: an immutable value sharing its nodes.
#pragma once

#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fdb/tuple.h"
#include "rl/metadata/key_expression.h"
#include "rl/query/bindings.h"
#include "rl/query/comparison.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace rl {

class QueryComponent {
 public:
  enum class Kind {
    kField,            // fieldName() compared by comparison()
    kOneOfThem,        // some element of repeated fieldName() satisfies comparison()
    kNested,           // child() holds on the message in fieldName()
    kOneOfThemNested,  // child() holds on some message element of repeated fieldName()
    kAnd,              // every one of children()
    kOr,               // some one of children()
    kNot,              // not child()
    kVersion,          // the record's version (Query::version()) compared by comparison()
    kRank,             // the record's rank in rankOperand()'s rank index, by comparison()
  };

  Kind kind() const;
  // kField, kOneOfThem, kNested, kOneOfThemNested.
  const std::string& fieldName() const;
  // kField, kOneOfThem, kRank.
  const Comparison& comparison() const;
  // kRank: what is ranked, as a rank index's root: grouping(concat(group..., score), 1), or
  // the score field alone.
  const KeyExpression& rankOperand() const;
  // kNested, kOneOfThemNested, kNot.
  const QueryComponent& child() const;
  // kAnd, kOr.
  const std::vector<QueryComponent>& children() const;

  // Whether `record` passes; nullopt: unknown. `record` may be null (a missing nested
  // message); `version` is the record's version (null: none), for kVersion. Throws what
  // Comparison::comparandValue throws for an unbound parameter.
  std::optional<bool> eval(const google::protobuf::Message* record, const Bindings& bindings,
                           const fdb::Versionstamp* version = nullptr) const;
  bool passes(const google::protobuf::Message& record, const Bindings& bindings,
              const fdb::Versionstamp* version = nullptr) const {
    return eval(&record, bindings, version) == std::optional<bool>(true);
  }

  // The same component with another comparison (kField, kOneOfThem).
  QueryComponent withComparison(Comparison comparison) const;
  // The same component with other children (kAnd, kOr: several; kNested, kOneOfThemNested,
  // kNot: one).
  QueryComponent withChildren(std::vector<QueryComponent> children) const;

  // The Java Record Layer's form: "price LESS_THAN 100", "one of tags EQUALS x",
  // "customer/{name EQUALS x}", "one of items/{qty GREATER_THAN 2}", "And([a, b])",
  // "Or([a, b])", "Not(a)", "version GREATER_THAN Versionstamp(...)" (a version comparison).
  std::string toString() const;

  friend bool operator==(const QueryComponent& a, const QueryComponent& b);

  struct Node;

 private:
  explicit QueryComponent(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  friend class Query;
  std::shared_ptr<const Node> node_;
};

// A constant or a parameter where a comparison takes its comparand.
struct Comparand {
  template <typename T>
  requires std::constructible_from<fdb::TupleElement, T> Comparand(T&& value)  // NOLINT
      : value(fdb::TupleElement(std::forward<T>(value))) {}
  Comparand(Parameter p) : value(std::move(p)) {}  // NOLINT
  std::variant<fdb::TupleElement, Parameter> value;
};

// The builders (Java's Query.field(...), Query.and/or/not).
class Query {
 public:
  // Comparisons on a field that holds one value (or, through oneOfThem(), any element of a
  // repeated field), and matches inside a nested message.
  class Field {
   public:
    explicit Field(std::string name, bool oneOfThem = false)
        : name_(std::move(name)), oneOfThem_(oneOfThem) {}
    QueryComponent equalsValue(Comparand c) const;
    QueryComponent notEquals(Comparand c) const;
    QueryComponent lessThan(Comparand c) const;
    QueryComponent lessThanOrEquals(Comparand c) const;
    QueryComponent greaterThan(Comparand c) const;
    QueryComponent greaterThanOrEquals(Comparand c) const;
    QueryComponent startsWith(Comparand prefix) const;
    QueryComponent isNull() const;
    QueryComponent notNull() const;
    QueryComponent in(std::vector<fdb::TupleElement> values) const;
    QueryComponent in(Parameter list) const;
    QueryComponent withComparison(Comparison comparison) const;
    // The field holds a message (oneOfThem: repeated messages, some element of which)
    // satisfying `child`.
    QueryComponent matches(QueryComponent child) const;
    // Comparisons then apply to any one element of this repeated field.
    Field oneOfThem() const {
      if (version_) refuseOnVersion("oneOfThem");
      return Field(name_, true);
    }

   private:
    friend class Query;
    QueryComponent compare(ComparisonType type, Comparand c) const;
    void refuseOnVersion(std::string_view what) const;
    std::string name_;
    bool oneOfThem_;
    bool version_ = false;  // Query::version(): the record's version, not a field
  };

  static Field field(std::string name) { return Field(std::move(name)); }
  // The record's version (the version() key expression), compared with a versionstamp
  // (RecordVersion::toVersionstamp()): =, !=, <, <=, >, >=, is null, not null. A VERSION index
  // on version() (or on fields then version()) answers such comparisons, and sorts by
  // version() (docs/query.md, "Versions"). The other builders throw
  // RecordCoreArgumentException on it.
  static Field version() {
    Field field("");
    field.version_ = true;
    return field;
  }

  // Comparisons of a record's rank (from 0, lowest score first) in the rank index whose
  // root is `operand` (the Java Record Layer's Query.rank): Query::rank("score").lessThan(10),
  // Query::rank(field("score").groupBy(field("game"))).lessThan(3) (the rank within the
  // record's game). The planner answers them with a BY_RANK scan of that index; a record
  // cannot evaluate one alone (eval throws RecordCoreException).
  class Rank {
   public:
    explicit Rank(KeyExpression operand) : operand_(std::move(operand)) {}
    QueryComponent equalsValue(Comparand c) const;
    QueryComponent lessThan(Comparand c) const;
    QueryComponent lessThanOrEquals(Comparand c) const;
    QueryComponent greaterThan(Comparand c) const;
    QueryComponent greaterThanOrEquals(Comparand c) const;
    QueryComponent withComparison(Comparison comparison) const;

   private:
    QueryComponent compare(ComparisonType type, Comparand c) const;
    KeyExpression operand_;
  };
  static Rank rank(std::string_view field);
  static Rank rank(KeyExpression operand) { return Rank(std::move(operand)); }

  // AND / OR of two or more components (RecordCoreArgumentException for fewer).
  static QueryComponent allOf(std::vector<QueryComponent> children);
  template <std::same_as<QueryComponent>... Rest>
  static QueryComponent allOf(QueryComponent first, QueryComponent second, Rest... rest) {
    return allOf(std::vector<QueryComponent>{std::move(first), std::move(second), rest...});
  }
  static QueryComponent anyOf(std::vector<QueryComponent> children);
  template <std::same_as<QueryComponent>... Rest>
  static QueryComponent anyOf(QueryComponent first, QueryComponent second, Rest... rest) {
    return anyOf(std::vector<QueryComponent>{std::move(first), std::move(second), rest...});
  }
  static QueryComponent negate(QueryComponent child);

 private:
  friend class QueryComponent;
  static QueryComponent make(QueryComponent::Node node);
};

}  // namespace rl
