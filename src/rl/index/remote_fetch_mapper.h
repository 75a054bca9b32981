// The mapper of a USE_REMOTE_FETCH index scan (docs/format.md, "Index fetch"): the packed
// tuple that tells getMappedRange how to turn each index entry into its record's key range.
//
// It is the records subspace P+(1) written as tuple elements, then one "{K[n]}" per primary
// key column (n: where that column sits in the index key, counting the elements of P+(2, sk)
// before the entry), then "{...}" (every key under that prefix: the record's chunks and its
// version). For a store at ("app", 5) with an index "idx" on one column and primary key (id):
// ("app", 5, 1, "{K[5]}", "{...}"), as the Java Record Layer builds it.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/tuple.h"

namespace rl::index {

// `packed` decoded as a tuple if FoundationDB's storage server can parse it in a mapper:
// element types null, byte and unicode strings, integers that pack in at most 8 bytes,
// float, double, booleans and versionstamps (no nested tuples, no UUIDs). nullopt otherwise.
std::optional<fdb::Tuple> decodeServerTuple(std::string_view packed);

// Where each primary-key column sits in an index entry tuple: a column also indexed
// (componentPositions[i] >= 0) is read from there; the others follow the index's own
// columnSize columns, in order. Empty componentPositions: none is indexed. (Java's
// Index.getEntryPrimaryKeyPositions.)
std::vector<int> entryPrimaryKeyPositions(std::span<const int> componentPositions, int columnSize,
                                          int primaryKeyLength);

// The mapper for an index stored under `indexSubspacePrefix` (P + (2, sk) packed) of a
// store at `storePrefix` (P). nullopt when either does not decode as a server tuple: such a
// store cannot use remote fetch.
std::optional<fdb::Bytes> remoteFetchMapper(std::string_view storePrefix,
                                            std::string_view indexSubspacePrefix,
                                            std::span<const int> entryPrimaryKeyPositions);

}  // namespace rl::index
