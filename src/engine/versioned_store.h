// VersionedStore — the engine's ordered multi-version key-value store, read without locks.
//
// Each key holds its history as a chain of (version, value-or-cleared) entries, newest
// first; a read at version v sees, per key, the newest entry with version <= v. Keys live in
// a skip list. One writer at a time (the engine's commit lock) inserts keys and prepends
// entries, publishing each with a release store, so readers walking the list never wait and
// never see a half-built node; a reader at version v ignores entries newer than v, so a
// commit being applied is invisible to it as long as its version is above v (the engine
// guarantees that: see Engine::read).
//
// Versions older than the MVCC window are compacted away by collectGarbage: old entries are
// cut off their chains and keys whose history is only "cleared" leave the list. What is cut
// off is retired to an EpochDomain and freed only when no reader can still hold it.
//
// Backed mode (the durable store, durable/durable_store.h): the store then holds only the
// versions above a base that lives elsewhere (RocksDB) and is at some version B. A key with
// no entry at or below a read's version is "not here": the read looks in the base. Clearing a
// key the store does not hold records a "cleared" entry (the base may hold it), a large
// cleared range of base keys is kept as a range tombstone (addTombstone), and garbage
// collection does not compact: it reports how old a version readers can still ask for
// (readFloor), and once the base has absorbed every version <= B (announceBase), drops every
// entry and tombstone <= B.
//
// Thread-safety: reads (get, lookup, firstAtOrAfter, lastBefore, scan, scanAll, tombstoneAt)
// from any thread while a ReadGuard from enterRead() is alive on it, or from the writer.
// Everything else: the writer only, one thread at a time.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/epoch.h"
#include "fdb/bytes.h"
#include "fdb/types.h"

namespace fdb::engine {

class VersionedStore {
 public:
  // `backed`: the store sits above a base holding the older versions (see above).
  explicit VersionedStore(bool backed = false);
  ~VersionedStore();
  VersionedStore(const VersionedStore&) = delete;
  VersionedStore& operator=(const VersionedStore&) = delete;

  using ReadGuard = EpochDomain::Guard;
  // Keeps everything a read finds alive until the guard goes.
  ReadGuard enterRead() const { return epochs_.enter(); }

  // The value of `key` at `version` (nullopt: absent).
  std::optional<Bytes> get(std::string_view key, int64_t version) const;

  // What the store says about one key at one version (backed mode): its value, that it is
  // cleared, or nothing (kNotHere: the base decides). `value` is valid under the ReadGuard.
  struct Lookup {
    enum class Kind { kValue, kCleared, kNotHere };
    Kind kind = Kind::kNotHere;
    std::string_view value;
  };
  Lookup lookup(std::string_view key, int64_t version) const;

  // Calls visit(key, lookup) for every key the store holds in [begin, end), whatever it
  // says at `version`, ascending (or descending), until visit returns false.
  template <typename Visit>
  void scanAll(std::string_view begin, std::string_view end, int64_t version, bool reverse,
               Visit visit) const {
    if (begin >= end) return;
    if (!reverse) {
      for (const Node* node = findGreaterOrEqual(begin, nullptr);
           node != nullptr && node->key() < end; node = node->next(0)) {
        if (!visit(node->key(), lookupNode(node, version))) return;
      }
      return;
    }
    for (const Node* node = findLessThan(end); node != head_ && node->key() >= begin;
         node = findLessThan(node->key())) {
      if (!visit(node->key(), lookupNode(node, version))) return;
    }
  }

  // A range of base keys cleared at `version` (backed mode).
  struct Tombstone {
    Bytes begin;
    Bytes end;
    int64_t version;
  };
  // The range tombstone covering `key` at `version` (cleared at or below it), if any.
  const Tombstone* tombstoneAt(std::string_view key, int64_t version) const;
  // Records that [begin, end) is cleared at `version` for every key the store does not hold
  // (the keys it holds get their own "cleared" entries from clearRange).
  void addTombstone(std::string_view begin, std::string_view end, int64_t version);
  bool hasTombstones() const { return tombstones_.load(std::memory_order_acquire) != nullptr; }
  // The first key visible at `version` that is >= `from` and < `end`.
  std::optional<KeyValue> firstAtOrAfter(std::string_view from, std::string_view end,
                                         int64_t version) const;
  // The last key visible at `version` that is < `before` and >= `begin`.
  std::optional<KeyValue> lastBefore(std::string_view before, std::string_view begin,
                                     int64_t version) const;

  // Calls visit(key, value) — views valid during the call — for each key in [begin, end)
  // visible at `version`, ascending (or descending when `reverse`), until it returns false.
  template <typename Visit>
  void scan(std::string_view begin, std::string_view end, int64_t version, bool reverse,
            Visit visit) const {
    if (begin >= end) return;
    if (!reverse) {
      for (const Node* node = findGreaterOrEqual(begin, nullptr);
           node != nullptr && node->key() < end; node = node->next(0)) {
        if (const Entry* entry = visibleAt(node, version)) {
          if (!visit(node->key(), entry->value())) return;
        }
      }
      return;
    }
    // No back links: each step down is a search from the top (O(log n) a row).
    for (const Node* node = findLessThan(end); node != head_ && node->key() >= begin;
         node = findLessThan(node->key())) {
      if (const Entry* entry = visibleAt(node, version)) {
        if (!visit(node->key(), entry->value())) return;
      }
    }
  }

  // Writes at `version`, which is >= every version written before. Later writes of one key
  // at the same version replace earlier ones (several mutations of one commit).
  void set(std::string_view key, std::string_view value, int64_t version);
  void clear(std::string_view key, int64_t version);
  void clearRange(std::string_view begin, std::string_view end, int64_t version);

  // Drops every entry no read at a version >= `horizon` can see. REQUIRES: reads that enter
  // after this call check that their version is >= `horizon` (after entering), because the
  // store compacts to a horizon only once every reader that entered before it was announced
  // has left.
  void collectGarbage(int64_t horizon);

  // Backed mode. Every reader, current or future, reads at a version >= readFloor() (the
  // newest horizon collectGarbage has seen take effect).
  int64_t readFloor() const { return readFloor_; }
  // The base now holds every version <= `base`: entries and tombstones at or below it go
  // once no reader that may have read the older base is left (applied by collectGarbage).
  void announceBase(int64_t base);

  // Backed mode: about how many bytes the store's entries, keys and bookkeeping take (writer).
  int64_t windowBytes() const { return windowBytes_; }

  // For tests and statistics (writer).
  size_t keyCount() const { return keyCount_; }
  size_t entryCount() const;
  // Retired nodes and entries not yet freed (writer).
  size_t retiredCount() const { return retired_.size(); }

 private:
  static constexpr int kMaxHeight = 16;

  // One version of a key; the value's bytes follow the struct.
  struct Entry {
    int64_t version;
    std::atomic<Entry*> older;
    uint32_t size;
    bool present;  // false: cleared at `version`
    std::string_view value() const { return {reinterpret_cast<const char*>(this + 1), size}; }
  };
  // A key: its links (height of them) and then the key's bytes follow the struct.
  struct Node {
    std::atomic<Entry*> newest;
    uint32_t keySize;
    int height;
    std::atomic<Node*>* links() { return reinterpret_cast<std::atomic<Node*>*>(this + 1); }
    const std::atomic<Node*>* links() const {
      return reinterpret_cast<const std::atomic<Node*>*>(this + 1);
    }
    Node* next(int level) const { return links()[level].load(std::memory_order_acquire); }
    std::string_view key() const {
      return {reinterpret_cast<const char*>(links() + height), keySize};
    }
  };
  struct Retired {
    // node with its chain; entry and all older; one entry; a tombstone list
    enum class Kind { kNode, kChain, kEntry, kTombstones };
    Kind kind;
    uint64_t epoch;
    void* pointer;
  };
  struct Horizon {
    uint64_t epoch;  // announced in
    int64_t version;
  };

  static Entry* newEntry(int64_t version, std::optional<std::string_view> value, Entry* older);
  static Node* newNode(std::string_view key, int height, Entry* newest);
  static void freeEntry(Entry* entry);
  static void freeChain(Entry* entry);
  static void freeNode(Node* node);
  static const Entry* visibleAt(const Node* node, int64_t version);
  static Lookup lookupNode(const Node* node, int64_t version);
  static int64_t entryBytes(size_t valueSize) {
    return static_cast<int64_t>(sizeof(Entry) + valueSize + 16);  // + allocator overhead
  }
  static int64_t nodeBytes(size_t keySize, int height) {
    return static_cast<int64_t>(sizeof(Node) + sizeof(std::atomic<Node*>) * height + keySize + 16);
  }
  static int64_t writtenBytes(std::string_view key) {
    return static_cast<int64_t>(sizeof(std::pair<int64_t, Bytes>) + key.size() + 16);
  }
  static void freeRetiredItem(const Retired& retired);

  int currentHeight() const { return height_.load(std::memory_order_relaxed); }
  // The first node with key >= `key` (nullptr: none); fills prev[level] with the last node
  // before it on each level when `prev` is given.
  Node* findGreaterOrEqual(std::string_view key, Node** prev) const;
  // The last node with key < `key` (head_ when none).
  const Node* findLessThan(std::string_view key) const;
  int randomHeight();

  void write(std::string_view key, std::optional<std::string_view> value, int64_t version);
  void writeNode(Node* node, std::optional<std::string_view> value, int64_t version);
  void unlink(Node* node);
  void compact(std::string_view key, int64_t horizon);
  // Backed mode: drops every entry of `key` at or below `base`.
  void dropUpTo(std::string_view key, int64_t base);
  void applyBase(int64_t base);
  void retire(Retired::Kind kind, void* pointer);
  void freeRetired();

  using TombstoneList = std::vector<Tombstone>;  // in version order

  const bool backed_;
  mutable EpochDomain epochs_;
  Node* head_;
  std::atomic<int> height_{1};
  uint64_t random_ = 0x9e3779b97f4a7c15ULL;
  size_t keyCount_ = 0;
  // (version, key) of every entry written, oldest first: the keys collectGarbage visits.
  std::deque<std::pair<int64_t, Bytes>> written_;
  std::deque<Horizon> horizons_;  // announced, not yet applied
  std::deque<Retired> retired_;
  // Backed mode.
  int64_t windowBytes_ = 0;
  int64_t readFloor_ = 0;
  std::deque<Horizon> bases_;  // announced, not yet applied
  std::atomic<const TombstoneList*> tombstones_{nullptr};
};

}  // namespace fdb::engine
