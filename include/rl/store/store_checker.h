// rl::StoreChecker — a read-only consistency check of one record store: its header, the
// layout of every record, and every VALUE index against the records (docs/format.md,
// "Consistency checks").
//
// The check walks the store in as many transactions as it needs, each one bounded by a
// budget (records or entries, and time), so it works on stores far larger than one
// transaction's 5 seconds. It never writes. Every problem is reported with the key it was
// found at, and the walk goes on past it.
//
//   rl::CheckReport report = rl::StoreChecker(db, location, metaData).run();
//   if (!report.ok()) {
//     for (const rl::CheckProblem& problem : report.problems) std::cerr << problem.toString();
//   }
//
// Or step by step, in transactions of your own (each step resumes where the last stopped):
//   rl::StoreChecker checker(db, location, metaData);
//   while (!checker.done()) {
//     rl::runInContext(db, [&](rl::RecordContext& context) { checker.step(context); });
//   }
//
// What is checked:
//   - the header at (0) exists, parses as DataStoreInfo, has a format version in 1..15 and a
//     metadata version not above the local metadata's (any of these failing ends the check:
//     without a valid header the layout is unknown);
//   - index state values at (5, name) parse;
//   - every record under (1): its keys decode, its split chunks are well formed (one integer
//     suffix, 0 alone or chunks 1..n without gaps, an inline version at -1 only where the
//     format keeps versions inline, never alone), its bytes deserialize as exactly one field of
//     the union message, and it sits under the primary key its type evaluates;
//   - for every VALUE index in state READABLE, READABLE_UNIQUE_PENDING or WRITE_ONLY, and
//     built at the store's metadata version: each record's entries are present with the
//     right value; no entry lacks a record that produces it; a unique index has no two
//     records with one value unless both are recorded as uniqueness violations at (7, sk).
// An index of another type is checked by its type's own check when the type brings one
// (docs/indexes.md). Indexes of types without one, DISABLED ones, and ones newer than the
// store's metadata version (they are built or disabled at the next open) are skipped and
// listed as such.
//
// Consistency under concurrent writes: each step reads one snapshot, a record and its
// entries (or an entry and its record) are always checked in the same step, and a group of
// entries sharing a unique value is never split across steps. On a quiescent store the
// report is exact.
//
// Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fdb/database.h"
#include "fdb/types.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata.h"
#include "rl/store/store_location.h"

namespace rl {

enum class CheckProblemKind {
  kMissingHeader,        // no header at (0) (the store is empty or headerless)
  kBadHeader,            // does not parse, format version out of range, metadata too new
  kBadIndexState,        // an index state value at (5, name) that does not parse
  kUndecodableKey,       // a key under (1) or (2, sk) that is not the tuple it should be
  kBadSplit,             // gap, unsplit with split, misplaced or lone version, bad suffix
  kUndecodableRecord,    // the bytes are not one record of the union (or fail to parse)
  kWrongPrimaryKey,      // the record evaluates to another primary key than its key's
  kMissingIndexEntry,    // a record's index entry is absent
  kWrongIndexValue,      // a record's index entry is present with another value
  kDanglingIndexEntry,   // an entry whose record is missing or does not produce it
  kUniquenessViolation,  // two records share a value of a unique index, unrecorded
  kBadRankedSet,         // a rank index's ranked set disagrees with its entries or itself
};
std::string_view checkProblemKindName(CheckProblemKind kind);  // "missing_index_entry", ...

struct CheckProblem {
  CheckProblemKind kind;
  fdb::Bytes key;            // the raw key the problem was found at
  std::string printableKey;  // fdb::printable(key)
  std::string message;

  // "<kind> at <printable key>: <message>"
  std::string toString() const;
};

struct CheckReport {
  // What was walked.
  int64_t transactions = 0;          // steps that completed
  int64_t recordsChecked = 0;        // records assembled from (1)
  int64_t recordKeysScanned = 0;     // key-values read under (1)
  int64_t indexEntriesExpected = 0;  // entries records should have, each looked up
  int64_t indexEntriesScanned = 0;   // key-values read under (2, sk)
  std::vector<std::string> indexesChecked;
  std::vector<std::string> indexesSkipped;  // "name: why"
  // What was found, in the order found; at most CheckOptions::maxProblems of them.
  std::vector<CheckProblem> problems;
  int64_t problemsDropped = 0;  // found beyond maxProblems

  bool ok() const { return problems.empty() && problemsDropped == 0; }
  int64_t count(CheckProblemKind kind) const;
  // A few lines: the counts and every problem.
  std::string summary() const;
};

struct CheckOptions {
  // The budget of one transaction: a step stops at the first record (or entry group)
  // boundary after either is spent. Keep the time well under FoundationDB's 5 s.
  int64_t maxItemsPerTransaction = 2'000;  // records, or index entries
  std::chrono::milliseconds maxTimePerTransaction{1'000};
  // Rows per range read.
  int batchSize = 500;
  // Problems kept in the report; further ones are only counted.
  size_t maxProblems = 10'000;
};

class StoreChecker {
 public:
  StoreChecker(fdb::Database db, StoreLocation location, RecordMetaData metaData,
               CheckOptions options = {});
  StoreChecker(StoreChecker&&) noexcept;
  StoreChecker& operator=(StoreChecker&&) noexcept;
  ~StoreChecker();

  // Runs every step, each in its own runInContext transaction, and returns the report.
  CheckReport run();

  // One step in `context`: reads up to the budget and returns whether the check is done.
  // What a step found is kept only once the step returns, so a step that throws (a
  // retryable fdb::Error, say) can be run again in a fresh transaction: nothing is counted
  // twice. A step never writes; committing its context is optional.
  bool step(RecordContext& context);
  bool done() const;
  const CheckReport& report() const;

  struct Impl;  // defined in src/rl/store/checker/check_step.h

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rl
