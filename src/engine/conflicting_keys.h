// ConflictingKeys — what a transaction reads under \xff\xff/transaction/conflicting_keys/ after
// a commit with REPORT_CONFLICTING_KEYS failed with not_committed (docs/semantics.md,
// "Conflicting keys"): the read conflict ranges that met a later write, as FoundationDB's
// special key space shows them (`ConflictingKeysImpl`): every range's begin under the prefix
// with the value "1" and its end with "0". special_keys.cc serves its rows.
//
//   // ranges [a, c) and [x, y) conflicted:
//   ConflictingKeys keys = ConflictingKeys::reported(readConflicts, {0, 2}, /*merged=*/true);
//   keys.rows();  // prefix+a: 1, prefix+c: 0, prefix+x: 1, prefix+y: 0
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "engine/engine.h"
#include "fdb/bytes.h"
#include "fdb/types.h"

namespace fdb::engine {

class ConflictingKeys {
 public:
  // \xff\xff/transaction/conflicting_keys/ and the end of that range.
  static const Bytes kPrefix;
  static const Bytes kEnd;

  ConflictingKeys() = default;

  // The ranges a resolver reports when `conflicted` indexes the read conflict ranges that met
  // a later write. FoundationDB's read-your-writes layer sends its read conflict ranges merged
  // (touching ranges become one), so with `merged` each conflicting range stands for the whole
  // merged range it belongs to; without (read-your-writes disabled) the ranges go as they are.
  // Either way the client merges what is reported.
  static ConflictingKeys reported(const KeyRangesView& readConflicts,
                                  std::span<const size_t> conflicted, bool merged);

  // The rows, in key order, all in [kPrefix, kEnd).
  const std::vector<KeyValue>& rows() const { return rows_; }

 private:
  std::vector<KeyValue> rows_;
};

}  // namespace fdb::engine
