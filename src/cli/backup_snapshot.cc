#include "backup_snapshot.h"

#include <fmt/core.h>

#include "fdb/error.h"

namespace rl::cli {

SnapshotStats readSnapshot(fdb::Database& db, fdb::Transaction first, int64_t version,
                           const SnapshotOptions& options, const std::vector<fdb::KeyRange>& ranges,
                           const std::function<void(const fdb::KeyValueRef&)>& row,
                           const std::function<void(const SnapshotStats&)>& afterRead) {
  SnapshotStats stats;
  stats.transactions = 1;
  fdb::Transaction tr = std::move(first);
  int64_t bytesThisTransaction = 0;
  fdb::RangeOptions read;
  read.limit = options.rowsPerRead;
  read.targetBytes = options.bytesPerRead;
  read.mode = fdb::StreamingMode::kWantAll;
  for (const fdb::KeyRange& range : ranges) {
    fdb::Bytes begin = range.begin;
    while (true) {
      if (bytesThisTransaction >= options.readBytesPerTransaction) {
        tr = db.createTransaction();
        tr.setReadVersion(version);
        stats.transactions += 1;
        bytesThisTransaction = 0;
      }
      fdb::RangeResult batch;
      try {
        batch = tr.snapshot().getRange(fdb::KeyRange{begin, range.end}, read).get();
      } catch (const fdb::Error& e) {
        const bool tooOld = e.code() == fdb::errors::kTransactionTooOld;
        if (tooOld && !options.soleWriter) {
          throw fdb::Error(
              e.code(),
              fmt::format("the backup could not read everything at read version {} within "
                          "FoundationDB's 5-second MVCC window ({} keys read); back up less at "
                          "a time (--path)",
                          version, stats.keys));
        }
        tr.onError(e).get();  // waits, resets; rethrows what is not retryable
        stats.transactions += 1;
        bytesThisTransaction = 0;
        if (tooOld) {
          stats.newReadVersions += 1;  // the reset transaction takes a new read version
        } else {
          tr.setReadVersion(version);
        }
        continue;
      }
      for (const fdb::KeyValueRef& kv : batch.rows) {
        row(kv);
        stats.keys += 1;
        stats.bytes += static_cast<int64_t>(kv.key.size() + kv.value.size());
        bytesThisTransaction += static_cast<int64_t>(kv.key.size() + kv.value.size());
      }
      if (afterRead) afterRead(stats);
      if (!batch.more || batch.rows.empty()) break;
      begin = fdb::Bytes(batch.rows.back().key) + '\x00';
    }
  }
  return stats;
}

}  // namespace rl::cli
