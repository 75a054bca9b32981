#include "engine/conflict_history.h"

namespace fdb::engine {

void ConflictHistory::add(std::string_view begin, std::string_view end, int64_t version) {
  if (begin >= end) return;
  // The version in force at `end` must survive the overwrite of [begin, end).
  auto atEnd = boundaries_.upper_bound(end);
  int64_t versionAtEnd = atEnd == boundaries_.begin() ? 0 : std::prev(atEnd)->second;
  boundaries_.erase(boundaries_.lower_bound(begin), boundaries_.lower_bound(end));
  boundaries_[Bytes(begin)] = version;
  boundaries_.try_emplace(Bytes(end), versionAtEnd);
}

bool ConflictHistory::conflicts(std::string_view begin, std::string_view end,
                                int64_t readVersion) const {
  if (begin >= end) return false;
  auto it = boundaries_.upper_bound(begin);
  if (it != boundaries_.begin() && std::prev(it)->second > readVersion) return true;
  for (; it != boundaries_.end() && it->first < end; ++it) {
    if (it->second > readVersion) return true;
  }
  return false;
}

void ConflictHistory::forgetUpTo(int64_t horizon) {
  int64_t previous = 0;
  for (auto it = boundaries_.begin(); it != boundaries_.end();) {
    if (it->second <= horizon) it->second = 0;
    if (it->second == previous) {
      it = boundaries_.erase(it);  // same version as the step before: not a boundary
    } else {
      previous = it->second;
      ++it;
    }
  }
}

}  // namespace fdb::engine
