// rl::Bindings — the values of a query's parameters, given when a plan is executed (the
// bindings of the Java Record Layer's EvaluationContext), so that a query is planned once and
// run with many values (docs/query.md, "Parameters").
//
//   rl::RecordQuery query{.recordTypes = {"Order"},
//                         .filter = rl::Query::field("price").lessThan(rl::parameter("max"))};
//   auto plan = store.planQuery(query);
//   rl::Bindings bindings;
//   bindings.set("max", 100);
//   auto cursor = store.executeQuery(*plan, bindings, std::nullopt, {});
//
// A parameter holds one value (a comparison's comparand) or a list (`IN` a parameter). The
// planner's own parameters (an IN list's current value, "__in_price__0") are bound the same
// way while a plan runs; names starting with "__" are the planner's.
//
// Thread-safety: a value.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fdb/tuple.h"

namespace rl {

class Bindings {
 public:
  using List = std::vector<fdb::TupleElement>;
  using Value = std::variant<fdb::TupleElement, List>;

  // Binds `name` to one value (replacing what it was bound to).
  Bindings& set(std::string name, fdb::TupleElement value);
  // Binds `name` to a list of values (for `IN` a parameter).
  Bindings& setList(std::string name, List values);

  bool contains(std::string_view name) const { return values_.find(name) != values_.end(); }
  // What `name` is bound to, or null.
  const Value* find(std::string_view name) const;
  // The one value `name` is bound to. RecordCoreArgumentException when it is unbound or a
  // list.
  const fdb::TupleElement& value(std::string_view name) const;
  // The list `name` is bound to. RecordCoreArgumentException when it is unbound or one value.
  const List& list(std::string_view name) const;

  const std::map<std::string, Value, std::less<>>& all() const { return values_; }

  friend bool operator==(const Bindings&, const Bindings&) = default;

 private:
  std::map<std::string, Value, std::less<>> values_;
};

}  // namespace rl
