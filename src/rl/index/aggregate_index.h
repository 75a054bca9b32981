// Aggregate (atomic-mutation) indexes (docs/indexes.md, "Aggregate indexes"; docs/format.md,
// "Aggregate index entries"): count, count_updates, count_not_null, sum, min_ever_long,
// max_ever_long (and the old names min_ever, max_ever), min_ever_tuple, max_ever_tuple and
// max_ever_version. The root expression is a grouping: its first columns name the group, the
// rest are aggregated. Each group has one key P+(2, sk) + group (exactly P+(2, sk) when there
// is no group), changed only by atomic mutations, so saves touching one group from
// concurrent transactions never conflict on it:
//
//   count, count_not_null, count_updates, sum   ADD of a little-endian int64 (±1, ±value)
//   min_ever_long / max_ever_long                MIN / MAX of a little-endian int64 (no
//                                                negative values: the comparison is unsigned)
//   min_ever_tuple / max_ever_tuple              BYTE_MIN / BYTE_MAX of the packed tuple
//   max_ever_version                             BYTE_MAX of the packed tuple, or
//                                                SET_VERSIONSTAMPED_VALUE when it holds the
//                                                record's incomplete version
//
// With the option clearWhenZero, count, count_not_null and sum follow each ADD with a
// COMPARE_AND_CLEAR against eight zero bytes, so a group whose total comes back to 0 has no key.
//
//   IndexMaintainerRegistry::instance().add(aggregateIndexMaintainerFactory("count"));
//
// Thread-safety: factories are shared and const; maintainers belong to one store.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/index/index_check.h"
#include "rl/index/index_maintainer.h"

namespace rl {

// The operation an aggregate index type performs (the Java Record Layer's AtomicMutation).
enum class AggregateKind {
  kCount,
  kCountUpdates,
  kCountNotNull,
  kSum,
  kMinEverLong,
  kMaxEverLong,
  kMinEverTuple,
  kMaxEverTuple,
  kMaxEverVersion,
};

// The type names of aggregate indexes.
inline constexpr std::string_view kCountUpdatesIndexType = "count_updates";
inline constexpr std::string_view kCountNotNullIndexType = "count_not_null";
inline constexpr std::string_view kMinEverLongIndexType = "min_ever_long";
inline constexpr std::string_view kMaxEverLongIndexType = "max_ever_long";
inline constexpr std::string_view kMinEverTupleIndexType = "min_ever_tuple";
inline constexpr std::string_view kMaxEverTupleIndexType = "max_ever_tuple";
inline constexpr std::string_view kMaxEverVersionIndexType = "max_ever_version";
// The option that clears a count or sum group whose total returns to zero ("true").
inline constexpr std::string_view kClearWhenZeroOption = "clearWhenZero";

// The kind of an aggregate index type, or nullopt when `type` is not one.
std::optional<AggregateKind> aggregateKindOfType(std::string_view type);
// Every aggregate index type name, the old aliases min_ever and max_ever included.
const std::vector<std::string_view>& aggregateIndexTypes();

// The factory of the maintainers of aggregate indexes of `type` (one of aggregateIndexTypes).
std::shared_ptr<const IndexMaintainerFactory> aggregateIndexMaintainerFactory(
    std::string_view type);

// The store checker's check of an aggregate index (aggregate_index_check.cc).
std::unique_ptr<IndexCheck> makeAggregateIndexCheck(const IndexCheckTarget& target,
                                                    AggregateKind kind);

// `key`'s single columns (normalizeKeyForPositions), empty() contributing none.
std::vector<KeyExpression> keyColumns(const KeyExpression& key);

// Whether a kind's updates are not idempotent (indexing a record twice counts it twice):
// count, count_updates, count_not_null and sum.
bool aggregateKindCounts(AggregateKind kind);
// Whether `function` ("count", "sum", "min_ever", "max_ever", or the type's own name) is
// answered by an index of `type`.
bool aggregateFunctionMatchesType(std::string_view function, std::string_view type);

// One group's stored value decoded: a little-endian int64 as (n) for the ADD, MIN and MAX
// kinds; the unpacked tuple for the others.
fdb::Tuple decodeAggregateValue(AggregateKind kind, std::string_view value);
// A little-endian int64.
fdb::Bytes encodeLittleEndianInt64(int64_t value);
int64_t decodeLittleEndianInt64(std::string_view bytes);

}  // namespace rl
