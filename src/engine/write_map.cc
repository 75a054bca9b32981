#include "engine/write_map.h"

#include <algorithm>

#include "engine/atomic.h"

namespace fdb::engine {

void WriteMap::set(std::string_view key, std::string_view value) {
  points_.insert_or_assign(Bytes(key), Point{true, false, Bytes(value), {}});
  mutations_.push_back(Mutation{Mutation::Kind::kSet, Bytes(key), Bytes(value)});
}

void WriteMap::clearRange(std::string_view begin, std::string_view end) {
  if (begin >= end) return;
  mutations_.push_back(Mutation{Mutation::Kind::kClearRange, Bytes(begin), Bytes(end)});
  points_.erase(points_.lower_bound(begin), points_.lower_bound(end));
  // Merge with every cleared range it overlaps or touches.
  Bytes newBegin(begin);
  Bytes newEnd(end);
  auto it = cleared_.upper_bound(begin);
  if (it != cleared_.begin() && std::prev(it)->second >= begin) --it;
  while (it != cleared_.end() && it->first <= newEnd) {
    newBegin = std::min(newBegin, it->first);
    newEnd = std::max(newEnd, it->second);
    it = cleared_.erase(it);
  }
  cleared_.emplace(std::move(newBegin), std::move(newEnd));
}

void WriteMap::atomicOp(std::string_view key, MutationType type, std::string_view param) {
  mutations_.push_back(Mutation{Mutation::Kind::kAtomic, Bytes(key), Bytes(param), type});
  auto it = points_.find(key);
  if (it == points_.end()) {
    if (clearedRangeEnd(key)) {
      points_.emplace(Bytes(key), Point{true, false, applyAtomicOp(type, std::nullopt, param), {}});
    } else {
      points_.emplace(Bytes(key),
                      Point{false, false, std::nullopt, {AtomicOp{type, Bytes(param)}}});
    }
    return;
  }
  Point& point = it->second;
  if (point.unreadable) return;  // still depends on the versionstamp
  if (point.known) {
    point.value = applyAtomicOp(type, point.value, param);
  } else {
    point.ops.push_back(AtomicOp{type, Bytes(param)});
  }
}

void WriteMap::setVersionstampedValue(std::string_view key, std::string_view operand) {
  mutations_.push_back(Mutation{Mutation::Kind::kAtomic, Bytes(key), Bytes(operand),
                                MutationType::kSetVersionstampedValue});
  Point point;
  point.unreadable = true;
  points_.insert_or_assign(Bytes(key), std::move(point));
}

void WriteMap::setVersionstampedKey(std::string_view operand, std::string_view value,
                                    KeyRange unreadable) {
  mutations_.push_back(Mutation{Mutation::Kind::kAtomic, Bytes(operand), Bytes(value),
                                MutationType::kSetVersionstampedKey});
  if (unreadable.begin < unreadable.end) unreadableRanges_.push_back(std::move(unreadable));
}

bool WriteMap::touchesWrites(std::string_view begin, std::string_view end) const {
  if (begin >= end) return false;
  auto point = points_.lower_bound(begin);
  if (point != points_.end() && point->first < end) return true;
  auto cleared = cleared_.lower_bound(begin);
  if (cleared != cleared_.end() && cleared->first < end) return true;
  if (cleared != cleared_.begin() && std::prev(cleared)->second > begin) return true;
  for (const KeyRange& range : unreadableRanges_) {
    if (range.begin < end && begin < range.end) return true;
  }
  return false;
}

bool WriteMap::touchesUnreadable(std::string_view begin, std::string_view end) const {
  for (const KeyRange& range : unreadableRanges_) {
    if (range.begin < end && begin < range.end) return true;
  }
  for (auto it = points_.lower_bound(begin); it != points_.end() && it->first < end; ++it) {
    if (it->second.unreadable) return true;
  }
  return false;
}

namespace {
const std::optional<Bytes> kAbsent;
}  // namespace

WriteMap::KeyState WriteMap::lookup(std::string_view key) const {
  auto it = points_.find(key);
  if (it != points_.end()) {
    if (it->second.unreadable) return KeyState{KeyState::Kind::kUnreadable, nullptr, nullptr};
    if (it->second.known) return KeyState{KeyState::Kind::kKnown, &it->second.value, nullptr};
    return KeyState{KeyState::Kind::kPendingOps, nullptr, &it->second.ops};
  }
  for (const KeyRange& range : unreadableRanges_) {
    if (range.contains(key)) return KeyState{KeyState::Kind::kUnreadable, nullptr, nullptr};
  }
  if (clearedRangeEnd(key)) return KeyState{KeyState::Kind::kKnown, &kAbsent, nullptr};
  return KeyState{};
}

std::optional<Bytes> WriteMap::applyOps(const std::vector<AtomicOp>& ops,
                                        std::optional<Bytes> databaseValue) {
  for (const AtomicOp& op : ops) databaseValue = applyAtomicOp(op.type, databaseValue, op.param);
  return databaseValue;
}

std::optional<Bytes> WriteMap::clearedRangeEnd(std::string_view key) const {
  auto it = cleared_.upper_bound(key);
  if (it == cleared_.begin()) return std::nullopt;
  --it;
  if (key < it->second) return it->second;
  return std::nullopt;
}

std::optional<Bytes> WriteMap::clearedRangeBegin(std::string_view key) const {
  auto it = cleared_.upper_bound(key);
  if (it == cleared_.begin()) return std::nullopt;
  --it;
  if (key < it->second) return it->first;
  return std::nullopt;
}

std::vector<KeyRange> WriteMap::subtractKnown(std::string_view begin, std::string_view end) const {
  std::vector<KeyRange> out;
  if (begin >= end) return out;
  // Walk the excluded intervals in key order: cleared ranges and known keys [k, k\0).
  Bytes cursor(begin);  // start of the part not yet excluded
  auto emitUpTo = [&](const Bytes& stop) {
    if (cursor < stop) out.push_back(KeyRange{cursor, std::min(stop, Bytes(end))});
  };
  auto clearedIt = cleared_.upper_bound(begin);
  if (clearedIt != cleared_.begin() && std::prev(clearedIt)->second > begin) --clearedIt;
  auto pointIt = points_.lower_bound(begin);
  while (cursor < end) {
    // The next excluded interval starting at or after... whichever of the two comes first.
    while (pointIt != points_.end() && (!pointIt->second.known || pointIt->second.unreadable)) {
      ++pointIt;
    }
    bool haveCleared = clearedIt != cleared_.end() && clearedIt->first < end;
    bool havePoint = pointIt != points_.end() && pointIt->first < end;
    if (!haveCleared && !havePoint) break;
    Bytes excludedBegin, excludedEnd;
    if (haveCleared && (!havePoint || clearedIt->first <= pointIt->first)) {
      excludedBegin = clearedIt->first;
      excludedEnd = clearedIt->second;
      ++clearedIt;
    } else {
      excludedBegin = pointIt->first;
      excludedEnd = pointIt->first + '\0';
      ++pointIt;
    }
    if (excludedEnd <= cursor) continue;
    emitUpTo(excludedBegin);
    cursor = std::max(cursor, excludedEnd);
  }
  if (cursor < end) out.push_back(KeyRange{cursor, Bytes(end)});
  return out;
}

}  // namespace fdb::engine
