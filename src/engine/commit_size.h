// The size a commit is measured by against the transaction size limit, as FoundationDB measures
// it (docs/semantics.md, "Commits" step 3): not the writes as issued, but what its
// read-your-writes map sends once it has merged them — one mutation per written key (a key
// set many times is sent once; operations on a known value become one set), clears cut around
// the keys written inside them — and the conflict ranges once coalesced.
//
//   int64_t size = mergedMutationBytes(writes.mutations()) + coalescedRangeBytes(reads) +
//                  coalescedRangeBytes(writes);
//   if (size > sizeLimit) throw Error(errors::kTransactionTooLarge);
#pragma once

#include <cstdint>
#include <span>

#include "engine/engine.h"

namespace fdb::engine {

// The bytes of the mutations FoundationDB's read-your-writes map sends for `mutations` (a
// transaction's writes in issue order, as WriteMap keeps them): each counts its operands plus
// sizeof(MutationRef) (transaction_internal.h).
int64_t mergedMutationBytes(std::span<const Mutation> mutations);

// The bytes of `ranges` once overlapping and touching ranges are merged: each merged range
// counts its two ends plus sizeof(KeyRangeRef).
int64_t coalescedRangeBytes(const KeyRangesView& ranges);

}  // namespace fdb::engine
