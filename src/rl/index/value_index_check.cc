// The store checker's check of a VALUE index (index_check.h): a record should have exactly
// the entries its index evaluates to (looked up by the checker's record phase); each entry
// of the index should be produced by its record; a unique index's value held by two records
// should be recorded as a violation of both at P+(7, sk, value..., pk...).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "fdb/error.h"
#include "rl/index/value_index.h"
#include "rl/store/keyspace.h"

namespace rl {
namespace {

std::string printable(const fdb::Tuple& tuple) { return fdb::printable(tuple.pack()); }

class ValueIndexCheck : public IndexCheck {
 public:
  using IndexCheck::IndexCheck;

  std::vector<ExpectedIndexEntry> expectedEntries(const CheckedRecord& record) const override {
    const std::vector<EvaluatedIndexEntry> entries =
        evaluateValueIndex(*index_, *record.type, *record.message, record.version);
    const fdb::Tuple trimmed = index_->trimPrimaryKey(record.primaryKey);
    std::vector<ExpectedIndexEntry> expected;
    for (const EvaluatedIndexEntry& entry : entries) {
      fdb::Bytes key = valueIndexEntryKey(prefix_, entry.key, trimmed);
      if (std::any_of(expected.begin(), expected.end(),
                      [&](const ExpectedIndexEntry& e) { return e.key == key; })) {
        continue;  // a fan-out yielding one entry twice stores it once
      }
      expected.push_back(ExpectedIndexEntry{std::move(key), valueIndexEntryValue(entry),
                                            entry.containsNonUniqueNull});
    }
    return expected;
  }

  bool checkEntries(IndexCheckContext& step, const std::optional<fdb::Bytes>& resumeAt) override {
    const Index& index = *index_;
    const size_t columns = static_cast<size_t>(index.columnSize());
    const bool unique = index.isUnique();
    const fdb::KeyRange all = keyspace::prefixRange(prefix_);
    fdb::Bytes begin = resumeAt.value_or(all.begin);
    UniqueGroup group;
    bool exhausted = false;
    while (!exhausted) {
      const fdb::RangeResult batch = step.readBatch(begin, all.end);
      exhausted = !batch.more;
      std::vector<ScannedEntry> entries;
      std::set<fdb::Tuple> primaryKeys;
      for (const fdb::KeyValueRef& row : batch.rows) {
        ScannedEntry entry{fdb::Bytes(row.key), fdb::Bytes(row.value), {}, {}, {}};
        try {
          const fdb::Tuple tuple =
              fdb::Tuple::unpack(std::string_view(row.key).substr(prefix_.size()));
          if (tuple.size() < columns) throw fdb::Error(fdb::errors::kInvalidTupleIndex);
          for (size_t i = 0; i < columns; ++i) entry.valueKey.append(tuple[i]);
          entry.primaryKey = index.entryPrimaryKey(tuple);
        } catch (const fdb::Error& e) {
          // Counted and reported in order with the others, so not by a step that stops
          // before it.
          entry.undecodable = fmt::format("not an entry of index {}: {}", index.name(), e.what());
          entries.push_back(std::move(entry));
          continue;
        }
        primaryKeys.insert(entry.primaryKey);
        entries.push_back(std::move(entry));
      }
      const std::map<fdb::Tuple, RecordFacts> facts = recordFacts(step, primaryKeys);
      for (const ScannedEntry& entry : entries) {
        if (entry.undecodable) {
          step.countEntry(/*checked=*/false);
          step.problem(CheckProblemKind::kUndecodableKey, entry.key, *entry.undecodable);
          continue;
        }
        // A step ends only where a new value starts (unique) or at any entry (otherwise).
        const bool boundary = !unique || group.members.empty() || entry.valueKey != group.valueKey;
        if (boundary) {
          if (unique) finishGroup(step, group);
          if (step.stopBefore(entry.key)) return false;
          group.valueKey = entry.valueKey;
        }
        step.countEntry(/*checked=*/true);
        const RecordFacts& fact = facts.at(entry.primaryKey);
        const ExpectedIndexEntry* produced = nullptr;
        for (const ExpectedIndexEntry& expected : fact.entries) {
          if (expected.key == entry.key) produced = &expected;
        }
        if (!fact.exists) {
          step.problem(
              CheckProblemKind::kDanglingIndexEntry, entry.key,
              fmt::format("index {} has an entry for primary key {}, which has no record{}",
                          index.name(), printable(entry.primaryKey),
                          fact.versionOnly ? " (only its version is left)" : ""));
          continue;
        }
        if (!fact.readable) continue;  // the record phase reports the record
        if (!fact.covered) {
          step.problem(CheckProblemKind::kDanglingIndexEntry, entry.key,
                       fmt::format("index {} has an entry for record {} of type {}, which it does "
                                   "not index",
                                   index.name(), printable(entry.primaryKey), fact.typeName));
          continue;
        }
        if (produced == nullptr) {
          step.problem(CheckProblemKind::kDanglingIndexEntry, entry.key,
                       fmt::format("index {} has an entry its record {} does not produce",
                                   index.name(), printable(entry.primaryKey)));
          continue;
        }
        if (unique && !produced->containsNonUniqueNull) {
          group.members.emplace_back(entry.primaryKey, entry.key);
        }
      }
    }
    if (unique) finishGroup(step, group);
    return true;
  }

 private:
  // What a record gives this index, for checking entries against it.
  struct RecordFacts {
    bool exists = false;       // it has data (a version alone is no record)
    bool versionOnly = false;  // no data, but its inline version is there
    bool readable = false;
    bool covered = false;
    std::string typeName;
    std::vector<ExpectedIndexEntry> entries;
  };

  // An entry of the index, decoded.
  struct ScannedEntry {
    fdb::Bytes key;
    fdb::Bytes value;
    fdb::Tuple valueKey;  // the index columns
    fdb::Tuple primaryKey;
    std::optional<std::string> undecodable;  // why the key is no entry of the index
  };

  // A run of entries with one value of a unique index.
  struct UniqueGroup {
    fdb::Tuple valueKey;
    std::vector<std::pair<fdb::Tuple, fdb::Bytes>> members;  // primary key, entry key
  };

  // Reads the records of `primaryKeys` and evaluates this index on them.
  std::map<fdb::Tuple, RecordFacts> recordFacts(IndexCheckContext& step,
                                                const std::set<fdb::Tuple>& primaryKeys) const {
    std::map<fdb::Tuple, RecordFacts> facts;
    for (auto& [primaryKey, found] : step.readRecords(primaryKeys)) {
      RecordFacts& fact = facts[primaryKey];
      fact.exists = found.exists;
      fact.versionOnly = found.versionOnly;
      if (!found.record) continue;
      const CheckedRecord& record = *found.record;
      fact.typeName = record.type->name();
      fact.covered = covers(*record.type);
      if (!fact.covered) {
        fact.readable = true;
        continue;
      }
      try {
        fact.entries = expectedEntries(record);
      } catch (const std::exception&) {
        continue;  // the record phase reports it
      }
      fact.readable = true;
    }
    return facts;
  }

  void finishGroup(IndexCheckContext& step, UniqueGroup& group) const {
    if (group.members.size() < 2) {
      group.members.clear();
      return;
    }
    // Recorded violations of this value: (7, sk, value..., pk...).
    fdb::Bytes prefix = violationsPrefix_;
    group.valueKey.packInto(prefix);
    std::set<fdb::Tuple> recorded;
    const size_t columns = group.valueKey.size();
    for (const fdb::KeyValue& row : step.reads().getRangeAll(keyspace::prefixRange(prefix))) {
      try {
        const fdb::Tuple key =
            fdb::Tuple::unpack(std::string_view(row.key).substr(violationsPrefix_.size()));
        fdb::Tuple primaryKey;
        for (size_t i = columns; i < key.size(); ++i) primaryKey.append(key[i]);
        recorded.insert(std::move(primaryKey));
      } catch (const fdb::Error&) {
      }
    }
    std::vector<std::string> unrecorded;
    for (const auto& [primaryKey, key] : group.members) {
      if (!recorded.contains(primaryKey)) unrecorded.push_back(printable(primaryKey));
    }
    if (!unrecorded.empty()) {
      std::vector<std::string> all;
      for (const auto& member : group.members) all.push_back(printable(member.first));
      step.problem(CheckProblemKind::kUniquenessViolation, group.members[1].second,
                   fmt::format("unique index {} has value {} for {} records ({}); not recorded "
                               "as violations: {}",
                               index_->name(), printable(group.valueKey), all.size(),
                               fmt::join(all, ", "), fmt::join(unrecorded, ", ")));
    }
    group.members.clear();
  }
};

}  // namespace

std::unique_ptr<IndexCheck> makeValueIndexCheck(const IndexCheckTarget& target) {
  return std::make_unique<ValueIndexCheck>(target);
}

}  // namespace rl
