#include "engine/fault_injector.h"

#include <fmt/format.h>

namespace fdb::engine {

FaultInjector::FaultInjector(const EngineOptions::Faults& faults)
    : faults_(faults), random_(faults.seed) {}

double FaultInjector::draw() {
  ++decisions_;
  return std::uniform_real_distribution<double>(0, 1)(random_);
}

void FaultInjector::record(const std::string& what) {
  trace_.push_back(fmt::format("{} {}", decisions_, what));
}

FaultInjector::CommitFault FaultInjector::commitFault() {
  if (!faults_.enabled) return CommitFault::kNone;
  std::lock_guard lock(mutex_);
  double roll = draw();
  if (roll < faults_.notCommitted) {
    record("commit not_committed");
    return CommitFault::kNotCommitted;
  }
  if (roll < faults_.notCommitted + faults_.unknownResult) {
    bool applied = draw() < 0.5;
    record(applied ? "commit commit_unknown_result after committing"
                   : "commit commit_unknown_result without committing");
    return applied ? CommitFault::kUnknownCommitted : CommitFault::kUnknownNotCommitted;
  }
  return CommitFault::kNone;
}

bool FaultInjector::readVersionTooOld() {
  if (!faults_.enabled || faults_.readVersionTooOld <= 0) return false;
  std::lock_guard lock(mutex_);
  if (draw() >= faults_.readVersionTooOld) return false;
  record("read transaction_too_old");
  return true;
}

int64_t FaultInjector::slowdownMicros() {
  if (!faults_.enabled || faults_.slowdown <= 0) return 0;
  std::lock_guard lock(mutex_);
  if (draw() >= faults_.slowdown) return 0;
  record(fmt::format("slow {} us", faults_.slowdownMicros));
  return faults_.slowdownMicros;
}

std::vector<std::string> FaultInjector::trace() const {
  std::lock_guard lock(mutex_);
  return trace_;
}

}  // namespace fdb::engine
