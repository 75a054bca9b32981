// rl::TupleRange — a range of tuple keys named by two tuple endpoints.
//
// Each endpoint has a type (EndpointType) saying how its tuple bounds the range: inclusive,
// exclusive, the start or end of the whole subspace, a string prefix, or a continuation (just
// after a key already returned). toRange turns the range into the half-open byte range a
// range read takes, exactly as the Java Record Layer does (docs/format.md, "Cursor
// continuations"), so scans and their continuations agree byte for byte.
//
//   rl::TupleRange r = rl::TupleRange::between(fdb::Tuple{10}, fdb::Tuple{20});  // [10, 20)
//   fdb::KeyRange keys = r.toRange(records);   // [P+(10), P+(20))
//   rl::TupleRange::allOf(fdb::Tuple{"a"});    // every tuple starting with "a"
//
// Thread-safety: a value.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"

namespace rl {

enum class EndpointType {
  kTreeStart,       // low: the start of the subspace (the tuple is ignored)
  kTreeEnd,         // high: the end of the subspace
  kRangeInclusive,  // the tuple and every tuple it prefixes are in
  kRangeExclusive,  // the tuple and every tuple it prefixes are out
  kPrefixString,    // both ends: every tuple whose element is a string with this prefix
  kContinuation,    // low: just after this key; high: just before it (resumed scans)
};

struct TupleRange {
  std::optional<fdb::Tuple> low;
  std::optional<fdb::Tuple> high;
  EndpointType lowEndpoint = EndpointType::kTreeStart;
  EndpointType highEndpoint = EndpointType::kTreeEnd;

  static TupleRange all() { return TupleRange{}; }
  // Every tuple prefixed by `prefix` (inclusive at both ends).
  static TupleRange allOf(const fdb::Tuple& prefix);
  // [low, high); a missing end is the tree start / end.
  static TupleRange between(std::optional<fdb::Tuple> low, std::optional<fdb::Tuple> high);
  // [low, high].
  static TupleRange betweenInclusive(std::optional<fdb::Tuple> low, std::optional<fdb::Tuple> high);
  // Every tuple whose first element is a string starting with `prefix`.
  static TupleRange prefixedBy(std::string_view prefix);

  // The half-open byte range within `subspace` (a missing tuple is the subspace's prefix).
  // Throws RecordCoreArgumentException for endpoints that do not go together.
  fdb::KeyRange toRange(const fdb::Subspace& subspace) const;

  // The byte range for packed endpoints (nullopt: empty low / the end 0xff of user keys).
  static fdb::KeyRange toRange(const std::optional<fdb::Bytes>& lowBytes,
                               const std::optional<fdb::Bytes>& highBytes, EndpointType lowEndpoint,
                               EndpointType highEndpoint);

  friend bool operator==(const TupleRange&, const TupleRange&) = default;
};

std::string_view endpointTypeName(EndpointType type);

}  // namespace rl
