// How an index scan fetches the records its entries point to, and what it does with an
// entry whose record is missing (docs/format.md, "Index fetch"; Java's IndexFetchMethod,
// IndexOrphanBehavior).
//
//   SCAN_AND_FETCH: the client scans the index and loads each record (several loads in
//     flight at once); one round trip per record, overlapped.
//   USE_REMOTE_FETCH: one getMappedRange per batch: the storage server resolves every entry
//     to its record's key-values. The store prefix must decode as a tuple the server parses.
//   USE_REMOTE_FETCH_WITH_FALLBACK: remote fetch, or scan-and-fetch when remote fetch cannot
//     be used or fails once (from the last result returned; a second failure is surfaced).
//   ADAPTIVE: one of the two, chosen per scan by a cost model from the row limit, the store's
//     observed record sizes, the database's observed round-trip time and whether remote fetch
//     can serve the scan (docs/index_fetch.md); a remote choice falls back as WITH_FALLBACK.
//
// Thread-safety: plain values.
#pragma once

#include <string_view>

#include "rl/record_core_exception.h"

namespace rl {

enum class IndexFetchMethod {
  kScanAndFetch,
  kUseRemoteFetch,
  kUseRemoteFetchWithFallback,
  kAdaptive,
};
std::string_view indexFetchMethodName(IndexFetchMethod method);  // "SCAN_AND_FETCH", ...

// An index entry whose record does not exist (an "orphan").
enum class IndexOrphanBehavior {
  kError,   // throw OrphanIndexEntryException
  kSkip,    // leave the entry out
  kReturn,  // return the entry without a record
};
std::string_view indexOrphanBehaviorName(IndexOrphanBehavior behavior);  // "ERROR", ...

// Remote fetch cannot serve this scan (the store prefix is not a tuple the storage server
// parses, the index has no primary-key columns to map, the read is not serializable).
class UnsupportedRemoteFetchIndexException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// An index entry whose record is missing, with IndexOrphanBehavior::kError. The message
// names the primary key and the index entry.
class OrphanIndexEntryException : public RecordCoreStorageException {
 public:
  using RecordCoreStorageException::RecordCoreStorageException;
};

// The scan-and-fetch cursor a fallback switched to failed too. Thrown with the failure
// nested (std::rethrow_if_nested gets it back).
class FallbackCursorFailedException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

}  // namespace rl
