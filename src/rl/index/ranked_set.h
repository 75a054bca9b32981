// RankedSet — a set of byte-string keys stored as a skip list of counts, answering "what is
// the rank of this key" and "which key has this rank" in a few range reads, laid out exactly
// as the Java Record Layer's RankedSet (fdb-extensions) lays it out (docs/format.md, "RANK
// index entries"):
//
//   prefix + (level, key)  ->  little-endian int64: the number of level-0 keys from this key
//                              (inclusive) up to the next key of the same level
//
// Level 0 holds every key (count 1, or its number of copies when duplicates are counted);
// level l > 0 holds the keys whose hash has its low 4*l bits zero (fan-out 16), and each
// level starts with the empty key, count 0, written by init(). Counts are changed with
// atomic ADD where Java changes them so, so that saves far apart in the set do not conflict.
//
//   RankedSet set(tr, prefix, RankedSet::Config{});
//   set.init();                       // once: the empty key on every level
//   set.add(fdb::Tuple{42}.pack());   // true: added
//   std::optional<int64_t> r = set.rank(fdb::Tuple{42}.pack());   // 0
//   std::optional<fdb::Bytes> k = set.getNth(0);                  // the packed (42)
//
// Thread-safety: one thread at a time (it uses the transaction it is given).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/transaction.h"

namespace rl {

class RankedSet {
 public:
  // The hash that decides which levels a key is on (the rankHashFunction index option's
  // values): JDK (Java's Arrays.hashCode of the bytes, the default), CRC (CRC-32), MURMUR3
  // (32-bit MurmurHash3, seed 0), RANDOM (a random number per add).
  enum class HashFunction { kJdk, kCrc, kMurmur3, kRandom };

  static constexpr int kDefaultLevels = 6;
  static constexpr int kMaxLevels = 8;  // 32 hash bits, 4 per level

  struct Config {
    HashFunction hashFunction = HashFunction::kJdk;
    int nlevels = kDefaultLevels;  // 2..kMaxLevels
    bool countDuplicates = false;  // whether a key added twice counts twice
  };

  // The hash function named `name` ("JDK", "CRC", "MURMUR3", "RANDOM"), or nullopt.
  static std::optional<HashFunction> hashFunctionNamed(std::string_view name);
  static std::string_view hashFunctionName(HashFunction function);
  // `key`'s hash under `function` (a Java int, as its bits).
  static uint32_t hash(HashFunction function, std::string_view key);
  // Whether a key of hash `keyHash` is on `level` (level 0: every key).
  static bool onLevel(uint32_t keyHash, int level);

  // prefix + (level, key) packed.
  static fdb::Bytes levelKey(std::string_view prefix, int level, std::string_view key);
  static fdb::Bytes encodeCount(int64_t count);  // 8 bytes, little-endian
  static int64_t decodeCount(std::string_view value);

  // The set stored under `prefix`, read and written through `tr`. RecordCoreArgumentException
  // when config.nlevels is out of range.
  RankedSet(fdb::Transaction& tr, fdb::Bytes prefix, const Config& config);

  // Whether init() is still to be done (read at snapshot, so it conflicts with nothing).
  bool initNeeded() const;
  // Writes the empty key with count 0 on each level that lacks it.
  void init();

  // Adds `key` (not empty). False when it was there already and duplicates are not counted.
  bool add(std::string_view key);
  // Removes one copy of `key`. False when it was not there.
  bool remove(std::string_view key);
  // The copies of `key` in the set (0 or 1 unless duplicates are counted).
  int64_t count(std::string_view key) const;
  bool contains(std::string_view key) const { return count(key) > 0; }

  // The number of keys before `key` (each duplicate counting when duplicates are counted).
  // With nullIfMissing, nullopt when `key` is not in the set; otherwise the rank it would have.
  std::optional<int64_t> rank(std::string_view key, bool nullIfMissing = true) const;
  // The key of rank `rank`, or nullopt when there is none.
  std::optional<fdb::Bytes> getNth(int64_t rank) const;
  // The number of keys (with their duplicates when counted).
  int64_t size() const;

 private:
  fdb::Bytes key(int level, std::string_view element) const {
    return levelKey(prefix_, level, element);
  }
  // The last two keys of `level` at or before `element` with their counts, last first.
  struct Neighbors {
    fdb::RangeResult batch;             // the read's first batch
    std::vector<fdb::KeyValue> copied;  // when it stopped early: every row, copied
    std::array<std::pair<std::string_view, std::string_view>, 2> rows;
    size_t count = 0;
  };
  // Reads them (a reverse read at snapshot); add and remove issue every level's read before
  // they write anything.
  fdb::Future<fdb::RangeResult> readNeighbors(int level, std::string_view element) const;
  // The read's rows, following `more` when the first batch stopped early.
  void resolveNeighbors(int level, std::string_view element, fdb::Future<fdb::RangeResult>& read,
                        Neighbors& out) const;
  // From them: the last key before `element` (orEqual: at or before it),
  // adding the conflict ranges Java adds (a key inserted between the two, or the previous key
  // removed, changes which key counts this one). `atValue` gets the value stored at `element`
  // itself, if it is there (and a conflict on that key). RecordCoreException for a level
  // without its first key.
  // Returns the stored key itself (a view into `neighbors`).
  std::string_view previousKey(int level, std::string_view element, const Neighbors& neighbors,
                               bool orEqual, std::optional<int64_t>* atValue = nullptr);
  // The sum of the counts of `level` in [begin, end).
  int64_t countRange(int level, std::string_view begin, std::string_view end) const;
  fdb::Bytes elementOf(std::string_view storedKey) const;

  fdb::Transaction& tr_;
  fdb::Bytes prefix_;
  Config config_;
  // The (encoded) element whose level-0 key previousKey last added a read conflict on.
  fdb::Bytes lastConflictElement_;
};

}  // namespace rl
