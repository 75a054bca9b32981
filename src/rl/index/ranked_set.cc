#include "rl/index/ranked_set.h"

#include <fmt/format.h>
#include <zlib.h>

#include <random>

#include "fdb/tuple.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

constexpr int kLevelFanPow = 4;  // 16 keys of a level per key of the next, on average

uint32_t jdkArrayHash(std::string_view key) {
  uint32_t h = 1;
  for (char c : key)
    h = 31 * h + static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(c)));
  return h;
}

uint32_t crc32Hash(std::string_view key) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size())));
}

uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// MurmurHash3 x86_32, seed 0 (what Guava's murmur3_32_fixed returns as an int for bytes).
uint32_t murmur3Hash(std::string_view key) {
  constexpr uint32_t c1 = 0xcc9e2d51;
  constexpr uint32_t c2 = 0x1b873593;
  uint32_t h = 0;
  const size_t blocks = key.size() / 4;
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(key[i])); };
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k =
        byte(4 * i) | (byte(4 * i + 1) << 8) | (byte(4 * i + 2) << 16) | (byte(4 * i + 3) << 24);
    k *= c1;
    k = rotl(k, 15);
    k *= c2;
    h ^= k;
    h = rotl(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  uint32_t k = 0;
  const size_t tail = blocks * 4;
  switch (key.size() & 3) {
    case 3: k ^= byte(tail + 2) << 16; [[fallthrough]];
    case 2: k ^= byte(tail + 1) << 8; [[fallthrough]];
    case 1:
      k ^= byte(tail);
      k *= c1;
      k = rotl(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(key.size());
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

uint32_t randomHash() {
  thread_local std::mt19937 generator{std::random_device{}()};
  return static_cast<uint32_t>(generator());
}

// Calls visit(row) for each row of [begin, end) in key order (reverse: descending) until it
// returns false, reading in batches.
template <typename Reads, typename Visit>
void forEachRow(Reads& reads, fdb::Bytes begin, fdb::Bytes end, Visit visit) {
  fdb::RangeOptions options;
  options.mode = fdb::StreamingMode::kIterator;
  while (true) {
    fdb::RangeResult result = reads
                                  .getRange(fdb::KeySelectorRef::firstGreaterOrEqual(begin),
                                            fdb::KeySelectorRef::firstGreaterOrEqual(end), options)
                                  .get();
    fdb::Bytes last;
    for (const fdb::KeyValueRef& row : result.rows) {
      if (!visit(row)) return;
      last.assign(row.key);
    }
    if (!result.more || last.empty()) return;
    begin = std::move(last);
    begin.push_back('\x00');
    options.iteration += 1;
  }
}

}  // namespace

std::optional<RankedSet::HashFunction> RankedSet::hashFunctionNamed(std::string_view name) {
  if (name == "JDK") return HashFunction::kJdk;
  if (name == "CRC") return HashFunction::kCrc;
  if (name == "MURMUR3") return HashFunction::kMurmur3;
  if (name == "RANDOM") return HashFunction::kRandom;
  return std::nullopt;
}

std::string_view RankedSet::hashFunctionName(HashFunction function) {
  switch (function) {
    case HashFunction::kJdk: return "JDK";
    case HashFunction::kCrc: return "CRC";
    case HashFunction::kMurmur3: return "MURMUR3";
    case HashFunction::kRandom: return "RANDOM";
  }
  return "JDK";
}

uint32_t RankedSet::hash(HashFunction function, std::string_view key) {
  switch (function) {
    case HashFunction::kJdk: return jdkArrayHash(key);
    case HashFunction::kCrc: return crc32Hash(key);
    case HashFunction::kMurmur3: return murmur3Hash(key);
    case HashFunction::kRandom: return randomHash();
  }
  return jdkArrayHash(key);
}

bool RankedSet::onLevel(uint32_t keyHash, int level) {
  const uint32_t mask = (uint32_t{1} << (level * kLevelFanPow)) - 1;
  return (keyHash & mask) == 0;
}

fdb::Bytes RankedSet::levelKey(std::string_view prefix, int level, std::string_view key) {
  fdb::Bytes bytes(prefix);
  fdb::Tuple{level, fdb::ByteString{fdb::Bytes(key)}}.packInto(bytes);
  return bytes;
}

fdb::Bytes RankedSet::encodeCount(int64_t count) {
  fdb::Bytes bytes(8, '\0');
  auto bits = static_cast<uint64_t>(count);
  for (size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
  return bytes;
}

int64_t RankedSet::decodeCount(std::string_view value) {
  if (value.size() != 8) {
    throw RecordCoreException(fmt::format("ranked set count is {} bytes, not 8: {}", value.size(),
                                          fdb::printable(value)));
  }
  uint64_t bits = 0;
  for (size_t i = 0; i < 8; ++i) {
    bits |= static_cast<uint64_t>(static_cast<unsigned char>(value[i])) << (8 * i);
  }
  return static_cast<int64_t>(bits);
}

RankedSet::RankedSet(fdb::Transaction& tr, fdb::Bytes prefix, const Config& config)
    : tr_(tr), prefix_(std::move(prefix)), config_(config) {
  if (config.nlevels < 2 || config.nlevels > kMaxLevels) {
    throw RecordCoreArgumentException(fmt::format(
        "ranked set levels must be between 2 and {}, not {}", kMaxLevels, config.nlevels));
  }
}

fdb::Bytes RankedSet::elementOf(std::string_view storedKey) const {
  const fdb::Tuple tuple = fdb::Tuple::unpack(storedKey.substr(prefix_.size()));
  return tuple.getBytes(1);
}

bool RankedSet::initNeeded() const { return !tr_.snapshot().get(key(0, "")).get().has_value(); }

void RankedSet::init() {
  for (int level = 0; level < config_.nlevels; ++level) {
    const fdb::Bytes k = key(level, "");
    if (!tr_.get(k).get()) tr_.set(k, encodeCount(0));
  }
}

int64_t RankedSet::count(std::string_view element) const {
  std::optional<fdb::Bytes> value = tr_.get(key(0, element)).get();
  return value ? decodeCount(*value) : 0;
}

fdb::Bytes RankedSet::previousKey(int level, std::string_view element, bool orEqual) {
  fdb::Bytes target = key(level, element);
  fdb::Bytes end = target;
  if (orEqual) end.push_back('\x00');
  fdb::RangeOptions options;
  options.limit = 1;
  options.reverse = true;
  fdb::RangeResult result = tr_.snapshot()
                                .getRange(fdb::KeySelectorRef::firstGreaterOrEqual(key(level, "")),
                                          fdb::KeySelectorRef::firstGreaterOrEqual(end), options)
                                .get();
  if (result.rows.empty()) {
    throw RecordCoreException(fmt::format("ranked set {} has no key on level {} (not initialized?)",
                                          fdb::printable(prefix_), level));
  }
  fdb::Bytes previous(result.rows[0].key);
  if (!orEqual || previous != target) {
    // A key inserted between the two would change which key counts this one.
    fdb::Bytes exclusiveBegin = previous;
    exclusiveBegin.push_back('\x00');
    tr_.addReadConflictRange(exclusiveBegin, target);
  }
  fdb::Bytes previousElement = elementOf(previous);
  // The previous key removed entirely changes it too.
  tr_.addReadConflictKey(key(0, previousElement));
  return previousElement;
}

int64_t RankedSet::countRange(int level, std::string_view begin, std::string_view end) const {
  int64_t total = 0;
  forEachRow(tr_, key(level, begin), key(level, end), [&](const fdb::KeyValueRef& row) {
    total += decodeCount(row.value);
    return true;
  });
  return total;
}

bool RankedSet::add(std::string_view element) {
  if (element.empty()) throw RecordCoreArgumentException("ranked set keys cannot be empty");
  const uint32_t keyHash = hash(config_.hashFunction, element);
  const int64_t existing = count(element);
  const bool duplicate = existing > 0;
  if (duplicate && !config_.countDuplicates) return false;
  const fdb::Bytes one = encodeCount(1);
  for (int level = 0; level < config_.nlevels; ++level) {
    if (level == 0) {
      if (duplicate) {
        tr_.atomicOp(key(0, element), one, fdb::MutationType::kAdd);
      } else {
        tr_.set(key(0, element), one);
      }
    } else if (duplicate || !onLevel(keyHash, level)) {
      // The key that counts this one on this level gains one (a duplicate's own key, if it is
      // on the level).
      const fdb::Bytes previous = previousKey(level, element, duplicate);
      tr_.atomicOp(key(level, previous), one, fdb::MutationType::kAdd);
    } else {
      // The key splits the previous key's span: recount the part before it on the level below.
      const fdb::Bytes previous = previousKey(level, element, false);
      const fdb::Bytes previousLevelKey = key(level, previous);
      std::optional<fdb::Bytes> previousValue = tr_.get(previousLevelKey).get();
      const int64_t previousCount = previousValue ? decodeCount(*previousValue) : 0;
      const int64_t newPreviousCount = countRange(level - 1, previous, element);
      tr_.set(previousLevelKey, encodeCount(newPreviousCount));
      tr_.set(key(level, element), encodeCount(previousCount - newPreviousCount + 1));
    }
  }
  return true;
}

bool RankedSet::remove(std::string_view element) {
  if (element.empty()) throw RecordCoreArgumentException("ranked set keys cannot be empty");
  const int64_t existing = count(element);
  if (existing <= 0) return false;
  const bool duplicate = existing > 1;
  const fdb::Bytes minusOne = encodeCount(-1);
  for (int level = 0; level < config_.nlevels; ++level) {
    const fdb::Bytes levelKey = key(level, element);
    if (duplicate) {
      // One copy less; no key leaves any level.
      if (level == 0) {
        tr_.set(levelKey, encodeCount(existing - 1));
      } else {
        const fdb::Bytes previous = previousKey(level, element, true);
        tr_.atomicOp(key(level, previous), minusOne, fdb::MutationType::kAdd);
      }
    } else if (level == 0) {
      tr_.clear(levelKey);
    } else {
      // Whatever the hash says now, the key leaves the level if it is there, handing its count
      // to the key before it.
      std::optional<fdb::Bytes> value = tr_.get(levelKey).get();
      const fdb::Bytes previous = previousKey(level, element, false);
      int64_t change = -1;
      if (value) {
        change += decodeCount(*value);
        tr_.clear(levelKey);
      }
      tr_.atomicOp(key(level, previous), encodeCount(change), fdb::MutationType::kAdd);
    }
  }
  return true;
}

std::optional<int64_t> RankedSet::rank(std::string_view element, bool nullIfMissing) const {
  if (element.empty()) throw RecordCoreArgumentException("ranked set keys cannot be empty");
  if (nullIfMissing && count(element) <= 0) return std::nullopt;
  fdb::Bytes rankKey;  // the last key at or before `element` on the level above
  int64_t rank = 0;
  for (int level = config_.nlevels - 1; level >= 0; --level) {
    int64_t lastCount = 0;
    fdb::Bytes end = key(level, element);
    end.push_back('\x00');
    forEachRow(tr_, key(level, rankKey), end, [&](const fdb::KeyValueRef& row) {
      rankKey = elementOf(row.key);
      lastCount = decodeCount(row.value);
      rank += lastCount;
      return true;
    });
    // The keys before the last one at or before `element` are all before it.
    rank -= lastCount;
    if (rankKey == element) break;  // exact match: no finer level needed
    // Not in the set: on level 0 it comes after the last key before it and its copies (Java
    // adds one, which undercounts when that key has duplicates counted).
    if (!nullIfMissing && level == 0) rank += lastCount;
  }
  return rank;
}

std::optional<fdb::Bytes> RankedSet::getNth(int64_t rank) const {
  if (rank < 0) return std::nullopt;
  fdb::Bytes current;  // where the search continues on the next level
  for (int level = config_.nlevels - 1; level >= 0; --level) {
    bool descend = false;
    bool found = false;
    forEachRow(tr_, key(level, current), prefix_ + fdb::Tuple{level}.range().end,
               [&](const fdb::KeyValueRef& row) {
                 current = elementOf(row.key);
                 if (rank == 0 && !current.empty()) {
                   found = true;
                   return false;
                 }
                 const int64_t count = decodeCount(row.value);
                 if (count > rank) {
                   descend = true;
                   return false;
                 }
                 rank -= count;
                 return true;
               });
    if (found) return current;
    if (!descend) return std::nullopt;  // the level ran out: fewer keys than that
  }
  // Below level 0 inside a key's copies: that key, when copies count.
  if (config_.countDuplicates) return current;
  return std::nullopt;
}

int64_t RankedSet::size() const {
  int64_t total = 0;
  const fdb::KeyRange range = fdb::Tuple{config_.nlevels - 1}.range();
  forEachRow(tr_, prefix_ + range.begin, prefix_ + range.end, [&](const fdb::KeyValueRef& row) {
    total += decodeCount(row.value);
    return true;
  });
  return total;
}

}  // namespace rl
