// Running the plans that read the store: index scans (records fetched by the plan's method),
// primary-key scans, and covering index scans (partial records from the entries alone).
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <fmt/format.h>

#include "rl/index/index_maintainer.h"
#include "rl/index/rank_index.h"
#include "rl/query/query_execution.h"
#include "rl/query/record_query_plan.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_arena.h"
#include "rl/store/record_codec.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Whether `range` selects no key at all under `subspace` (an inverted range from
// contradicting comparisons, e.g. price < 5 AND price > 10).
bool selectsNothing(const TupleRange& range, const fdb::Subspace& subspace) {
  const fdb::KeyRange keys = range.toRange(subspace);
  return keys.begin >= keys.end;
}

QueriedRecord queried(LoadedRecord&& loaded) {
  QueriedRecord row;
  static_cast<LoadedRecord&>(row) = std::move(loaded);
  return row;
}

// Sets the scalar field at `path` of `message` to `value` (nested messages made on the way).
void setField(Message& message, const std::vector<std::string>& path, size_t at,
              const fdb::TupleElement& value) {
  const Reflection& reflection = *message.GetReflection();
  const FieldDescriptor* field = message.GetDescriptor()->FindFieldByName(path[at]);
  if (field == nullptr) {
    throw RecordCoreException(fmt::format("covering plan: {} has no field {}",
                                          message.GetDescriptor()->full_name(), path[at]));
  }
  if (at + 1 < path.size()) {
    setField(*reflection.MutableMessage(&message, field), path, at + 1, value);
    return;
  }
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      reflection.SetInt32(&message, field, static_cast<int32_t>(value.asInt()));
      break;
    case FieldDescriptor::CPPTYPE_INT64: reflection.SetInt64(&message, field, value.asInt()); break;
    case FieldDescriptor::CPPTYPE_UINT32:
      reflection.SetUInt32(&message, field, static_cast<uint32_t>(value.asInt()));
      break;
    case FieldDescriptor::CPPTYPE_UINT64: {
      const fdb::BigInt big = value.asBigInt();
      reflection.SetUInt64(
          &message, field,
          big.toInt64() ? static_cast<uint64_t>(*big.toInt64()) : std::stoull(big.toString()));
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT:
      reflection.SetFloat(&message, field, value.asFloat());
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      reflection.SetDouble(&message, field, value.asDouble());
      break;
    case FieldDescriptor::CPPTYPE_BOOL: reflection.SetBool(&message, field, value.asBool()); break;
    case FieldDescriptor::CPPTYPE_ENUM:
      reflection.SetEnumValue(&message, field, static_cast<int>(value.asInt()));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      reflection.SetString(
          &message, field,
          field->type() == FieldDescriptor::TYPE_BYTES ? value.asBytes() : value.asString());
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      throw RecordCoreException("covering plan: field " + field->full_name() +
                                " holds a message, which an index entry does not");
  }
}

}  // namespace

CursorPtr<QueriedRecord> RecordQueryIndexPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  RecordStore::State& state = *execution.store;
  StoreIndex& storeIndex = state.storeIndex(indexName_);
  store::checkScannable(storeIndex);
  TupleRange range = comparisons_.toTupleRange(bindings);
  if (byRank()) {
    // Ranks to the scores that have them (docs/indexes.md, "RANK indexes").
    auto* rank = dynamic_cast<RankIndexMaintainer*>(&state.maintainer(storeIndex));
    if (rank == nullptr) {
      throw RecordCoreException("index " + indexName_ + " of type " + storeIndex.index->type() +
                                " cannot be scanned BY_RANK");
    }
    std::optional<TupleRange> scores = rank->rankRangeToScoreRange(range);
    if (!scores) return query::emptyCursor();
    range = std::move(*scores);
  }
  if (selectsNothing(range, fdb::Subspace::fromBytes(storeIndex.subspacePrefix))) {
    return query::emptyCursor();
  }
  // Straight from the maintainer's raw rows to query rows, in one step per row as
  // RecordStore::scanIndexRecords takes to its FetchedRecords.
  CursorPtr<IndexedRawRecord> raw =
      state.maintainer(storeIndex)
          .scanRecords(range, continuation, ScanProperties(properties, reverse_), fetchMethod_,
                       IndexOrphanBehavior::kError, pipelineSize_);
  return map(std::move(raw), [state = execution.store,
                              arenas = store::RecordArenas()](IndexedRawRecord&& row) mutable {
    QueriedRecord out;
    state->countRead(row.entry.rawKey(), row.entry.packedValue());
    store::loadFetchedRecord(*state, std::move(*row.record), arenas, out);
    out.indexEntry = std::move(row.entry);
    return out;
  });
}

CursorPtr<QueriedRecord> RecordQueryScanPlan::execute(const QueryExecution& execution,
                                                      const Bindings& bindings,
                                                      const std::optional<fdb::Bytes>& continuation,
                                                      const ExecuteProperties& properties) const {
  RecordStore::State& state = *execution.store;
  const TupleRange range = comparisons_.toTupleRange(bindings);
  if (selectsNothing(range, state.recordsSubspace)) return query::emptyCursor();
  return map(
      store::scanLoadedRecords(state, range, continuation, ScanProperties(properties, reverse_)),
      [](LoadedRecord&& loaded) { return queried(std::move(loaded)); });
}

CursorPtr<QueriedRecord> RecordQueryCoveringIndexPlan::execute(
    const QueryExecution& execution, const Bindings& bindings,
    const std::optional<fdb::Bytes>& continuation, const ExecuteProperties& properties) const {
  RecordStore::State& state = *execution.store;
  StoreIndex& storeIndex = state.storeIndex(indexPlan_->indexName());
  store::checkScannable(storeIndex);
  const TupleRange range = indexPlan_->comparisons().toTupleRange(bindings);
  if (selectsNothing(range, fdb::Subspace::fromBytes(storeIndex.subspacePrefix))) {
    return query::emptyCursor();
  }
  const RecordType& type = state.metaData.recordType(recordType_);
  const bool byGroup = indexPlan_->byGroup();
  CursorPtr<IndexEntry> entries =
      state.maintainer(storeIndex)
          .scan(byGroup ? IndexScanType::kByGroup : IndexScanType::kByValue, range, continuation,
                ScanProperties(properties, indexPlan_->isReverse()));
  return map(std::move(entries), [state = execution.store, type = &type, self = shared_from_this(),
                                  arenas = store::RecordArenas(), byGroup,
                                  prefix = storeIndex.subspacePrefix](IndexEntry&& entry) mutable {
    const auto& plan = static_cast<const RecordQueryCoveringIndexPlan&>(*self);
    std::shared_ptr<Message> message =
        arenas.newMessage(store::prototypeOf(*state->messageFactory, *type));
    for (const CoveringField& field : plan.fields()) {
      const fdb::Tuple& source = field.fromValue ? entry.value : entry.key;
      if (static_cast<size_t>(field.position) >= source.size()) continue;
      const fdb::TupleElement& value = source[static_cast<size_t>(field.position)];
      if (!value.isNull()) setField(*message, field.path, 0, value);
    }
    QueriedRecord row;
    if (byGroup) {
      // The group's key as stored, its aggregate decoded into a tuple.
      row.indexEntry = RawIndexEntry::copyOf(prefix + entry.key.pack(), entry.value.pack(),
                                             prefix.size(), nullptr);
    }
    row.primaryKey = std::move(entry.primaryKey);
    row.recordType = type;
    row.record = std::move(message);
    row.partial = true;
    return row;
  });
}

}  // namespace rl
