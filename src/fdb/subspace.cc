#include "fdb/subspace.h"

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb {

Subspace::Subspace(const Tuple& prefixTuple, std::string_view rawPrefix) : rawPrefix_(rawPrefix) {
  prefixTuple.packInto(rawPrefix_);
}

Subspace Subspace::fromBytes(std::string_view rawPrefix) {
  Subspace subspace;
  subspace.rawPrefix_ = Bytes(rawPrefix);
  return subspace;
}

Bytes Subspace::pack(const Tuple& tuple) const {
  Bytes out = rawPrefix_;
  tuple.packInto(out);
  return out;
}

Bytes Subspace::packWithVersionstamp(const Tuple& tuple) const {
  return tuple.packWithVersionstamp(rawPrefix_);
}

Tuple Subspace::unpack(std::string_view key) const {
  if (!contains(key)) {
    throw Error(errors::kKeyNotInSubspace, fmt::format("key '{}' does not start with '{}'",
                                                       printable(key), printable(rawPrefix_)));
  }
  return Tuple::unpack(key.substr(rawPrefix_.size()));
}

KeyRange Subspace::range(const Tuple& tuple) const {
  Bytes packed = pack(tuple);
  return KeyRange{packed + '\x00', packed + '\xff'};
}

bool Subspace::contains(std::string_view key) const { return key.starts_with(rawPrefix_); }

Subspace Subspace::subspace(const Tuple& tuple) const { return fromBytes(pack(tuple)); }

}  // namespace fdb
