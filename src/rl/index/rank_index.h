// RANK index maintenance (docs/format.md, "RANK index entries"; docs/indexes.md): the Java
// Record Layer's rank index. Its root is a grouping (a root that is not one is read as
// grouping the last column, as loading metadata wraps it): group columns, then score columns.
// It keeps two things:
//
//   - entries exactly as a VALUE index on the root would: P+(2, sk) + (group..., score...,
//     trimmed pk...) -> empty (unique rank indexes are checked as unique VALUE indexes are);
//   - one ranked set per group (ranked_set.h) at P+(3, sk, group...): its keys are the packed
//     score tuples, so a score's rank within its group is a few range reads away.
//
// A save removes the old record's scores from their ranked sets (when no other entry has the
// same group and score, unless rankCountDuplicates) and adds the new record's. Scans BY_VALUE
// read the entries; scans BY_RANK turn a rank range (group..., rank) into the score range
// between the scores at those ranks and scan that. Options (as Java's): rankNLevels (2..8,
// default 6), rankHashFunction (JDK, CRC, MURMUR3, RANDOM; default JDK), rankCountDuplicates
// (default false).
//
//   auto& rank = dynamic_cast<RankIndexMaintainer&>(state.maintainer(storeIndex));
//   std::optional<fdb::Tuple> top = rank.scoreForRank(fdb::Tuple{"game-1"}, 0);
//
// Thread-safety: as IndexMaintainer.
#pragma once

#include <memory>
#include <optional>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/index/index_check.h"
#include "rl/index/index_maintainer.h"
#include "rl/index/ranked_set.h"
#include "rl/metadata/index.h"

namespace rl {

// The factory of RANK index maintainers.
std::shared_ptr<const IndexMaintainerFactory> rankIndexMaintainerFactory();

// The index's ranked-set configuration from its options. MetaDataException for an option
// that does not parse.
RankedSet::Config rankedSetConfig(const Index& index);
// The number of leading group columns of a rank index's key.
int rankGroupingCount(const Index& index);
// P+(3, sk) + group packed: where the ranked set of `group` lives, for the store prefix P.
fdb::Bytes rankedSetPrefix(std::string_view storePrefix, const Index& index,
                           const fdb::Tuple& group);

class RankIndexMaintainer : public IndexMaintainer {
 public:
  RankIndexMaintainer(RecordStore::State& store, const StoreIndex& index);

  std::vector<EvaluatedIndexEntry> evaluateIndex(const IndexedRecord& record) const override;
  void update(const fdb::Tuple& primaryKey, const IndexedRecord& before,
              const IndexedRecord& after) override;
  // BY_VALUE: the entries over `range` (group..., score...). BY_RANK: `range` is over
  // (group..., rank), both ends in one group; the entries whose scores have those ranks.
  CursorPtr<IndexEntry> scan(IndexScanType type, const TupleRange& range,
                             const std::optional<fdb::Bytes>& continuation,
                             const ScanProperties& properties) override;
  CursorPtr<IndexedRawRecord> scanRecords(const TupleRange& range,
                                          const std::optional<fdb::Bytes>& continuation,
                                          const ScanProperties& properties, IndexFetchMethod method,
                                          IndexOrphanBehavior orphanBehavior,
                                          size_t pipelineSize) override;
  std::optional<std::string> cannotDeleteWhere(const fdb::Tuple& prefix) const override;
  void deleteWhere(const fdb::Tuple& prefix) override;
  // count_distinct (the ranked set's size), score_for_rank, rank_for_score over an equality
  // range (group..., argument).
  bool canEvaluateAggregate(const IndexAggregateFunction& function) const override;
  fdb::Tuple evaluateAggregate(const IndexAggregateFunction& function, const TupleRange& range,
                               IsolationLevel isolation) override;

  int groupingCount() const { return groupingCount_; }
  const RankedSet::Config& config() const { return config_; }

  // The rank of `record`'s score within its group; nullopt when the record has no entry.
  std::optional<int64_t> rank(const IndexedRecord& record);
  // The score of rank `rank` in `group`, nullopt past the end.
  std::optional<fdb::Tuple> scoreForRank(const fdb::Tuple& group, int64_t rank);
  // The rank `score` has in `group`, or would have if it were there.
  int64_t rankForScore(const fdb::Tuple& group, const fdb::Tuple& score);
  // The number of scores in `group`'s ranked set.
  int64_t size(const fdb::Tuple& group);
  // The score range (group..., score...) a rank range (group..., rank) covers; nullopt when
  // it covers nothing. RecordCoreException when the range's ends are not in one group.
  std::optional<TupleRange> rankRangeToScoreRange(const TupleRange& rankRange);

 private:
  RankedSet rankedSet(const fdb::Tuple& group);
  void updateRankedSet(const fdb::Tuple& entryKey, bool remove);
  // Clears and sets entries as a VALUE index does (a unique index goes through entries_).
  void writeEntries(const fdb::Tuple& primaryKey,
                    const std::vector<EvaluatedIndexEntry>& oldEntries,
                    const std::vector<EvaluatedIndexEntry>& newEntries);

  std::unique_ptr<IndexMaintainer> entries_;  // the VALUE maintainer of the entries
  RankedSet::Config config_;
  int groupingCount_;
  fdb::Bytes setsPrefix_;  // P+(3, sk)
};

// The store checker's check of a RANK index (rank_index_check.cc).
std::unique_ptr<IndexCheck> makeRankIndexCheck(const IndexCheckTarget& target);

}  // namespace rl
