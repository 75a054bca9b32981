#include "engine/reference_model.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace fdb::refmodel {

namespace {

constexpr size_t kValueSizeLimit = 100000;

// `value` cut or zero-padded to `size` bytes.
std::string resized(const std::string& value, size_t size) {
  std::string result = value.substr(0, std::min(size, value.size()));
  result.resize(size, '\0');
  return result;
}

// Compares two equal-length byte strings as unsigned little-endian integers.
int compareLittleEndian(const std::string& a, const std::string& b) {
  for (size_t i = a.size(); i-- > 0;) {
    auto x = static_cast<unsigned char>(a[i]);
    auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string keyAfter(const std::string& key) { return key + std::string(1, '\0'); }

// Past every key: where the last segment ends.
const std::string kSpaceEnd = "\xff\xff\xff";
// FoundationDB's REPLY_BYTE_LIMIT, and how many segments a walk looks at.
constexpr int kReplyByteLimit = 80000;
constexpr int kWalkSegments = 100;

// The transaction's writes as pieces: written keys (true: independent, its value known without
// the database's) and cleared stretches (merged when they overlap or touch).
struct WritePieces {
  std::map<std::string, bool> points;
  std::vector<Range> cleared;

  bool inCleared(const std::string& key) const {
    for (const Range& r : cleared) {
      if (r.begin <= key && key < r.end) return true;
    }
    return false;
  }
  void clearRange(Range range) {
    if (range.empty()) return;
    points.erase(points.lower_bound(range.begin), points.lower_bound(range.end));
    std::vector<Range> kept;
    for (const Range& r : cleared) {
      if (r.end < range.begin || range.end < r.begin) {
        kept.push_back(r);
      } else {
        range.begin = std::min(range.begin, r.begin);
        range.end = std::max(range.end, r.end);
      }
    }
    kept.push_back(range);
    cleared = std::move(kept);
  }
};

}  // namespace

std::optional<std::string> applyAtomic(AtomicOp op, const std::optional<std::string>& existing,
                                       const std::string& param) {
  const bool absentOrEmpty = !existing || existing->empty();
  switch (op) {
    case AtomicOp::kAdd: {
      if (absentOrEmpty) return param;
      if (param.empty()) return std::string();
      std::string e = resized(*existing, param.size());
      std::string result(param.size(), '\0');
      unsigned carry = 0;
      for (size_t i = 0; i < param.size(); ++i) {
        unsigned sum = static_cast<unsigned char>(e[i]) +
                       static_cast<unsigned>(static_cast<unsigned char>(param[i])) + carry;
        result[i] = static_cast<char>(sum & 0xff);
        carry = sum >> 8;
      }
      return result;
    }
    case AtomicOp::kBitAnd: {  // AndV2
      if (!existing) return param;
      if (param.empty()) return std::string();
      std::string e = resized(*existing, param.size());
      for (size_t i = 0; i < param.size(); ++i) e[i] = static_cast<char>(e[i] & param[i]);
      return e;
    }
    case AtomicOp::kBitOr:
    case AtomicOp::kBitXor: {
      if (absentOrEmpty) return param;
      if (param.empty()) return std::string();
      std::string e = resized(*existing, param.size());
      for (size_t i = 0; i < param.size(); ++i) {
        e[i] = static_cast<char>(op == AtomicOp::kBitOr ? (e[i] | param[i]) : (e[i] ^ param[i]));
      }
      return e;
    }
    case AtomicOp::kAppendIfFits: {
      if (absentOrEmpty) return param;
      if (param.empty()) return *existing;
      if (existing->size() + param.size() > kValueSizeLimit) return *existing;
      return *existing + param;
    }
    case AtomicOp::kMax: {
      if (absentOrEmpty) return param;
      if (param.empty()) return std::string();
      std::string e = resized(*existing, param.size());
      return compareLittleEndian(e, param) > 0 ? e : param;
    }
    case AtomicOp::kMin: {  // MinV2
      if (!existing) return param;
      if (param.empty()) return std::string();
      std::string e = resized(*existing, param.size());
      return compareLittleEndian(e, param) < 0 ? e : param;
    }
    case AtomicOp::kByteMin:
      if (!existing) return param;
      return std::min(*existing, param);
    case AtomicOp::kByteMax:
      if (!existing) return param;
      return std::max(*existing, param);
    case AtomicOp::kCompareAndClear:
      if (existing && *existing == param) return std::nullopt;
      return existing;
  }
  throw std::logic_error("applyAtomic: unknown op");
}

std::string resolveSelector(const KeyValueMap& view, const Selector& selector, bool* ranOffStart,
                            bool* ranOffEnd) {
  const std::string key = selector.orEqual ? keyAfter(selector.key) : selector.key;
  // i = the number of keys < key; target index t = i - 1 + offset.
  const auto i = static_cast<int64_t>(std::distance(view.begin(), view.lower_bound(key)));
  const int64_t t = i - 1 + selector.offset;
  const auto n = static_cast<int64_t>(view.size());
  if (t < 0) {
    if (ranOffStart) *ranOffStart = true;  // FoundationDB's readToBegin
    return std::string();
  }
  if (t >= n) {
    // readThroughEnd: fewer than offset - 1 keys at or after the key to step over.
    if (ranOffEnd && t > n) *ranOffEnd = true;
    return kMaxKey;
  }
  return std::next(view.begin(), t)->first;
}

int effectiveByteLimit(const RangeRequest& request) {
  static constexpr int kIteratorBytes[] = {4096,  6144,  9216,  13824, 20736,
                                           31104, 46656, 69984, 80000, 120000};
  int modeBytes = -1;
  switch (request.mode) {
    case Mode::kWantAll:
    case Mode::kSerial: modeBytes = 80000; break;
    case Mode::kIterator: modeBytes = kIteratorBytes[std::min(request.iteration, 10) - 1]; break;
    case Mode::kExact: modeBytes = -1; break;
    case Mode::kSmall: modeBytes = 256; break;
    case Mode::kMedium: modeBytes = 1000; break;
    case Mode::kLarge: modeBytes = 4096; break;
  }
  if (request.targetBytes == 0) return modeBytes;
  if (modeBytes == -1) return request.targetBytes;
  return std::min(request.targetBytes, modeBytes);
}

std::vector<Range> subtractRanges(const Range& range, const std::vector<Range>& removed) {
  std::vector<Range> sorted;
  for (const Range& r : removed) {
    if (!r.empty()) sorted.push_back(r);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  std::vector<Range> result;
  std::string cursor = range.begin;  // everything below cursor is handled
  for (const Range& r : sorted) {
    if (cursor >= range.end) break;
    if (r.end <= cursor) continue;
    if (r.begin >= range.end) break;
    if (r.begin > cursor) result.push_back({cursor, r.begin});
    cursor = std::max(cursor, r.end);
  }
  if (cursor < range.end) result.push_back({cursor, range.end});
  return result;
}

bool rangesIntersect(const Range& a, const Range& b) {
  return !a.empty() && !b.empty() && a.begin < b.end && b.begin < a.end;
}

ModelDatabase::ModelDatabase() : states_(1), writeConflicts_(1) {}

void ModelDatabase::appendCommit(KeyValueMap state, std::vector<Range> writeConflicts) {
  states_.push_back(std::move(state));
  writeConflicts_.push_back(std::move(writeConflicts));
}

ModelTransaction::ModelTransaction(ModelDatabase* db) : db_(db) { reset(); }

void ModelTransaction::reset() {
  readVersion_ = db_->latestVersion();
  ops_.clear();
  known_.clear();
  readConflicts_.clear();
  writeConflicts_.clear();
}

void ModelTransaction::applyOp(KeyValueMap& map, const Op& op) {
  switch (op.kind) {
    case OpKind::kSet: map[op.key] = op.argument; break;
    case OpKind::kClear: map.erase(op.key); break;
    case OpKind::kClearRange:
      map.erase(map.lower_bound(op.key), map.lower_bound(op.argument));
      break;
    case OpKind::kAtomic: {
      auto it = map.find(op.key);
      std::optional<std::string> existing;
      if (it != map.end()) existing = it->second;
      std::optional<std::string> result = applyAtomic(op.atomic, existing, op.argument);
      if (result) {
        map[op.key] = *result;
      } else {
        map.erase(op.key);
      }
      break;
    }
  }
}

KeyValueMap ModelTransaction::view() const {
  KeyValueMap map = db_->state(readVersion_);
  for (const Op& op : ops_) applyOp(map, op);
  return map;
}

// A key's value is known locally once a set, a clear or a cleared range covered it; every
// later operation on it (set, clear, atomic op) keeps it known. So the known keys and
// ranges are exactly: every cleared range, plus every key that was ever set. Keys with
// atomic ops only on an unknown database base are in neither.
std::vector<Range> ModelTransaction::ownWriteExclusion() const {
  std::vector<Range> exclusion;
  for (const Op& op : ops_) {
    switch (op.kind) {
      case OpKind::kSet:
      case OpKind::kClear: exclusion.push_back({op.key, keyAfter(op.key)}); break;
      case OpKind::kClearRange: exclusion.push_back({op.key, op.argument}); break;
      case OpKind::kAtomic: break;
    }
  }
  return exclusion;
}

void ModelTransaction::addReadConflict(const Range& range) {
  if (range.empty()) return;
  for (Range& piece : subtractRanges(range, ownWriteExclusion())) {
    readConflicts_.push_back(std::move(piece));
  }
}

std::optional<std::string> ModelTransaction::get(const std::string& key, bool snapshot) {
  KeyValueMap map = view();
  if (!snapshot) addReadConflict({key, keyAfter(key)});
  // Read from the database unless the writes decide the key: then it is known.
  bool decidedByWrites = false;
  for (const Segment& segment : segments()) {
    if (segment.begin <= key && key < segment.end) {
      decidedByWrites = segment.kind != SegmentKind::kUnknown;
      break;
    }
  }
  if (!decidedByWrites) remember({key, keyAfter(key)});
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

std::string ModelTransaction::getKey(const Selector& selector, bool snapshot) {
  const std::string result = resolveSelector(view(), selector);
  {
    // "first key >= k" is a forward read of one row from k, "last key < k" a reverse one below
    // k; both learn what they read.
    const std::string key = selector.orEqual ? keyAfter(selector.key) : selector.key;
    bool more = false;
    if (selector.offset == 1 && key < kMaxKey) {
      if (touchesKnown(key, kMaxKey)) {
        readByRule(key, kMaxKey, false, 1, -1, &more);
      } else {
        readPlain(key, kMaxKey, false, 1, -1, &more);
      }
    } else if (selector.offset == 0 && !key.empty()) {
      if (touchesKnown(std::string(), key)) {
        readByRule(std::string(), key, true, 1, -1, &more);
      } else {
        readPlain(std::string(), key, true, 1, -1, &more);
      }
    }
  }
  if (!snapshot) {
    const std::string key = selector.orEqual ? keyAfter(selector.key) : selector.key;
    if (selector.offset <= 0) {
      addReadConflict({result, key});
    } else {
      addReadConflict({key, keyAfter(result)});
    }
  }
  return result;
}

RangeReadResult ModelTransaction::getRange(const RangeRequest& request, bool snapshot) {
  RangeReadResult out;
  if (request.mode == Mode::kExact && request.limit == 0 && request.targetBytes == 0) {
    out.error = kExactModeWithoutLimits;
    return out;
  }
  // Normalize orEqual away: (k, 1, n) == (k\0, 0, n).
  const std::string beginKey =
      request.begin.orEqual ? keyAfter(request.begin.key) : request.begin.key;
  const std::string endKey = request.end.orEqual ? keyAfter(request.end.key) : request.end.key;
  const int beginOffset = request.begin.offset;
  const int endOffset = request.end.offset;
  if (beginOffset >= endOffset && beginKey >= endKey) return out;  // empty, no conflict

  const KeyValueMap map = view();
  bool ranOffStart = false;
  bool ranOffEnd = false;
  const std::string resolvedBegin =
      resolveSelector(map, {beginKey, false, beginOffset}, &ranOffStart, &ranOffEnd);
  const std::string resolvedEnd =
      resolveSelector(map, {endKey, false, endOffset}, &ranOffStart, &ranOffEnd);
  if (resolvedBegin >= resolvedEnd) ranOffStart = ranOffEnd = false;

  // The keys read between: a "first key >= k" bound reads from (or up to) k itself, as the
  // read-your-writes layer does; other selectors are resolved first.
  const std::string readBegin = beginOffset == 1 ? beginKey : resolvedBegin;
  const std::string readEnd = endOffset == 1 ? endKey : resolvedEnd;
  if (readBegin < readEnd) {
    const int rowLimit = request.limit == 0 ? -1 : request.limit;
    const int byteLimit = effectiveByteLimit(request);
    out.rows = touchesKnown(readBegin, readEnd)
                   ? readByRule(readBegin, readEnd, request.reverse, rowLimit, byteLimit, &out.more)
                   : readPlain(readBegin, readEnd, request.reverse, rowLimit, byteLimit, &out.more);
  }

  // The read conflict range: FoundationDB's RYWImpl::addConflictRange for range reads
  // (ReadYourWrites.actor.cpp), stated in terms of this model. Rows are in read order.
  if (!snapshot) {
    std::string conflictBegin = std::min(beginKey, endKey);
    std::string conflictEnd = std::max(beginKey, endKey);
    if (beginKey < endKey && out.more) {
      if (!request.reverse && endOffset > 0) conflictEnd = beginKey;
      if (request.reverse && beginOffset <= 1) conflictBegin = endKey;
    }
    if (ranOffStart && beginOffset <= 0) conflictBegin = std::string();
    if (ranOffEnd && endOffset > 0) conflictEnd = kMaxKey;
    if (!out.rows.empty()) {
      std::string lowest = out.rows.front().first;
      std::string highest = out.rows.back().first;
      if (request.reverse) std::swap(lowest, highest);
      if (request.reverse || beginOffset <= 0) conflictBegin = std::min(conflictBegin, lowest);
      if ((!request.reverse || endOffset > 0) && conflictEnd <= highest) {
        conflictEnd = keyAfter(highest);
      }
    }
    if (conflictBegin < conflictEnd) addReadConflict({conflictBegin, conflictEnd});
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ModelTransaction::getRangeAll(const Range& range,
                                                                               int limit,
                                                                               bool reverse,
                                                                               bool snapshot) {
  // Batch after batch, following `more`, as the client's getRangeAll reads.
  std::vector<std::pair<std::string, std::string>> rows;
  RangeRequest request;
  request.begin = Selector{range.begin, false, 1};
  request.end = Selector{range.end, false, 1};
  request.mode = limit > 0 ? Mode::kExact : Mode::kWantAll;
  request.reverse = reverse;
  while (true) {
    request.limit = limit > 0 ? limit - static_cast<int>(rows.size()) : 0;
    RangeReadResult batch = getRange(request, snapshot);
    rows.insert(rows.end(), batch.rows.begin(), batch.rows.end());
    if (!batch.more || batch.rows.empty() ||
        (limit > 0 && static_cast<int>(rows.size()) >= limit)) {
      return rows;
    }
    if (reverse) {
      request.end = Selector{rows.back().first, false, 1};
    } else {
      request.begin = Selector{rows.back().first, true, 1};
    }
    ++request.iteration;
  }
}

// ---- FoundationDB's read-your-writes rule for range reads ----------------------------

void ModelTransaction::remember(Range range) {
  if (range.empty()) return;
  // A piece holding the range's begin keeps its part (unless it begins there too); a piece
  // holding its end keeps its part; the pieces in between merge into the new one.
  for (const Range& piece : known_) {
    if (piece.begin <= range.begin && range.begin < piece.end && piece.begin != range.begin) {
      range.begin = piece.end;
    }
  }
  for (const Range& piece : known_) {
    if (piece.begin <= range.end && range.end < piece.end) range.end = piece.begin;
  }
  if (range.empty()) return;
  std::vector<Range> kept;
  for (const Range& piece : known_) {
    if (piece.begin < range.begin || piece.begin >= range.end) kept.push_back(piece);
  }
  kept.push_back(range);
  std::sort(kept.begin(), kept.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  known_ = std::move(kept);
}

std::vector<ModelTransaction::Segment> ModelTransaction::segments() const {
  const KeyValueMap& database = db_->state(readVersion_);
  WritePieces writes;
  for (const Op& op : ops_) {
    switch (op.kind) {
      case OpKind::kSet: writes.points[op.key] = true; break;
      case OpKind::kClear: writes.clearRange({op.key, keyAfter(op.key)}); break;
      case OpKind::kClearRange: writes.clearRange({op.key, op.argument}); break;
      case OpKind::kAtomic:
        if (!writes.points.count(op.key)) writes.points[op.key] = writes.inCleared(op.key);
        break;
    }
  }
  std::set<std::string> cuts{std::string(), kSpaceEnd};
  for (const Range& piece : known_) {
    cuts.insert(piece.begin);
    cuts.insert(piece.end);
    for (auto it = database.lower_bound(piece.begin); it != database.end() && it->first < piece.end;
         ++it) {
      cuts.insert(it->first);
      cuts.insert(keyAfter(it->first));
    }
  }
  for (const auto& [key, independent] : writes.points) {
    cuts.insert(key);
    cuts.insert(keyAfter(key));
  }
  for (const Range& r : writes.cleared) {
    cuts.insert(r.begin);
    cuts.insert(r.end);
  }
  std::vector<Segment> out;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
    const std::string& begin = *it;
    const std::string& end = *std::next(it);
    SegmentKind cached = SegmentKind::kUnknown;
    for (const Range& piece : known_) {
      if (piece.begin <= begin && end <= piece.end) {
        cached = database.count(begin) && end == keyAfter(begin) ? SegmentKind::kRow
                                                                 : SegmentKind::kEmpty;
      }
    }
    SegmentKind kind = cached;
    auto point = writes.points.find(begin);
    if (point != writes.points.end() && end == keyAfter(begin)) {
      // A written key: its value is known, or needs the database's.
      kind = point->second || cached != SegmentKind::kUnknown ? SegmentKind::kRow
                                                              : SegmentKind::kUnknown;
    } else if (writes.inCleared(begin)) {
      kind = SegmentKind::kEmpty;
    }
    out.push_back(Segment{begin, end, kind});
  }
  return out;
}

bool ModelTransaction::touchesKnown(const std::string& begin, const std::string& end) const {
  // [begin, end] with `end` included: a piece or a write there matters too.
  auto meets = [&](const std::string& from, const std::string& to) {
    return from <= end && begin < to;
  };
  for (const Range& piece : known_) {
    if (meets(piece.begin, piece.end)) return true;
  }
  for (const Op& op : ops_) {
    const std::string to = op.kind == OpKind::kClearRange ? op.argument : keyAfter(op.key);
    if (op.key < to && meets(op.key, to)) return true;
  }
  return false;
}

namespace {

// Takes rows from `rows` (in read order) until a limit is reached, counting like
// GetRangeLimits::decrement.
struct Tally {
  int rowLimit;
  int byteLimit;
  int rows = 0;
  int bytes = 0;
  bool limited = false;

  void take(std::vector<std::pair<std::string, std::string>>& out,
            const std::pair<std::string, std::string>& row) {
    out.push_back(row);
    ++rows;
    bytes += static_cast<int>(row.first.size() + row.second.size()) + 8;
    if ((rowLimit >= 0 && rows >= rowLimit) || (byteLimit >= 0 && bytes >= byteLimit)) {
      limited = true;
    }
  }
};

}  // namespace

std::vector<std::pair<std::string, std::string>> ModelTransaction::readPlain(
    const std::string& begin, const std::string& end, bool reverse, int rowLimit, int byteLimit,
    bool* more) {
  const KeyValueMap map = view();
  std::vector<std::pair<std::string, std::string>> candidates(map.lower_bound(begin),
                                                              map.lower_bound(end));
  if (reverse) std::reverse(candidates.begin(), candidates.end());
  std::vector<std::pair<std::string, std::string>> rows;
  Tally tally{rowLimit, byteLimit};
  for (const auto& row : candidates) {
    if (tally.limited) break;
    tally.take(rows, row);
  }
  *more = tally.limited;
  if (!*more) {
    remember({begin, end});
  } else if (!reverse) {
    remember({begin, keyAfter(rows.back().first)});
  } else {
    remember({rows.back().first, end});
  }
  return rows;
}

std::vector<std::pair<std::string, std::string>> ModelTransaction::readByRule(
    const std::string& begin, const std::string& end, bool reverse, int rowLimit, int byteLimit,
    bool* more) {
  const KeyValueMap view = this->view();
  const KeyValueMap& database = db_->state(readVersion_);
  std::vector<std::pair<std::string, std::string>> rows;
  Tally tally{rowLimit, byteLimit};
  int requests = 0;
  std::string position = reverse ? end : begin;
  while (true) {
    const std::vector<Segment> segs = segments();
    auto indexOf = [&](const std::string& key) {  // the segment holding key
      for (size_t i = 0; i < segs.size(); ++i) {
        if (segs[i].begin <= key && key < segs[i].end) return i;
      }
      throw std::logic_error("no segment holds the key");
    };
    auto indexBelow = [&](const std::string& key) {  // the segment just below key
      for (size_t i = 0; i < segs.size(); ++i) {
        if (segs[i].begin < key && key <= segs[i].end) return i;
      }
      throw std::logic_error("no segment lies below the key");
    };
    // The known stretch from `position`: up to the first unknown segment.
    std::string stop = reverse ? begin : end;
    if (!reverse) {
      for (const Segment& seg : segs) {
        if (seg.kind == SegmentKind::kUnknown && seg.end > position) {
          stop = std::min(std::max(seg.begin, position), end);
          break;
        }
      }
      for (auto it = view.lower_bound(position); it != view.lower_bound(stop) && !tally.limited;
           ++it) {
        tally.take(rows, *it);
      }
    } else {
      for (auto seg = segs.rbegin(); seg != segs.rend(); ++seg) {
        if (seg->kind == SegmentKind::kUnknown && seg->begin < position) {
          stop = std::max(std::min(seg->end, position), begin);
          break;
        }
      }
      for (auto it = std::make_reverse_iterator(view.lower_bound(position));
           it != std::make_reverse_iterator(view.lower_bound(stop)) && !tally.limited; ++it) {
        tally.take(rows, *it);
      }
    }
    if (tally.limited) {
      *more = true;
      return rows;
    }
    if (reverse ? stop <= begin : stop >= end) {
      *more = false;
      return rows;
    }
    // At an unknown piece: a read with a byte limit that holds a row stops here.
    if (byteLimit >= 0 && tally.rows > 0) {
      *more = true;
      return rows;
    }
    // Walk from the unknown piece towards the range's other end to see how far to read.
    const int clearLimit = requests == 0 ? 0 : 1 << std::min(requests, 20);
    int iterations = clearLimit + kWalkSegments;
    int singleEmpty = 0;
    std::string readBegin, readEnd;
    auto oneKey = [](const std::string& from, const std::string& to) {
      return to == keyAfter(from);
    };
    if (!reverse) {
      size_t endIndex = indexOf(end);
      while (segs[endIndex].kind == SegmentKind::kEmpty && segs[endIndex].end < kMaxKey) {
        ++endIndex;
      }
      const std::string endKey = endIndex == indexOf(end) ? end : segs[endIndex].begin;
      size_t i = indexOf(stop);
      if (i < endIndex) {
        std::string emptyBegin = segs[i].begin;
        std::string segEnd = segs[i].end;
        while (i != endIndex && --iterations >= 0) {
          if (segs[i].kind == SegmentKind::kEmpty) {
            if (!oneKey(emptyBegin, segEnd)) break;
            ++singleEmpty;
          } else {
            emptyBegin = segEnd;
          }
          ++i;
          segEnd = segs[i].end;
        }
        while (segs[i].kind != SegmentKind::kUnknown) --i;
      }
      readBegin = stop;
      readEnd = i != endIndex ? segs[i].end : endKey;
    } else {
      size_t beginIndex = indexOf(begin);
      while (segs[beginIndex].kind == SegmentKind::kEmpty && segs[beginIndex].end < kMaxKey) {
        ++beginIndex;
      }
      const std::string beginKey = beginIndex == indexOf(begin) ? begin : segs[beginIndex].begin;
      size_t i = indexBelow(stop);  // the unknown segment just below `stop`
      if (i > beginIndex) {
        std::string segBegin = segs[i].begin;
        std::string emptyEnd = segs[i].end;
        while (i != beginIndex && --iterations >= 0) {
          if (segs[i].kind == SegmentKind::kEmpty) {
            if (!oneKey(segBegin, emptyEnd)) break;
            ++singleEmpty;
          } else {
            emptyEnd = segBegin;
          }
          --i;
          segBegin = segs[i].begin;
        }
        while (segs[i].kind != SegmentKind::kUnknown) ++i;
      }
      readEnd = stop;
      readBegin = i != beginIndex ? segs[i].begin : beginKey;
    }
    // One read of the database, with the limits the rule gives it.
    const int additional = std::min(singleEmpty, clearLimit);
    const int requestRows = rowLimit < 0 ? -1 : std::max(1, rowLimit - tally.rows) + additional;
    const int minRows = 1 + additional;
    const int64_t requestBytes =
        byteLimit < 0 ? -1
                      : std::min<int64_t>(
                            int64_t{std::max(0, byteLimit - tally.bytes)} << std::min(requests, 20),
                            kReplyByteLimit);
    ++requests;
    std::vector<std::pair<std::string, std::string>> read(database.lower_bound(readBegin),
                                                          database.lower_bound(readEnd));
    if (reverse) std::reverse(read.begin(), read.end());
    int readRows = 0;
    int64_t readBytes = 0;
    bool readMore = false;
    std::string lastKey;
    for (const auto& row : read) {
      ++readRows;
      readBytes += static_cast<int64_t>(row.first.size() + row.second.size()) + 8;
      lastKey = row.first;
      if ((requestRows >= 0 && readRows >= requestRows) ||
          (requestBytes >= 0 && readBytes >= requestBytes && readRows >= minRows)) {
        readMore = true;
        break;
      }
    }
    if (!reverse) {
      remember({readBegin, readMore ? keyAfter(lastKey) : readEnd});
    } else {
      remember({readMore ? lastKey : readBegin, readEnd});
    }
    position = stop;
  }
}

void ModelTransaction::set(const std::string& key, const std::string& value) {
  ops_.push_back({OpKind::kSet, key, value});
  writeConflicts_.push_back({key, keyAfter(key)});
}

void ModelTransaction::clear(const std::string& key) {
  ops_.push_back({OpKind::kClear, key, std::string()});
  writeConflicts_.push_back({key, keyAfter(key)});
}

void ModelTransaction::clearRange(const std::string& begin, const std::string& end) {
  if (begin >= end) return;
  ops_.push_back({OpKind::kClearRange, begin, end});
  writeConflicts_.push_back({begin, end});
}

void ModelTransaction::atomicOp(const std::string& key, const std::string& param, AtomicOp op) {
  ops_.push_back({OpKind::kAtomic, key, param, op});
  writeConflicts_.push_back({key, keyAfter(key)});
}

void ModelTransaction::addReadConflictRange(const std::string& begin, const std::string& end) {
  addReadConflict({begin, end});
}

void ModelTransaction::addWriteConflictRange(const std::string& begin, const std::string& end) {
  if (begin < end) writeConflicts_.push_back({begin, end});
}

bool ModelTransaction::commit() {
  if (ops_.empty() && writeConflicts_.empty()) return true;  // read-only
  for (int64_t version = readVersion_ + 1; version <= db_->latestVersion(); ++version) {
    for (const Range& written : db_->writeConflicts(version)) {
      for (const Range& read : readConflicts_) {
        if (rangesIntersect(read, written)) return false;
      }
    }
  }
  KeyValueMap state = db_->latestState();
  for (const Op& op : ops_) applyOp(state, op);
  db_->appendCommit(std::move(state), writeConflicts_);
  return true;
}

}  // namespace fdb::refmodel
