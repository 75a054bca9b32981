// The store's indexes, each reached through the maintainer of its type
// (src/rl/index/index_maintainer.h): which indexes a record change updates.
#include <algorithm>

#include "rl/store/keyspace.h"
#include "rl/store/record_store_state.h"

namespace rl {

bool RecordStore::State::covers(const StoreIndex& index, const RecordType& type) const {
  const size_t position = static_cast<size_t>(&index - indexes.data());
  const std::vector<size_t>& positions = indexesFor(type);
  return std::find(positions.begin(), positions.end(), position) != positions.end();
}

IndexMaintainer& RecordStore::State::maintainer(StoreIndex& index) {
  if (index.maintainer == nullptr) index.maintainer = index.factory->create(*this, index);
  return *index.maintainer;
}

fdb::Bytes store::uniquenessViolationsPrefix(const RecordStore::State& state, const Index& index) {
  return state.subspace().pack(
      fdb::Tuple{keyspace::kIndexUniquenessViolations, index.subspaceKey()});
}

void store::updateIndexes(RecordStore::State& state, const fdb::Tuple& primaryKey,
                          const IndexedRecord& before, const IndexedRecord& after) {
  const std::vector<size_t>* first = after.type ? &state.indexesFor(*after.type) : nullptr;
  const std::vector<size_t>* second =
      before.type && before.type != after.type ? &state.indexesFor(*before.type) : nullptr;
  // A side whose type the index does not cover is no record to it.
  auto update = [&](size_t position) {
    StoreIndex& storeIndex = state.indexes[position];
    if (storeIndex.state == IndexState::kDisabled) return;
    IndexMaintainer& maintainer = state.maintainer(storeIndex);
    // An index that counts is maintained by saves only where an online build has been.
    if (storeIndex.state == IndexState::kWriteOnly && !maintainer.isIdempotent() &&
        !store::builtRangeContains(state, storeIndex, primaryKey)) {
      return;
    }
    const bool coversBefore = before.record != nullptr && state.covers(storeIndex, *before.type);
    const bool coversAfter = after.record != nullptr && state.covers(storeIndex, *after.type);
    maintainer.update(primaryKey, coversBefore ? before : IndexedRecord{},
                      coversAfter ? after : IndexedRecord{});
  };
  if (first != nullptr) {
    for (size_t position : *first) update(position);
  }
  if (second != nullptr) {
    for (size_t position : *second) {
      if (first == nullptr || std::find(first->begin(), first->end(), position) == first->end()) {
        update(position);
      }
    }
  }
}

fdb::Subspace store::builtRangeSet(const RecordStore::State& state, const Index& index) {
  return state.subspace().subspace(fdb::Tuple{keyspace::kIndexRange, index.subspaceKey()});
}

bool store::builtRangeContains(RecordStore::State& state, const StoreIndex& index,
                               const fdb::Tuple& primaryKey) {
  const fdb::Subspace rangeSet = builtRangeSet(state, *index.index);
  const fdb::Bytes key = primaryKey.pack();
  // Read with a conflict range: an indexer step moving the range commits before or after.
  for (const fdb::KeyValue& range : state.context->transaction().getRangeAll(rangeSet.range())) {
    const fdb::Tuple begin = rangeSet.unpack(range.key);
    if (begin.size() != 1 || begin[0].type() != fdb::TupleType::kBytes) continue;
    if (std::string_view(begin.getBytes(0)) <= std::string_view(key) &&
        std::string_view(key) < std::string_view(range.value)) {
      return true;
    }
  }
  return false;
}

bool store::indexRecord(RecordStore::State& state, StoreIndex& index, const LoadedRecord& record) {
  if (!state.covers(index, *record.recordType)) return false;
  state.maintainer(index).update(
      record.primaryKey, IndexedRecord{},
      IndexedRecord{record.record.get(), record.recordType, record.version});
  return true;
}

}  // namespace rl
