#include "engine/conflicting_keys.h"

#include <algorithm>

namespace fdb::engine {
namespace {

// Sorts `ranges` and merges those that overlap or touch (FoundationDB's client keeps them in a
// coalesced range map, where touching ranges of equal value are one).
std::vector<KeyRange> merged(std::vector<KeyRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const KeyRange& a, const KeyRange& b) { return a.begin < b.begin; });
  std::vector<KeyRange> result;
  for (KeyRange& range : ranges) {
    if (!result.empty() && range.begin <= result.back().end) {
      if (range.end > result.back().end) result.back().end = std::move(range.end);
    } else {
      result.push_back(std::move(range));
    }
  }
  return result;
}

Bytes withPrefix(std::string_view key) {
  Bytes prefixed;
  prefixed.reserve(ConflictingKeys::kPrefix.size() + key.size());
  prefixed.append(ConflictingKeys::kPrefix).append(key);
  return prefixed;
}

}  // namespace

const Bytes ConflictingKeys::kPrefix = "\xff\xff/transaction/conflicting_keys/";
const Bytes ConflictingKeys::kEnd = "\xff\xff/transaction/conflicting_keys/\xff\xff";
const Bytes ConflictingKeys::kModuleBegin = "\xff\xff/transaction/";
const Bytes ConflictingKeys::kModuleEnd = "\xff\xff/transaction0";

ConflictingKeys ConflictingKeys::reported(const KeyRangesView& readConflicts,
                                          std::span<const size_t> conflicted, bool coalesced) {
  std::vector<bool> isConflicting(readConflicts.size(), false);
  for (size_t index : conflicted) isConflicting[index] = true;
  ConflictingKeys keys;
  if (!coalesced) {
    std::vector<KeyRange> ranges;
    for (size_t index : conflicted) {
      KeyRangeView range = readConflicts[index];
      ranges.push_back(KeyRange{Bytes(range.begin), Bytes(range.end)});
    }
    keys.ranges_ = merged(std::move(ranges));
    return keys;
  }
  // Every read conflict range with whether it conflicted, merged as they would have been
  // sent: a merged range is reported whole when any of its parts conflicted.
  struct Part {
    KeyRangeView range;
    bool conflicting;
  };
  std::vector<Part> parts;
  for (size_t i = 0; i < readConflicts.size(); ++i) {
    KeyRangeView range = readConflicts[i];
    if (range.begin < range.end) parts.push_back(Part{range, isConflicting[i]});
  }
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return a.range.begin < b.range.begin; });
  for (size_t i = 0; i < parts.size();) {
    std::string_view begin = parts[i].range.begin;
    std::string_view end = parts[i].range.end;
    bool conflicting = parts[i].conflicting;
    for (++i; i < parts.size() && parts[i].range.begin <= end; ++i) {
      end = std::max(end, parts[i].range.end);
      conflicting = conflicting || parts[i].conflicting;
    }
    if (conflicting) keys.ranges_.push_back(KeyRange{Bytes(begin), Bytes(end)});
  }
  return keys;
}

std::vector<KeyValue> ConflictingKeys::keys() const {
  std::vector<KeyValue> rows;
  for (const KeyRange& range : ranges_) {
    rows.push_back(KeyValue{withPrefix(range.begin), "1"});
    rows.push_back(KeyValue{withPrefix(range.end), "0"});
  }
  // Only what lies in [kPrefix, kEnd) can be read there (a range ending at \xff\xff, the end
  // of the system keys, has no readable end).
  std::erase_if(rows, [](const KeyValue& row) { return row.key >= kEnd; });
  return rows;
}

std::optional<Bytes> ConflictingKeys::value(std::string_view key) const {
  for (const KeyValue& row : keys()) {
    if (row.key == key) return row.value;
  }
  return std::nullopt;
}

RangeResult ConflictingKeys::rows(KeySelectorRef begin, KeySelectorRef end, size_t rowLimit,
                                  int64_t byteLimit, bool reverse) const {
  const std::vector<KeyValue> all = keys();
  // FoundationDB's special key space resolves each selector over the module's keys; one that
  // runs off the module stops at its boundary.
  auto resolve = [&](KeySelectorRef selector) -> Bytes {
    Bytes key(selector.key);
    if (selector.orEqual) key.push_back('\0');
    auto first = std::lower_bound(all.begin(), all.end(), key,
                                  [](const KeyValue& row, const Bytes& k) { return row.key < k; });
    int64_t index = (first - all.begin()) + static_cast<int64_t>(selector.offset) - 1;
    if (selector.offset == 1) return key;
    if (index < 0) return kModuleBegin;
    if (index >= static_cast<int64_t>(all.size())) return kModuleEnd;
    return all[static_cast<size_t>(index)].key;
  };
  const Bytes beginKey = resolve(begin);
  const Bytes endKey = resolve(end);
  RangeResult result;
  if (beginKey >= endKey) return result;
  RangeRowsBuilder& rows = threadRangeRowsBuilder();
  rows.clear();
  int64_t bytes = 0;
  auto take = [&](const KeyValue& row) {
    rows.append(row.key, row.value);
    bytes += static_cast<int64_t>(row.key.size() + row.value.size() + 8);
    return (rowLimit > 0 && rows.size() >= rowLimit) || (byteLimit >= 0 && bytes >= byteLimit);
  };
  auto inRange = [&](const KeyValue& row) { return row.key >= beginKey && row.key < endKey; };
  bool limited = false;
  if (!reverse) {
    for (auto it = all.begin(); it != all.end() && !limited; ++it) {
      if (inRange(*it)) limited = take(*it);
    }
  } else {
    for (auto it = all.rbegin(); it != all.rend() && !limited; ++it) {
      if (inRange(*it)) limited = take(*it);
    }
  }
  result.rows = rows.build();
  result.more = limited;
  return result;
}

}  // namespace fdb::engine
