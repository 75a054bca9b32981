// The online indexer: an index built from the records in budgeted transactions, its progress
// kept in the index's range set at P+(6, sk) (online_indexer.h).
#include "rl/store/online_indexer.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "rl/cursor/cursor.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/tuple_range.h"
#include "rl/metadata/index.h"
#include "rl/record_core_exception.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_store_exception.h"
#include "rl/store/record_store_state.h"

namespace rl {
namespace {

// The range set's first key (the Java RangeSet's FIRST_KEY, 0x00) and its end (FINAL_KEY).
const fdb::Bytes kRangeSetStart(1, '\x00');
const fdb::Bytes kRangeSetEnd(1, '\xff');

}  // namespace

struct OnlineIndexer::Impl {
  fdb::Database db;
  StoreLocation location;
  RecordMetaData metaData;
  std::string indexName;
  OnlineIndexerOptions options;
};

OnlineIndexer::OnlineIndexer(fdb::Database db, StoreLocation location, RecordMetaData metaData,
                             std::string indexName, OnlineIndexerOptions options)
    : impl_(std::make_unique<Impl>(Impl{std::move(db), std::move(location), std::move(metaData),
                                        std::move(indexName), options})) {}
OnlineIndexer::OnlineIndexer(OnlineIndexer&&) noexcept = default;
OnlineIndexer& OnlineIndexer::operator=(OnlineIndexer&&) noexcept = default;
OnlineIndexer::~OnlineIndexer() = default;

IndexBuildReport OnlineIndexer::run(const std::function<void(const IndexBuildReport&)>& afterStep) {
  IndexBuildReport report;
  while (true) {
    IndexBuildReport attempt;
    const bool finished = runInContext(impl_->db, [&](RecordContext& context) {
      attempt = report;  // a retried step starts again from what the committed ones did
      return step(context, attempt);
    });
    report = attempt;
    if (!report.alreadyReadable) report.transactions += 1;
    if (afterStep) afterStep(report);
    if (finished) return report;
    if (impl_->options.maxTransactions > 0 &&
        report.transactions >= impl_->options.maxTransactions) {
      return report;
    }
  }
}

bool OnlineIndexer::step(RecordContext& context, IndexBuildReport& report) {
  const Impl& c = *impl_;
  RecordStore store = RecordStore::openExisting(context, c.location, c.metaData);
  RecordStore::State& state = RecordStoreAccess::state(store);
  StoreIndex& storeIndex = state.storeIndex(c.indexName);
  const Index& index = *storeIndex.index;
  fdb::Transaction& tr = context.transaction();
  const fdb::Subspace rangeSet =
      state.subspace().subspace(fdb::Tuple{keyspace::kIndexRange, index.subspaceKey()});
  const bool firstStep = report.transactions == 0;

  // Where this step starts: nullopt from the first record; kRangeSetEnd when every record is
  // indexed; else the packed primary key of the first record not yet indexed.
  std::optional<fdb::Bytes> start;
  switch (storeIndex.state) {
    case IndexState::kReadable:
    case IndexState::kReadableUniquePending:
      if (firstStep) report.alreadyReadable = true;
      report.state = storeIndex.state;
      return true;
    case IndexState::kWriteOnlyWithQueue:
      throw RecordCoreArgumentException(
          fmt::format("index {} is WRITE_ONLY_WITH_QUEUE: the online indexer does not build "
                      "from a pending-writes queue",
                      index.name()));
    case IndexState::kDisabled:
      // From nothing: saves maintain it from here on.
      store::clearIndexData(state, index);
      store::writeIndexState(state, storeIndex, IndexState::kWriteOnly);
      break;
    case IndexState::kWriteOnly: {
      // One range from the start is this indexer's progress; anything else is rebuilt from
      // the first record (indexing a record again writes the same entries).
      const std::vector<fdb::KeyValue> ranges = tr.getRangeAll(rangeSet.range());
      if (ranges.size() == 1 &&
          ranges[0].key == rangeSet.pack(fdb::Tuple{fdb::ByteString{kRangeSetStart}})) {
        start = ranges[0].value;
        if (firstStep) report.resumed = true;
      } else if (!state.maintainer(storeIndex).isIdempotent()) {
        // An index that counts cannot index a record twice: start again from nothing,
        // with no range built, so saves leave it alone until the build passes them.
        store::clearIndexData(state, index);
      }
      break;
    }
  }

  std::optional<fdb::Bytes> next;  // the first record not indexed by this step
  if (start != kRangeSetEnd) {
    TupleRange range = TupleRange::all();
    if (start) {
      range.low = fdb::Tuple::unpack(*start);
      range.lowEndpoint = EndpointType::kRangeInclusive;
    }
    ExecuteProperties execute;
    execute.returnedRowLimit = c.options.recordsPerTransaction + 1;  // one past: where to stop
    CursorPtr<LoadedRecord> cursor =
        store::scanLoadedRecords(state, range, std::nullopt, ScanProperties(execute));
    int scanned = 0;
    int64_t bytes = 0;
    for (auto result = cursor->next(); result.hasValue(); result = cursor->next()) {
      const LoadedRecord& record = result.value();
      const int64_t size = record.size.keySize + record.size.valueSize;
      if (scanned >= c.options.recordsPerTransaction ||
          (scanned > 0 && bytes + size > c.options.recordBytesPerTransaction)) {
        next = record.primaryKey.pack();
        break;
      }
      scanned += 1;
      bytes += size;
      report.recordsScanned += 1;
      // As a save of a new record would: a unique index records violations (WRITE_ONLY).
      if (store::indexRecord(state, storeIndex, record)) report.recordsIndexed += 1;
    }
  }

  // The range built so far: [0x00, next), or everything.
  context.clearRange(rangeSet.range());
  tr.set(rangeSet.pack(fdb::Tuple{fdb::ByteString{kRangeSetStart}}), next.value_or(kRangeSetEnd));
  if (next) {
    report.state = IndexState::kWriteOnly;
    return false;
  }
  try {
    store::markIndexReadable(state, storeIndex);  // clears the range set
    report.state = IndexState::kReadable;
    report.uniquenessViolations = 0;
  } catch (const IndexNotBuiltException&) {
    report.state = IndexState::kWriteOnly;
    report.uniquenessViolations =
        static_cast<int64_t>(store.uniquenessViolations(index.name()).size());
  }
  return true;
}

}  // namespace rl
