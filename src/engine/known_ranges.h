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
// Keys are copied into an arena that belongs to the object: views it returns stay valid until
// reset(). The object is one pointer until the first insert (a transaction holds one, and stays
// small). Thread-safety: none (a transaction is used by one thread at a time).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string_view>

namespace fdb::engine {

class KnownRanges {
 public:
  struct Piece {
    std::string_view begin;
    std::string_view end;
  };

  KnownRanges();
  ~KnownRanges();
  KnownRanges(const KnownRanges&) = delete;
  KnownRanges& operator=(const KnownRanges&) = delete;

  // Forgets everything and frees the arena.
  void reset();
  bool empty() const { return pieceCount() == 0; }

  // [begin, end) is now known, recorded as SnapshotCache::insert records it: only the part not
  // yet known is added, as one piece that absorbs the pieces inside it.
  void insert(std::string_view begin, std::string_view end);
  // The one key [key, key + '\0'): recorded at once, added to the pieces at the next insert or
  // lookup (a point read costs an append).
  void insertKey(std::string_view key);

  // The piece holding `key`, if any.
  std::optional<Piece> containing(std::string_view key) const;
  // The piece just below `key`: the one with begin < key <= end, if any.
  std::optional<Piece> endingAtOrAfter(std::string_view key) const;
  // The last piece that ends at or before `key` / the first that begins after `key` (strictly),
  // or at or after it when `orAt`.
  std::optional<Piece> lastEndingAtOrBefore(std::string_view key) const;
  std::optional<Piece> firstBeginningAfter(std::string_view key, bool orAt) const;
  // Whether any piece holds a key of [begin, end] (`end` included).
  bool touches(std::string_view begin, std::string_view end) const;

  size_t pieceCount() const;

 private:
  using Pieces = std::pmr::map<std::string_view, std::string_view, std::less<>>;  // begin -> end
  struct State;

  std::string_view keep(std::string_view bytes, bool appendZero);
  State& state();
  // Adds the keys insertKey deferred (lookups see them; the object stays logically const).
  void settle() const;

  std::unique_ptr<State> state_;  // made by the first insert
};

}  // namespace fdb::engine
