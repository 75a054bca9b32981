#include "engine/known_ranges.h"

#include <cstddef>
#include <cstring>
#include <iterator>

namespace fdb::engine {

// The arena's first block lives in the state itself: a transaction that reads a few keys makes
// one allocation for all of it.
struct KnownRanges::State {
  State() : arena(initialBlock, sizeof(initialBlock)), pieces(&arena) {}

  alignas(std::max_align_t) std::byte initialBlock[384];
  std::pmr::monotonic_buffer_resource arena;  // declared before the map, which uses it
  Pieces pieces;
};

KnownRanges::KnownRanges() = default;
KnownRanges::~KnownRanges() = default;

void KnownRanges::reset() { state_.reset(); }

size_t KnownRanges::pieceCount() const { return state_ == nullptr ? 0 : state_->pieces.size(); }

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
  if (containing(key)) return;  // a known key is never a piece's end: nothing to add
  std::string_view storedKey = keep(key, true);
  state().pieces.emplace(storedKey.substr(0, key.size()), storedKey);
}

std::optional<KnownRanges::Piece> KnownRanges::containing(std::string_view key) const {
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = pieces.upper_bound(key);
  if (it == pieces.begin()) return std::nullopt;
  --it;
  if (key < it->second) return Piece{it->first, it->second};
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::endingAtOrAfter(std::string_view key) const {
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = pieces.lower_bound(key);  // begin >= key
  if (it == pieces.begin()) return std::nullopt;
  --it;  // begin < key
  if (key <= it->second) return Piece{it->first, it->second};
  return std::nullopt;
}

std::optional<KnownRanges::Piece> KnownRanges::lastEndingAtOrBefore(std::string_view key) const {
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
  if (state_ == nullptr) return std::nullopt;
  const Pieces& pieces = state_->pieces;
  auto it = orAt ? pieces.lower_bound(key) : pieces.upper_bound(key);
  if (it == pieces.end()) return std::nullopt;
  return Piece{it->first, it->second};
}

bool KnownRanges::touches(std::string_view begin, std::string_view end) const {
  if (state_ == nullptr) return false;
  if (containing(begin)) return true;
  auto it = state_->pieces.upper_bound(begin);
  return it != state_->pieces.end() && it->first <= end;
}

}  // namespace fdb::engine
