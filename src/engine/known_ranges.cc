#include "engine/known_ranges.h"

#include <cstddef>
#include <cstring>
#include <iterator>
#include <vector>

namespace fdb::engine {

// The arena's first block lives in the state itself: a transaction that reads a few keys makes
// one allocation for all of it.
struct KnownRanges::State {
  State() : arena(initialBlock, sizeof(initialBlock)), pieces(&arena), pendingKeys(&arena) {}

  alignas(std::max_align_t) std::byte initialBlock[384];
  std::pmr::monotonic_buffer_resource arena;  // declared before the containers, which use it
  Pieces pieces;
  // Keys read one by one, not yet added to `pieces` (k + '\0' each): a point read only appends.
  // Adding them before any other insert or lookup gives the pieces FoundationDB has: a one-key
  // piece never moves the bounds of a later range, which absorbs it or leaves it alone.
  std::pmr::vector<std::string_view> pendingKeys;
};

KnownRanges::KnownRanges() = default;
KnownRanges::~KnownRanges() = default;

void KnownRanges::reset() { state_.reset(); }

size_t KnownRanges::pieceCount() const {
  settle();
  return state_ == nullptr ? 0 : state_->pieces.size();
}

void KnownRanges::settle() const {
  if (state_ == nullptr || state_->pendingKeys.empty()) return;
  Pieces& pieces = state_->pieces;
  for (std::string_view keyAndZero : state_->pendingKeys) {
    std::string_view key = keyAndZero.substr(0, keyAndZero.size() - 1);
    auto it = pieces.upper_bound(key);
    if (it != pieces.begin() && key < std::prev(it)->second) continue;  // known already
    pieces.emplace_hint(it, key, keyAndZero);
  }
  state_->pendingKeys.clear();
}

KnownRanges::State& KnownRanges::state() {
  if (state_ == nullptr) state_ = std::make_unique<State>();
  return *state_;
}

std::string_view KnownRanges::keep(std::string_view bytes, bool appendZero) {
  size_t size = bytes.size() + (appendZero ? 1 : 0);
  if (size == 0) return std::string_view();
  char* copy = static_cast<char*>(state().arena.allocate(size, 1));
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  if (appendZero) copy[bytes.size()] = '\0';
  return std::string_view(copy, size);
}

void KnownRanges::insert(std::string_view begin, std::string_view end) {
  if (begin >= end) return;
  settle();
  // A piece holding `begin` keeps its part: the new one starts where it ends (unless it starts
  // at `begin` too, when the new piece replaces it).
  if (std::optional<Piece> first = containing(begin); first && first->begin != begin) {
    begin = first->end;
  }
  // A piece holding `end` keeps its part: the new one ends where it begins.
  if (std::optional<Piece> last = containing(end)) end = last->begin;
  if (begin >= end) return;
  // What lies between is unknown or pieces wholly inside [begin, end): they merge into it.
  Pieces& pieces = state().pieces;
  pieces.erase(pieces.lower_bound(begin), pieces.lower_bound(end));
  std::string_view storedBegin = keep(begin, false);
  pieces.emplace(storedBegin, keep(end, false));
}

void KnownRanges::insertKey(std::string_view key) {
  State& known = state();
  // The same key read again right away (a loop of reads) is recorded once.
  if (!known.pendingKeys.empty() && known.pendingKeys.back().substr(0, key.size()) == key &&
      known.pendingKeys.back().size() == key.size() + 1) {
    return;
  }
  known.pendingKeys.push_back(keep(key, true));
}

std::optional<KnownRanges::Piece> KnownRanges::containing(std::string_view key) const {
  settle();
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = pieces.upper_bound(key);
  if (it == pieces.begin()) return std::nullopt;
  --it;
  if (key < it->second) return Piece{it->first, it->second};
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::endingAtOrAfter(std::string_view key) const {
  settle();
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = pieces.lower_bound(key);  // begin >= key
  if (it == pieces.begin()) return std::nullopt;
  --it;  // begin < key
  if (key <= it->second) return Piece{it->first, it->second};
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::lastEndingAtOrBefore(std::string_view key) const {
  settle();
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = pieces.upper_bound(key);  // begin > key
  while (it != pieces.begin()) {
    --it;
    if (it->second <= key) return Piece{it->first, it->second};
  }
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::firstBeginningAfter(std::string_view key,
                                                                   bool orAt) const {
  settle();
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = orAt ? pieces.lower_bound(key) : pieces.upper_bound(key);
  if (it == pieces.end()) return std::nullopt;
  return Piece{it->first, it->second};
}

bool KnownRanges::touches(std::string_view begin, std::string_view end) const {
  settle();
  if (state_ == nullptr) return false;
  if (containing(begin)) return true;
  auto it = state_->pieces.upper_bound(begin);
  return it != state_->pieces.end() && it->first <= end;
}

}  // namespace fdb::engine
