// The store checker's pieces (include/rl/store/store_checker.h), sharing one step: the header
// check (header_check.cc), the record check (record_check.cc: records, splits, versions, and
// each record's index entries), and each index's own check, made by its type's maintainer
// factory (src/rl/index/index_check.h); store_checker.cc runs them in order.
//
// Phases: the header (and index states), then the records under (1) in key order, then each
// checked index under (2, sk) in key order. A step resumes at the first key it did not
// finish; record and entry groups are never split between steps.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "fdb/database.h"
#include "fdb/subspace.h"
#include "fdb/transaction.h"
#include "fdb/types.h"
#include "rl/context/record_context.h"
#include "rl/index/index_check.h"
#include "rl/metadata/metadata.h"
#include "rl/record/record_serializer.h"
#include "rl/store/record_store.h"
#include "rl/store/store_checker.h"
#include "rl/store/store_location.h"

namespace rl::checker {

// What the header says about the layout of records.
struct Layout {
  int formatVersion = 0;
  int metaDataVersion = 0;
  bool splitLongRecords = false;
  bool omitUnsplitSuffix = false;
  bool legacyUnsuffixed() const { return omitUnsplitSuffix && !splitLongRecords; }
  bool oldVersionFormat() const {
    return formatVersion < kSaveVersionWithRecordFormatVersion || omitUnsplitSuffix;
  }
};

// One index the checker verifies, through its type's check.
struct CheckedIndex {
  std::shared_ptr<const Index> index;
  std::unique_ptr<IndexCheck> check;
};

// What the header phase works out, for the phases after it.
struct Setup {
  Layout layout;
  std::vector<CheckedIndex> indexes;
  // The positions in `indexes` of the checked indexes covering each record type.
  std::map<const RecordType*, std::vector<size_t>> indexesByType;

  const std::vector<size_t>& indexesFor(const RecordType& type) const;
};

enum class Phase { kHeader, kRecords, kIndexes, kDone };

// Where the walk is; copied at the start of a step and kept only if the step completes.
struct Progress {
  Phase phase = Phase::kHeader;
  size_t indexPosition = 0;
  std::optional<fdb::Bytes> resumeAt;  // the first key not yet checked in this phase
};

}  // namespace rl::checker

namespace rl {

struct StoreChecker::Impl {
  Impl(fdb::Database db, StoreLocation location, RecordMetaData metaData, CheckOptions options);

  fdb::Database db;
  StoreLocation location;
  RecordMetaData metaData;
  CheckOptions options;
  google::protobuf::MessageFactory* factory = nullptr;  // the metadata's

  // Kept across steps (set by the header phase).
  checker::Progress progress;
  CheckReport report;
  fdb::Subspace subspace;
  fdb::Subspace recordsSubspace;
  checker::Setup setup;
  TransformedRecordSerializer serializer;
};

}  // namespace rl

namespace rl::checker {

// One step's work: its reads, its tentative progress and findings. The pieces of the check
// read and advance it; what it found is kept by the checker only once the step completes.
class CheckStep final : public IndexCheckContext {
 public:
  CheckStep(StoreChecker::Impl& checker, RecordContext& context);

  // Runs the step: its findings are in found, where it stopped in progress.
  void run();

  StoreChecker::Impl& checker;
  fdb::Transaction& tr;
  Progress progress;
  CheckReport found;
  // Set by the header phase of this step (moved into the checker when the step completes).
  std::optional<Setup> newSetup;

  // The setup of this step's header phase, else the checker's.
  const Setup& setup() const { return newSetup ? *newSetup : checker.setup; }
  const Layout& layout() const { return setup().layout; }

  // --- Budget ---
  bool budgetSpent() const;
  int64_t items() const { return items_; }
  void countItem() { items_ += 1; }
  // Stops the step; the next one resumes at `key`.
  void stopAt(fdb::Bytes key);
  bool stopped() const { return stopped_; }
  void nextPhase(Phase phase);

  // --- IndexCheckContext ---
  fdb::SnapshotReads reads() override { return tr.snapshot(); }
  fdb::RangeResult readBatch(fdb::Bytes& begin, const fdb::Bytes& end) override;
  bool stopBefore(std::string_view key) override;
  void countEntry(bool checked) override;
  void problem(CheckProblemKind kind, std::string_view key, std::string message) override;
  std::map<fdb::Tuple, RecordUnderKey> readRecords(
      const std::set<fdb::Tuple>& primaryKeys) override;

 private:
  std::chrono::steady_clock::time_point deadline_;
  int64_t items_ = 0;
  bool stopped_ = false;
};

// The phases (header_check.cc, record_check.cc, store_checker.cc).
void checkHeader(CheckStep& step);
void checkRecords(CheckStep& step);
void checkIndex(CheckStep& step);

// The records under `primaryKeys`, read silently (record_check.cc; CheckStep::readRecords).
std::map<fdb::Tuple, RecordUnderKey> readRecordsAt(CheckStep& step,
                                                   const std::set<fdb::Tuple>& primaryKeys);

}  // namespace rl::checker
