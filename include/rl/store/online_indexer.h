// rl::OnlineIndexer — builds an index of an existing record store from its records, in as
// many transactions as it takes, then marks it READABLE: what a store with more records than
// an open builds at once (kMaxRecordsForRebuild) needs for a new index it left DISABLED or
// WRITE_ONLY (docs/format.md, "Online index builds"; the Java Record Layer's OnlineIndexer
// building by records).
//
//   rl::IndexBuildReport report =
//       rl::OnlineIndexer(db, location, metaData, "Order$customer").run();
//   // report.state == rl::IndexState::kReadable
//
// How: the first step marks a DISABLED index WRITE_ONLY (clearing any data it has), so saves
// from then on maintain it. Each step scans the records in primary-key order from where the
// last one stopped, up to its budget (records and bytes of records), indexes each as a save
// would (a unique index records its violations instead of refusing), and records the
// primary-key range built so far in the index's range set at P+(6, sk) in the Java Record
// Layer's RangeSet format: one range from \x00 to the packed primary key of the first record
// not yet indexed (\xff once every record is). The step that reaches the last record marks
// the index READABLE, which clears the range set; a unique index with violations stays
// WRITE_ONLY and the report says so.
//
// Resumable: a build that stopped (a crash, an error, a process killed) is taken up by the
// next OnlineIndexer from the range set's end. A WRITE_ONLY index without a range set (or with
// one this indexer did not write) is built from the first record; indexing a record twice
// writes the same entries, so that is always safe for VALUE indexes. An index that counts
// (count, count_updates, count_not_null, sum: not idempotent) is instead cleared and built
// from nothing in that case; while it is WRITE_ONLY, saves update it only for records in the
// range already built (the range set read with a conflict range), so no record is counted
// twice, as the Java Record Layer's indexer and saves arrange it.
//
// Concurrency: saves in other transactions keep a WRITE_ONLY index up to date, and a step
// reads its records and the range set with conflict ranges, so a save to a record the step
// indexes, or a second indexer, makes one of the two retry. Run one indexer at a time per
// index (there is no lease, unlike the Java indexer's synchronized sessions).
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "fdb/database.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata.h"
#include "rl/store/record_store.h"
#include "rl/store/store_location.h"

namespace rl {

struct OnlineIndexerOptions {
  // The budget of one transaction: a step stops before the record that would exceed either
  // (always after at least one record). FoundationDB allows 10 MB and 5 seconds; the Java
  // indexer's defaults are 100 records (adapting) and 900,000 bytes written.
  int recordsPerTransaction = 500;
  int64_t recordBytesPerTransaction = 1'000'000;  // of stored records read
  // Stop after this many steps, the build unfinished (the next run resumes it); 0: none.
  int64_t maxTransactions = 0;
};

struct IndexBuildReport {
  int64_t transactions = 0;      // steps committed
  int64_t recordsScanned = 0;    // records read by those steps
  int64_t recordsIndexed = 0;    // of them, the records of types the index covers
  bool resumed = false;          // the first step took up a build an earlier one had begun
  bool alreadyReadable = false;  // there was nothing to build
  // Where the build stands: READABLE when done; WRITE_ONLY when stopped by maxTransactions,
  // or done for a unique index whose records violate it.
  IndexState state = IndexState::kDisabled;
  int64_t uniquenessViolations = 0;  // records recorded as violating a unique index
};

class OnlineIndexer {
 public:
  OnlineIndexer(fdb::Database db, StoreLocation location, RecordMetaData metaData,
                std::string indexName, OnlineIndexerOptions options = {});
  OnlineIndexer(OnlineIndexer&&) noexcept;
  OnlineIndexer& operator=(OnlineIndexer&&) noexcept;
  ~OnlineIndexer();

  // Runs the build, each step in its own runInContext transaction (retried there; a retried
  // step counts once), calling `afterStep` with the report after each committed step; returns
  // the report. Throws RecordCoreArgumentException for an index the metadata does not have,
  // or in a state the indexer does not build from (WRITE_ONLY_WITH_QUEUE); what opening the
  // store throws; and the errors runInContext does not retry.
  IndexBuildReport run(const std::function<void(const IndexBuildReport&)>& afterStep = {});

  struct Impl;  // defined in online_indexer.cc

 private:
  // One step in `context`, counted into `report`; returns whether the build is done.
  bool step(RecordContext& context, IndexBuildReport& report);

  std::unique_ptr<Impl> impl_;
};

}  // namespace rl
