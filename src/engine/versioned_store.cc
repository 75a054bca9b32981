#include "engine/versioned_store.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>

namespace fdb::engine {

VersionedStore::Entry* VersionedStore::newEntry(int64_t version,
                                                std::optional<std::string_view> value,
                                                Entry* older) {
  size_t size = value ? value->size() : 0;
  void* memory = ::operator new(sizeof(Entry) + size);
  Entry* entry =
      new (memory) Entry{version, {older}, static_cast<uint32_t>(size), value.has_value()};
  if (size > 0) std::memcpy(static_cast<char*>(memory) + sizeof(Entry), value->data(), size);
  return entry;
}

VersionedStore::Node* VersionedStore::newNode(std::string_view key, int height, Entry* newest) {
  void* memory = ::operator new(sizeof(Node) + sizeof(std::atomic<Node*>) * height + key.size());
  Node* node = new (memory) Node{{newest}, static_cast<uint32_t>(key.size()), height};
  for (int level = 0; level < height; ++level)
    new (&node->links()[level]) std::atomic<Node*>(nullptr);
  if (!key.empty()) {
    std::memcpy(reinterpret_cast<char*>(node->links() + height), key.data(), key.size());
  }
  return node;
}

void VersionedStore::freeEntry(Entry* entry) {
  entry->~Entry();
  ::operator delete(entry);
}

void VersionedStore::freeChain(Entry* entry) {
  while (entry != nullptr) {
    Entry* older = entry->older.load(std::memory_order_relaxed);
    freeEntry(entry);
    entry = older;
  }
}

void VersionedStore::freeNode(Node* node) {
  freeChain(node->newest.load(std::memory_order_relaxed));
  for (int level = 0; level < node->height; ++level) node->links()[level].~atomic();
  node->~Node();
  ::operator delete(node);
}

VersionedStore::VersionedStore(bool backed)
    : backed_(backed), head_(newNode({}, kMaxHeight, nullptr)) {}

VersionedStore::~VersionedStore() {
  // No reader is left: free what is retired, then everything still linked.
  for (const Retired& retired : retired_) freeRetiredItem(retired);
  delete tombstones_.load(std::memory_order_relaxed);
  Node* node = head_;
  while (node != nullptr) {
    Node* next = node->next(0);
    freeNode(node);
    node = next;
  }
}

void VersionedStore::freeRetiredItem(const Retired& retired) {
  switch (retired.kind) {
    case Retired::Kind::kNode: freeNode(static_cast<Node*>(retired.pointer)); break;
    case Retired::Kind::kChain: freeChain(static_cast<Entry*>(retired.pointer)); break;
    case Retired::Kind::kEntry: freeEntry(static_cast<Entry*>(retired.pointer)); break;
    case Retired::Kind::kTombstones: delete static_cast<TombstoneList*>(retired.pointer); break;
  }
}

VersionedStore::Lookup VersionedStore::lookupNode(const Node* node, int64_t version) {
  const Entry* entry = node->newest.load(std::memory_order_acquire);
  while (entry != nullptr && entry->version > version) {
    entry = entry->older.load(std::memory_order_acquire);
  }
  if (entry == nullptr) return Lookup{};
  if (!entry->present) return Lookup{Lookup::Kind::kCleared, {}};
  return Lookup{Lookup::Kind::kValue, entry->value()};
}

VersionedStore::Lookup VersionedStore::lookup(std::string_view key, int64_t version) const {
  const Node* node = findGreaterOrEqual(key, nullptr);
  if (node == nullptr || node->key() != key) return Lookup{};
  return lookupNode(node, version);
}

const VersionedStore::Tombstone* VersionedStore::tombstoneAt(std::string_view key,
                                                             int64_t version) const {
  const TombstoneList* list = tombstones_.load(std::memory_order_acquire);
  if (list == nullptr) return nullptr;
  for (const Tombstone& tombstone : *list) {
    if (tombstone.version > version) break;  // in version order
    if (tombstone.begin <= key && key < tombstone.end) return &tombstone;
  }
  return nullptr;
}

void VersionedStore::addTombstone(std::string_view begin, std::string_view end, int64_t version) {
  const TombstoneList* old = tombstones_.load(std::memory_order_relaxed);
  auto* list = old != nullptr ? new TombstoneList(*old) : new TombstoneList();
  list->push_back(Tombstone{Bytes(begin), Bytes(end), version});
  windowBytes_ += sizeof(Tombstone) + begin.size() + end.size();
  tombstones_.store(list, std::memory_order_release);
  if (old != nullptr) retire(Retired::Kind::kTombstones, const_cast<TombstoneList*>(old));
}

const VersionedStore::Entry* VersionedStore::visibleAt(const Node* node, int64_t version) {
  const Entry* entry = node->newest.load(std::memory_order_acquire);
  while (entry != nullptr && entry->version > version) {
    entry = entry->older.load(std::memory_order_acquire);
  }
  return entry != nullptr && entry->present ? entry : nullptr;
}

VersionedStore::Node* VersionedStore::findGreaterOrEqual(std::string_view key, Node** prev) const {
  Node* node = head_;
  int level = currentHeight() - 1;
  while (true) {
    Node* next = node->next(level);
    if (next != nullptr && next->key() < key) {
      node = next;
    } else {
      if (prev != nullptr) prev[level] = node;
      if (level == 0) return next;
      --level;
    }
  }
}

const VersionedStore::Node* VersionedStore::findLessThan(std::string_view key) const {
  const Node* node = head_;
  for (int level = currentHeight() - 1; level >= 0; --level) {
    for (const Node* next = node->next(level); next != nullptr && next->key() < key;
         next = node->next(level)) {
      node = next;
    }
  }
  return node;
}

int VersionedStore::randomHeight() {
  // xorshift64; each level up with probability 1/4.
  int height = 1;
  while (height < kMaxHeight) {
    random_ ^= random_ << 13;
    random_ ^= random_ >> 7;
    random_ ^= random_ << 17;
    if ((random_ & 3) != 0) break;
    ++height;
  }
  return height;
}

std::optional<Bytes> VersionedStore::get(std::string_view key, int64_t version) const {
  const Node* node = findGreaterOrEqual(key, nullptr);
  if (node == nullptr || node->key() != key) return std::nullopt;
  const Entry* entry = visibleAt(node, version);
  if (entry == nullptr) return std::nullopt;
  return Bytes(entry->value());
}

std::optional<KeyValue> VersionedStore::firstAtOrAfter(std::string_view from, std::string_view end,
                                                       int64_t version) const {
  for (const Node* node = findGreaterOrEqual(from, nullptr); node != nullptr && node->key() < end;
       node = node->next(0)) {
    if (const Entry* entry = visibleAt(node, version)) {
      return KeyValue{Bytes(node->key()), Bytes(entry->value())};
    }
  }
  return std::nullopt;
}

std::optional<KeyValue> VersionedStore::lastBefore(std::string_view before, std::string_view begin,
                                                   int64_t version) const {
  for (const Node* node = findLessThan(before); node != head_ && node->key() >= begin;
       node = findLessThan(node->key())) {
    if (const Entry* entry = visibleAt(node, version)) {
      return KeyValue{Bytes(node->key()), Bytes(entry->value())};
    }
  }
  return std::nullopt;
}

void VersionedStore::writeNode(Node* node, std::optional<std::string_view> value, int64_t version) {
  Entry* newest = node->newest.load(std::memory_order_relaxed);
  if (newest != nullptr && newest->version == version) {
    if (!value && !newest->present) return;  // cleared twice
    // A later mutation of the same commit: no reader sees this version yet, but one may be
    // walking past the entry, so it is retired rather than freed.
    Entry* older = newest->older.load(std::memory_order_relaxed);
    node->newest.store(newEntry(version, value, older), std::memory_order_release);
    if (backed_) windowBytes_ += entryBytes(value ? value->size() : 0) - entryBytes(newest->size);
    retire(Retired::Kind::kEntry, newest);
    return;
  }
  if (!value && (newest == nullptr || !newest->present)) return;  // already absent
  node->newest.store(newEntry(version, value, newest), std::memory_order_release);
  written_.emplace_back(version, Bytes(node->key()));
  if (backed_) windowBytes_ += entryBytes(value ? value->size() : 0) + writtenBytes(node->key());
}

void VersionedStore::write(std::string_view key, std::optional<std::string_view> value,
                           int64_t version) {
  Node* prev[kMaxHeight];
  Node* node = findGreaterOrEqual(key, prev);
  if (node != nullptr && node->key() == key) {
    writeNode(node, value, version);
    return;
  }
  // Clearing an absent key changes nothing, unless the base may hold it.
  if (!value && !backed_) return;
  int height = randomHeight();
  if (height > currentHeight()) {
    for (int level = currentHeight(); level < height; ++level) prev[level] = head_;
    // Readers that see the new height before the links find null there and step down.
    height_.store(height, std::memory_order_relaxed);
  }
  Node* inserted = newNode(key, height, newEntry(version, value, nullptr));
  for (int level = 0; level < height; ++level) {
    inserted->links()[level].store(prev[level]->next(level), std::memory_order_relaxed);
    prev[level]->links()[level].store(inserted, std::memory_order_release);
  }
  ++keyCount_;
  written_.emplace_back(version, Bytes(key));
  if (backed_) {
    windowBytes_ +=
        nodeBytes(key.size(), height) + entryBytes(value ? value->size() : 0) + writtenBytes(key);
  }
}

void VersionedStore::set(std::string_view key, std::string_view value, int64_t version) {
  write(key, value, version);
}

void VersionedStore::clear(std::string_view key, int64_t version) {
  write(key, std::nullopt, version);
}

void VersionedStore::clearRange(std::string_view begin, std::string_view end, int64_t version) {
  if (begin >= end) return;
  // Only entries change, never links, so walking the bottom level while writing is safe.
  for (Node* node = findGreaterOrEqual(begin, nullptr); node != nullptr && node->key() < end;
       node = node->next(0)) {
    writeNode(node, std::nullopt, version);
  }
}

void VersionedStore::unlink(Node* node) {
  Node* prev[kMaxHeight];
  findGreaterOrEqual(node->key(), prev);
  // Top down; a reader already on the node still finds its successors through it.
  for (int level = node->height - 1; level >= 0; --level) {
    prev[level]->links()[level].store(node->links()[level].load(std::memory_order_relaxed),
                                      std::memory_order_release);
  }
  --keyCount_;
  retire(Retired::Kind::kNode, node);
}

void VersionedStore::compact(std::string_view key, int64_t horizon) {
  Node* node = findGreaterOrEqual(key, nullptr);
  if (node == nullptr || node->key() != key) return;
  Entry* newer = nullptr;
  Entry* entry = node->newest.load(std::memory_order_relaxed);
  while (entry != nullptr && entry->version > horizon) {
    newer = entry;
    entry = entry->older.load(std::memory_order_relaxed);
  }
  if (entry == nullptr) return;
  // `entry` is what reads at the horizon see; everything older is invisible to every read
  // the engine still serves, and a "cleared" entry with nothing older reads as no entry.
  if (entry->present) {
    Entry* older = entry->older.load(std::memory_order_relaxed);
    if (older == nullptr) return;
    entry->older.store(nullptr, std::memory_order_release);
    retire(Retired::Kind::kChain, older);
  } else if (newer != nullptr) {
    newer->older.store(nullptr, std::memory_order_release);
    retire(Retired::Kind::kChain, entry);
  } else {
    unlink(node);
  }
}

void VersionedStore::dropUpTo(std::string_view key, int64_t base) {
  Node* node = findGreaterOrEqual(key, nullptr);
  if (node == nullptr || node->key() != key) return;
  Entry* newer = nullptr;
  Entry* entry = node->newest.load(std::memory_order_relaxed);
  while (entry != nullptr && entry->version > base) {
    newer = entry;
    entry = entry->older.load(std::memory_order_relaxed);
  }
  if (entry == nullptr) return;
  // The base answers for `entry` and everything older now.
  for (const Entry* dropped = entry; dropped != nullptr;
       dropped = dropped->older.load(std::memory_order_relaxed)) {
    windowBytes_ -= entryBytes(dropped->size);
  }
  if (newer == nullptr) {
    windowBytes_ -= nodeBytes(node->keySize, node->height);
    unlink(node);
  } else {
    newer->older.store(nullptr, std::memory_order_release);
    retire(Retired::Kind::kChain, entry);
  }
}

void VersionedStore::announceBase(int64_t base) {
  if (!bases_.empty() && bases_.back().epoch == epochs_.epoch()) {
    bases_.back().version = std::max(bases_.back().version, base);
  } else {
    bases_.push_back(Horizon{epochs_.epoch(), base});
  }
}

void VersionedStore::applyBase(int64_t base) {
  while (!written_.empty() && written_.front().first <= base) {
    Bytes key = std::move(written_.front().second);
    written_.pop_front();
    windowBytes_ -= writtenBytes(key);
    dropUpTo(key, base);
  }
  const TombstoneList* old = tombstones_.load(std::memory_order_relaxed);
  if (old == nullptr || old->front().version > base) return;
  TombstoneList* list = nullptr;
  auto firstKept =
      std::find_if(old->begin(), old->end(), [&](const Tombstone& t) { return t.version > base; });
  if (firstKept != old->end()) list = new TombstoneList(firstKept, old->end());
  tombstones_.store(list, std::memory_order_release);
  retire(Retired::Kind::kTombstones, const_cast<TombstoneList*>(old));
}

void VersionedStore::retire(Retired::Kind kind, void* pointer) {
  retired_.push_back(Retired{kind, epochs_.epoch(), pointer});
}

void VersionedStore::freeRetired() {
  while (!retired_.empty() && epochs_.isSafeToFree(retired_.front().epoch)) {
    Retired retired = retired_.front();
    retired_.pop_front();
    freeRetiredItem(retired);
  }
}

void VersionedStore::collectGarbage(int64_t horizon) {
  // Announce the horizon only when some entry is old enough to be dropped at it.
  const TombstoneList* tombstones = tombstones_.load(std::memory_order_relaxed);
  if ((!written_.empty() && written_.front().first <= horizon) ||
      (tombstones != nullptr && tombstones->front().version <= horizon)) {
    if (!horizons_.empty() && horizons_.back().epoch == epochs_.epoch()) {
      horizons_.back().version = std::max(horizons_.back().version, horizon);
    } else {
      horizons_.push_back(Horizon{epochs_.epoch(), horizon});
    }
  }
  if (horizons_.empty() && retired_.empty() && bases_.empty()) return;
  epochs_.tryAdvance();
  // A horizon announced in epoch e binds every reader that entered in e + 1 or later; from
  // e + 2 on, no reader from before is left.
  int64_t safe = INT64_MIN;
  while (!horizons_.empty() && epochs_.isSafeToFree(horizons_.front().epoch)) {
    safe = std::max(safe, horizons_.front().version);
    horizons_.pop_front();
  }
  if (backed_) {
    // The base, not this store, answers for old versions: nothing is compacted until the base
    // has absorbed it (announceBase), and a base announced in epoch e is applied once no
    // reader from before e (which may have read the older base) is left.
    readFloor_ = std::max(readFloor_, safe);
    int64_t base = INT64_MIN;
    while (!bases_.empty() && epochs_.isSafeToFree(bases_.front().epoch)) {
      base = std::max(base, bases_.front().version);
      bases_.pop_front();
    }
    if (base != INT64_MIN) applyBase(base);
  } else {
    while (!written_.empty() && written_.front().first <= safe) {
      Bytes key = std::move(written_.front().second);
      written_.pop_front();
      compact(key, safe);
    }
  }
  freeRetired();
}

size_t VersionedStore::entryCount() const {
  size_t count = 0;
  for (const Node* node = head_->next(0); node != nullptr; node = node->next(0)) {
    for (const Entry* entry = node->newest.load(std::memory_order_relaxed); entry != nullptr;
         entry = entry->older.load(std::memory_order_relaxed)) {
      ++count;
    }
  }
  return count;
}

}  // namespace fdb::engine
