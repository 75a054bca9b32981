#include "engine/conflicting_keys.h"

#include <algorithm>

namespace fdb::engine {
namespace {

// Sorts `ranges` and merges those that overlap or touch (FoundationDB's client keeps them in a
// coalesced range map, where touching ranges of equal value are one).
std::vector<KeyRange> mergedRanges(std::vector<KeyRange> ranges) {
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

ConflictingKeys ConflictingKeys::reported(const KeyRangesView& readConflicts,
                                          std::span<const size_t> conflicted, bool merged) {
  std::vector<KeyRange> ranges;
  if (!merged) {
    for (size_t index : conflicted) {
      KeyRangeView range = readConflicts[index];
      ranges.push_back(KeyRange{Bytes(range.begin), Bytes(range.end)});
    }
    ranges = mergedRanges(std::move(ranges));
  } else {
    // Every read conflict range with whether it conflicted, merged as they would have been
    // sent: a merged range is reported whole when any of its parts conflicted.
    std::vector<bool> isConflicting(readConflicts.size(), false);
    for (size_t index : conflicted) isConflicting[index] = true;
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
      if (conflicting) ranges.push_back(KeyRange{Bytes(begin), Bytes(end)});
    }
  }
  ConflictingKeys keys;
  for (const KeyRange& range : ranges) {
    keys.rows_.push_back(KeyValue{withPrefix(range.begin), "1"});
    keys.rows_.push_back(KeyValue{withPrefix(range.end), "0"});
  }
  // Only what lies in [kPrefix, kEnd) can be read there (a range ending at \xff\xff, the end
  // of the system keys, has no readable end).
  std::erase_if(keys.rows_, [](const KeyValue& row) { return row.key >= kEnd; });
  return keys;
}

}  // namespace fdb::engine
