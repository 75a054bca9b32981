// VersionedStore — the engine's ordered multi-version key-value store.
//
// Each key holds its history as (version, value-or-cleared) entries in ascending version
// order; a read at version v sees, per key, the newest entry with version <= v. Versions
// older than the MVCC window are compacted away by collectGarbage, so memory stays bounded
// under a steady workload.
//
// Thread-safety: none of its own. REQUIRES: the engine's lock, shared for reads and
// exclusive for writes and garbage collection.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "fdb/bytes.h"
#include "fdb/types.h"

namespace fdb::engine {

class VersionedStore {
 public:
  // The value of `key` at `version` (nullopt: absent).
  std::optional<Bytes> get(std::string_view key, int64_t version) const;
  // The first key visible at `version` that is >= `from` and < `end`.
  std::optional<KeyValue> firstAtOrAfter(std::string_view from, std::string_view end,
                                         int64_t version) const;
  // The last key visible at `version` that is < `before` and >= `begin`.
  std::optional<KeyValue> lastBefore(std::string_view before, std::string_view begin,
                                     int64_t version) const;

  // Calls visit(key, value) for each key in [begin, end) visible at `version`, ascending (or
  // descending when `reverse`), until it returns false. One seek, then iteration.
  template <typename Visit>
  void scan(std::string_view begin, std::string_view end, int64_t version, bool reverse,
            Visit visit) const {
    if (begin >= end) return;
    if (!reverse) {
      for (auto it = data_.lower_bound(begin);
           it != data_.end() && std::string_view(it->first) < end; ++it) {
        if (const std::optional<Bytes>* value = visibleAt(it->second, version)) {
          if (!visit(it->first, **value)) return;
        }
      }
      return;
    }
    auto it = data_.lower_bound(end);
    while (it != data_.begin()) {
      --it;
      if (std::string_view(it->first) < begin) return;
      if (const std::optional<Bytes>* value = visibleAt(it->second, version)) {
        if (!visit(it->first, **value)) return;
      }
    }
  }

  // Writes at `version`, which is >= every version written before.
  void set(std::string_view key, std::string_view value, int64_t version);
  void clear(std::string_view key, int64_t version);
  void clearRange(std::string_view begin, std::string_view end, int64_t version);

  // Drops every entry no read at a version >= `horizon` can see.
  void collectGarbage(int64_t horizon);

  // For tests and statistics.
  size_t keyCount() const { return data_.size(); }
  size_t entryCount() const;

 private:
  struct Entry {
    int64_t version;
    std::optional<Bytes> value;  // nullopt: cleared at `version`
  };
  using History = std::vector<Entry>;
  using Map = absl::btree_map<Bytes, History, std::less<>>;

  static const std::optional<Bytes>* visibleAt(const History& history, int64_t version);
  void write(std::string_view key, std::optional<Bytes> value, int64_t version);
  void compact(Map::iterator it, int64_t horizon);

  Map data_;
  // (version, key) of every write, oldest first: the keys collectGarbage must look at.
  std::deque<std::pair<int64_t, Bytes>> written_;
};

}  // namespace fdb::engine
