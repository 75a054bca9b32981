// The record count (docs/format.md, "Record counts"): with a record count key in the
// metadata, the store counts its records by that key's value at P+(4, value...) — a
// little-endian int64 changed by ADD +1 when a record is created and -1 when one is deleted
// (exactly P+(4) for the empty key). From format version 3 the header's record_count_key
// remembers the key counted by; when it no longer matches the metadata, opening clears the
// counts and recounts every record in its transaction.
#include <fmt/format.h>
#include <map>

#include "rl/index/aggregate_index.h"
#include "rl/record_core_exception.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

// P+(4) packed.
fdb::Bytes countPrefix(const RecordStore::State& state) {
  return state.subspace().pack(fdb::Tuple{keyspace::kRecordCount});
}

// Whether `key`'s columns are the first columns of `countKey`.
bool isPrefixKey(const KeyExpression& key, const KeyExpression& countKey) {
  const std::vector<KeyExpression> columns = keyColumns(key);
  const std::vector<KeyExpression> countColumns = keyColumns(countKey);
  if (columns.size() > countColumns.size()) return false;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i].matchesColumn(countColumns[i])) return false;
  }
  return true;
}

bool countsReadable(const RecordStore::State& state) {
  return state.header.record_count_state() != DataStoreInfo::WRITE_ONLY &&
         state.header.record_count_state() != DataStoreInfo::DISABLED;
}

}  // namespace

void store::addRecordCount(RecordStore::State& state, const google::protobuf::Message& record,
                           const RecordType& type, int64_t delta) {
  const std::optional<KeyExpression>& countKey = state.metaData.recordCountKey();
  if (!countKey || state.header.record_count_state() == DataStoreInfo::DISABLED) return;
  fdb::Bytes key = countPrefix(state);
  countKey->evaluateSingleton(record, type.evaluationContext()).packInto(key);
  const fdb::Bytes param = encodeLittleEndianInt64(delta);
  state.context->transaction().atomicOp(key, param, fdb::MutationType::kAdd);
  state.countWrite(key, param);
}

bool store::checkRecordCountKey(RecordStore::State& state, DataStoreInfo& info,
                                int oldFormatVersion) {
  const std::optional<KeyExpression>& countKey = state.metaData.recordCountKey();
  const bool existingStore = oldFormatVersion > 0;
  bool rebuild = existingStore && oldFormatVersion < kRecordCountFormatVersion;
  if (countKey && state.formatVersion >= kRecordCountKeyFormatVersion) {
    rebuild = rebuild || !info.has_record_count_key() ||
              KeyExpression::fromProto(info.record_count_key()) != *countKey;
  }
  if (!countKey && info.has_record_count_key()) rebuild = true;
  if (!rebuild) return false;
  const fdb::Bytes prefix = countPrefix(state);
  if (existingStore) state.context->clearRange(fdb::KeyRange{prefix, prefix + '\xff'});
  if (state.formatVersion >= kRecordCountKeyFormatVersion) {
    if (countKey) {
      *info.mutable_record_count_key() = countKey->toProto();
    } else {
      info.clear_record_count_key();
    }
  }
  if (!existingStore || !countKey || info.record_count_state() == DataStoreInfo::DISABLED) {
    return true;
  }
  // Recount every record, in this transaction.
  std::map<fdb::Bytes, int64_t> counts;
  CursorPtr<LoadedRecord> records =
      scanLoadedRecords(state, TupleRange::all(), std::nullopt, ScanProperties());
  for (auto result = records->next(); result.hasValue(); result = records->next()) {
    const LoadedRecord& record = result.value();
    fdb::Bytes key = prefix;
    countKey->evaluateSingleton(*record.record, record.recordType->evaluationContext())
        .packInto(key);
    counts[key] += 1;
  }
  for (const auto& [key, count] : counts) {
    state.context->transaction().set(key, encodeLittleEndianInt64(count));
  }
  state.log(
      fmt::format("recounted the records by {} ({} groups)", countKey->toString(), counts.size()));
  return true;
}

int64_t RecordStore::snapshotRecordCount() { return snapshotRecordCount(empty(), fdb::Tuple{}); }

int64_t RecordStore::snapshotRecordCount(const KeyExpression& key, const fdb::Tuple& value) {
  State& state = *state_;
  if (static_cast<size_t>(key.columnSize()) != value.size()) {
    throw RecordCoreArgumentException(
        fmt::format("snapshotRecordCount: key {} has {} columns but the value {} has {}",
                    key.toString(), key.columnSize(), fdb::printable(value.pack()), value.size()));
  }
  const std::optional<KeyExpression>& countKey = state.metaData.recordCountKey();
  if (countKey && countsReadable(state) && isPrefixKey(key, *countKey)) {
    fdb::Bytes prefix = countPrefix(state);
    value.packInto(prefix);
    const fdb::SnapshotReads reads = state.context->transaction().snapshot();
    int64_t count = 0;
    // The value's own key (the whole count key, or the empty one) and every key under it.
    for (const fdb::KeyValue& row : reads.getRangeAll(fdb::KeyRange{prefix, prefix + '\xff'})) {
      state.countRead(row.key, row.value);
      count += decodeLittleEndianInt64(row.value);
    }
    return count;
  }
  // Else a readable COUNT index grouped by the key, as evaluateAggregateFunction finds one.
  const fdb::Tuple total = evaluateAggregateFunction(
      {}, IndexAggregateFunction{std::string(Index::kCount), grouping(key, 0)}, value,
      IsolationLevel::kSnapshot);
  return total.getInt(0);
}

}  // namespace rl
