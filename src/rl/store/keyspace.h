// The top-level keyspace of a record store (docs/format.md, "Store keyspace"): every key of a
// store at prefix P is P + a tuple whose first element is one of these integers. The values
// are the Java Record Layer's (FDBRecordStoreKeyspace), so stores are shared between the two.
#pragma once

#include <cstdint>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/subspace.h"

namespace rl::keyspace {

inline constexpr int64_t kStoreInfo = 0;                  // (0): the store header
inline constexpr int64_t kRecord = 1;                     // (1, pk..., suffix): records
inline constexpr int64_t kIndex = 2;                      // (2, sk, ...): index entries
inline constexpr int64_t kIndexSecondarySpace = 3;        // (3, sk, ...): per-index extra data
inline constexpr int64_t kRecordCount = 4;                // (4, ...): legacy record counts
inline constexpr int64_t kIndexState = 5;                 // (5, indexName): index states
inline constexpr int64_t kIndexRange = 6;                 // (6, sk): ranges built online
inline constexpr int64_t kIndexUniquenessViolations = 7;  // (7, sk, ...): uniqueness violations
inline constexpr int64_t kRecordVersion = 8;              // (8, pk...): old-format versions
inline constexpr int64_t kIndexBuild = 9;                 // (9, sk, ...): online indexer state
inline constexpr int64_t kIndexSlidingWindow = 10;        // (10, sk, ...): sliding windows

// Appends (element,) packed, without a Tuple: the keyspace's elements are integers 0..255,
// which the tuple layer packs as 0x14 (zero) or 0x15 and one byte.
inline void appendElement(fdb::Bytes& key, int64_t element) {
  if (element == 0) {
    key.push_back('\x14');
  } else if (element > 0 && element <= 0xff) {
    key.push_back('\x15');
    key.push_back(static_cast<char>(element));
  } else {
    fdb::Tuple{element}.packInto(key);
  }
}

// prefix + (element,) packed, in one allocation.
inline fdb::Bytes childKey(std::string_view prefix, int64_t element) {
  fdb::Bytes key;
  key.reserve(prefix.size() + 2);
  key.append(prefix);
  appendElement(key, element);
  return key;
}

// Subspace::subspace(Tuple{element}) with one allocation (the subspace's own) instead of
// four: the key is built in a per-thread buffer.
inline fdb::Subspace childSubspace(const fdb::Subspace& parent, int64_t element) {
  thread_local fdb::Bytes scratch;
  scratch.assign(parent.key());
  appendElement(scratch, element);
  return fdb::Subspace::fromBytes(scratch);
}

// prefixRange(prefix) into `range`, reusing its buffers (no allocation once they are large
// enough).
inline void assignPrefixRange(fdb::KeyRange& range, std::string_view prefix) {
  range.begin.assign(prefix);
  range.begin.push_back('\x00');
  range.end.assign(prefix);
  range.end.push_back('\xff');
}

// Subspace::range() of the subspace at `prefix`: [prefix + 0x00, prefix + 0xff), one
// allocation a bound.
inline fdb::KeyRange prefixRange(std::string_view prefix) {
  fdb::KeyRange range;
  range.begin.reserve(prefix.size() + 1);
  range.begin.append(prefix);
  range.begin.push_back('\x00');
  range.end.reserve(prefix.size() + 1);
  range.end.append(prefix);
  range.end.push_back('\xff');
  return range;
}

}  // namespace rl::keyspace
