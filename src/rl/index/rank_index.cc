#include "rl/index/rank_index.h"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <utility>

#include "rl/index/value_index.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/record_core_exception.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_store_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

constexpr std::string_view kNLevelsOption = "rankNLevels";
constexpr std::string_view kHashFunctionOption = "rankHashFunction";
constexpr std::string_view kCountDuplicatesOption = "rankCountDuplicates";

fdb::Tuple subTuple(const fdb::Tuple& tuple, size_t begin, size_t end) {
  fdb::Tuple result;
  for (size_t i = begin; i < end && i < tuple.size(); ++i) result.append(tuple.at(i));
  return result;
}

CursorPtr<IndexEntry> emptyEntries() {
  return std::make_unique<ListCursor<IndexEntry>>(std::vector<IndexEntry>{});
}

}  // namespace

RankedSet::Config rankedSetConfig(const Index& index) {
  RankedSet::Config config;
  if (std::optional<std::string> name = index.option(kHashFunctionOption)) {
    std::optional<RankedSet::HashFunction> function = RankedSet::hashFunctionNamed(*name);
    if (!function) {
      throw MetaDataException(
          fmt::format("index {}: {} {} is not a hash function (JDK, CRC, MURMUR3, RANDOM)",
                      index.name(), kHashFunctionOption, *name));
    }
    config.hashFunction = *function;
  }
  if (std::optional<std::string> levels = index.option(kNLevelsOption)) {
    int value = 0;
    const auto [end, error] =
        std::from_chars(levels->data(), levels->data() + levels->size(), value);
    if (error != std::errc() || end != levels->data() + levels->size() || value < 2 ||
        value > RankedSet::kMaxLevels) {
      throw MetaDataException(fmt::format("index {}: {} {} is not a number of levels from 2 to {}",
                                          index.name(), kNLevelsOption, *levels,
                                          RankedSet::kMaxLevels));
    }
    config.nlevels = value;
  }
  config.countDuplicates = index.booleanOption(kCountDuplicatesOption, false);
  return config;
}

int rankGroupingCount(const Index& index) {
  const KeyExpression& root = index.rootExpression();
  if (root.kind() == KeyExpression::Kind::kGrouping) return root.groupingCount();
  // Read as loading metadata wraps it: grouping the last column.
  return std::max(root.columnSize() - 1, 0);
}

fdb::Bytes rankedSetPrefix(std::string_view storePrefix, const Index& index,
                           const fdb::Tuple& group) {
  fdb::Bytes prefix(storePrefix);
  fdb::Tuple{keyspace::kIndexSecondarySpace, index.subspaceKey()}.packInto(prefix);
  group.packInto(prefix);
  return prefix;
}

RankIndexMaintainer::RankIndexMaintainer(RecordStore::State& store, const StoreIndex& index)
    : IndexMaintainer(store, index),
      entries_(valueIndexMaintainerFactory()->create(store, index)),
      config_(rankedSetConfig(*index.index)),
      groupingCount_(rankGroupingCount(*index.index)),
      setsPrefix_(rankedSetPrefix(store.prefix(), *index.index, fdb::Tuple{})) {}

std::vector<EvaluatedIndexEntry> RankIndexMaintainer::evaluateIndex(
    const IndexedRecord& record) const {
  return entries_->evaluateIndex(record);
}

RankedSet RankIndexMaintainer::rankedSet(const fdb::Tuple& group) {
  fdb::Bytes prefix = setsPrefix_;
  group.packInto(prefix);
  return RankedSet(store_.context->transaction(), std::move(prefix), config_);
}

void RankIndexMaintainer::updateRankedSet(const fdb::Tuple& entryKey, bool remove) {
  const size_t groupSize = static_cast<size_t>(groupingCount_);
  const fdb::Tuple group = subTuple(entryKey, 0, groupSize);
  const fdb::Bytes score = subTuple(entryKey, groupSize, entryKey.size()).pack();
  // add() initializes a new set itself (as Java's init: the levels' first keys), finding it
  // without them in the reads it makes anyway.
  RankedSet set = rankedSet(group);
  if (!remove) {
    set.add(score);
    return;
  }
  if (!config_.countDuplicates) {
    // The score stays while another record's entry has it.
    fdb::Bytes valuePrefix = storeIndex_.subspacePrefix;
    entryKey.packInto(valuePrefix);
    fdb::RangeOptions options;
    options.limit = 1;
    const fdb::RangeResult rest =
        store_.context->transaction().getRange(keyspace::prefixRange(valuePrefix), options).get();
    if (!rest.rows.empty()) return;
  }
  const bool removed = set.remove(score);
  // While the index is being built, a record not yet indexed has no score to remove.
  const bool writeOnly = storeIndex_.state == IndexState::kWriteOnly ||
                         storeIndex_.state == IndexState::kWriteOnlyWithQueue;
  if (!removed && !writeOnly) {
    throw RecordCoreException(
        fmt::format("index {}: score {} was not present in the ranked set of group {}",
                    index().name(), fdb::printable(score), fdb::printable(group.pack())));
  }
}

void RankIndexMaintainer::writeEntries(const fdb::Tuple& primaryKey,
                                       const std::vector<EvaluatedIndexEntry>& oldEntries,
                                       const std::vector<EvaluatedIndexEntry>& newEntries) {
  RecordStore::State& state = store_;
  fdb::Transaction& tr = state.context->transaction();
  const fdb::Tuple trimmed = index().trimPrimaryKey(primaryKey);
  for (const EvaluatedIndexEntry& entry : oldEntries) {
    tr.clear(valueIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed));
    state.counters.indexEntriesCleared += 1;
  }
  for (const EvaluatedIndexEntry& entry : newEntries) {
    const fdb::Bytes key = valueIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed);
    const fdb::Bytes value = valueIndexEntryValue(entry);
    if (key.size() > state.options.indexKeySizeLimit) {
      throw IndexEntryTooLargeException(fmt::format(
          "index entry is too large to be stored in FDB key: {} bytes for index {} (limit {})",
          key.size(), index().name(), state.options.indexKeySizeLimit));
    }
    if (value.size() > state.options.indexValueSizeLimit) {
      throw IndexEntryTooLargeException(fmt::format(
          "index entry is too large to be stored in FDB value: {} bytes for index {} (limit {})",
          value.size(), index().name(), state.options.indexValueSizeLimit));
    }
    tr.set(key, value);
    state.countWrite(key, value);
    state.counters.indexEntriesWritten += 1;
  }
}

void RankIndexMaintainer::update(const fdb::Tuple& primaryKey, const IndexedRecord& before,
                                 const IndexedRecord& after) {
  std::vector<EvaluatedIndexEntry> oldEntries = evaluateIndex(before);
  std::vector<EvaluatedIndexEntry> newEntries = evaluateIndex(after);
  // Entries the record keeps keep their scores.
  if (!oldEntries.empty() && !newEntries.empty()) {
    std::vector<EvaluatedIndexEntry> common;
    for (const EvaluatedIndexEntry& entry : oldEntries) {
      if (std::find(newEntries.begin(), newEntries.end(), entry) != newEntries.end()) {
        common.push_back(entry);
      }
    }
    auto isCommon = [&](const EvaluatedIndexEntry& entry) {
      return std::find(common.begin(), common.end(), entry) != common.end();
    };
    std::erase_if(oldEntries, isCommon);
    std::erase_if(newEntries, isCommon);
  }
  if (oldEntries.empty() && newEntries.empty()) return;
  const bool writeOnly = storeIndex_.state == IndexState::kWriteOnly ||
                         storeIndex_.state == IndexState::kWriteOnlyWithQueue;
  if (config_.countDuplicates && writeOnly) {
    // While the index is built, a record may be indexed twice (by a save and by the build) or
    // not yet: a counted score changes only with the entry's own presence, so counts stay exact.
    const fdb::Tuple trimmed = index().trimPrimaryKey(primaryKey);
    fdb::Transaction& tr = store_.context->transaction();
    auto present = [&](const EvaluatedIndexEntry& entry) {
      return tr.get(valueIndexEntryKey(storeIndex_.subspacePrefix, entry.key, trimmed))
          .get()
          .has_value();
    };
    std::erase_if(oldEntries, [&](const EvaluatedIndexEntry& entry) { return !present(entry); });
    std::erase_if(newEntries, present);
  }
  // The entries first (checking uniqueness), so the removal below sees what remains.
  if (index().isUnique()) {
    entries_->update(primaryKey, before, after);
  } else {
    writeEntries(primaryKey, oldEntries, newEntries);
  }
  for (const EvaluatedIndexEntry& entry : oldEntries) updateRankedSet(entry.key, true);
  for (const EvaluatedIndexEntry& entry : newEntries) updateRankedSet(entry.key, false);
}

std::optional<TupleRange> RankIndexMaintainer::rankRangeToScoreRange(const TupleRange& rankRange) {
  const size_t groupSize = static_cast<size_t>(groupingCount_);
  fdb::Tuple group;
  if (groupSize > 0) {
    if (!rankRange.low || rankRange.low->size() < groupSize || !rankRange.high ||
        rankRange.high->size() < groupSize) {
      throw RecordCoreException(
          fmt::format("index {}: a rank range must name the group ({} column(s)) at both ends",
                      index().name(), groupSize));
    }
    group = subTuple(*rankRange.low, 0, groupSize);
    if (group != subTuple(*rankRange.high, 0, groupSize)) {
      throw RecordCoreException(
          fmt::format("index {}: a rank range cannot cross groups ({} to {})", index().name(),
                      fdb::printable(group.pack()),
                      fdb::printable(subTuple(*rankRange.high, 0, groupSize).pack())));
    }
  }
  auto extractRank = [&](const std::optional<fdb::Tuple>& bound) -> std::optional<int64_t> {
    if (!bound || bound->size() == groupSize) return std::nullopt;
    if (bound->size() != groupSize + 1) {
      throw RecordCoreException(
          fmt::format("index {}: a rank range bound is (group..., rank): {} elements, not {}",
                      index().name(), bound->size(), groupSize + 1));
    }
    // A null rank is no bound (a scan's "[null]" below an upper bound alone).
    if (bound->isNull(groupSize)) return std::nullopt;
    return bound->getInt(groupSize);
  };
  // A missing rank is -1 (low: from the first; high: to the last).
  const int64_t lowRank = rankRange.lowEndpoint == EndpointType::kTreeStart
                              ? -1
                              : extractRank(rankRange.low).value_or(-1);
  const std::optional<int64_t> highRank =
      rankRange.highEndpoint == EndpointType::kTreeEnd ? std::nullopt : extractRank(rankRange.high);
  const bool fromBeginning = lowRank < 0;
  const EndpointType lowEndpoint =
      fromBeginning ? EndpointType::kRangeInclusive : rankRange.lowEndpoint;
  const EndpointType highEndpoint = rankRange.highEndpoint;
  const int64_t high = highRank.value_or(-1);
  if (highRank && (high < 0 || (highEndpoint == EndpointType::kRangeExclusive && high == 0))) {
    return std::nullopt;  // below rank 0
  }
  if (highRank && highEndpoint == EndpointType::kRangeExclusive &&
      lowEndpoint == EndpointType::kRangeExclusive && lowRank == high) {
    return std::nullopt;
  }
  if (fromBeginning && !highRank) {
    return groupSize > 0 ? TupleRange::allOf(group) : TupleRange::all();
  }
  // A set not initialized yet has no keys: getNth finds none.
  RankedSet set = rankedSet(group);
  std::optional<fdb::Bytes> lowScore = set.getNth(fromBeginning ? 0 : lowRank);
  if (!lowScore) return std::nullopt;  // past the last rank
  std::optional<fdb::Bytes> highScore;
  if (highRank) highScore = set.getNth(high);
  TupleRange range;
  range.low = group;
  range.low->appendAll(fdb::Tuple::unpack(*lowScore));
  range.lowEndpoint = lowEndpoint;
  if (highScore) {
    range.high = group;
    range.high->appendAll(fdb::Tuple::unpack(*highScore));
    range.highEndpoint = highEndpoint;
  } else if (groupSize > 0) {
    range.high = group;
    range.highEndpoint = EndpointType::kRangeInclusive;
  } else {
    range.highEndpoint = EndpointType::kTreeEnd;
  }
  return range;
}

CursorPtr<IndexEntry> RankIndexMaintainer::scan(IndexScanType type, const TupleRange& range,
                                                const std::optional<fdb::Bytes>& continuation,
                                                const ScanProperties& properties) {
  if (type == IndexScanType::kByValue) {
    return entries_->scan(type, range, continuation, properties);
  }
  if (type != IndexScanType::kByRank) {
    throw RecordCoreArgumentException(fmt::format("index {} of type rank cannot be scanned {}",
                                                  index().name(), indexScanTypeName(type)));
  }
  std::optional<TupleRange> scores = rankRangeToScoreRange(range);
  if (!scores) return emptyEntries();
  return entries_->scan(IndexScanType::kByValue, *scores, continuation, properties);
}

CursorPtr<IndexedRawRecord> RankIndexMaintainer::scanRecords(
    const TupleRange& range, const std::optional<fdb::Bytes>& continuation,
    const ScanProperties& properties, IndexFetchMethod method, IndexOrphanBehavior orphanBehavior,
    size_t pipelineSize) {
  return entries_->scanRecords(range, continuation, properties, method, orphanBehavior,
                               pipelineSize);
}

std::optional<std::string> RankIndexMaintainer::cannotDeleteWhere(const fdb::Tuple& prefix) const {
  // The ranked sets are per group: a prefix must name whole groups.
  if (prefix.size() > static_cast<size_t>(groupingCount_)) {
    return fmt::format("groups by {} column(s), fewer than the prefix's {}", groupingCount_,
                       prefix.size());
  }
  return entries_->cannotDeleteWhere(prefix);
}

void RankIndexMaintainer::deleteWhere(const fdb::Tuple& prefix) {
  entries_->deleteWhere(prefix);
  // The ranked sets of the groups the prefix names, including one stored at the prefix itself.
  const fdb::Bytes sets = rankedSetPrefix(store_.prefix(), index(), prefix);
  fdb::Bytes end = sets;
  end.push_back('\xff');
  store_.context->clearRange(fdb::KeyRange{sets, end});
}

bool RankIndexMaintainer::canEvaluateAggregate(const IndexAggregateFunction& function) const {
  return (function.name == "count_distinct" || function.name == "score_for_rank" ||
          function.name == "rank_for_score") &&
         function.operand == index().rootExpression();
}

fdb::Tuple RankIndexMaintainer::evaluateAggregate(const IndexAggregateFunction& function,
                                                  const TupleRange& range,
                                                  IsolationLevel isolation) {
  const bool equality = range.low && range.high && *range.low == *range.high &&
                        range.lowEndpoint == EndpointType::kRangeInclusive &&
                        range.highEndpoint == EndpointType::kRangeInclusive;
  if (!canEvaluateAggregate(function) || !equality) {
    return IndexMaintainer::evaluateAggregate(function, range, isolation);
  }
  const size_t groupSize = static_cast<size_t>(groupingCount_);
  const fdb::Tuple group = subTuple(*range.low, 0, groupSize);
  const fdb::Tuple values = subTuple(*range.low, groupSize, range.low->size());
  if (function.name == "count_distinct") return fdb::Tuple{size(group)};
  if (function.name == "score_for_rank") {
    std::optional<fdb::Tuple> score = scoreForRank(group, values.getInt(0));
    return score ? *score : fdb::Tuple{};
  }
  return fdb::Tuple{rankForScore(group, values)};
}

std::optional<int64_t> RankIndexMaintainer::rank(const IndexedRecord& record) {
  const std::vector<EvaluatedIndexEntry> entries = evaluateIndex(record);
  if (entries.empty()) return std::nullopt;
  if (entries.size() > 1) {
    throw RecordCoreException(fmt::format("index {}: the record has {} entries, so no one rank",
                                          index().name(), entries.size()));
  }
  const fdb::Tuple& key = entries.front().key;
  const size_t groupSize = static_cast<size_t>(groupingCount_);
  RankedSet set = rankedSet(subTuple(key, 0, groupSize));
  return set.rank(subTuple(key, groupSize, key.size()).pack(), true);
}

std::optional<fdb::Tuple> RankIndexMaintainer::scoreForRank(const fdb::Tuple& group, int64_t rank) {
  std::optional<fdb::Bytes> score = rankedSet(group).getNth(rank);
  if (!score) return std::nullopt;
  return fdb::Tuple::unpack(*score);
}

int64_t RankIndexMaintainer::rankForScore(const fdb::Tuple& group, const fdb::Tuple& score) {
  return rankedSet(group).rank(score.pack(), false).value_or(0);
}

int64_t RankIndexMaintainer::size(const fdb::Tuple& group) { return rankedSet(group).size(); }

namespace {

class RankIndexMaintainerFactory : public IndexMaintainerFactory {
 public:
  std::string_view type() const override { return Index::kRank; }

  void validate(const Index& index, const RecordMetaData&) const override {
    const KeyExpression& root = index.rootExpression();
    if (root.versionColumns() > 0) {
      throw MetaDataException(
          fmt::format("index {} of type rank holds a record version ({}); a rank index cannot",
                      index.name(), root.toString()));
    }
    const int grouped = root.kind() == KeyExpression::Kind::kGrouping
                            ? root.groupedCount()
                            : std::min(root.columnSize(), 1);
    if (grouped < 1) {
      throw MetaDataException(
          fmt::format("index {} of type rank ranks no column ({}): it needs at least one score",
                      index.name(), root.toString()));
    }
    rankedSetConfig(index);  // throws for a bad option
  }

  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    return std::make_unique<RankIndexMaintainer>(store, index);
  }

  std::unique_ptr<IndexCheck> createCheck(const IndexCheckTarget& target) const override {
    return makeRankIndexCheck(target);
  }

  // Its entries are a VALUE index's on the whole key, so comparisons and sorts of the
  // grouped and ranked fields plan onto it as onto a VALUE index (as the Java Record
  // Layer's planner plans a rank index without a rank comparison).
  bool plannableAsValueScan() const override { return true; }
};

}  // namespace

std::shared_ptr<const IndexMaintainerFactory> rankIndexMaintainerFactory() {
  return std::make_shared<RankIndexMaintainerFactory>();
}

}  // namespace rl
