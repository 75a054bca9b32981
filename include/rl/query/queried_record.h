// rl::QueriedRecord — one row of a query: a record as the store loaded it, with the index
// entry it was found through (plans that scan an index), or a partial record built from an
// index entry alone (covering plans).
//
//   auto cursor = store.executeQuery(*plan, std::nullopt, rl::ExecuteProperties{});
//   for (auto r = cursor->next(); r.hasValue(); r = cursor->next()) {
//     const Order& order = r.value().as<Order>();   // LoadedRecord::as
//     fdb::Tuple id = r.value().primaryKey;
//   }
//
// Thread-safety: a value; see LoadedRecord for how long its message lives.
#pragma once

#include <optional>

#include "rl/index/raw_index_entry.h"
#include "rl/store/record_store.h"

namespace rl {

struct QueriedRecord : LoadedRecord {
  // The index entry the record was found through, for plans scanning an index.
  std::optional<RawIndexEntry> indexEntry;
  // A covering plan's record: only the fields the index entry holds are set, and `version`
  // and `size` are not known.
  bool partial = false;
};

}  // namespace rl
