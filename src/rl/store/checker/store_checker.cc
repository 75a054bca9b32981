// The store checker: a read-only walk of a record store in budgeted steps (store_checker.h),
// run piece by piece (check_step.h): the header check, the record check, then each checked
// index's own check.
#include "rl/store/store_checker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <utility>

#include "rl/store/checker/check_step.h"

namespace rl {

std::string_view checkProblemKindName(CheckProblemKind kind) {
  switch (kind) {
    case CheckProblemKind::kMissingHeader: return "missing_header";
    case CheckProblemKind::kBadHeader: return "bad_header";
    case CheckProblemKind::kBadIndexState: return "bad_index_state";
    case CheckProblemKind::kUndecodableKey: return "undecodable_key";
    case CheckProblemKind::kBadSplit: return "bad_split";
    case CheckProblemKind::kUndecodableRecord: return "undecodable_record";
    case CheckProblemKind::kWrongPrimaryKey: return "wrong_primary_key";
    case CheckProblemKind::kMissingIndexEntry: return "missing_index_entry";
    case CheckProblemKind::kWrongIndexValue: return "wrong_index_value";
    case CheckProblemKind::kDanglingIndexEntry: return "dangling_index_entry";
    case CheckProblemKind::kUniquenessViolation: return "uniqueness_violation";
    case CheckProblemKind::kBadRankedSet: return "bad_ranked_set";
  }
  return "unknown";
}

std::string CheckProblem::toString() const {
  return fmt::format("{} at {}: {}", checkProblemKindName(kind), printableKey, message);
}

int64_t CheckReport::count(CheckProblemKind kind) const {
  return std::count_if(problems.begin(), problems.end(),
                       [&](const CheckProblem& problem) { return problem.kind == kind; });
}

std::string CheckReport::summary() const {
  std::string out = fmt::format(
      "{} transactions; {} records ({} keys); {} index entries expected, {} scanned; "
      "indexes checked: {}; skipped: {}; {} problems{}\n",
      transactions, recordsChecked, recordKeysScanned, indexEntriesExpected, indexEntriesScanned,
      fmt::join(indexesChecked, ", "), fmt::join(indexesSkipped, ", "), problems.size(),
      problemsDropped > 0 ? fmt::format(" (and {} more not listed)", problemsDropped) : "");
  for (const CheckProblem& problem : problems) out += "  " + problem.toString() + "\n";
  return out;
}

namespace checker {

void CheckStep::run() {
  while (progress.phase != Phase::kDone && !stopped()) {
    switch (progress.phase) {
      case Phase::kHeader: checkHeader(*this); break;
      case Phase::kRecords: checkRecords(*this); break;
      case Phase::kIndexes: checkIndex(*this); break;
      case Phase::kDone: break;
    }
  }
}

// The index phase: the entries of the checked index at progress.indexPosition, checked by
// the index's own check.
void checkIndex(CheckStep& step) {
  const std::vector<CheckedIndex>& indexes = step.setup().indexes;
  if (step.progress.indexPosition >= indexes.size()) {
    step.nextPhase(Phase::kDone);
    return;
  }
  IndexCheck& check = *indexes[step.progress.indexPosition].check;
  if (!check.checkEntries(step, step.progress.resumeAt)) return;  // the step stopped
  step.progress.indexPosition += 1;
  step.progress.resumeAt.reset();
}

}  // namespace checker

StoreChecker::StoreChecker(fdb::Database db, StoreLocation location, RecordMetaData metaData,
                           CheckOptions options)
    : impl_(std::make_unique<Impl>(std::move(db), std::move(location), std::move(metaData),
                                   options)) {}
StoreChecker::StoreChecker(StoreChecker&&) noexcept = default;
StoreChecker& StoreChecker::operator=(StoreChecker&&) noexcept = default;
StoreChecker::~StoreChecker() = default;

bool StoreChecker::done() const { return impl_->progress.phase == checker::Phase::kDone; }
const CheckReport& StoreChecker::report() const { return impl_->report; }

bool StoreChecker::step(RecordContext& context) {
  if (done()) return true;
  checker::CheckStep step(*impl_, context);
  step.run();
  // The step completed: keep what it found.
  Impl& c = *impl_;
  if (step.newSetup) c.setup = std::move(*step.newSetup);
  c.progress = step.progress;
  CheckReport& found = step.found;
  CheckReport& report = c.report;
  report.transactions += 1;
  report.recordsChecked += found.recordsChecked;
  report.recordKeysScanned += found.recordKeysScanned;
  report.indexEntriesExpected += found.indexEntriesExpected;
  report.indexEntriesScanned += found.indexEntriesScanned;
  for (std::string& name : found.indexesChecked) report.indexesChecked.push_back(std::move(name));
  for (std::string& name : found.indexesSkipped) report.indexesSkipped.push_back(std::move(name));
  for (CheckProblem& problem : found.problems) {
    if (report.problems.size() < c.options.maxProblems) {
      report.problems.push_back(std::move(problem));
    } else {
      report.problemsDropped += 1;
    }
  }
  return done();
}

CheckReport StoreChecker::run() {
  while (!done()) {
    runInContext(impl_->db, [&](RecordContext& context) { step(context); });
  }
  return impl_->report;
}

}  // namespace rl
