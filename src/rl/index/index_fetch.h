// Index scans and index fetch at the raw-record level (docs/format.md: "VALUE index entries",
// "Index fetch", "Cursors", "Cursor continuations"): cursors over a VALUE index's entries, and over
// the records they point to, fetched either by the client (SCAN_AND_FETCH: an index scan, then one
// pipelined record load per entry) or by the storage server (USE_REMOTE_FETCH: getMappedRange with
// the Java Record Layer's mapper), or remote with a fallback to the client, or either one chosen
// per scan (ADAPTIVE: docs/index_fetch.md). Records come back as
// stored (bytes, inline version, sizes) with their index entry; deserializing them is the record
// store's job.
//
//   rl::IndexScanSpec spec = rl::IndexScanSpec::of(storePrefix, "price_idx",
//       rl::index::entryPrimaryKeyPositions({}, /*columnSize=*/1, /*primaryKeyLength=*/1));
//   auto cursor = rl::scanIndexRecords(context, spec, rl::TupleRange::all(), std::nullopt,
//                                      rl::ScanProperties(),
//                                      rl::IndexFetchMethod::kUseRemoteFetch);
//   for (auto r = cursor->next(); r.hasValue(); r = cursor->next())
//     use(r.value().entry.primaryKey(), r.value().record->rawRecord);
//
// Both methods return the same entries and records in the same order with the same
// continuations (the index key's suffix, as an index scan's), so a scan stopped under one
// method resumes under the other. Limits: skip and the returned-row limit count index
// entries (orphans skipped with kSkip included); every entry is one scanned record; scanned
// bytes are the index entries' keys and values and, for remote fetch, also the record's
// keys and values (as the Java Record Layer counts them: scan-and-fetch does not count the
// records it loads).
//
// Remote fetch reads are serializable (FoundationDB refuses snapshot mapped reads) and do not
// see the transaction's own writes: a scan over records written in the same transaction fails
// with 2039 (get_mapped_range_reads_your_writes), and WITH_FALLBACK falls back.
//
// Not supported: stores with versions in the old format ((8, pk)).
// Thread-safety: cursors are used by one thread at a time and must not outlive the context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/tuple_range.h"
#include "rl/index/index_fetch_chooser.h"
#include "rl/index/index_fetch_method.h"
#include "rl/index/raw_index_entry.h"
#include "rl/record/split_helper.h"

namespace rl {

// docs/format.md, "Pipelining": record loads in flight ahead of the consumer (PipelineOperation
// INDEX_TO_RECORD).
inline constexpr size_t kDefaultIndexFetchPipelineSize = 10;

// What an index scan needs to know about the store and the index: facts from the metadata.
struct IndexScanSpec {
  // P: the store's prefix. Remote fetch needs it to decode as a tuple the server parses.
  fdb::Bytes storePrefix;
  fdb::Subspace recordsSubspace;  // P + (1)
  fdb::Subspace indexSubspace;    // P + (2, sk)
  // Where each primary-key column sits in an entry tuple (index::entryPrimaryKeyPositions:
  // trimmed columns point into the indexed values, the others follow them in order).
  std::shared_ptr<const std::vector<int>> entryPrimaryKeyPositions;
  // The record layout (the store's split_long_records and its legacy unsuffixed form).
  bool splitLongRecords = true;
  bool omitUnsplitSuffix = false;
  // Told when USE_REMOTE_FETCH_WITH_FALLBACK (or ADAPTIVE's remote choice) falls back, and
  // why (nothing if unset).
  std::function<void(std::string_view)> log;
  // The rows the caller expects the scan to return, if it knows (ADAPTIVE's cost model).
  std::optional<int64_t> expectedRows;

  // The spec of the index whose subspace key is `subspaceKey` (by default its name) in the
  // store at `storePrefix`.
  static IndexScanSpec of(std::string_view storePrefix, const fdb::TupleElement& subspaceKey,
                          std::vector<int> entryPrimaryKeyPositions);
};

// An index entry and its record as stored (nullopt: the record is missing and the orphan
// behaviour is kReturn).
struct IndexedRawRecord {
  RawIndexEntry entry;
  std::optional<RawRecord> record;
};

// The entries of the index over `range` (a KeyValueCursor over P + (2, sk)); continuations
// are the index key's suffix.
CursorPtr<RawIndexEntry> scanIndexEntries(RecordContext& context, const IndexScanSpec& spec,
                                          const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties);

// The entries of the index over `range` with their records, fetched by `method`.
// `pipelineSize`: record loads in flight with SCAN_AND_FETCH (0 counts as 1).
// Throws UnsupportedRemoteFetchIndexException for USE_REMOTE_FETCH when the store or scan
// cannot use it (see above); the cursor throws OrphanIndexEntryException for a missing
// record with kError, fdb::Error from the reads, and the split helper's errors.
CursorPtr<IndexedRawRecord> scanIndexRecords(
    RecordContext& context, const IndexScanSpec& spec, const TupleRange& range,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties,
    IndexFetchMethod method = IndexFetchMethod::kScanAndFetch,
    IndexOrphanBehavior orphanBehavior = IndexOrphanBehavior::kError,
    size_t pipelineSize = kDefaultIndexFetchPipelineSize);

// What IndexFetchMethod::kAdaptive would choose for this scan now, and why: the inputs of the
// cost model (docs/index_fetch.md) from the scan, the store's observed record sizes and the
// database's round-trip estimate (folding in the round trips `context` has made so far).
FetchChoice chooseAdaptiveFetch(RecordContext& context, const IndexScanSpec& spec,
                                const ScanProperties& properties,
                                size_t pipelineSize = kDefaultIndexFetchPipelineSize);

}  // namespace rl
