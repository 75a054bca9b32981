// IndexScanFacts — what an index fetch (SCAN_AND_FETCH / USE_REMOTE_FETCH, index_fetch.h)
// needs to know about a store to resolve an index's entries to records: the store's
// subspaces and record layout, and where the primary key sits in an entry.
//
//   IndexScanFacts facts = indexScanFacts(store, "Order$price");
//   // facts.indexSubspace.key() == P + (2, "Order$price")
//
// Thread-safety: a value.
#pragma once

#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/subspace.h"
#include "rl/index/index_fetch.h"
#include "rl/metadata/index.h"
#include "rl/store/record_store.h"

namespace rl {

struct StoreIndex;  // record_store_state.h

struct IndexScanFacts {
  const Index* index = nullptr;
  fdb::Bytes storePrefix;                     // P
  fdb::Subspace recordsSubspace;              // P+(1)
  fdb::Subspace indexSubspace;                // P+(2, sk)
  fdb::Subspace legacyVersionSubspace;        // P+(8), when oldVersionFormat
  std::vector<int> entryPrimaryKeyPositions;  // index::entryPrimaryKeyPositions
  int columnSize = 0;                         // the index key's columns
  int commonPrimaryKeyLength = -1;            // over the index's record types; -1: none
  bool splitLongRecords = false;
  bool omitUnsplitRecordSuffix = false;
  bool oldVersionFormat = false;
};

// The facts of `index` in the open store `state`.
IndexScanFacts indexScanFacts(const RecordStore::State& state, const StoreIndex& index);
// The facts of the index named `indexName` in `store`. Throws ScanNonReadableIndexException
// as RecordStore::scanIndex does.
IndexScanFacts indexScanFacts(const RecordStore& store, std::string_view indexName);

// What an index fetch needs of `facts` (its log left unset).
IndexScanSpec indexScanSpec(IndexScanFacts facts);

}  // namespace rl
