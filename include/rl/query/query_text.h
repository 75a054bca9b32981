// A query's filter and sort written as text, for command lines and other front ends:
// `price >= 10 AND customer = "c-3"`, `ANY(tags) IN ("gift", "rush")`,
// `ship_to.city STARTS WITH "Par"`, `NOT (status = 1 OR gift IS NULL)` (docs/query.md, "Query
// text", has the grammar).
//
//   rl::RecordQuery query{
//       .recordTypes = {"Order"},
//       .filter = rl::parseQueryFilter(R"(price >= 10 AND customer = "c-3")"),
//       .sort = rl::parseQuerySort("price"),
//   };
//   query.filter->toString();
//   // And([price GREATER_THAN_OR_EQUALS 10, customer EQUALS c-3])
//
//   // Checked against the metadata: an unknown field or a value that does not fit its field
//   // is an error at the comparison that names it.
//   rl::parseQueryFilter("pricee >= 10", metaData, {"Order"});   // QueryTextException at 0
//
// Literals are tuple elements in the text syntax of docs/tuple.md: "text" or 'text', b"bytes",
// 42, -2.5, 1e10, true, false, f32(1.5), uuid(...). `$name` is a parameter, bound when the
// plan runs (rl::Bindings).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata.h"
#include "rl/query/query_component.h"
#include "rl/query/record_query_planner.h"

namespace rl {

// A query text that does not parse, or names a field or compares a value that does not fit
// the metadata. what() says what is wrong; position() is the 0-based byte offset in the text
// where it was found; length() is 0 for a syntax error, and for an error against the metadata
// the bytes of the comparison at fault (which starts at position()).
class QueryTextException : public InvalidQueryException {
 public:
  QueryTextException(const std::string& message, size_t position, size_t length = 0)
      : InvalidQueryException(message), position_(position), length_(length) {}
  size_t position() const { return position_; }
  size_t length() const { return length_; }

 private:
  size_t position_;
  size_t length_;
};

// The filter `text` says. Throws QueryTextException for a syntax error.
QueryComponent parseQueryFilter(std::string_view text);

// The same, checked against `metaData` for the record types `recordTypes` (none: every
// type): each comparison's fields exist with the shape the text reads them in (ANY(...) for
// a repeated field, a.b into a message) and its values fit the field's type. Throws
// QueryTextException at the comparison at fault; InvalidQueryException (with no position)
// for an unknown record type.
QueryComponent parseQueryFilter(std::string_view text, const RecordMetaData& metaData,
                                const std::vector<std::string>& recordTypes);

// A sort key: field paths separated by commas, "price", "customer, price", "ship_to.city"
// (one field: field(...); several: their concatenation). Throws QueryTextException.
KeyExpression parseQuerySort(std::string_view text);

}  // namespace rl
