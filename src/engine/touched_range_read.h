// readTouchedRange — a range read over keys the transaction has touched (read before, written or
// cleared), run as FoundationDB's read-your-writes layer runs it (RYWImpl::getRangeValue and
// getRangeValueBack): it alternates between the stretches it knows, whose rows it takes, and
// reads of the database for the unknown pieces between them, each remembered in KnownRanges.
// With a byte limit, once it holds a row, it stops at the next unknown piece and says `more`
// (docs/semantics.md, "Range reads", has the whole rule).
//
//   RangeTally tally;
//   bool more = readTouchedRange(segments, known, reader, "a", "z", /*reverse=*/false,
//                                RangeLimits{SIZE_MAX, 80000}, tally,
//                                [&](std::string_view from, std::string_view to) {
//                                  // take the merged view's rows of [from, to), in read order,
//                                  // updating `tally`, until tally.limited
//                                });
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/engine.h"
#include "engine/function_ref.h"
#include "engine/known_ranges.h"
#include "engine/ryw_segments.h"

namespace fdb::engine {

// A range read's limits: rows (SIZE_MAX: none) and bytes (-1: none).
struct RangeLimits {
  size_t rows;
  int64_t bytes;
};

// What a range read has taken so far: rows, their bytes (key + value + 8 each), and whether a
// limit has been reached.
struct RangeTally {
  size_t rows = 0;
  int64_t bytes = 0;
  bool limited = false;
};

// Reads [begin, end) (begin < end) in the order `reverse` says, taking rows through `take` (from
// and to bound the keys, in ascending order, whatever the direction). Returns `more`. Throws
// accessed_unreadable (1036) on reaching a key that depends on the versionstamp.
bool readTouchedRange(const RywSegments& segments, KnownRanges& known, const Engine::Reader& reader,
                      std::string_view begin, std::string_view end, bool reverse,
                      RangeLimits limits, const RangeTally& tally,
                      FunctionRef<void(std::string_view from, std::string_view to)> take);

}  // namespace fdb::engine
