#include "rl/store/checker/check_step.h"

namespace rl {

StoreChecker::Impl::Impl(fdb::Database db, StoreLocation location, RecordMetaData metaData,
                         CheckOptions options)
    : db(std::move(db)),
      location(std::move(location)),
      metaData(std::move(metaData)),
      options(options),
      factory(this->metaData.messageFactory()) {}

}  // namespace rl

namespace rl::checker {

const std::vector<size_t>& Setup::indexesFor(const RecordType& type) const {
  static const std::vector<size_t> none;
  auto it = indexesByType.find(&type);
  return it == indexesByType.end() ? none : it->second;
}

CheckStep::CheckStep(StoreChecker::Impl& checker, RecordContext& context)
    : checker(checker),
      tr(context.transaction()),
      progress(checker.progress),
      deadline_(std::chrono::steady_clock::now() + checker.options.maxTimePerTransaction) {}

bool CheckStep::budgetSpent() const {
  return items_ >= checker.options.maxItemsPerTransaction ||
         std::chrono::steady_clock::now() >= deadline_;
}

void CheckStep::stopAt(fdb::Bytes key) {
  progress.resumeAt = std::move(key);
  stopped_ = true;
}

bool CheckStep::stopBefore(std::string_view key) {
  if (items_ == 0 || !budgetSpent()) return false;
  stopAt(fdb::Bytes(key));
  return true;
}

void CheckStep::nextPhase(Phase phase) {
  progress.phase = phase;
  progress.resumeAt.reset();
}

fdb::RangeResult CheckStep::readBatch(fdb::Bytes& begin, const fdb::Bytes& end) {
  fdb::RangeOptions options;
  options.limit = checker.options.batchSize;
  options.mode = fdb::StreamingMode::kWantAll;
  fdb::RangeResult batch = tr.snapshot().getRange(fdb::KeyRange{begin, end}, options).get();
  if (!batch.rows.empty()) begin = fdb::Bytes(batch.rows[batch.rows.size() - 1].key) + '\x00';
  return batch;
}

void CheckStep::countEntry(bool checked) {
  if (checked) items_ += 1;
  found.indexEntriesScanned += 1;
}

void CheckStep::problem(CheckProblemKind kind, std::string_view key, std::string message) {
  found.problems.push_back(
      CheckProblem{kind, fdb::Bytes(key), fdb::printable(key), std::move(message)});
}

std::map<fdb::Tuple, RecordUnderKey> CheckStep::readRecords(
    const std::set<fdb::Tuple>& primaryKeys) {
  return readRecordsAt(*this, primaryKeys);
}

}  // namespace rl::checker
