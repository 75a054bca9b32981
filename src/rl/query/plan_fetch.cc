// Running a Fetch: the whole record of each partial row, loaded by primary key with several
// loads in flight (docs/format.md, "Pipelining").
#include <fmt/format.h>

#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/record/split_helper.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_arena.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

// One row's record load, in flight.
class PendingFetch {
 public:
  PendingFetch(std::shared_ptr<RecordStore::State> state, store::RecordArenas* arenas,
               QueriedRecord partial, IsolationLevel isolation)
      : state_(std::move(state)),
        arenas_(arenas),
        partial_(std::move(partial)),
        isolation_(isolation),
        load_(*state_->context, state_->recordsSubspace, partial_.primaryKey,
              state_->splitLoadOptions(isolation)) {}

  QueriedRecord get() {
    std::optional<RawRecord> raw = load_.get(/*decodePrimaryKey=*/false);
    if (!raw) {
      throw OrphanIndexEntryException(fmt::format("record {} of an index entry is missing",
                                                  fdb::printable(partial_.primaryKey.pack())));
    }
    RecordStore::State& state = *state_;
    QueriedRecord row;
    row.primaryKey = std::move(partial_.primaryKey);
    row.indexEntry = std::move(partial_.indexEntry);
    row.record = store::deserializeRecordOnArena(state, raw->rawRecord, row.recordType, arenas_);
    row.version = std::move(raw->version);
    if (state.oldVersionFormat()) {
      row.version = loadOldFormatVersion(*state.context, state.legacyVersionSubspace(),
                                         row.primaryKey, isolation_);
    }
    row.size = RecordSize{raw->sizes.keyCount, raw->sizes.keySize, raw->sizes.valueSize,
                          raw->sizes.isSplit, raw->sizes.isVersionedInline};
    state.counters.recordsLoaded += 1;
    state.counters.keysRead += raw->sizes.keyCount;
    state.counters.bytesRead += raw->sizes.keySize + raw->sizes.valueSize;
    return row;
  }

 private:
  std::shared_ptr<RecordStore::State> state_;
  store::RecordArenas* arenas_;
  QueriedRecord partial_;
  IsolationLevel isolation_;
  PendingRecordLoad load_;
};

}  // namespace

CursorPtr<QueriedRecord> RecordQueryFetchFromPartialRecordPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  auto arenas = std::make_shared<store::RecordArenas>();
  return mapPipelined(
      children()[0]->execute(execution, bindings, continuation, properties),
      [state = execution.store, arenas, isolation = properties.isolation](QueriedRecord&& partial) {
        return PendingFetch(state, arenas.get(), std::move(partial), isolation);
      },
      pipelineSize_ == 0 ? 1 : pipelineSize_);
}

}  // namespace rl
