#include "rl/index/index_scan_facts.h"

#include <memory>
#include <span>
#include <utility>

#include "rl/index/remote_fetch_mapper.h"
#include "rl/store/record_store_state.h"

namespace rl {

IndexScanFacts indexScanFacts(const RecordStore::State& state, const StoreIndex& storeIndex) {
  const Index& index = *storeIndex.index;
  IndexScanFacts facts;
  facts.index = &index;
  facts.storePrefix = state.subspace().key();
  facts.recordsSubspace = state.recordsSubspace;
  facts.indexSubspace = fdb::Subspace::fromBytes(storeIndex.subspacePrefix);
  if (state.oldVersionFormat()) facts.legacyVersionSubspace = state.legacyVersionSubspace();
  facts.columnSize = index.columnSize();
  facts.commonPrimaryKeyLength =
      RecordMetaData::commonPrimaryKeyLength(state.metaData.recordTypesForIndex(index));
  if (facts.commonPrimaryKeyLength > 0) {
    const std::optional<std::vector<int>>& positions = index.primaryKeyComponentPositions();
    facts.entryPrimaryKeyPositions = rl::index::entryPrimaryKeyPositions(
        positions ? std::span<const int>(*positions) : std::span<const int>(), facts.columnSize,
        facts.commonPrimaryKeyLength);
  }
  facts.splitLongRecords = state.metaData.splitLongRecords();
  facts.omitUnsplitRecordSuffix = state.omitUnsplitRecordSuffix;
  facts.oldVersionFormat = state.oldVersionFormat();
  return facts;
}

IndexScanFacts indexScanFacts(const RecordStore& store, std::string_view indexName) {
  const RecordStore::State& state = RecordStoreAccess::state(store);
  const StoreIndex& storeIndex = state.storeIndex(indexName);
  store::checkScannable(storeIndex);
  return indexScanFacts(state, storeIndex);
}

IndexScanSpec indexScanSpec(IndexScanFacts facts) {
  IndexScanSpec spec;
  spec.storePrefix = std::move(facts.storePrefix);
  spec.recordsSubspace = std::move(facts.recordsSubspace);
  spec.indexSubspace = std::move(facts.indexSubspace);
  spec.entryPrimaryKeyPositions =
      std::make_shared<const std::vector<int>>(std::move(facts.entryPrimaryKeyPositions));
  spec.splitLongRecords = facts.splitLongRecords;
  spec.omitUnsplitSuffix = facts.omitUnsplitRecordSuffix;
  return spec;
}

}  // namespace rl
