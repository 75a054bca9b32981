#include "engine/known_ranges.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <new>

#include "fdb/detail/thread_block_cache.h"

namespace fdb::engine {
namespace {

// The state lives in one block of the thread's block cache (a size the client library caches
// already, for small range results: no thread-local of its own).
constexpr size_t kStateBlockBytes = 512;
using StateBlocks = detail::BlockCache<kStateBlockBytes>;
// Arena bytes past the state's block come in chunks of at least this many.
constexpr size_t kChunkBytes = 4096;
// touches() looks through up to this many inserts not yet in the pieces rather than add them.
constexpr size_t kScannedInserts = 8;

// Bytes handed out one after another, freed all at once (free()). The first ones are given
// (the rest of the state's block); more come in chunks from the heap.
class Arena {
 public:
  Arena(char* bytes, char* limit) : next_(bytes), limit_(limit) {}

  // Every allocation is a multiple of 8 bytes: the next one stays aligned for any node here.
  void* allocate(size_t size) {
    size = (size + 7) & ~size_t{7};
    if (static_cast<size_t>(limit_ - next_) < size) [[unlikely]]
      addChunk(size);
    char* at = next_;
    next_ += size;
    return at;
  }
  bool hasChunks() const { return chunks_ != nullptr; }
  void free() {
    while (chunks_ != nullptr) {
      Chunk* previous = chunks_->previous;
      ::operator delete(chunks_);
      chunks_ = previous;
    }
  }

 private:
  // Its bytes follow it.
  struct Chunk {
    Chunk* previous;
  };
  void addChunk(size_t size) {
    size_t bytes = std::max(kChunkBytes, size);
    auto* chunk = static_cast<Chunk*>(::operator new(sizeof(Chunk) + bytes));
    chunk->previous = chunks_;
    chunks_ = chunk;
    next_ = reinterpret_cast<char*>(chunk + 1);
    limit_ = next_ + bytes;
  }

  char* next_;
  char* limit_;
  Chunk* chunks_ = nullptr;  // newest first
};

// The pieces' nodes come from the arena, and stay there when erased (as FoundationDB's arena
// keeps them).
template <typename T>
struct ArenaAllocator {
  using value_type = T;
  explicit ArenaAllocator(Arena* arena) : arena(arena) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}
  T* allocate(size_t n) {
    static_assert(alignof(T) <= 8);
    return static_cast<T*>(arena->allocate(n * sizeof(T)));
  }
  void deallocate(T*, size_t) {}
  friend bool operator==(const ArenaAllocator& a, const ArenaAllocator& b) {
    return a.arena == b.arena;
  }

  Arena* arena;
};

// begin -> end; disjoint.
using Pieces = std::map<std::string_view, std::string_view, std::less<>,
                        ArenaAllocator<std::pair<const std::string_view, std::string_view>>>;

std::optional<KnownRanges::Piece> pieceContaining(const Pieces& pieces, std::string_view key) {
  auto it = pieces.upper_bound(key);
  if (it == pieces.begin()) return std::nullopt;
  --it;
  if (key < it->second) return KnownRanges::Piece{it->first, it->second};
  return std::nullopt;
}

// SnapshotCache::insert on the pieces. `begin` and `end` are the arena's: kept as they are.
void addPiece(Pieces& pieces, std::string_view begin, std::string_view end) {
  // A piece holding `begin` keeps its part: the new one starts where it ends (unless it starts
  // at `begin` too, when the new piece replaces it).
  if (std::optional<KnownRanges::Piece> first = pieceContaining(pieces, begin);
      first && first->begin != begin) {
    begin = first->end;
  }
  // A piece holding `end` keeps its part: the new one ends where it begins.
  if (std::optional<KnownRanges::Piece> last = pieceContaining(pieces, end)) end = last->begin;
  if (begin >= end) return;
  // What lies between is unknown or pieces wholly inside [begin, end): they merge into it.
  auto next = pieces.erase(pieces.lower_bound(begin), pieces.lower_bound(end));
  pieces.emplace_hint(next, begin, end);
}

// The same for [key, key + '\0'): nothing, if a piece holds the key already; else a piece of its
// own, which meets no other.
void addKeyPiece(Pieces& pieces, std::string_view key, std::string_view keyAfter) {
  auto next = pieces.upper_bound(key);
  if (next != pieces.begin() && key < std::prev(next)->second) return;
  pieces.emplace_hint(next, key, keyAfter);
}

// Whether [begin, end) holds a key of [from, to] (`to` included; only `from` when to < from).
bool meets(std::string_view begin, std::string_view end, std::string_view from,
           std::string_view to) {
  return from < end && begin <= std::max(from, to);
}

}  // namespace

// Everything lives in the arena, whose first bytes are the rest of the state's block: a
// transaction that reads a few keys allocates nothing else. What was inserted waits there, in
// two lists, until a lookup needs the pieces:
// - ranges, added in the order they were inserted: that gives the pieces the inserts would
//   have made one by one;
// - keys, added after them in any order: a one-key piece [k, k\0) never moves the bounds of a
//   range added before or after it (the range absorbs it or leaves it alone, and k is known
//   already or not either way), so that gives the same pieces.
struct KnownRanges::State {
  struct PendingKey {
    PendingKey* next;
    size_t size;
    // The key and a '\0' after it: [key, key + '\0') in place.
    char* bytes() { return reinterpret_cast<char*>(this + 1); }
    std::string_view key() { return std::string_view(bytes(), size); }
    std::string_view keyAfter() { return std::string_view(bytes(), size + 1); }
  };
  struct PendingRange {
    PendingRange* next;
    std::string_view begin;
    std::string_view end;
    char* bytes() { return reinterpret_cast<char*>(this + 1); }
  };

  Arena arena;
  PendingKey* keys;      // newest first
  PendingRange* ranges;  // newest first
  Pieces* pieces;        // in the arena, made by the first lookup
};

bool KnownRanges::empty() const {
  // Every insert kept adds something: there are no pieces exactly when none are pending either.
  return state_ == nullptr || (state_->keys == nullptr && state_->ranges == nullptr &&
                               (state_->pieces == nullptr || state_->pieces->empty()));
}

size_t KnownRanges::pieceCount() const {
  const State* known = settle();
  return known == nullptr ? 0 : known->pieces->size();
}

KnownRanges::State* KnownRanges::settle() const {
  State* known = state_;
  if (known == nullptr) return nullptr;
  if (known->pieces == nullptr) {
    known->pieces = new (known->arena.allocate(sizeof(Pieces)))
        Pieces(ArenaAllocator<Pieces::value_type>(&known->arena));
  }
  Pieces& pieces = *known->pieces;
  if (known->ranges != nullptr) {
    // Oldest first: reverse the list, then add.
    State::PendingRange* oldest = nullptr;
    for (State::PendingRange* range = known->ranges; range != nullptr;) {
      State::PendingRange* next = range->next;
      range->next = oldest;
      oldest = range;
      range = next;
    }
    for (State::PendingRange* range = oldest; range != nullptr; range = range->next) {
      addPiece(pieces, range->begin, range->end);
    }
    known->ranges = nullptr;
  }
  for (State::PendingKey* key = known->keys; key != nullptr; key = key->next) {
    addKeyPiece(pieces, key->key(), key->keyAfter());
  }
  known->keys = nullptr;
  return known;
}

[[gnu::always_inline]] inline KnownRanges::State& KnownRanges::state() {
  static_assert(sizeof(State) + 128 <= kStateBlockBytes, "room in the block for a few keys");
  if (state_ == nullptr) {
    char* block = static_cast<char*>(StateBlocks::allocate());
    state_ = new (block)
        State{Arena(block + sizeof(State), block + kStateBlockBytes), nullptr, nullptr, nullptr};
  }
  return *state_;
}

void KnownRanges::release() {
  State* known = state_;
  state_ = nullptr;
  if (known->pieces != nullptr || known->arena.hasChunks()) [[unlikely]] {
    if (known->pieces != nullptr) known->pieces->~Pieces();
    known->arena.free();
  }
  StateBlocks::deallocate(known);
}

void KnownRanges::insert(std::string_view begin, std::string_view end) {
  if (begin >= end) return;
  State& known = state();
  auto* range = static_cast<State::PendingRange*>(
      known.arena.allocate(sizeof(State::PendingRange) + begin.size() + end.size()));
  char* bytes = range->bytes();
  range->next = known.ranges;
  range->begin = std::string_view(bytes, begin.size());
  range->end = std::string_view(bytes + begin.size(), end.size());
  known.ranges = range;
  if (!begin.empty()) std::memcpy(bytes, begin.data(), begin.size());
  std::memcpy(bytes + begin.size(), end.data(), end.size());
}

void KnownRanges::insertKey(std::string_view key) {
  State& known = state();
  // The same key read again right away (a loop of reads) is recorded once.
  if (known.keys != nullptr && known.keys->key() == key) return;
  auto* pending = static_cast<State::PendingKey*>(
      known.arena.allocate(sizeof(State::PendingKey) + key.size() + 1));
  pending->next = known.keys;
  pending->size = key.size();
  known.keys = pending;
  char* bytes = pending->bytes();
  bytes[key.size()] = '\0';
  if (!key.empty()) std::memcpy(bytes, key.data(), key.size());
}

std::optional<KnownRanges::Piece> KnownRanges::containing(std::string_view key) const {
  const State* known = settle();
  if (known == nullptr) return std::nullopt;
  return pieceContaining(*known->pieces, key);
}

std::optional<KnownRanges::Piece> KnownRanges::endingAtOrAfter(std::string_view key) const {
  const State* known = settle();
  if (known == nullptr) return std::nullopt;
  const Pieces& pieces = *known->pieces;
  auto it = pieces.lower_bound(key);  // begin >= key
  if (it == pieces.begin()) return std::nullopt;
  --it;  // begin < key
  if (key <= it->second) return Piece{it->first, it->second};
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::lastEndingAtOrBefore(std::string_view key) const {
  const State* known = settle();
  if (known == nullptr) return std::nullopt;
  const Pieces& pieces = *known->pieces;
  auto it = pieces.upper_bound(key);  // begin > key
  while (it != pieces.begin()) {
    --it;
    if (it->second <= key) return Piece{it->first, it->second};
  }
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::firstBeginningAfter(std::string_view key,
                                                                   bool orAt) const {
  const State* known = settle();
  if (known == nullptr) return std::nullopt;
  const Pieces& pieces = *known->pieces;
  auto it = orAt ? pieces.lower_bound(key) : pieces.upper_bound(key);
  if (it == pieces.end()) return std::nullopt;
  return Piece{it->first, it->second};
}

bool KnownRanges::touchesInserted(std::string_view begin, std::string_view end) const {
  State* known = state_;
  // The pieces cover exactly what was inserted: a pending insert that meets [begin, end] is
  // (part of) a piece that will. Past a few, they are added instead.
  size_t looked = 0;
  for (State::PendingRange* range = known->ranges; range != nullptr; range = range->next) {
    if (++looked > kScannedInserts) break;
    if (meets(range->begin, range->end, begin, end)) return true;
  }
  for (State::PendingKey* key = known->keys; key != nullptr; key = key->next) {
    if (++looked > kScannedInserts) break;
    if (meets(key->key(), key->keyAfter(), begin, end)) return true;
  }
  if (looked > kScannedInserts) settle();
  if (known->pieces == nullptr) return false;
  const Pieces& pieces = *known->pieces;
  if (pieceContaining(pieces, begin)) return true;
  auto it = pieces.upper_bound(begin);
  return it != pieces.end() && it->first <= end;
}

}  // namespace fdb::engine
