// fdb::Subspace — a region of the key space named by a prefix, as in FoundationDB's
// bindings: raw prefix bytes followed by a packed tuple. Keys inside are the prefix
// followed by a packed tuple.
//
//   fdb::Subspace store(fdb::Tuple{"app", 1});
//   fdb::Subspace records = store.subspace(fdb::Tuple{1});   // nested subspace
//   fdb::Bytes key = records.pack(fdb::Tuple{"order-7"});
//   fdb::Tuple t = records.unpack(key);                      // ("order-7",)
//   fdb::KeyRange all = records.range();                     // every tuple key inside
//
// Thread-safety: a Subspace is an immutable value.
#pragma once

#include <string_view>

#include "fdb/bytes.h"
#include "fdb/tuple.h"

namespace fdb {

class Subspace {
 public:
  // The whole key space (empty prefix).
  Subspace() = default;
  // Prefix = rawPrefix + prefixTuple.pack().
  explicit Subspace(const Tuple& prefixTuple, std::string_view rawPrefix = {});
  static Subspace fromBytes(std::string_view rawPrefix);

  const Bytes& key() const { return rawPrefix_; }

  // key() + tuple.pack().
  Bytes pack(const Tuple& tuple = {}) const;
  // key() + packed tuple + 4-byte offset: see Tuple::packWithVersionstamp.
  Bytes packWithVersionstamp(const Tuple& tuple) const;
  // The tuple after the prefix. Throws fdb::Error 2252 key_not_in_subspace when `key`
  // does not start with the prefix, and 2250 when the rest is not a tuple.
  Tuple unpack(std::string_view key) const;

  // [key() + pack(tuple) + 0x00, key() + pack(tuple) + 0xff): every key of a tuple that
  // strictly extends `tuple` within this subspace.
  KeyRange range(const Tuple& tuple = {}) const;
  // Whether `key` starts with the prefix.
  bool contains(std::string_view key) const;

  // The subspace whose prefix is pack(tuple).
  Subspace subspace(const Tuple& tuple) const;

  friend bool operator==(const Subspace&, const Subspace&) = default;

 private:
  Bytes rawPrefix_;
};

}  // namespace fdb
