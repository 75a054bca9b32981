// KnownRanges — the key ranges whose database contents a transaction has already read: the
// coverage of FoundationDB's snapshot cache (SnapshotCache in its client), without the rows,
// which are the database's at the transaction's read version anyway.
//
// A range read uses it to find where it may stop early (docs/semantics.md, "Range reads"). The
// pieces are kept as FoundationDB keeps its cache entries: inserting a range merges every piece
// it covers whole into one, but pieces it only overlaps stay apart, and touching pieces are not
// joined (the read's walk counts pieces, so their boundaries matter).
//
//   KnownRanges known;
//   known.insert("a", "c");
//   known.insertKey("m");       // [m, m\0)
//   known.containing("b");      // {"a", "c"}
//
// Recording is cheap, as every read records: an insert copies its keys and notes the range.
// The ordered pieces are built from those notes only when a lookup first needs them (most
// transactions never look: see touches()), and are the pieces the inserts would have made one
// by one. Keys are copied into an arena that belongs to the object: views it returns stay
// valid until reset(). The object is one pointer, null until the first insert, and its state
// is one block from the thread's block cache (a transaction holds one, and stays small).
// Thread-safety: none (a transaction is used by one thread at a time).
#pragma once

#include <optional>
#include <string_view>

namespace fdb::engine {

class KnownRanges {
 public:
  struct Piece {
    std::string_view begin;
    std::string_view end;
  };

  KnownRanges() = default;
  ~KnownRanges() { reset(); }
  KnownRanges(const KnownRanges&) = delete;
  KnownRanges& operator=(const KnownRanges&) = delete;

  // Forgets everything and frees the arena.
  void reset() {
    if (state_ != nullptr) release();
  }
  bool empty() const;

  // [begin, end) is now known, recorded as SnapshotCache::insert records it: only the part not
  // yet known is added, as one piece that absorbs the pieces inside it.
  void insert(std::string_view begin, std::string_view end);
  // The one key: insert(key, key + '\0').
  void insertKey(std::string_view key);

  // The piece holding `key`, if any.
  std::optional<Piece> containing(std::string_view key) const;
  // The piece just below `key`: the one with begin < key <= end, if any.
  std::optional<Piece> endingAtOrAfter(std::string_view key) const;
  // The last piece that ends at or before `key` / the first that begins after `key` (strictly),
  // or at or after it when `orAt`.
  std::optional<Piece> lastEndingAtOrBefore(std::string_view key) const;
  std::optional<Piece> firstBeginningAfter(std::string_view key, bool orAt) const;
  // Whether any piece holds a key of [begin, end] (`end` included). Answered from the inserts
  // themselves while there are few not yet in the pieces, without adding them.
  bool touches(std::string_view begin, std::string_view end) const {
    return state_ != nullptr && touchesInserted(begin, end);
  }

  size_t pieceCount() const;

 private:
  struct State;

  State& state();
  void release();
  bool touchesInserted(std::string_view begin, std::string_view end) const;
  // Applies the inserts not yet in the pieces (lookups see them; the object stays logically
  // const). Returns the state, null when nothing was ever inserted.
  State* settle() const;

  State* state_ = nullptr;  // made by the first insert
};

}  // namespace fdb::engine
