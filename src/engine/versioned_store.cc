#include "engine/versioned_store.h"

namespace fdb::engine {

const std::optional<Bytes>* VersionedStore::visibleAt(const History& history, int64_t version) {
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->version <= version) return it->value ? &it->value : nullptr;
  }
  return nullptr;
}

std::optional<Bytes> VersionedStore::get(std::string_view key, int64_t version) const {
  auto it = data_.find(key);
  if (it == data_.end()) return std::nullopt;
  const std::optional<Bytes>* value = visibleAt(it->second, version);
  return value ? *value : std::nullopt;
}

std::optional<KeyValue> VersionedStore::firstAtOrAfter(std::string_view from, std::string_view end,
                                                       int64_t version) const {
  for (auto it = data_.lower_bound(from); it != data_.end() && it->first < end; ++it) {
    if (const std::optional<Bytes>* value = visibleAt(it->second, version)) {
      return KeyValue{it->first, **value};
    }
  }
  return std::nullopt;
}

std::optional<KeyValue> VersionedStore::lastBefore(std::string_view before, std::string_view begin,
                                                   int64_t version) const {
  auto it = data_.lower_bound(before);
  while (it != data_.begin()) {
    --it;
    if (it->first < begin) break;
    if (const std::optional<Bytes>* value = visibleAt(it->second, version)) {
      return KeyValue{it->first, **value};
    }
  }
  return std::nullopt;
}

void VersionedStore::write(std::string_view key, std::optional<Bytes> value, int64_t version) {
  auto it = data_.find(key);
  if (it == data_.end()) {
    if (!value) return;  // clearing an absent key changes nothing
    it = data_.try_emplace(Bytes(key)).first;
  }
  History& history = it->second;
  if (!history.empty() && history.back().version == version) {
    history.back().value = std::move(value);  // a later mutation of the same commit
  } else {
    if (!value && (history.empty() || !history.back().value)) return;  // already absent
    history.push_back(Entry{version, std::move(value)});
    written_.emplace_back(version, it->first);
  }
}

void VersionedStore::set(std::string_view key, std::string_view value, int64_t version) {
  write(key, Bytes(value), version);
}

void VersionedStore::clear(std::string_view key, int64_t version) {
  write(key, std::nullopt, version);
}

void VersionedStore::clearRange(std::string_view begin, std::string_view end, int64_t version) {
  std::vector<Bytes> present;
  for (auto it = data_.lower_bound(begin); it != data_.end() && it->first < end; ++it) {
    if (!it->second.empty() && it->second.back().value) present.push_back(it->first);
  }
  for (const Bytes& key : present) write(key, std::nullopt, version);
}

void VersionedStore::compact(Map::iterator it, int64_t horizon) {
  History& history = it->second;
  // The newest entry at or below the horizon is what reads at the horizon see; older
  // entries are invisible to every read the engine still serves.
  size_t keepFrom = 0;
  for (size_t i = 0; i < history.size() && history[i].version <= horizon; ++i) keepFrom = i;
  history.erase(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(keepFrom));
  // A leading "cleared" entry reads the same as no entry at all.
  if (!history.empty() && !history.front().value && history.front().version <= horizon) {
    history.erase(history.begin());
  }
  if (history.empty()) data_.erase(it);
}

void VersionedStore::collectGarbage(int64_t horizon) {
  while (!written_.empty() && written_.front().first <= horizon) {
    Bytes key = std::move(written_.front().second);
    written_.pop_front();
    auto it = data_.find(key);
    if (it != data_.end()) compact(it, horizon);
  }
}

size_t VersionedStore::entryCount() const {
  size_t n = 0;
  for (const auto& [key, history] : data_) n += history.size();
  return n;
}

}  // namespace fdb::engine
