// ConflictingKeys — what a transaction reads under \xff\xff/transaction/conflicting_keys/ after
// a commit with REPORT_CONFLICTING_KEYS failed with not_committed (docs/semantics.md,
// "Conflicting keys"): the read conflict ranges that met a later write, as FoundationDB's
// special key space shows them (`ConflictingKeysImpl`): every range's begin under the prefix
// with the value "1" and its end with "0".
//
//   // ranges [a, c) and [x, y) conflicted:
//   ConflictingKeys keys = ConflictingKeys::reported(readConflicts, {0, 2}, /*coalesced=*/true);
//   keys.value(prefix + "a");   // "1"
//   keys.rows(prefix, prefix + "\xff\xff", options);  // a: 1, c: 0, x: 1, y: 0
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "fdb/bytes.h"
#include "fdb/key_selector.h"
#include "fdb/types.h"

namespace fdb::engine {

class ConflictingKeys {
 public:
  // \xff\xff/transaction/conflicting_keys/ and the end of that range.
  static const Bytes kPrefix;
  static const Bytes kEnd;
  // The special key space's module they belong to, [\xff\xff/transaction/,
  // \xff\xff/transaction0): range reads must stay inside it.
  static const Bytes kModuleBegin;
  static const Bytes kModuleEnd;

  ConflictingKeys() = default;

  // The ranges a resolver reports when `conflicted` indexes the read conflict ranges that met
  // a later write. FoundationDB's read-your-writes layer sends its read conflict ranges merged
  // (touching ranges become one), so with `coalesced` each conflicting range stands for the
  // whole merged range it belongs to; without (read-your-writes disabled) the ranges go as
  // they are. Either way the client merges what is reported.
  static ConflictingKeys reported(const KeyRangesView& readConflicts,
                                  std::span<const size_t> conflicted, bool coalesced);

  bool empty() const { return ranges_.empty(); }

  // The value of a key of the module: "1" at a range's begin, "0" at its end, else absent.
  std::optional<Bytes> value(std::string_view key) const;

  // A range read of the module [kModuleBegin, kModuleEnd): the selectors resolved over its
  // keys (clamped to the module), then up to `rowLimit` rows (0: unlimited) and `byteLimit`
  // bytes (-1: unlimited; at least one row), in `reverse` order if asked.
  RangeResult rows(KeySelectorRef begin, KeySelectorRef end, size_t rowLimit, int64_t byteLimit,
                   bool reverse) const;

 private:
  std::vector<KeyValue> keys() const;  // the module's rows, in key order

  std::vector<KeyRange> ranges_;  // sorted, disjoint, not touching
};

}  // namespace fdb::engine
