#include "engine/ryw_segments.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace fdb::engine {
namespace {

Bytes after(std::string_view key) {
  Bytes next;
  next.reserve(key.size() + 1);
  next.append(key).push_back('\0');
  return next;
}

bool isKeyAfter(std::string_view next, std::string_view key) {
  return next.size() == key.size() + 1 && next.back() == '\0' && next.starts_with(key);
}

}  // namespace

RywSegments::Cached RywSegments::cachedAt(std::string_view key) const {
  if (std::optional<KnownRanges::Piece> piece = known_.containing(key)) {
    // Inside a known piece: a row of the database, or the gap between two.
    std::optional<KeyValue> next = reader_.firstAtOrAfter(key, piece->end);
    if (next && next->key == key) return Cached{Kind::kRow, Bytes(key), after(key)};
    std::optional<KeyValue> previous = reader_.lastBefore(key, piece->begin);
    return Cached{Kind::kEmpty, previous ? after(previous->key) : Bytes(piece->begin),
                  next ? std::move(next->key) : Bytes(piece->end)};
  }
  std::optional<KnownRanges::Piece> below = known_.lastEndingAtOrBefore(key);
  std::optional<KnownRanges::Piece> above = known_.firstBeginningAfter(key, false);
  return Cached{Kind::kUnknown, below ? Bytes(below->end) : Bytes(),
                above ? Bytes(above->begin) : Bytes(WriteMap::kKeySpaceEnd)};
}

RywSegments::Cached RywSegments::cachedBefore(std::string_view key) const {
  if (std::optional<KnownRanges::Piece> piece = known_.endingAtOrAfter(key)) {
    std::optional<KeyValue> previous = reader_.lastBefore(key, piece->begin);
    if (previous && isKeyAfter(key, previous->key)) {
      Bytes begin = std::move(previous->key);
      return Cached{Kind::kRow, std::move(begin), Bytes(key)};
    }
    std::optional<KeyValue> next = reader_.firstAtOrAfter(key, piece->end);
    return Cached{Kind::kEmpty, previous ? after(previous->key) : Bytes(piece->begin),
                  next ? std::move(next->key) : Bytes(piece->end)};
  }
  // Every piece beginning below `key` ends before it.
  std::optional<KnownRanges::Piece> below = known_.lastEndingAtOrBefore(key);
  std::optional<KnownRanges::Piece> above = known_.firstBeginningAfter(key, true);
  return Cached{Kind::kUnknown, below ? Bytes(below->end) : Bytes(),
                above ? Bytes(above->begin) : Bytes(WriteMap::kKeySpaceEnd)};
}

RywSegments::Segment RywSegments::combine(Cached cached, WriteMap::Piece written) {
  // FoundationDB's RYWIterator::typeMap: the writes decide, except where they leave the key to
  // the database (unmodified) or need its value (dependent).
  Kind kind = cached.kind;
  switch (written.kind) {
    case WriteMap::Piece::Kind::kUnmodified: break;
    case WriteMap::Piece::Kind::kCleared: kind = Kind::kEmpty; break;
    case WriteMap::Piece::Kind::kIndependent: kind = Kind::kRow; break;
    case WriteMap::Piece::Kind::kDependent:
      kind = cached.kind == Kind::kUnknown ? Kind::kUnknown : Kind::kRow;
      break;
    case WriteMap::Piece::Kind::kUnreadable: kind = Kind::kUnreadable; break;
  }
  Bytes begin = std::max(std::move(cached.begin), std::move(written.begin));
  Bytes end = std::min(std::move(cached.end), std::move(written.end));
  return Segment{kind, std::move(begin), std::move(end)};
}

RywSegments::Segment RywSegments::at(std::string_view key) const {
  return combine(cachedAt(key), writes_.pieceAt(key));
}

RywSegments::Segment RywSegments::before(std::string_view key) const {
  return combine(cachedBefore(key), writes_.pieceBefore(key));
}

Bytes RywSegments::firstUnknown(std::string_view from, std::string_view limit) const {
  Bytes position(from);
  while (position < limit) {
    if (std::optional<KnownRanges::Piece> piece = known_.containing(position)) {
      // Read before: known, unless the writes made part of it unreadable since.
      if (std::optional<Bytes> unreadable = writes_.firstUnreadable(position, piece->end)) {
        return std::min(std::move(*unreadable), Bytes(limit));
      }
      position.assign(piece->end);
      continue;
    }
    WriteMap::Piece written = writes_.pieceAt(position);
    if (written.kind != WriteMap::Piece::Kind::kCleared &&
        written.kind != WriteMap::Piece::Kind::kIndependent) {
      return position;
    }
    position = std::move(written.end);
  }
  return Bytes(limit);
}

Bytes RywSegments::lastUnknownEnd(std::string_view floor, std::string_view from) const {
  Bytes position(from);
  while (position > floor) {
    if (std::optional<KnownRanges::Piece> piece = known_.endingAtOrAfter(position)) {
      if (std::optional<Bytes> unreadable = writes_.lastUnreadableEnd(piece->begin, position)) {
        return std::max(std::move(*unreadable), Bytes(floor));
      }
      position.assign(piece->begin);
      continue;
    }
    WriteMap::Piece written = writes_.pieceBefore(position);
    if (written.kind != WriteMap::Piece::Kind::kCleared &&
        written.kind != WriteMap::Piece::Kind::kIndependent) {
      return position;
    }
    position = std::move(written.begin);
  }
  return Bytes(floor);
}

Bytes RywSegments::skipEmpty(std::string_view key) const {
  Segment segment = at(key);
  if (segment.kind != Kind::kEmpty || segment.end >= maxKey_) return Bytes(key);
  while (segment.kind == Kind::kEmpty && segment.end < maxKey_) segment = at(segment.end);
  return std::move(segment.begin);
}

RywSegments::Segment RywSegments::walkForward(Segment from, std::string_view stopBegin,
                                              int iterationLimit, int* singleEmpty) const {
  Segment it = std::move(from);
  Bytes emptyBegin = it.begin;  // where the current stretch of empty segments began
  Bytes end = it.end;
  auto backToUnknown = [&] {
    while (it.kind != Kind::kUnknown) it = before(it.begin);
  };
  while (it.begin != stopBegin && --iterationLimit >= 0) {
    if (it.kind == Kind::kUnreadable || it.kind == Kind::kEmpty) {
      if (it.kind == Kind::kUnreadable || !isKeyAfter(end, emptyBegin)) {
        backToUnknown();
        return it;
      }
      ++*singleEmpty;
    } else {
      emptyBegin = end;
    }
    it = at(it.end);
    end = it.end;
  }
  backToUnknown();
  return it;
}

RywSegments::Segment RywSegments::walkBackward(Segment from, std::string_view stopBegin,
                                               int iterationLimit, int* singleEmpty) const {
  Segment it = std::move(from);
  Bytes begin = it.begin;
  Bytes emptyEnd = it.end;  // where the current stretch of empty segments ends
  auto forwardToUnknown = [&] {
    while (it.kind != Kind::kUnknown) it = at(it.end);
  };
  while (it.begin != stopBegin && --iterationLimit >= 0) {
    if (it.kind == Kind::kUnreadable || it.kind == Kind::kEmpty) {
      if (it.kind == Kind::kUnreadable || !isKeyAfter(emptyEnd, begin)) {
        forwardToUnknown();
        return it;
      }
      ++*singleEmpty;
    } else {
      emptyEnd = begin;
    }
    it = before(it.begin);
    begin = it.begin;
  }
  forwardToUnknown();
  return it;
}

}  // namespace fdb::engine
