// The store checker's check of an aggregate index (index_check.h): the record phase hands
// each record to expectedEntries, which remembers the record's entries (by primary key, so a
// retried step counts a record once) and asks for no lookups; the index phase recomputes
// every group's aggregate from them and compares it with the group's stored value:
//
//   count, count_not_null, sum     equal (a group with no key holds 0)
//   count_updates                  at least the group's records (every one was saved once)
//   min_ever_* / max_ever_*        at most the least / at least the greatest value now held
//
// A stored group no record gives must hold 0 (count, count_not_null, sum); the _ever kinds
// and count_updates remember deleted records, so such groups are fine for them. The check
// keeps one entry list per record in memory; it is exact on a quiescent store.
#include <fmt/format.h>
#include <map>
#include <set>

#include "fdb/error.h"
#include "rl/index/aggregate_index.h"
#include "rl/index/value_index.h"

namespace rl {
namespace {

std::string printable(const fdb::Tuple& tuple) { return fdb::printable(tuple.pack()); }

class AggregateIndexCheck : public IndexCheck {
 public:
  AggregateIndexCheck(const IndexCheckTarget& target, AggregateKind kind)
      : IndexCheck(target),
        kind_(kind),
        groupingCount_(static_cast<size_t>(target.index->rootExpression().groupingCount())) {}

  std::vector<ExpectedIndexEntry> expectedEntries(const CheckedRecord& record) const override {
    std::vector<EvaluatedIndexEntry>& entries = recordEntries_[record.primaryKey];
    entries = evaluateValueIndex(*index_, *record.type, *record.message, record.version);
    expected_.reset();  // recomputed for the index phase
    return {};
  }

  bool checkEntries(IndexCheckContext& step, const std::optional<fdb::Bytes>& resumeAt) override {
    if (!expected_) computeExpected();
    if (!resumeAt) seen_.clear();
    // [P+(2, sk), P+(2, sk) + 0xff): the ungrouped key is P+(2, sk) itself.
    fdb::Bytes begin = resumeAt.value_or(prefix_);
    const fdb::Bytes end = prefix_ + '\xff';
    bool exhausted = false;
    while (!exhausted) {
      const fdb::RangeResult batch = step.readBatch(begin, end);
      exhausted = !batch.more;
      for (const fdb::KeyValueRef& row : batch.rows) {
        if (step.stopBefore(row.key)) return false;
        step.countEntry(/*checked=*/true);
        fdb::Tuple group;
        fdb::Tuple stored;
        try {
          group = fdb::Tuple::unpack(std::string_view(row.key).substr(prefix_.size()));
          stored = decodeAggregateValue(kind_, row.value);
        } catch (const fdb::Error& e) {
          step.problem(CheckProblemKind::kUndecodableKey, row.key,
                       fmt::format("not a group of index {}: {}", index_->name(), e.what()));
          continue;
        }
        seen_.insert(group);
        checkGroup(step, row.key, group, stored);
      }
    }
    for (const auto& [group, expected] : *expected_) {
      if (seen_.count(group) > 0 || zeroWhenAbsent(expected)) continue;
      fdb::Bytes key = prefix_;
      group.packInto(key);
      step.problem(CheckProblemKind::kMissingIndexEntry, key,
                   fmt::format("index {} lacks group {} (its records give {})", index_->name(),
                               printable(group), printable(expected.value)));
    }
    return true;
  }

 private:
  struct Expected {
    fdb::Tuple value;  // as decodeAggregateValue gives a stored one
    int64_t records = 0;
  };

  bool counts() const { return aggregateKindCounts(kind_); }
  bool isMin() const {
    return kind_ == AggregateKind::kMinEverLong || kind_ == AggregateKind::kMinEverTuple;
  }

  // A group of count, count_not_null or sum whose total is 0 may have no key.
  bool zeroWhenAbsent(const Expected& expected) const {
    return counts() && kind_ != AggregateKind::kCountUpdates && expected.value.getInt(0) == 0;
  }

  void computeExpected() {
    expected_.emplace();
    for (const auto& [primaryKey, entries] : recordEntries_) {
      for (const EvaluatedIndexEntry& entry : entries) {
        fdb::Tuple group;
        fdb::Tuple grouped;
        for (size_t i = 0; i < entry.key.size(); ++i) {
          (i < groupingCount_ ? group : grouped).append(entry.key[i]);
        }
        add((*expected_)[group], grouped, entry.containsNonUniqueNull);
      }
    }
  }

  void add(Expected& expected, const fdb::Tuple& grouped, bool nonUniqueNull) {
    const bool hasNull = std::any_of(grouped.begin(), grouped.end(),
                                     [](const fdb::TupleElement& e) { return e.isNull(); });
    const bool first = expected.value.empty();
    switch (kind_) {
      case AggregateKind::kCount:
      case AggregateKind::kCountUpdates:
      case AggregateKind::kCountNotNull:
        if (first) expected.value = fdb::Tuple{int64_t{0}};
        if (kind_ == AggregateKind::kCountNotNull && hasNull && nonUniqueNull) return;
        expected.value = fdb::Tuple{expected.value.getInt(0) + 1};
        break;
      case AggregateKind::kSum:
        if (first) expected.value = fdb::Tuple{int64_t{0}};
        if (hasNull) return;
        expected.value =
            fdb::Tuple{static_cast<int64_t>(static_cast<uint64_t>(expected.value.getInt(0)) +
                                            static_cast<uint64_t>(grouped.getInt(0)))};
        break;
      default: {
        if (hasNull &&
            (kind_ == AggregateKind::kMinEverLong || kind_ == AggregateKind::kMaxEverLong)) {
          return;
        }
        if (first || (isMin() ? grouped < expected.value : grouped > expected.value)) {
          expected.value = grouped;
        }
      }
    }
    expected.records += 1;
  }

  void checkGroup(IndexCheckContext& step, std::string_view key, const fdb::Tuple& group,
                  const fdb::Tuple& stored) {
    auto it = expected_->find(group);
    if (it == expected_->end()) {
      if (counts() && kind_ != AggregateKind::kCountUpdates && stored.getInt(0) != 0) {
        step.problem(CheckProblemKind::kDanglingIndexEntry, key,
                     fmt::format("index {} group {} holds {}, but no record is in it",
                                 index_->name(), printable(group), printable(stored)));
      }
      return;
    }
    const fdb::Tuple& expected = it->second.value;
    if (expected.empty()) return;  // only nulls, which these kinds skip
    bool wrong = false;
    std::string rule;
    switch (kind_) {
      case AggregateKind::kCount:
      case AggregateKind::kCountNotNull:
      case AggregateKind::kSum:
        wrong = stored != expected;
        rule = "";
        break;
      case AggregateKind::kCountUpdates:
        wrong = stored.getInt(0) < expected.getInt(0);
        rule = "at least ";
        break;
      default:
        wrong = isMin() ? stored > expected : stored < expected;
        rule = isMin() ? "at most " : "at least ";
    }
    if (wrong) {
      step.problem(CheckProblemKind::kWrongIndexValue, key,
                   fmt::format("index {} group {} holds {}; its records give {}{}", index_->name(),
                               printable(group), printable(stored), rule, printable(expected)));
    }
  }

  const AggregateKind kind_;
  const size_t groupingCount_;
  // Each record's entries (index key columns), by primary key.
  mutable std::map<fdb::Tuple, std::vector<EvaluatedIndexEntry>> recordEntries_;
  mutable std::optional<std::map<fdb::Tuple, Expected>> expected_;
  std::set<fdb::Tuple> seen_;  // groups met by the index phase so far
};

}  // namespace

std::unique_ptr<IndexCheck> makeAggregateIndexCheck(const IndexCheckTarget& target,
                                                    AggregateKind kind) {
  return std::make_unique<AggregateIndexCheck>(target, kind);
}

}  // namespace rl
