#include "engine/touched_range_read.h"

#include <algorithm>
#include <utility>

#include "engine/transaction_internal.h"

namespace fdb::engine {
namespace {

// FoundationDB's REPLY_BYTE_LIMIT: the most bytes one read of the database is asked for.
constexpr int64_t kReplyByteLimit = 80000;
// How many segments a walk looks at beyond the one-key empty ones it may count.
constexpr int kWalkSegments = 100;

// One read of the database as the read-your-writes layer issues it (setRequestLimits): `minRows`
// rows at least, and the byte target doubled with every read already issued.
struct DatabaseRequest {
  size_t rows;    // SIZE_MAX: none
  int64_t bytes;  // -1: none
  size_t minRows;
};

DatabaseRequest requestFor(RangeLimits limits, const RangeTally& tally, int additionalRows,
                           int requestCount) {
  DatabaseRequest request{SIZE_MAX, -1, 1 + static_cast<size_t>(additionalRows)};
  if (limits.rows != SIZE_MAX) {
    request.rows = std::max<size_t>(1, limits.rows - tally.rows) + additionalRows;
  }
  if (limits.bytes >= 0) {
    int64_t left = std::max<int64_t>(0, limits.bytes - tally.bytes);
    request.bytes = std::min(left << std::min(requestCount, 20), kReplyByteLimit);
  }
  return request;
}

struct DatabaseRead {
  bool more = false;
  Bytes lastKey;  // the last row read, in read order
};

// The rows of [begin, end) in the database alone, as far as `request` lets a read go.
DatabaseRead readDatabase(const Engine::Reader& reader, std::string_view begin,
                          std::string_view end, bool reverse, const DatabaseRequest& request) {
  DatabaseRead read;
  size_t rows = 0;
  int64_t bytes = 0;
  reader.scan(begin, end, reverse, [&](std::string_view key, std::string_view value) {
    ++rows;
    bytes += static_cast<int64_t>(key.size() + value.size() + 8);
    if (rows >= request.rows ||
        (request.bytes >= 0 && bytes >= request.bytes && rows >= request.minRows)) {
      read.more = true;
      read.lastKey.assign(key);
      return false;
    }
    return true;
  });
  return read;
}

int clearLimitFor(int requestCount) {
  return requestCount == 0 ? 0 : 1 << std::min(requestCount, 20);
}

}  // namespace

bool readTouchedRange(const RywSegments& segments, KnownRanges& known, const Engine::Reader& reader,
                      std::string_view begin, std::string_view end, bool reverse,
                      RangeLimits limits, const RangeTally& tally,
                      FunctionRef<void(std::string_view, std::string_view)> take) {
  int requestCount = 0;
  Bytes position(reverse ? end : begin);
  while (true) {
    // The stretch the transaction knows, up to the next unknown piece: its rows are taken.
    Bytes stop =
        reverse ? segments.lastUnknownEnd(begin, position) : segments.firstUnknown(position, end);
    if (reverse) {
      take(stop, position);
    } else {
      take(position, stop);
    }
    if (tally.limited) return true;
    if (reverse ? stop <= begin : stop >= end) return false;
    RywSegments::Segment unknown = reverse ? segments.before(stop) : segments.at(stop);
    if (unknown.kind == RywSegments::Kind::kUnreadable) internal::throwUnreadable(stop);
    // The early return: a read with a byte limit that holds a row does not read on.
    if (limits.bytes >= 0 && tally.rows > 0) return true;

    // Read the unknown piece from the database, and the pieces after it that a walk passes (up
    // to a longer known empty stretch, the end of the range, or the walk's segment limit).
    const int clearLimit = clearLimitFor(requestCount);
    int singleEmpty = 0;
    Bytes readBegin, readEnd;
    if (!reverse) {
      Bytes endKey = segments.skipEmpty(end);
      RywSegments::Segment endSegment = segments.at(endKey);
      RywSegments::Segment last = unknown;
      if (unknown.begin < endSegment.begin) {
        last = segments.walkForward(std::move(unknown), endSegment.begin,
                                    clearLimit + kWalkSegments, &singleEmpty);
      }
      readBegin = stop;
      readEnd = last.begin != endSegment.begin ? std::move(last.end) : std::move(endKey);
      if (readEnd < readBegin) readEnd = readBegin;
    } else {
      Bytes beginKey = segments.skipEmpty(begin);
      RywSegments::Segment beginSegment = segments.at(beginKey);
      RywSegments::Segment last = unknown;
      if (unknown.begin > beginSegment.begin) {
        last = segments.walkBackward(std::move(unknown), beginSegment.begin,
                                     clearLimit + kWalkSegments, &singleEmpty);
      }
      readEnd = stop;
      readBegin = last.begin != beginSegment.begin ? std::move(last.begin) : std::move(beginKey);
      if (readBegin > readEnd) readBegin = readEnd;
    }
    const DatabaseRequest request =
        requestFor(limits, tally, std::min(singleEmpty, clearLimit), requestCount);
    ++requestCount;
    DatabaseRead read = readDatabase(reader, readBegin, readEnd, reverse, request);
    if (!reverse) {
      known.insert(readBegin, read.more ? internal::keyAfter(read.lastKey) : readEnd);
    } else {
      known.insert(read.more ? read.lastKey : readBegin, readEnd);
    }
    position = std::move(stop);
  }
}

}  // namespace fdb::engine
