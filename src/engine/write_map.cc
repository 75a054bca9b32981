#include "engine/write_map.h"

#include <algorithm>
#include <cstring>

#include "engine/atomic.h"

namespace fdb::engine {
namespace {

// The arena's first block: room for a small transaction's keys, values and map nodes.
constexpr size_t kInitialArenaBytes = 1024;

std::optional<Bytes> owned(const std::optional<std::string_view>& value) {
  if (!value) return std::nullopt;
  return Bytes(*value);
}

Bytes after(std::string_view key) {
  Bytes next;
  next.reserve(key.size() + 1);
  next.append(key).push_back('\0');
  return next;
}

void raise(Bytes& bound, std::string_view candidate) {
  if (bound < candidate) bound.assign(candidate);
}
void lower(Bytes& bound, std::string_view candidate) {
  if (candidate < bound) bound.assign(candidate);
}

}  // namespace

WriteMap::WriteMap()
    : arena_(kInitialArenaBytes), points_(&arena_), cleared_(&arena_), mutations_(&arena_) {}

void WriteMap::reset() {
  points_.clear();
  cleared_.clear();
  unreadableRanges_.clear();
  madeUnreadable_ = false;
  mutations_.clear();
  mutations_.shrink_to_fit();
  arena_.release();
}

std::string_view WriteMap::keep(std::string_view bytes) {
  if (bytes.empty()) return std::string_view();
  char* copy = static_cast<char*>(arena_.allocate(bytes.size(), 1));
  std::memcpy(copy, bytes.data(), bytes.size());
  return std::string_view(copy, bytes.size());
}

void WriteMap::set(std::string_view key, std::string_view value) {
  std::string_view storedKey = keep(key);
  std::string_view storedValue = keep(value);
  points_.insert_or_assign(storedKey, Point{true, false, storedValue, {}});
  mutations_.push_back(Mutation{Mutation::Kind::kSet, storedKey, storedValue});
}

void WriteMap::clearRange(std::string_view begin, std::string_view end) {
  if (begin >= end) return;
  std::string_view storedBegin = keep(begin);
  std::string_view storedEnd = keep(end);
  mutations_.push_back(Mutation{Mutation::Kind::kClearRange, storedBegin, storedEnd});
  points_.erase(points_.lower_bound(begin), points_.lower_bound(end));
  // Merge with every cleared range it overlaps or touches.
  std::string_view newBegin = storedBegin;
  std::string_view newEnd = storedEnd;
  auto it = cleared_.upper_bound(begin);
  if (it != cleared_.begin() && std::prev(it)->second >= begin) --it;
  while (it != cleared_.end() && it->first <= newEnd) {
    newBegin = std::min(newBegin, it->first);
    newEnd = std::max(newEnd, it->second);
    it = cleared_.erase(it);
  }
  cleared_.emplace(newBegin, newEnd);
}

void WriteMap::atomicOp(std::string_view key, MutationType type, std::string_view param) {
  auto it = points_.find(key);
  std::string_view storedKey = it != points_.end() ? it->first : keep(key);
  std::string_view storedParam = keep(param);
  mutations_.push_back(Mutation{Mutation::Kind::kAtomic, storedKey, storedParam, type});
  auto keepResult = [&](const std::optional<Bytes>& result) -> std::optional<std::string_view> {
    if (!result) return std::nullopt;
    return keep(*result);
  };
  if (it == points_.end()) {
    if (clearedRangeEnd(key)) {
      points_.emplace(storedKey,
                      Point{true, false, keepResult(applyAtomicOp(type, std::nullopt, param)), {}});
    } else {
      points_.emplace(storedKey, Point{false, false, std::nullopt, {AtomicOp{type, storedParam}}});
    }
    return;
  }
  Point& point = it->second;
  if (point.unreadable) return;  // still depends on the versionstamp
  if (point.known) {
    point.value = keepResult(applyAtomicOp(type, owned(point.value), param));
  } else {
    point.ops.push_back(AtomicOp{type, storedParam});
  }
}

void WriteMap::setVersionstampedValue(std::string_view key, std::string_view operand) {
  std::string_view storedKey = keep(key);
  mutations_.push_back(Mutation{Mutation::Kind::kAtomic, storedKey, keep(operand),
                                MutationType::kSetVersionstampedValue});
  madeUnreadable_ = true;
  Point point;
  point.unreadable = true;
  points_.insert_or_assign(storedKey, std::move(point));
}

void WriteMap::setVersionstampedKey(std::string_view operand, std::string_view value,
                                    std::string_view unreadableBegin,
                                    std::string_view unreadableEnd) {
  mutations_.push_back(Mutation{Mutation::Kind::kAtomic, keep(operand), keep(value),
                                MutationType::kSetVersionstampedKey});
  if (unreadableBegin < unreadableEnd) {
    madeUnreadable_ = true;
    unreadableRanges_.emplace_back(keep(unreadableBegin), keep(unreadableEnd));
  }
}

bool WriteMap::touchesWrites(std::string_view begin, std::string_view end) const {
  if (begin >= end) return false;
  auto point = points_.lower_bound(begin);
  if (point != points_.end() && point->first < end) return true;
  auto cleared = cleared_.lower_bound(begin);
  if (cleared != cleared_.end() && cleared->first < end) return true;
  if (cleared != cleared_.begin() && std::prev(cleared)->second > begin) return true;
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (rangeBegin < end && begin < rangeEnd) return true;
  }
  return false;
}

bool WriteMap::touchesUnreadable(std::string_view begin, std::string_view end) const {
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (rangeBegin < end && begin < rangeEnd) return true;
  }
  for (auto it = points_.lower_bound(begin); it != points_.end() && it->first < end; ++it) {
    if (it->second.unreadable) return true;
  }
  return false;
}

std::optional<Bytes> WriteMap::firstUnreadable(std::string_view begin, std::string_view end) const {
  if (!madeUnreadable_ || begin >= end) return std::nullopt;
  std::optional<Bytes> first;
  auto consider = [&](std::string_view key) {
    if (!first || key < *first) first = Bytes(key);
  };
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (rangeBegin < end && begin < rangeEnd) consider(std::max(begin, rangeBegin));
  }
  for (auto it = points_.lower_bound(begin); it != points_.end() && it->first < end; ++it) {
    if (it->second.unreadable) {
      consider(it->first);
      break;
    }
  }
  return first;
}

std::optional<Bytes> WriteMap::lastUnreadableEnd(std::string_view begin,
                                                 std::string_view end) const {
  if (!madeUnreadable_ || begin >= end) return std::nullopt;
  std::optional<Bytes> last;
  auto consider = [&](Bytes key) {
    if (!last || *last < key) last = std::move(key);
  };
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (rangeBegin < end && begin < rangeEnd) consider(Bytes(std::min(end, rangeEnd)));
  }
  for (auto it = points_.lower_bound(end); it != points_.begin();) {
    --it;
    if (it->first < begin) break;
    if (it->second.unreadable) {
      consider(after(it->first));
      break;
    }
  }
  return last;
}

namespace {

WriteMap::Piece::Kind pointKind(bool unreadable, bool known) {
  if (unreadable) return WriteMap::Piece::Kind::kUnreadable;
  return known ? WriteMap::Piece::Kind::kIndependent : WriteMap::Piece::Kind::kDependent;
}

}  // namespace

WriteMap::Piece WriteMap::pieceAt(std::string_view key) const {
  if (auto point = points_.find(key); point != points_.end()) {
    return Piece{pointKind(point->second.unreadable, point->second.known), Bytes(key), after(key)};
  }
  Bytes begin;
  Bytes end(kKeySpaceEnd);
  bool cleared = false;
  bool unreadable = false;
  auto nextPoint = points_.upper_bound(key);
  if (nextPoint != points_.end()) lower(end, nextPoint->first);
  if (nextPoint != points_.begin()) raise(begin, after(std::prev(nextPoint)->first));
  auto nextCleared = cleared_.upper_bound(key);
  if (nextCleared != cleared_.end()) lower(end, nextCleared->first);
  if (nextCleared != cleared_.begin()) {
    auto range = std::prev(nextCleared);
    if (key < range->second) {
      cleared = true;
      raise(begin, range->first);
      lower(end, range->second);
    } else {
      raise(begin, range->second);
    }
  }
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (rangeBegin <= key && key < rangeEnd) {
      unreadable = true;
      raise(begin, rangeBegin);
      lower(end, rangeEnd);
    } else if (rangeEnd <= key) {
      raise(begin, rangeEnd);
    } else {
      lower(end, rangeBegin);
    }
  }
  Piece::Kind kind = unreadable ? Piece::Kind::kUnreadable
                     : cleared  ? Piece::Kind::kCleared
                                : Piece::Kind::kUnmodified;
  return Piece{kind, std::move(begin), std::move(end)};
}

WriteMap::Piece WriteMap::pieceBefore(std::string_view key) const {
  if (key.empty()) return pieceAt(key);
  if (key.back() == '\0') {
    std::string_view written = key.substr(0, key.size() - 1);
    if (auto point = points_.find(written); point != points_.end()) {
      return Piece{pointKind(point->second.unreadable, point->second.known), Bytes(written),
                   Bytes(key)};
    }
  }
  Bytes begin;
  Bytes end(kKeySpaceEnd);
  bool cleared = false;
  bool unreadable = false;
  auto nextPoint = points_.lower_bound(key);
  if (nextPoint != points_.end()) lower(end, nextPoint->first);
  if (nextPoint != points_.begin()) raise(begin, after(std::prev(nextPoint)->first));
  auto nextCleared = cleared_.lower_bound(key);
  if (nextCleared != cleared_.end()) lower(end, nextCleared->first);
  if (nextCleared != cleared_.begin()) {
    auto range = std::prev(nextCleared);
    if (key <= range->second) {
      cleared = true;
      raise(begin, range->first);
      lower(end, range->second);
    } else {
      raise(begin, range->second);
    }
  }
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (rangeBegin < key && key <= rangeEnd) {
      unreadable = true;
      raise(begin, rangeBegin);
      lower(end, rangeEnd);
    } else if (rangeEnd < key) {
      raise(begin, rangeEnd);
    } else {
      lower(end, rangeBegin);
    }
  }
  Piece::Kind kind = unreadable ? Piece::Kind::kUnreadable
                     : cleared  ? Piece::Kind::kCleared
                                : Piece::Kind::kUnmodified;
  return Piece{kind, std::move(begin), std::move(end)};
}

WriteMap::KeyState WriteMap::lookup(std::string_view key) const {
  auto it = points_.find(key);
  if (it != points_.end()) {
    if (it->second.unreadable) return KeyState{KeyState::Kind::kUnreadable, std::nullopt, nullptr};
    if (it->second.known) return KeyState{KeyState::Kind::kKnown, it->second.value, nullptr};
    return KeyState{KeyState::Kind::kPendingOps, std::nullopt, &it->second.ops};
  }
  for (const auto& [rangeBegin, rangeEnd] : unreadableRanges_) {
    if (key >= rangeBegin && key < rangeEnd) {
      return KeyState{KeyState::Kind::kUnreadable, std::nullopt, nullptr};
    }
  }
  if (clearedRangeEnd(key)) return KeyState{KeyState::Kind::kKnown, std::nullopt, nullptr};
  return KeyState{};
}

std::optional<Bytes> WriteMap::applyOps(const std::vector<AtomicOp>& ops,
                                        std::optional<Bytes> databaseValue) {
  for (const AtomicOp& op : ops) databaseValue = applyAtomicOp(op.type, databaseValue, op.param);
  return databaseValue;
}

std::optional<std::string_view> WriteMap::clearedRangeEnd(std::string_view key) const {
  auto it = cleared_.upper_bound(key);
  if (it == cleared_.begin()) return std::nullopt;
  --it;
  if (key < it->second) return it->second;
  return std::nullopt;
}

std::optional<std::string_view> WriteMap::clearedRangeBegin(std::string_view key) const {
  auto it = cleared_.upper_bound(key);
  if (it == cleared_.begin()) return std::nullopt;
  --it;
  if (key < it->second) return it->first;
  return std::nullopt;
}

absl::InlinedVector<KeyRange, 1> WriteMap::subtractKnown(std::string_view begin,
                                                         std::string_view end) const {
  absl::InlinedVector<KeyRange, 1> out;
  if (begin >= end) return out;
  // Walk the excluded intervals in key order: cleared ranges and known keys [k, k\0).
  Bytes cursor(begin);  // start of the part not yet excluded
  auto emitUpTo = [&](std::string_view stop) {
    std::string_view upTo = std::min(stop, end);
    if (std::string_view(cursor) < upTo) out.push_back(KeyRange{cursor, Bytes(upTo)});
  };
  auto clearedIt = cleared_.upper_bound(begin);
  if (clearedIt != cleared_.begin() && std::prev(clearedIt)->second > begin) --clearedIt;
  auto pointIt = points_.lower_bound(begin);
  while (std::string_view(cursor) < end) {
    // The next excluded interval: whichever of the two kinds comes first.
    while (pointIt != points_.end() && (!pointIt->second.known || pointIt->second.unreadable)) {
      ++pointIt;
    }
    bool haveCleared = clearedIt != cleared_.end() && clearedIt->first < end;
    bool havePoint = pointIt != points_.end() && pointIt->first < end;
    if (!haveCleared && !havePoint) break;
    Bytes excludedBegin, excludedEnd;
    if (haveCleared && (!havePoint || clearedIt->first <= pointIt->first)) {
      excludedBegin = Bytes(clearedIt->first);
      excludedEnd = Bytes(clearedIt->second);
      ++clearedIt;
    } else {
      excludedBegin = Bytes(pointIt->first);
      excludedEnd = excludedBegin + '\0';
      ++pointIt;
    }
    if (excludedEnd <= cursor) continue;
    emitUpTo(excludedBegin);
    cursor = std::max(cursor, excludedEnd);
  }
  if (std::string_view(cursor) < end) out.push_back(KeyRange{cursor, Bytes(end)});
  return out;
}

}  // namespace fdb::engine
