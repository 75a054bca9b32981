#include "rl/query/bindings.h"

#include "rl/record_core_exception.h"

namespace rl {

Bindings& Bindings::set(std::string name, fdb::TupleElement value) {
  values_.insert_or_assign(std::move(name), Value(std::move(value)));
  return *this;
}

Bindings& Bindings::setList(std::string name, List values) {
  values_.insert_or_assign(std::move(name), Value(std::move(values)));
  return *this;
}

const Bindings::Value* Bindings::find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

const fdb::TupleElement& Bindings::value(std::string_view name) const {
  const Value* found = find(name);
  if (found == nullptr) {
    throw RecordCoreArgumentException("parameter $" + std::string(name) + " is not bound");
  }
  if (const auto* one = std::get_if<fdb::TupleElement>(found)) return *one;
  throw RecordCoreArgumentException("parameter $" + std::string(name) +
                                    " is bound to a list where one value is wanted");
}

const Bindings::List& Bindings::list(std::string_view name) const {
  const Value* found = find(name);
  if (found == nullptr) {
    throw RecordCoreArgumentException("parameter $" + std::string(name) + " is not bound");
  }
  if (const auto* list = std::get_if<List>(found)) return *list;
  throw RecordCoreArgumentException("parameter $" + std::string(name) +
                                    " is bound to one value where a list is wanted (IN)");
}

}  // namespace rl
