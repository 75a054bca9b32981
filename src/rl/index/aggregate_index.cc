#include "rl/index/aggregate_index.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstring>

#include <google/protobuf/descriptor.h>

#include "rl/cursor/key_value_cursor.h"
#include "rl/index/value_index.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

const fdb::Bytes kZero(8, '\0');

bool isAddKind(AggregateKind kind) {
  return kind == AggregateKind::kCount || kind == AggregateKind::kCountUpdates ||
         kind == AggregateKind::kCountNotNull || kind == AggregateKind::kSum;
}

bool isLongKind(AggregateKind kind) {
  return kind == AggregateKind::kSum || kind == AggregateKind::kMinEverLong ||
         kind == AggregateKind::kMaxEverLong;
}

fdb::MutationType mutationOf(AggregateKind kind) {
  switch (kind) {
    case AggregateKind::kMinEverLong: return fdb::MutationType::kMin;
    case AggregateKind::kMaxEverLong: return fdb::MutationType::kMax;
    case AggregateKind::kMinEverTuple: return fdb::MutationType::kByteMin;
    case AggregateKind::kMaxEverTuple:
    case AggregateKind::kMaxEverVersion: return fdb::MutationType::kByteMax;
    default: return fdb::MutationType::kAdd;
  }
}

// The grouped value's integer, or nullopt for a null; RecordCoreException for another type.
std::optional<int64_t> longValue(const Index& index, const fdb::Tuple& grouped) {
  if (grouped.isNull(0)) return std::nullopt;
  if (grouped[0].type() != fdb::TupleType::kInteger) {
    throw RecordCoreException(fmt::format("index {} of type {} aggregates integers, not {}",
                                          index.name(), index.type(),
                                          fdb::tupleTypeName(grouped[0].type())));
  }
  return grouped.getInt(0);
}

// The field `column` (a field, or a nesting of fields) reads in `type`, or null when it is not
// one.
const google::protobuf::FieldDescriptor* fieldOf(const KeyExpression& column,
                                                 const google::protobuf::Descriptor& type) {
  if (column.kind() != KeyExpression::Kind::kField &&
      column.kind() != KeyExpression::Kind::kNesting) {
    return nullptr;
  }
  const google::protobuf::FieldDescriptor* field = type.FindFieldByName(column.fieldName());
  if (field == nullptr || column.kind() == KeyExpression::Kind::kField) return field;
  if (field->message_type() == nullptr) return nullptr;
  return fieldOf(column.children()[0], *field->message_type());
}

bool isIntegerField(const google::protobuf::FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case google::protobuf::FieldDescriptor::CPPTYPE_INT32:
    case google::protobuf::FieldDescriptor::CPPTYPE_INT64:
    case google::protobuf::FieldDescriptor::CPPTYPE_UINT32:
    case google::protobuf::FieldDescriptor::CPPTYPE_UINT64: return true;
    default: return false;
  }
}

bool containsNull(const fdb::Tuple& tuple) {
  return std::any_of(tuple.begin(), tuple.end(),
                     [](const fdb::TupleElement& e) { return e.isNull(); });
}

// The parameter of the mutation an entry's grouped value makes, or nullopt when it makes none
// (the Java Record Layer's AtomicMutation.getMutationParam).
// `nonUniqueNull`: the entry holds a null standing for an unset field read as not unique
// (EvaluatedKey::containsNonUniqueNull); count_not_null skips grouped values with one.
std::optional<fdb::Bytes> mutationParam(AggregateKind kind, const Index& index,
                                        const fdb::Tuple& grouped, bool nonUniqueNull,
                                        bool remove) {
  switch (kind) {
    case AggregateKind::kCountNotNull:
      if (nonUniqueNull && containsNull(grouped)) return std::nullopt;
      return encodeLittleEndianInt64(remove ? -1 : 1);
    case AggregateKind::kCount: return encodeLittleEndianInt64(remove ? -1 : 1);
    case AggregateKind::kCountUpdates:
      if (remove) return std::nullopt;
      return encodeLittleEndianInt64(1);
    case AggregateKind::kSum: {
      const std::optional<int64_t> value = longValue(index, grouped);
      if (!value) return std::nullopt;
      // Two's complement wraps as the ADD mutation does.
      const uint64_t bits = static_cast<uint64_t>(*value);
      return encodeLittleEndianInt64(static_cast<int64_t>(remove ? 0 - bits : bits));
    }
    case AggregateKind::kMinEverLong:
    case AggregateKind::kMaxEverLong: {
      if (remove) return std::nullopt;  // "ever": a delete does not undo it
      const std::optional<int64_t> value = longValue(index, grouped);
      if (!value) return std::nullopt;
      if (*value < 0) {
        throw RecordCoreException(fmt::format(
            "index {} of type {} cannot hold the negative value {}: MIN and MAX compare "
            "unsigned (use min_ever_tuple / max_ever_tuple)",
            index.name(), index.type(), *value));
      }
      return encodeLittleEndianInt64(*value);
    }
    case AggregateKind::kMinEverTuple:
    case AggregateKind::kMaxEverTuple:
    case AggregateKind::kMaxEverVersion:
      if (remove) return std::nullopt;
      return grouped.hasIncompleteVersionstamp() ? grouped.packWithVersionstamp() : grouped.pack();
  }
  return std::nullopt;
}

// Drops the entries both sides have, pair by pair (a save that leaves a record's group and
// value alone changes nothing; unlike a VALUE index's keys, a repeated entry counts again).
void removePairedEntries(std::vector<EvaluatedIndexEntry>& before,
                         std::vector<EvaluatedIndexEntry>& after) {
  for (auto it = before.begin(); it != before.end();) {
    auto match = std::find(after.begin(), after.end(), *it);
    if (match == after.end()) {
      ++it;
    } else {
      after.erase(match);
      it = before.erase(it);
    }
  }
}

class AggregateIndexMaintainer : public IndexMaintainer {
 public:
  AggregateIndexMaintainer(RecordStore::State& store, const StoreIndex& index, AggregateKind kind)
      : IndexMaintainer(store, index),
        kind_(kind),
        groupingCount_(static_cast<size_t>(index.index->rootExpression().groupingCount())),
        clearWhenZero_(index.index->booleanOption(kClearWhenZeroOption, false)) {}

  std::vector<EvaluatedIndexEntry> evaluateIndex(const IndexedRecord& record) const override {
    if (record.record == nullptr) return {};
    return evaluateValueIndex(index(), *record.type, *record.record, record.version);
  }

  bool isIdempotent() const override { return !aggregateKindCounts(kind_); }

  void update(const fdb::Tuple&, const IndexedRecord& before, const IndexedRecord& after) override {
    std::vector<EvaluatedIndexEntry> oldEntries = evaluateIndex(before);
    std::vector<EvaluatedIndexEntry> newEntries = evaluateIndex(after);
    // count_updates counts every save, changed or not.
    if (kind_ != AggregateKind::kCountUpdates) removePairedEntries(oldEntries, newEntries);
    for (const EvaluatedIndexEntry& entry : oldEntries) apply(entry, /*remove=*/true);
    for (const EvaluatedIndexEntry& entry : newEntries) apply(entry, /*remove=*/false);
  }

  CursorPtr<IndexEntry> scan(IndexScanType type, const TupleRange& range,
                             const std::optional<fdb::Bytes>& continuation,
                             const ScanProperties& properties) override {
    if (type != IndexScanType::kByGroup) {
      throw RecordCoreArgumentException(
          fmt::format("index {} of type {} can only be scanned BY_GROUP, not {}", index().name(),
                      index().type(), indexScanTypeName(type)));
    }
    const fdb::Subspace subspace = fdb::Subspace::fromBytes(storeIndex_.subspacePrefix);
    auto inner = std::make_unique<KeyValueCursor>(*store_.context, subspace, range, properties,
                                                  continuation);
    return map(CursorPtr<fdb::KeyValueRef>(std::move(inner)),
               [state = store_.shared_from_this(), kind = kind_,
                prefixSize = storeIndex_.subspacePrefix.size()](fdb::KeyValueRef&& row) {
                 state->countRead(row.key, row.value);
                 IndexEntry entry;
                 entry.key = fdb::Tuple::unpack(row.key.substr(prefixSize));
                 entry.value = decodeAggregateValue(kind, row.value);
                 return entry;
               });
  }

  // The function is answered when it is this type's and, as in the Java Record Layer, its
  // operand (a grouping, or a plain key: all aggregated) aggregates the index's aggregated
  // columns and groups by a prefix of the index's group columns (a range over the index's
  // groups then rolls them up).
  bool canEvaluateAggregate(const IndexAggregateFunction& function) const override {
    if (!aggregateFunctionMatchesType(function.name, index().type())) return false;
    const KeyExpression& root = index().rootExpression();
    if (function.operand == root) return true;
    const bool grouping = function.operand.kind() == KeyExpression::Kind::kGrouping;
    const std::vector<KeyExpression> operand =
        keyColumns(grouping ? function.operand.children()[0] : function.operand);
    const size_t operandGroup =
        grouping ? static_cast<size_t>(function.operand.groupingCount()) : 0;
    const std::vector<KeyExpression> whole = keyColumns(root.children()[0]);
    auto matches = [](const KeyExpression& a, const KeyExpression& b) {
      return a.matchesColumn(b);
    };
    if (operandGroup > operand.size() || groupingCount_ > whole.size()) return false;
    // The aggregated columns: the same.
    if (operand.size() - operandGroup != whole.size() - groupingCount_) return false;
    if (!std::equal(operand.begin() + static_cast<std::ptrdiff_t>(operandGroup), operand.end(),
                    whole.begin() + static_cast<std::ptrdiff_t>(groupingCount_), matches)) {
      return false;
    }
    // The group columns: a prefix of the index's.
    if (operandGroup > groupingCount_) return false;
    return std::equal(operand.begin(), operand.begin() + static_cast<std::ptrdiff_t>(operandGroup),
                      whole.begin(), matches);
  }

  fdb::Tuple evaluateAggregate(const IndexAggregateFunction& function, const TupleRange& range,
                               IsolationLevel isolation) override {
    if (!aggregateFunctionMatchesType(function.name, index().type())) {
      return IndexMaintainer::evaluateAggregate(function, range, isolation);
    }
    ExecuteProperties execute;
    execute.isolation = isolation;
    CursorPtr<IndexEntry> entries =
        scan(IndexScanType::kByGroup, range, std::nullopt, ScanProperties(execute));
    std::optional<fdb::Tuple> total;
    if (isAddKind(kind_)) total = fdb::Tuple{int64_t{0}};
    for (auto result = entries->next(); result.hasValue(); result = entries->next()) {
      const fdb::Tuple& value = result.value().value;
      if (isAddKind(kind_)) {
        total = fdb::Tuple{static_cast<int64_t>(static_cast<uint64_t>(total->getInt(0)) +
                                                static_cast<uint64_t>(value.getInt(0)))};
      } else if (!total) {
        total = value;
      } else {
        const bool isMin =
            kind_ == AggregateKind::kMinEverLong || kind_ == AggregateKind::kMinEverTuple;
        if (isMin ? value < *total : value > *total) total = value;
      }
    }
    return total.value_or(fdb::Tuple{});
  }

  // The groups of the records under a primary-key prefix can be cleared when the group's
  // first columns are the primary key's first columns, for every record type it covers
  // (a group then holds only records under one prefix).
  std::optional<std::string> cannotDeleteWhere(const fdb::Tuple& prefix) const override {
    const std::vector<KeyExpression> whole = keyColumns(index().rootExpression().children()[0]);
    bool matches = prefix.size() <= groupingCount_ && prefix.size() <= whole.size();
    for (const RecordType* type : store_.metaData.recordTypesForIndex(index())) {
      const std::vector<KeyExpression> keyColumns = type->primaryKey().normalizeKeyForPositions();
      if (keyColumns.size() < prefix.size()) matches = false;
      for (size_t i = 0; matches && i < prefix.size(); ++i) {
        matches = whole[i].matchesColumn(keyColumns[i]);
      }
    }
    if (matches) return std::nullopt;
    return fmt::format(
        "({}) is not grouped first by the primary key's first {} column(s), so its groups "
        "cannot be deleted by range",
        index().rootExpression().toString(), prefix.size());
  }

  void deleteWhere(const fdb::Tuple& prefix) override {
    const fdb::Bytes groups = storeIndex_.subspacePrefix + prefix.pack();
    store_.context->clearRange(fdb::KeyRange{groups, groups + '\xff'});
  }

 private:
  // One entry's mutation of its group's key.
  void apply(const EvaluatedIndexEntry& entry, bool remove) {
    RecordStore::State& state = store_;
    const fdb::Tuple& whole = entry.key;
    const size_t split = std::min(groupingCount_, whole.size());
    fdb::Tuple group;
    fdb::Tuple grouped;
    for (size_t i = 0; i < whole.size(); ++i) (i < split ? group : grouped).append(whole[i]);
    const std::optional<fdb::Bytes> param =
        mutationParam(kind_, index(), grouped, entry.containsNonUniqueNull, remove);
    if (!param) return;
    fdb::Bytes key = storeIndex_.subspacePrefix;
    group.packInto(key);
    if (kind_ == AggregateKind::kMaxEverVersion && grouped.hasIncompleteVersionstamp()) {
      // Complete only at commit: held back, keeping the largest of this transaction's (all
      // incomplete versions share one placeholder, so the largest bytes have the largest
      // local version).
      const auto pending = state.context->versionMutation(key);
      if (pending && std::string_view(pending->second) >= std::string_view(*param)) return;
      state.context->addVersionMutation(fdb::MutationType::kSetVersionstampedValue, key, *param);
    } else {
      fdb::Transaction& tr = state.context->transaction();
      tr.atomicOp(key, *param, mutationOf(kind_));
      if (clearWhenZero_) tr.atomicOp(key, kZero, fdb::MutationType::kCompareAndClear);
    }
    state.countWrite(key, *param);
    state.counters.indexEntriesWritten += 1;
  }

  const AggregateKind kind_;
  const size_t groupingCount_;
  const bool clearWhenZero_;
};

class AggregateIndexMaintainerFactory : public IndexMaintainerFactory {
 public:
  AggregateIndexMaintainerFactory(std::string_view type, AggregateKind kind)
      : type_(type), kind_(kind) {}

  std::string_view type() const override { return type_; }

  // The Java Record Layer's rules: a grouping root; count and count_updates aggregate no
  // column, sum and the _long kinds exactly one, the others at least one; only
  // max_ever_version holds a version; clearWhenZero only where an ADD can come back to 0.
  void validate(const Index& index, const RecordMetaData& metaData) const override {
    const KeyExpression& root = index.rootExpression();
    auto refuse = [&](std::string_view why) {
      throw MetaDataException(fmt::format("index {} of type {} ({}): {}", index.name(),
                                          index.type(), root.toString(), why));
    };
    if (root.kind() != KeyExpression::Kind::kGrouping) {
      refuse(
          "an aggregate index needs a grouping key expression (x.groupBy(g...) or "
          "x.ungrouped())");
    }
    const int grouped = root.groupedCount();
    if (kind_ == AggregateKind::kCount || kind_ == AggregateKind::kCountUpdates) {
      if (grouped != 0)
        refuse(
            "it does not aggregate a field; group by every column (or use "
            "count_not_null)");
    } else if (isLongKind(kind_)) {
      if (grouped != 1) refuse("it aggregates exactly one column, the last");
    } else if (grouped < 1) {
      refuse("it aggregates at least one column, after the group's");
    }
    if (kind_ == AggregateKind::kMaxEverVersion) {
      if (root.versionColumns() == 0) refuse("its aggregated columns must hold the version");
    } else if (root.versionColumns() > 0) {
      refuse("only max_ever_version can hold a record version");
    }
    const bool canClear = kind_ == AggregateKind::kCount || kind_ == AggregateKind::kCountNotNull ||
                          kind_ == AggregateKind::kSum;
    if (index.booleanOption(kClearWhenZeroOption, false) && !canClear) {
      refuse("clearWhenZero applies only to count, count_not_null and sum");
    }
    if (index.isUnique()) refuse("an aggregate index cannot be unique");
    if (isLongKind(kind_)) {
      const std::vector<KeyExpression> columns = keyColumns(root.children()[0]);
      for (const RecordType* type : metaData.recordTypesForIndex(index)) {
        const google::protobuf::FieldDescriptor* field =
            columns.empty() ? nullptr : fieldOf(columns.back(), type->descriptor());
        if (field != nullptr && !isIntegerField(*field)) {
          refuse(fmt::format("it aggregates integer fields, and {} of {} is a {}", field->name(),
                             type->name(), field->type_name()));
        }
      }
    }
  }

  std::unique_ptr<IndexMaintainer> create(RecordStore::State& store,
                                          const StoreIndex& index) const override {
    return std::make_unique<AggregateIndexMaintainer>(store, index, kind_);
  }

  std::unique_ptr<IndexCheck> createCheck(const IndexCheckTarget& target) const override {
    return makeAggregateIndexCheck(target, kind_);
  }

 private:
  std::string_view type_;
  AggregateKind kind_;
};

struct TypeKind {
  std::string_view type;
  AggregateKind kind;
};

const std::vector<TypeKind>& typeKinds() {
  static const std::vector<TypeKind> kinds = {
      {Index::kCount, AggregateKind::kCount},
      {kCountUpdatesIndexType, AggregateKind::kCountUpdates},
      {kCountNotNullIndexType, AggregateKind::kCountNotNull},
      {Index::kSum, AggregateKind::kSum},
      {kMinEverLongIndexType, AggregateKind::kMinEverLong},
      {kMaxEverLongIndexType, AggregateKind::kMaxEverLong},
      {Index::kMinEver, AggregateKind::kMinEverLong},
      {Index::kMaxEver, AggregateKind::kMaxEverLong},
      {kMinEverTupleIndexType, AggregateKind::kMinEverTuple},
      {kMaxEverTupleIndexType, AggregateKind::kMaxEverTuple},
      {kMaxEverVersionIndexType, AggregateKind::kMaxEverVersion},
  };
  return kinds;
}

}  // namespace

std::optional<AggregateKind> aggregateKindOfType(std::string_view type) {
  for (const TypeKind& entry : typeKinds()) {
    if (entry.type == type) return entry.kind;
  }
  return std::nullopt;
}

const std::vector<std::string_view>& aggregateIndexTypes() {
  static const std::vector<std::string_view> types = [] {
    std::vector<std::string_view> names;
    for (const TypeKind& entry : typeKinds()) names.push_back(entry.type);
    return names;
  }();
  return types;
}

std::shared_ptr<const IndexMaintainerFactory> aggregateIndexMaintainerFactory(
    std::string_view type) {
  const std::optional<AggregateKind> kind = aggregateKindOfType(type);
  if (!kind) throw RecordCoreArgumentException(fmt::format("{} is no aggregate index type", type));
  for (const TypeKind& entry : typeKinds()) {
    if (entry.type == type) {
      return std::make_shared<AggregateIndexMaintainerFactory>(entry.type, *kind);
    }
  }
  return nullptr;
}

bool aggregateKindCounts(AggregateKind kind) { return isAddKind(kind); }

std::vector<KeyExpression> keyColumns(const KeyExpression& key) {
  std::vector<KeyExpression> columns = key.normalizeKeyForPositions();
  std::erase_if(columns, [](const KeyExpression& column) {
    return column.kind() == KeyExpression::Kind::kEmpty;
  });
  return columns;
}

bool aggregateFunctionMatchesType(std::string_view function, std::string_view type) {
  if (function == type) return true;
  if (function == Index::kMaxEver) {
    return type == kMaxEverLongIndexType || type == kMaxEverTupleIndexType;
  }
  if (function == Index::kMinEver) {
    return type == kMinEverLongIndexType || type == kMinEverTupleIndexType;
  }
  return false;
}

fdb::Tuple decodeAggregateValue(AggregateKind kind, std::string_view value) {
  switch (mutationOf(kind)) {
    case fdb::MutationType::kAdd:
    case fdb::MutationType::kMin:
    case fdb::MutationType::kMax: return fdb::Tuple{decodeLittleEndianInt64(value)};
    default: return fdb::Tuple::unpack(value);
  }
}

fdb::Bytes encodeLittleEndianInt64(int64_t value) {
  fdb::Bytes bytes(8, '\0');
  uint64_t bits = static_cast<uint64_t>(value);
  for (size_t i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>(bits & 0xff);
    bits >>= 8;
  }
  return bytes;
}

int64_t decodeLittleEndianInt64(std::string_view bytes) {
  // Shorter values are zero-extended, as the ADD mutation reads them.
  uint64_t bits = 0;
  for (size_t i = std::min<size_t>(bytes.size(), 8); i > 0; --i) {
    bits = (bits << 8) | static_cast<uint8_t>(bytes[i - 1]);
  }
  return static_cast<int64_t>(bits);
}

}  // namespace rl
