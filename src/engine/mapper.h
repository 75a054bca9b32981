// Mapper — the mapper of a mapped range read (docs/semantics.md, "Mapped range reads"): a
// packed tuple that says how to build, from each index entry, the key or key range of the
// rows to fetch with it.
//
// Elements: "{K[i]}" / "{V[i]}" copy element i of the entry's key / value (both parsed as
// tuples); a final "{...}" makes the result a range (every key the other elements prefix);
// a string containing "{{" or "}}" is a literal with those unescaped; anything else is a
// literal copied as is. Tuples here are the subset FoundationDB's storage server parses.
#pragma once

#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"

#include "fdb/bytes.h"
#include "fdb/tuple.h"

namespace fdb::engine {

class Mapper {
 public:
  // Throws fdb::Error 2043 (mapper_not_tuple), 2032 ("{...}" not last), 2030 (bad index).
  static Mapper parse(std::string_view packed);

  bool isRange() const { return range_; }
  bool usesValue() const { return usesValue_; }

  // The key (or, for a range mapper, the prefix) for one index entry. Throws fdb::Error
  // 2041 (key_not_tuple), 2042 (value_not_tuple), 2030 (index out of range).
  Bytes build(std::string_view indexKey, std::string_view indexValue) const;
  // The same into `out` (replacing its contents), so a caller mapping many entries reuses
  // one buffer. Works on the packed bytes: a tuple's encoding is its elements' encodings
  // side by side, so copying an entry's element copies its bytes.
  void buildInto(std::string_view indexKey, std::string_view indexValue, Bytes& out) const;

 private:
  struct FromKey {
    size_t index;
  };
  struct FromValue {
    size_t index;
  };
  using Element = std::variant<Bytes, FromKey, FromValue>;  // Bytes: a packed literal

  std::vector<Element> elements_;
  bool range_ = false;
  bool usesValue_ = false;
};

// `packed` as a tuple if FoundationDB's server-side parser reads it (type codes 0x00, 0x01,
// 0x02, 0x0c-0x1c, 0x20, 0x21, 0x26, 0x27, 0x33 only).
std::optional<Tuple> parseServerTuple(std::string_view packed);

// The same check without decoding: the packed bytes of each element of `packed` into
// `elements` (replacing its contents; views into `packed`, valid while it is); false when
// the server parser would refuse it.
using PackedElements = absl::InlinedVector<std::string_view, 16>;
bool splitServerTuple(std::string_view packed, PackedElements& elements);

}  // namespace fdb::engine
