// IndexCheck — the store checker's verification of one index (include/rl/store/store_checker.h),
// made by the index type's IndexMaintainerFactory::createCheck, so that each index type
// brings its own check. The checker (src/rl/store/checker/) walks the records and asks each
// index covering a record for the entries it expects (looking them up together); then it
// hands each index its turn to scan its own entries, through an IndexCheckContext: snapshot
// reads, the step's budget, problem reports, and the records under given primary keys.
//
//   std::unique_ptr<IndexCheck> check = factory.createCheck(target);
//   for (const ExpectedIndexEntry& entry : check->expectedEntries(record)) lookUp(entry);
//   const bool done = check->checkEntries(step, resumeAt);  // false: the step stopped
//
// Thread-safety: one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "fdb/bytes.h"
#include "fdb/transaction.h"
#include "fdb/tuple.h"
#include "fdb/types.h"
#include "rl/metadata/index.h"
#include "rl/metadata/metadata.h"
#include "rl/metadata/record_type.h"
#include "rl/record/record_version.h"
#include "rl/store/store_checker.h"

namespace rl {

// The index a check verifies, in the store being checked (the metadata is read only while
// the check is made).
struct IndexCheckTarget {
  std::shared_ptr<const Index> index;
  const RecordMetaData& metaData;
  fdb::Bytes prefix;            // P+(2, sk)
  fdb::Bytes violationsPrefix;  // P+(7, sk)
};

// A record the checker assembled and deserialized.
struct CheckedRecord {
  fdb::Tuple primaryKey;
  fdb::Bytes firstKey;  // its first data key, for reports
  const RecordType* type = nullptr;
  std::unique_ptr<google::protobuf::Message> message;
  std::optional<RecordVersion> version;
};

// What the checker found under one primary key.
struct RecordUnderKey {
  bool exists = false;                  // it has data (a version alone is no record)
  bool versionOnly = false;             // no data, but its inline version is there
  std::optional<CheckedRecord> record;  // when it exists, assembled and deserialized
};

// One key-value a record should have in an index, as stored.
struct ExpectedIndexEntry {
  fdb::Bytes key;
  fdb::Bytes value;
  bool containsNonUniqueNull = false;
};

// What one step of the checker offers an index's check of its entries.
class IndexCheckContext {
 public:
  // The step's transaction, read at snapshot (the checker never writes).
  virtual fdb::SnapshotReads reads() = 0;
  // The next batch of the range [begin, end) (the step's batch size, at snapshot); moves
  // `begin` past its last key. The range is read when a batch has no `more`.
  virtual fdb::RangeResult readBatch(fdb::Bytes& begin, const fdb::Bytes& end) = 0;
  // At an entry boundary before `key`: true when the step's budget is spent, so the step
  // stops here and the next one calls checkEntries again with `key` to resume at.
  virtual bool stopBefore(std::string_view key) = 0;
  // Counts an entry scanned; one `checked` against its record also counts toward the budget.
  virtual void countEntry(bool checked) = 0;
  virtual void problem(CheckProblemKind kind, std::string_view key, std::string message) = 0;
  // The records under `primaryKeys`, one result for each (read silently: the checker's
  // record phase reports what is wrong with a record).
  virtual std::map<fdb::Tuple, RecordUnderKey> readRecords(
      const std::set<fdb::Tuple>& primaryKeys) = 0;

 protected:
  ~IndexCheckContext() = default;
};

class IndexCheck {
 public:
  explicit IndexCheck(const IndexCheckTarget& target);
  virtual ~IndexCheck() = default;

  const Index& index() const { return *index_; }
  // Whether the index covers records of `type`.
  bool covers(const RecordType& type) const;

  // The entries `record` (of a type the index covers) should have. Throws what evaluating
  // the index on it throws (the checker reports the record as undecodable).
  virtual std::vector<ExpectedIndexEntry> expectedEntries(const CheckedRecord& record) const = 0;

  // Checks the index's own entries, from `resumeAt` (nullopt: the first) on, against their
  // records. Returns true when every entry is checked, false when the step stopped.
  virtual bool checkEntries(IndexCheckContext& step, const std::optional<fdb::Bytes>& resumeAt) = 0;

 protected:
  std::shared_ptr<const Index> index_;
  fdb::Bytes prefix_;            // P+(2, sk)
  fdb::Bytes violationsPrefix_;  // P+(7, sk)

 private:
  std::vector<const RecordType*> coveredTypes_;
};

}  // namespace rl
