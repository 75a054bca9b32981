// ConflictHistory — the resolver's memory of recently committed write conflict ranges.
//
// It keeps, for every key, the newest commit version whose write conflict ranges covered
// it, as a step function over the key space. A transaction with read version R conflicts
// iff a read conflict range of it covers a key whose version is > R (FoundationDB's rule:
// fdbserver/SkipList.cpp). Versions at or below the MVCC horizon can no longer decide
// anything (older read versions are rejected as too old) and are forgotten.
//
// Thread-safety: none of its own; REQUIRES the engine's exclusive lock.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/container/btree_map.h"
#include "fdb/bytes.h"

namespace fdb::engine {

class ConflictHistory {
 public:
  // Records that [begin, end) was written at `version` (>= every version added before).
  void add(std::string_view begin, std::string_view end, int64_t version);
  // Whether a write newer than `readVersion` covers any key of [begin, end).
  bool conflicts(std::string_view begin, std::string_view end, int64_t readVersion) const;
  // Forgets versions <= horizon.
  void forgetUpTo(int64_t horizon);

  size_t boundaryCount() const { return boundaries_.size(); }

 private:
  // boundaries_[k] = v: keys from k up to the next boundary were last written at v (0: not
  // within the remembered history). Keys before the first boundary have version 0.
  absl::btree_map<Bytes, int64_t, std::less<>> boundaries_;
};

}  // namespace fdb::engine
