// RecordStore's rank-index functions (include/rl/store/record_store.h, "Rank indexes"): each
// finds the RANK index's maintainer (src/rl/index/rank_index.h) and asks it.
#include <fmt/format.h>

#include "rl/index/rank_index.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

RankIndexMaintainer& rankMaintainer(RecordStore::State& state, std::string_view indexName) {
  StoreIndex& storeIndex = state.storeIndex(indexName);
  store::checkScannable(storeIndex);
  auto* maintainer = dynamic_cast<RankIndexMaintainer*>(&state.maintainer(storeIndex));
  if (maintainer == nullptr) {
    throw RecordCoreArgumentException(
        fmt::format("index {} has type {}, not rank", indexName, storeIndex.index->type()));
  }
  return *maintainer;
}

}  // namespace

std::optional<int64_t> RecordStore::rank(std::string_view indexName,
                                         const google::protobuf::Message& record) {
  RankIndexMaintainer& maintainer = rankMaintainer(*state_, indexName);
  const RecordType& type = state_->metaData.recordTypeForDescriptor(*record.GetDescriptor());
  StoreIndex& storeIndex = state_->storeIndex(indexName);
  if (!state_->covers(storeIndex, type)) return std::nullopt;
  return maintainer.rank(IndexedRecord{&record, &type, std::nullopt});
}

std::optional<fdb::Tuple> RecordStore::scoreForRank(std::string_view indexName,
                                                    const fdb::Tuple& group, int64_t rank) {
  return rankMaintainer(*state_, indexName).scoreForRank(group, rank);
}

int64_t RecordStore::rankForScore(std::string_view indexName, const fdb::Tuple& group,
                                  const fdb::Tuple& score) {
  return rankMaintainer(*state_, indexName).rankForScore(group, score);
}

CursorPtr<IndexEntry> RecordStore::scanIndexByRank(std::string_view indexName,
                                                   const TupleRange& rankRange,
                                                   const std::optional<fdb::Bytes>& continuation,
                                                   const ScanProperties& properties) {
  return rankMaintainer(*state_, indexName)
      .scan(IndexScanType::kByRank, rankRange, continuation, properties);
}

CursorPtr<FetchedRecord> RecordStore::scanIndexRecordsByRank(
    std::string_view indexName, const TupleRange& rankRange,
    const std::optional<fdb::Bytes>& continuation, const ScanProperties& properties) {
  std::optional<TupleRange> scores =
      rankMaintainer(*state_, indexName).rankRangeToScoreRange(rankRange);
  if (!scores) return std::make_unique<ListCursor<FetchedRecord>>(std::vector<FetchedRecord>{});
  return store::scanIndexRecords(*state_, state_->storeIndex(indexName), *scores, continuation,
                                 properties, IndexFetchMethod::kScanAndFetch,
                                 IndexOrphanBehavior::kError, 10);
}

}  // namespace rl
