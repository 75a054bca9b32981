#include "rl/index/ranked_set.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <random>
#include <vector>

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

// prefix + (level, element) packed into `out` (see RankedSet::levelKey).
void assignLevelKey(fdb::Bytes& out, std::string_view prefix, int level, std::string_view element) {
  out.clear();
  out.append(prefix);
  if (level == 0) {
    out.push_back('\x14');
  } else {
    out.push_back('\x15');
    out.push_back(static_cast<char>(level));
  }
  out.push_back('\x01');
  for (char c : element) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xff');
  }
  out.push_back('\0');
}

// Buffers for keys that live only during a call (the transaction copies what it keeps), so a
// save's ranked-set keys cost no allocations once they have grown.
struct Scratch {
  fdb::Bytes target, other, end;
};
Scratch& scratch() {
  thread_local Scratch buffers;
  return buffers;
}

constexpr char kOne[8] = {1, 0, 0, 0, 0, 0, 0, 0};
constexpr char kMinusOne[8] = {'\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff'};
constexpr std::string_view kOneCount(kOne, 8);
constexpr std::string_view kMinusOneCount(kMinusOne, 8);

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
  // The tuple (level, key as a byte string), packed directly: an integer 0..255 is 14, or 15
  // and its byte; a byte string is 01, its bytes with 00 escaped as 00 ff, then 00.
  fdb::Bytes bytes;
  bytes.reserve(prefix.size() + key.size() + 5);
  assignLevelKey(bytes, prefix, level, key);
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
  // The inverse of levelKey past the prefix.
  std::string_view rest = storedKey.substr(prefix_.size());
  const size_t levelSize = !rest.empty() && rest[0] == '\x14' ? 1 : 2;
  if (rest.size() < levelSize + 2 || (levelSize == 2 && rest[0] != '\x15') ||
      rest[levelSize] != '\x01') {
    throw RecordCoreException(fmt::format("not a ranked-set key under {}: {}",
                                          fdb::printable(prefix_), fdb::printable(storedKey)));
  }
  fdb::Bytes element;
  for (size_t i = levelSize + 1; i < rest.size(); ++i) {
    if (rest[i] != '\0') {
      element.push_back(rest[i]);
    } else if (i + 1 < rest.size() && rest[i + 1] == '\xff') {
      element.push_back('\0');
      ++i;
    } else {
      return element;
    }
  }
  throw RecordCoreException(
      fmt::format("ranked-set key without its end: {}", fdb::printable(storedKey)));
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

fdb::Future<fdb::RangeResult> RankedSet::readNeighbors(int level, std::string_view element) const {
  Scratch& buffers = scratch();
  assignLevelKey(buffers.end, prefix_, level, element);
  buffers.end.push_back('\x00');
  assignLevelKey(buffers.other, prefix_, level, "");
  fdb::RangeOptions options;
  options.limit = 2;
  options.reverse = true;
  return tr_.snapshot().getRange(fdb::KeySelectorRef::firstGreaterOrEqual(buffers.other),
                                 fdb::KeySelectorRef::firstGreaterOrEqual(buffers.end), options);
}

void RankedSet::resolveNeighbors(int level, std::string_view element,
                                 fdb::Future<fdb::RangeResult>& read, Neighbors& out) const {
  out.batch = read.get();
  if (out.batch.rows.size() >= 2 || !out.batch.more) {
    for (const fdb::KeyValueRef& row : out.batch.rows) {
      if (out.count == 2) break;
      out.rows[out.count++] = {row.key, row.value};
    }
    return;
  }
  // The read stopped early (docs/semantics.md, "Range reads"): go on below its last row.
  for (const fdb::KeyValueRef& row : out.batch.rows) out.copied.push_back(row);
  bool more = true;
  while (out.copied.size() < 2 && more) {
    fdb::RangeOptions options;
    options.limit = static_cast<int>(2 - out.copied.size());
    options.reverse = true;
    fdb::Bytes end = out.copied.empty() ? key(level, element) + '\x00' : out.copied.back().key;
    fdb::RangeResult next = tr_.snapshot()
                                .getRange(fdb::KeySelectorRef::firstGreaterOrEqual(key(level, "")),
                                          fdb::KeySelectorRef::firstGreaterOrEqual(end), options)
                                .get();
    for (const fdb::KeyValueRef& row : next.rows) out.copied.push_back(row);
    more = next.more;
  }
  for (const fdb::KeyValue& row : out.copied) {
    if (out.count == 2) break;
    out.rows[out.count++] = {row.key, row.value};
  }
}

std::string_view RankedSet::previousKey(int level, std::string_view element,
                                        const Neighbors& neighbors, bool orEqual,
                                        std::optional<int64_t>* atValue) {
  Scratch& buffers = scratch();
  fdb::Bytes& target = buffers.target;
  assignLevelKey(target, prefix_, level, element);
  size_t row = 0;
  if (atValue != nullptr) tr_.addReadConflictKey(target);  // as a read of the key itself
  if (neighbors.count > 0 && neighbors.rows[0].first == std::string_view(target)) {
    if (atValue != nullptr) *atValue = decodeCount(neighbors.rows[0].second);
    if (!orEqual) row = 1;
  }
  if (row >= neighbors.count) {
    throw RecordCoreException(
        fmt::format("ranked set {} has no first key on level {}", fdb::printable(prefix_), level));
  }
  const std::string_view previous = neighbors.rows[row].first;
  fdb::Bytes& other = buffers.other;
  if (previous != std::string_view(target)) {
    other.assign(previous);
    other.push_back('\x00');
    tr_.addReadConflictRange(other, target);
  }
  // The previous key's level-0 key: the same element after the level.
  const size_t levelSize = level == 0 ? 1 : 2;
  if (previous.size() < prefix_.size() + levelSize) {
    throw RecordCoreException(fmt::format("not a ranked-set key: {}", fdb::printable(previous)));
  }
  const std::string_view previousElement = previous.substr(prefix_.size() + levelSize);
  if (previousElement != lastConflictElement_) {  // levels often share their previous key
    other.assign(prefix_);
    other.push_back('\x14');
    other.append(previousElement);
    tr_.addReadConflictKey(other);
    lastConflictElement_.assign(previousElement);
  }
  return previous;
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
  // Every read at once: the key's count, and each level's keys at and before it.
  const fdb::Bytes levelZeroKey = key(0, element);
  fdb::Future<std::optional<fdb::Bytes>> existingRead = tr_.get(levelZeroKey);
  const size_t levels = static_cast<size_t>(config_.nlevels);
  std::array<std::optional<fdb::Future<fdb::RangeResult>>, kMaxLevels> neighborReads;
  for (size_t level = 1; level < levels; ++level) {
    neighborReads[level].emplace(readNeighbors(static_cast<int>(level), element));
  }
  const std::optional<fdb::Bytes> existing = existingRead.get();
  const bool duplicate = existing && decodeCount(*existing) > 0;
  if (duplicate && !config_.countDuplicates) return false;
  std::array<Neighbors, kMaxLevels> neighbors;
  for (size_t level = 1; level < levels; ++level) {
    resolveNeighbors(static_cast<int>(level), element, *neighborReads[level], neighbors[level]);
    if (neighbors[level].count == 0) {
      // A level without its first key: a set not initialized yet.
      init();
      return add(element);
    }
  }
  const uint32_t keyHash = hash(config_.hashFunction, element);
  if (duplicate) {
    tr_.atomicOp(levelZeroKey, kOneCount, fdb::MutationType::kAdd);
  } else {
    tr_.set(levelZeroKey, kOneCount);
  }
  for (size_t l = 1; l < levels; ++l) {
    const int level = static_cast<int>(l);
    if (duplicate || !onLevel(keyHash, level)) {
      // The key that counts this one on this level gains one (a duplicate's own key, if it is
      // on the level).
      const std::string_view previous = previousKey(level, element, neighbors[l], duplicate);
      tr_.atomicOp(previous, kOneCount, fdb::MutationType::kAdd);
    } else {
      // The key splits the previous key's span: recount the part before it on the level below
      // (as written by the levels below, read from this transaction's writes).
      const fdb::Bytes previousLevelKey(previousKey(level, element, neighbors[l], false));
      const fdb::Bytes previous = elementOf(previousLevelKey);
      fdb::Future<std::optional<fdb::Bytes>> previousRead = tr_.get(previousLevelKey);
      const int64_t newPreviousCount = countRange(level - 1, previous, element);
      const std::optional<fdb::Bytes> previousValue = previousRead.get();
      const int64_t previousCount = previousValue ? decodeCount(*previousValue) : 0;
      tr_.set(previousLevelKey, encodeCount(newPreviousCount));
      tr_.set(key(level, element), encodeCount(previousCount - newPreviousCount + 1));
    }
  }
  return true;
}

bool RankedSet::remove(std::string_view element) {
  if (element.empty()) throw RecordCoreArgumentException("ranked set keys cannot be empty");
  const fdb::Bytes levelZeroKey = key(0, element);
  fdb::Future<std::optional<fdb::Bytes>> existingRead = tr_.get(levelZeroKey);
  const size_t levels = static_cast<size_t>(config_.nlevels);
  std::array<std::optional<fdb::Future<fdb::RangeResult>>, kMaxLevels> neighborReads;
  for (size_t level = 1; level < levels; ++level) {
    neighborReads[level].emplace(readNeighbors(static_cast<int>(level), element));
  }
  const std::optional<fdb::Bytes> existingValue = existingRead.get();
  const int64_t existing = existingValue ? decodeCount(*existingValue) : 0;
  if (existing <= 0) return false;
  const bool duplicate = existing > 1;
  // Every read done before the first write.
  std::array<Neighbors, kMaxLevels> neighbors;
  for (size_t level = 1; level < levels; ++level) {
    resolveNeighbors(static_cast<int>(level), element, *neighborReads[level], neighbors[level]);
  }
  if (duplicate) {
    // One copy less; no key leaves any level.
    tr_.set(levelZeroKey, encodeCount(existing - 1));
  } else {
    tr_.clear(levelZeroKey);
  }
  for (size_t l = 1; l < levels; ++l) {
    const int level = static_cast<int>(l);
    const Neighbors& rows = neighbors[l];
    if (duplicate) {
      tr_.atomicOp(previousKey(level, element, rows, true), kMinusOneCount,
                   fdb::MutationType::kAdd);
      continue;
    }
    // Whatever the hash says now, the key leaves the level if it is there, handing its count
    // to the key before it.
    std::optional<int64_t> own;
    const std::string_view previous = previousKey(level, element, rows, false, &own);
    int64_t change = -1;
    if (own) {
      change += *own;
      tr_.clear(key(level, element));
    }
    tr_.atomicOp(previous, encodeCount(change), fdb::MutationType::kAdd);
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
