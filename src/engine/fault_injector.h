// FaultInjector — the engine's seeded fault plan (FoundationDB's client buggify,
// in-process): which commits fail with not_committed or commit_unknown_result, which reads
// find their read version too old, which round trips are slow. Decisions come from one
// seeded generator in the order operations ask, so the same seed and the same sequence of
// operations give the same faults; trace() lists them.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "fdb/database.h"

namespace fdb::engine {

class FaultInjector {
 public:
  enum class CommitFault {
    kNone,
    kNotCommitted,         // fail with 1020, nothing applied
    kUnknownNotCommitted,  // fail with 1021, nothing applied
    kUnknownCommitted,     // apply, then fail with 1021
  };

  explicit FaultInjector(const EngineOptions::Faults& faults);

  bool enabled() const { return faults_.enabled; }
  CommitFault commitFault();
  bool readVersionTooOld();
  // Extra microseconds for one round trip (0 when it is not slowed down).
  int64_t slowdownMicros();
  // Every fault injected so far: "<decision number> <what>".
  std::vector<std::string> trace() const;

 private:
  // REQUIRES: mutex_ held. A uniform draw in [0, 1), counted.
  double draw();
  void record(const std::string& what);

  const EngineOptions::Faults faults_;
  mutable std::mutex mutex_;
  std::mt19937_64 random_;
  uint64_t decisions_ = 0;
  std::vector<std::string> trace_;
};

}  // namespace fdb::engine
