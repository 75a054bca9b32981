// Plain types of the client API: rows, range results and options, mutation and conflict
// range kinds, with FoundationDB's numeric codes (fdb_c_options.g.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fdb/bytes.h"

namespace fdb {

struct KeyValue {
  Bytes key;
  Bytes value;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// One batch of a range read. `more` is true when a row or byte limit stopped the read
// (even if no further rows exist); false guarantees the range is exhausted. A batch with no
// rows never has `more`.
struct RangeResult {
  std::vector<KeyValue> rows;
  bool more = false;
};

// One entry of a mapped range read (getMappedRange): an index entry and the rows its mapper
// named, read in the same operation at the same version.
struct MappedKeyValue {
  Bytes key;  // the index entry
  Bytes value;
  Bytes rangeBegin;  // the secondary range the mapper built: [rangeBegin, rangeEnd)
  Bytes rangeEnd;
  std::vector<KeyValue> rangeRows;
};

struct MappedRangeResult {
  std::vector<MappedKeyValue> rows;
  bool more = false;  // as RangeResult::more
};

// FDBStreamingMode: how many bytes a range read returns per batch when no explicit limit
// says otherwise. Results of a full iteration are the same in every mode.
enum class StreamingMode : int {
  kWantAll = -2,
  kIterator = -1,
  kExact = 0,
  kSmall = 1,
  kMedium = 2,
  kLarge = 3,
  kSerial = 4,
};

// The parameters of fdb_transaction_get_range beyond its selectors.
struct RangeOptions {
  int limit = 0;        // rows; 0 = unlimited
  int targetBytes = 0;  // bytes (key + value + 8 per row, soft); 0 = unlimited
  StreamingMode mode = StreamingMode::kIterator;
  int iteration = 1;  // for kIterator: 1, 2, ... on successive batches
  bool reverse = false;
};

// FDBMutationType: the atomic operations (spec §4).
enum class MutationType : int {
  kAdd = 2,
  kBitAnd = 6,
  kBitOr = 7,
  kBitXor = 8,
  kAppendIfFits = 9,
  kMax = 12,
  kMin = 13,
  kSetVersionstampedKey = 14,
  kSetVersionstampedValue = 15,
  kByteMin = 16,
  kByteMax = 17,
  kMinV2 = 18,
  kAndV2 = 19,
  kCompareAndClear = 20,
};

enum class ConflictRangeType : int { kRead = 0, kWrite = 1 };

// Operations that are a round trip to a FoundationDB cluster, counted by the backend where
// the round trip happens (never by callers): what remote fetch saves and network delay costs.
struct RoundTrips {
  int64_t readVersions = 0;      // GRV
  int64_t reads = 0;             // point reads and key selector resolutions
  int64_t rangeReads = 0;        // range read batches
  int64_t mappedRangeReads = 0;  // mapped range read batches
  int64_t commits = 0;           // commits that reach the cluster (not read-only ones)

  int64_t total() const { return readVersions + reads + rangeReads + mappedRangeReads + commits; }
  friend bool operator==(const RoundTrips&, const RoundTrips&) = default;
};

}  // namespace fdb
