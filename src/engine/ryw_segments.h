// RywSegments — the key space as FoundationDB's read-your-writes layer sees it during one read
// (its RYWIterator): cut into segments that the transaction knows nothing about (unknown), knows
// to be empty, knows one row of, or may not read (unreadable). What is known comes from the
// ranges the transaction read before (KnownRanges, with the database's rows at the read
// version) and from its own writes (WriteMap, seen as FoundationDB's write map cuts it).
//
// A range read walks these segments to decide how far each read of the database goes and where
// it may stop early (docs/semantics.md, "Range reads"):
//
//   RywSegments segments(reader, writes, known, maxReadKey);
//   RywSegments::Segment at = segments.at("k");         // begin <= "k" < end
//   Bytes stop = segments.firstUnknown("a", "z");       // where the known stretch from "a" ends
//
// A view: the reader, writes and known ranges must outlive it and stay unchanged while a
// segment it returned is in use (inserting into `known` changes the segmentation).
#pragma once

#include <string_view>

#include "engine/engine.h"
#include "engine/known_ranges.h"
#include "engine/write_map.h"
#include "fdb/bytes.h"

namespace fdb::engine {

class RywSegments {
 public:
  enum class Kind { kUnknown, kEmpty, kRow, kUnreadable };
  struct Segment {
    Kind kind;
    Bytes begin;
    Bytes end;
  };

  RywSegments(const Engine::Reader& reader, const WriteMap& writes, const KnownRanges& known,
              std::string_view maxKey)
      : reader_(reader), writes_(writes), known_(known), maxKey_(maxKey) {}

  // The segment holding `key` (begin <= key < end).
  Segment at(std::string_view key) const;
  // The segment just below `key` (begin < key <= end). REQUIRES: key is not "".
  Segment before(std::string_view key) const;

  // The first key of [from, limit) whose segment is unknown or unreadable; `limit` if none.
  Bytes firstUnknown(std::string_view from, std::string_view limit) const;
  // The highest key k in [floor, from] such that [k, from) is all known and the segment just
  // below k is unknown or unreadable; `floor` if [floor, from) is all known.
  Bytes lastUnknownEnd(std::string_view floor, std::string_view from) const;

  // A selector's key moved past the empty segments at it, as FoundationDB resolves a "first key
  // >= key" selector from what is known (stops at the last key readable).
  Bytes skipEmpty(std::string_view key) const;

  // FoundationDB's skipUncached: from the unknown segment `from`, towards the segment that
  // begins at `stopBegin` (reached or not), at most `iterationLimit` segments: over rows,
  // unknown segments and one-key empty ones, stopping at a longer empty stretch or an
  // unreadable segment. Returns the last unknown segment reached and counts in *singleEmpty
  // the one-key empty segments passed. walkBackward is the same downwards (skipUncachedBack).
  Segment walkForward(Segment from, std::string_view stopBegin, int iterationLimit,
                      int* singleEmpty) const;
  Segment walkBackward(Segment from, std::string_view stopBegin, int iterationLimit,
                       int* singleEmpty) const;

 private:
  struct Cached {
    Kind kind;  // kUnknown, kEmpty or kRow
    Bytes begin;
    Bytes end;
  };
  Cached cachedAt(std::string_view key) const;
  Cached cachedBefore(std::string_view key) const;
  static Segment combine(Cached cached, WriteMap::Piece written);

  const Engine::Reader& reader_;
  const WriteMap& writes_;
  const KnownRanges& known_;
  std::string_view maxKey_;
};

}  // namespace fdb::engine
