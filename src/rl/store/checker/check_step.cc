#include "rl/store/checker/check_step.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>

namespace rl {

StoreChecker::Impl::Impl(fdb::Database db, StoreLocation location, RecordMetaData metaData,
                         CheckOptions options)
    : db(std::move(db)),
      location(std::move(location)),
      metaData(std::move(metaData)),
      options(options) {
  if (this->metaData.unionDescriptor().file()->pool() ==
      google::protobuf::DescriptorPool::generated_pool()) {
    factory = google::protobuf::MessageFactory::generated_factory();
  } else {
    ownedFactory = std::make_unique<google::protobuf::DynamicMessageFactory>();
    factory = ownedFactory.get();
  }
}

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

fdb::RangeOptions CheckStep::batchOptions() const {
  fdb::RangeOptions options;
  options.limit = checker.options.batchSize;
  options.mode = fdb::StreamingMode::kWantAll;
  return options;
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
