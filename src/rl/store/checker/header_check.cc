// The header check: the store's header at (0) and its index states at (5, name); from them,
// the layout of records and which indexes the later phases check, each through its type's
// check (src/rl/index/index_check.h).
#include <fmt/format.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fdb/error.h"
#include "rl/index/index_maintainer_registry.h"
#include "rl/store/checker/check_step.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_store_state.h"

namespace rl::checker {
namespace {

// The index states at (5, name) (absent is READABLE); a value that is not one is a problem.
std::map<std::string, IndexState, std::less<>> readIndexStates(
    CheckStep& step, const fdb::Subspace& stateSubspace,
    const std::vector<fdb::KeyValue>& stateRows) {
  std::map<std::string, IndexState, std::less<>> states;
  for (const fdb::KeyValue& row : stateRows) {
    std::optional<std::string> name;
    try {
      const fdb::Tuple key = stateSubspace.unpack(row.key);
      if (key.size() == 1 && key[0].type() == fdb::TupleType::kString) name = key.getString(0);
    } catch (const fdb::Error&) {
    }
    const std::optional<IndexState> state = store::decodeIndexState(row.value);
    if (!name || !state) {
      step.problem(CheckProblemKind::kBadIndexState, row.key,
                   fmt::format("not an index state: value {}", fdb::printable(row.value)));
      continue;
    }
    states[*name] = *state;
  }
  return states;
}

// The indexes to check: each with a check of its type, in a state that is maintained, and
// built at the store's metadata version; the others are listed as skipped, saying why.
void chooseIndexes(CheckStep& step, const std::map<std::string, IndexState, std::less<>>& states,
                   Setup& setup) {
  StoreChecker::Impl& c = step.checker;
  const IndexMaintainerRegistry& registry = IndexMaintainerRegistry::instance();
  for (const auto& index : c.metaData.allIndexes()) {
    auto it = states.find(index->name());
    const IndexState state = it == states.end() ? IndexState::kReadable : it->second;
    const std::shared_ptr<const IndexMaintainerFactory> factory = registry.find(index->type());
    std::unique_ptr<IndexCheck> check;
    if (factory != nullptr) {
      check = factory->createCheck(IndexCheckTarget{
          index, c.metaData, c.subspace.pack(fdb::Tuple{keyspace::kIndex, index->subspaceKey()}),
          c.subspace.pack(fdb::Tuple{keyspace::kIndexUniquenessViolations, index->subspaceKey()})});
    }
    std::string skipped;
    if (factory == nullptr) {
      skipped = fmt::format("type {} is not checked (no index maintainer is registered for it)",
                            index->type());
    } else if (check == nullptr) {
      skipped = fmt::format("type {} is not checked", index->type());
    } else if (state == IndexState::kDisabled || state == IndexState::kWriteOnlyWithQueue) {
      skipped = std::string(indexStateName(state));
    } else if (index->lastModifiedVersion() > setup.layout.metaDataVersion) {
      skipped = fmt::format("newer (version {}) than the store's metadata (version {})",
                            index->lastModifiedVersion(), setup.layout.metaDataVersion);
    }
    if (!skipped.empty()) {
      step.found.indexesSkipped.push_back(index->name() + ": " + skipped);
      continue;
    }
    step.found.indexesChecked.push_back(index->name());
    const size_t position = setup.indexes.size();
    setup.indexes.push_back(CheckedIndex{index, std::move(check)});
    for (const RecordType* type : c.metaData.recordTypesForIndex(*index)) {
      setup.indexesByType[type].push_back(position);
    }
  }
}

}  // namespace

void checkHeader(CheckStep& step) {
  StoreChecker::Impl& c = step.checker;
  try {
    c.subspace = c.location.resolve(step.tr, StoreLocation::kOpen);
  } catch (const fdb::Error& e) {
    if (e.code() != fdb::errors::kDirectoryDoesNotExist) throw;
    step.problem(CheckProblemKind::kMissingHeader, "",
                 "the store's directory does not exist: " + c.location.describe());
    step.nextPhase(Phase::kDone);
    return;
  }
  c.recordsSubspace = c.subspace.subspace(fdb::Tuple{keyspace::kRecord});
  const fdb::Bytes headerKey = c.subspace.pack(fdb::Tuple{keyspace::kStoreInfo});
  fdb::Future<std::optional<fdb::Bytes>> headerRead = step.reads().get(headerKey);
  const fdb::Subspace stateSubspace = c.subspace.subspace(fdb::Tuple{keyspace::kIndexState});
  fdb::RangeOptions all;
  all.mode = fdb::StreamingMode::kWantAll;
  fdb::Future<fdb::RangeResult> statesRead = step.reads().getRange(stateSubspace.range(), all);

  const std::optional<fdb::Bytes> header = std::move(headerRead).get();
  if (!header) {
    fdb::RangeOptions first;
    first.limit = 1;
    const fdb::RangeResult firstKey = step.reads().getRange(c.subspace.range(), first).get();
    step.problem(CheckProblemKind::kMissingHeader, headerKey,
                 firstKey.rows.empty() ? "the store is empty: there is no header"
                                       : fmt::format("no header, but the store has keys (first {})",
                                                     fdb::printable(firstKey.rows[0].key)));
    step.nextPhase(Phase::kDone);
    return;
  }
  DataStoreInfo info;
  if (!info.ParseFromArray(header->data(), static_cast<int>(header->size()))) {
    step.problem(CheckProblemKind::kBadHeader, headerKey,
                 "the header does not parse as DataStoreInfo");
    step.nextPhase(Phase::kDone);
    return;
  }
  if (info.formatversion() < kMinFormatVersion || info.formatversion() > kMaxFormatVersion) {
    step.problem(CheckProblemKind::kBadHeader, headerKey,
                 fmt::format("format version {} is outside {}..{}", info.formatversion(),
                             kMinFormatVersion, kMaxFormatVersion));
    step.nextPhase(Phase::kDone);
    return;
  }
  if (info.metadataversion() > c.metaData.version()) {
    step.problem(CheckProblemKind::kBadHeader, headerKey,
                 fmt::format("metadata version {} is above the local metadata's {}: the store "
                             "cannot be checked with this metadata",
                             info.metadataversion(), c.metaData.version()));
    step.nextPhase(Phase::kDone);
    return;
  }
  Setup setup;
  setup.layout.formatVersion = info.formatversion();
  setup.layout.metaDataVersion = info.metadataversion();
  setup.layout.splitLongRecords = c.metaData.splitLongRecords();
  setup.layout.omitUnsplitSuffix = info.formatversion() < kSaveUnsplitWithSuffixFormatVersion ||
                                   info.omit_unsplit_record_suffix();

  const fdb::RangeResult firstStates = std::move(statesRead).get();
  std::vector<fdb::KeyValue> stateRows(firstStates.rows.begin(), firstStates.rows.end());
  if (firstStates.more) {
    // The read stopped early (docs/semantics.md, "Range reads"): the rest, after its last row.
    const fdb::KeyRange rest{stateRows.back().key + '\x00', stateSubspace.range().end};
    for (fdb::KeyValue& row : step.reads().getRangeAll(rest)) stateRows.push_back(std::move(row));
  }
  chooseIndexes(step, readIndexStates(step, stateSubspace, stateRows), setup);
  step.newSetup = std::move(setup);
  step.nextPhase(Phase::kRecords);
}

}  // namespace rl::checker
