// The store checker's check of a RANK index (index_check.h): its entries are checked as a
// VALUE index's are (value_index_check.cc); then its ranked sets are recomputed from the
// entries and compared: each group's level 0 must hold exactly the group's scores (with their
// number of entries when duplicates are counted), every level must start with the empty key,
// every key of a level above 0 must be on the level below, and its count must be the sum of
// the counts below it up to the level's next key (docs/format.md, "RANK index entries").
// The ranked-set part runs in the step that finishes the entries.
#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "rl/index/rank_index.h"
#include "rl/index/value_index.h"
#include "rl/store/keyspace.h"

namespace rl {
namespace {

using Level = std::map<fdb::Bytes, int64_t>;  // score bytes -> count

struct StoredSet {
  fdb::Bytes firstKey;  // for reports
  std::map<int64_t, Level> levels;
};

fdb::Tuple subTuple(const fdb::Tuple& tuple, size_t begin, size_t end) {
  fdb::Tuple result;
  for (size_t i = begin; i < end && i < tuple.size(); ++i) result.append(tuple.at(i));
  return result;
}

class RankIndexCheck : public IndexCheck {
 public:
  explicit RankIndexCheck(const IndexCheckTarget& target)
      : IndexCheck(target),
        entries_(makeValueIndexCheck(target)),
        config_(rankedSetConfig(*target.index)),
        groupingCount_(static_cast<size_t>(rankGroupingCount(*target.index))) {
    // P+(2, sk) less its (2, sk) is P.
    const size_t suffix = fdb::Tuple{keyspace::kIndex, target.index->subspaceKey()}.pack().size();
    setsPrefix_ = rankedSetPrefix(std::string_view(prefix_).substr(0, prefix_.size() - suffix),
                                  *target.index, fdb::Tuple{});
  }

  std::vector<ExpectedIndexEntry> expectedEntries(const CheckedRecord& record) const override {
    return entries_->expectedEntries(record);
  }

  bool checkEntries(IndexCheckContext& step, const std::optional<fdb::Bytes>& resumeAt) override {
    if (!entries_->checkEntries(step, resumeAt)) return false;
    checkRankedSets(step);
    return true;
  }

 private:
  // Each group's scores (packed) with their number of entries, from the entries.
  std::map<fdb::Bytes, Level> expectedScores(IndexCheckContext& step) const {
    std::map<fdb::Bytes, Level> groups;
    const fdb::KeyRange all = keyspace::prefixRange(prefix_);
    const size_t columns = static_cast<size_t>(index_->columnSize());
    fdb::Bytes begin = all.begin;
    while (true) {
      const fdb::RangeResult batch = step.readBatch(begin, all.end);
      for (const fdb::KeyValueRef& row : batch.rows) {
        fdb::Tuple key;
        try {
          key = fdb::Tuple::unpack(std::string_view(row.key).substr(prefix_.size()));
        } catch (const std::exception&) {
          continue;  // reported by the entries' check
        }
        if (key.size() < columns) continue;
        int64_t& count = groups[subTuple(key, 0, groupingCount_).pack()]
                               [subTuple(key, groupingCount_, columns).pack()];
        count = config_.countDuplicates ? count + 1 : 1;
      }
      if (!batch.more) break;
    }
    return groups;
  }

  // Every ranked set of the index as stored, by group (packed).
  std::map<fdb::Bytes, StoredSet> storedSets(IndexCheckContext& step) {
    std::map<fdb::Bytes, StoredSet> sets;
    const fdb::KeyRange all = keyspace::prefixRange(setsPrefix_);
    fdb::Bytes begin = all.begin;
    while (true) {
      const fdb::RangeResult batch = step.readBatch(begin, all.end);
      for (const fdb::KeyValueRef& row : batch.rows) {
        try {
          const fdb::Tuple key =
              fdb::Tuple::unpack(std::string_view(row.key).substr(setsPrefix_.size()));
          if (key.size() != groupingCount_ + 2) throw std::runtime_error("length");
          StoredSet& set = sets[subTuple(key, 0, groupingCount_).pack()];
          if (set.firstKey.empty()) set.firstKey.assign(row.key);
          set.levels[key.getInt(groupingCount_)][key.getBytes(groupingCount_ + 1)] =
              RankedSet::decodeCount(row.value);
        } catch (const std::exception& e) {
          step.problem(CheckProblemKind::kBadRankedSet, row.key,
                       fmt::format("index {}: not a ranked-set key (group..., level, score) with "
                                   "an 8-byte count ({})",
                                   index_->name(), e.what()));
        }
      }
      if (!batch.more) break;
    }
    return sets;
  }

  void checkRankedSets(IndexCheckContext& step) {
    const std::map<fdb::Bytes, Level> expected = expectedScores(step);
    const std::map<fdb::Bytes, StoredSet> stored = storedSets(step);
    for (const auto& [group, scores] : expected) {
      if (!stored.contains(group)) {
        step.problem(CheckProblemKind::kBadRankedSet, setsPrefix_ + group,
                     fmt::format("index {}: group {} has {} score(s) but no ranked set",
                                 index_->name(), fdb::printable(group), scores.size()));
      }
    }
    for (const auto& [group, set] : stored) {
      auto scores = expected.find(group);
      checkSet(step, group, set, scores == expected.end() ? Level{} : scores->second);
    }
  }

  void checkSet(IndexCheckContext& step, const fdb::Bytes& group, const StoredSet& set,
                const Level& scores) {
    const fdb::Bytes groupPrefix = setsPrefix_ + group;
    auto report = [&](int64_t level, const fdb::Bytes& score, std::string message) {
      step.problem(CheckProblemKind::kBadRankedSet,
                   RankedSet::levelKey(groupPrefix, static_cast<int>(level), score),
                   fmt::format("index {}, group {}, level {}: {}", index_->name(),
                               fdb::printable(group), level, message));
    };
    for (int level = 0; level < config_.nlevels; ++level) {
      auto it = set.levels.find(level);
      if (it == set.levels.end() || !it->second.contains(fdb::Bytes())) {
        report(level, fdb::Bytes(), "the level's first (empty) key is missing");
      }
    }
    for (const auto& [level, keys] : set.levels) {
      if (level < 0 || level >= config_.nlevels) {
        report(level, keys.begin()->first,
               fmt::format("a level outside 0..{}", config_.nlevels - 1));
      }
    }
    // Level 0: the scores of the entries.
    const Level empty;
    auto levelAt = [&](int64_t level) -> const Level& {
      auto it = set.levels.find(level);
      return it == set.levels.end() ? empty : it->second;
    };
    const Level& zero = levelAt(0);
    for (const auto& [score, count] : scores) {
      auto it = zero.find(score);
      if (it == zero.end()) {
        report(0, score,
               fmt::format("score {} of {} entr(ies) is missing", fdb::printable(score), count));
      } else if (it->second != count) {
        report(0, score,
               fmt::format("score {} counts {}, but {} entr(ies) have it", fdb::printable(score),
                           it->second, count));
      }
    }
    for (const auto& [score, count] : zero) {
      if (score.empty()) {
        if (count != 0) report(0, score, fmt::format("the empty key counts {}, not 0", count));
      } else if (!scores.contains(score)) {
        report(0, score,
               fmt::format("score {} (count {}) has no entry", fdb::printable(score), count));
      }
    }
    // Levels above: each count sums the level below up to the next key.
    for (int level = 1; level < config_.nlevels; ++level) {
      const Level& above = levelAt(level);
      const Level& below = levelAt(level - 1);
      for (auto it = above.begin(); it != above.end(); ++it) {
        if (!below.contains(it->first)) {
          report(level, it->first,
                 fmt::format("key {} is not on level {}", fdb::printable(it->first), level - 1));
        }
        auto next = std::next(it);
        int64_t sum = 0;
        for (auto b = below.lower_bound(it->first);
             b != below.end() && (next == above.end() || b->first < next->first); ++b) {
          sum += b->second;
        }
        if (sum != it->second) {
          report(level, it->first,
                 fmt::format("key {} counts {}, but level {} has {} from it to the next key",
                             fdb::printable(it->first), it->second, level - 1, sum));
        }
      }
    }
  }

  std::unique_ptr<IndexCheck> entries_;
  RankedSet::Config config_;
  size_t groupingCount_;
  fdb::Bytes setsPrefix_;  // P+(3, sk)
};

}  // namespace

std::unique_ptr<IndexCheck> makeRankIndexCheck(const IndexCheckTarget& target) {
  return std::make_unique<RankIndexCheck>(target);
}

}  // namespace rl
