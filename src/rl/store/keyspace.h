// The top-level keyspace of a record store (spec record-layer-format §1.1): every key of a
// store at prefix P is P + a tuple whose first element is one of these integers. The values
// are the Java Record Layer's (FDBRecordStoreKeyspace), so stores are shared between the two.
#pragma once

#include <cstdint>

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

}  // namespace rl::keyspace
