#include "engine/reference_model.h"

#include <algorithm>
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
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

std::string ModelTransaction::getKey(const Selector& selector, bool snapshot) {
  const std::string result = resolveSelector(view(), selector);
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

  std::vector<std::pair<std::string, std::string>> candidates;
  if (resolvedBegin < resolvedEnd) {
    candidates.assign(map.lower_bound(resolvedBegin), map.lower_bound(resolvedEnd));
  }
  if (request.reverse) std::reverse(candidates.begin(), candidates.end());

  // GetRangeLimits: rows, bytes (-1 = unlimited), minRows = 1.
  int rowsLeft = request.limit == 0 ? -1 : request.limit;
  int bytesLeft = effectiveByteLimit(request);
  int minRows = 1;
  auto limitReached = [&] { return rowsLeft == 0 || (bytesLeft == 0 && minRows == 0); };
  for (auto& row : candidates) {
    if (limitReached()) break;
    const int size = static_cast<int>(row.first.size() + row.second.size()) + 8;
    out.rows.push_back(std::move(row));
    minRows = std::max(0, minRows - 1);
    if (rowsLeft != -1) --rowsLeft;
    if (bytesLeft != -1) bytesLeft = std::max(0, bytesLeft - size);
  }
  out.more = limitReached();

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
  if (range.empty()) return {};
  const KeyValueMap map = view();
  std::vector<std::pair<std::string, std::string>> rows(map.lower_bound(range.begin),
                                                        map.lower_bound(range.end));
  if (reverse) std::reverse(rows.begin(), rows.end());
  if (limit > 0 && rows.size() > static_cast<size_t>(limit)) rows.resize(limit);
  if (!snapshot) {
    if (limit != 0) throw std::logic_error("getRangeAll: serializable reads need limit 0");
    addReadConflict(range);
  }
  return rows;
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
