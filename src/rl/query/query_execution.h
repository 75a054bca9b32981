// What a plan runs against (the open store) and the pieces its nodes share when they run:
// empty cursors, comparison keys of rows (docs/query.md, "Execution"). Private to the library.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/cursor/cursor.h"
#include "rl/metadata/key_expression.h"
#include "rl/query/queried_record.h"
#include "rl/query/record_query_plan.h"
#include "rl/store/record_store_state.h"

namespace rl {

struct QueryExecution {
  std::shared_ptr<RecordStore::State> store;
};

namespace query {

// A cursor with no rows.
CursorPtr<QueriedRecord> emptyCursor();

// How a merge orders rows: by a comparison key, which is the primary key itself when every
// record type's primary key is that expression (then read off the row, not evaluated).
class RowKey {
 public:
  RowKey(const RecordMetaData& metaData, KeyExpression key);
  fdb::Tuple of(const QueriedRecord& row) const;

 private:
  KeyExpression key_;
  bool isPrimaryKey_;
};

// RecordCoreArgumentException saying a continuation does not belong to `plan`.
[[noreturn]] void throwForeignContinuation(const RecordQueryPlan& plan, std::string_view why);

}  // namespace query
}  // namespace rl
