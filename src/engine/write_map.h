// WriteMap — a transaction's own writes, as read-your-writes needs them.
//
// It keeps three views of the same writes: the mutations in issue order (what commit
// applies), the ranges the transaction cleared, and per written key either its value when
// the transaction knows it (after a set, a clear, or atomic operations on a known value)
// or the atomic operations still waiting for the database's value of the key.
//
// Every key and value it holds lives once, in an arena that belongs to the map: writing
// allocates a block of it now and then, not a string per key and value. The views it
// returns stay valid until reset().
//
// Thread-safety: none (a transaction is used by one thread at a time).
#pragma once

#include <map>
#include <memory_resource>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "engine/engine.h"
#include "fdb/bytes.h"
#include "fdb/types.h"

namespace fdb::engine {

class WriteMap {
 public:
  struct AtomicOp {
    MutationType type;
    std::string_view param;
  };
  // What the transaction's own writes say about one key.
  struct KeyState {
    enum class Kind {
      kUnwritten,   // nothing: the database decides
      kKnown,       // `value` is the key's value (nullopt: absent)
      kPendingOps,  // `ops` apply, in order, to the database's value
      kUnreadable,  // its value depends on the commit's versionstamp (accessed_unreadable)
    };
    Kind kind = Kind::kUnwritten;
    std::optional<std::string_view> value;  // kKnown
    const std::vector<AtomicOp>* ops = nullptr;
  };

  WriteMap();
  WriteMap(const WriteMap&) = delete;
  WriteMap& operator=(const WriteMap&) = delete;

  // Forgets every write and frees the arena.
  void reset();

  void set(std::string_view key, std::string_view value);
  void clearRange(std::string_view begin, std::string_view end);
  void atomicOp(std::string_view key, MutationType type, std::string_view param);
  // SET_VERSIONSTAMPED_VALUE: `key` becomes unreadable until set or cleared again.
  void setVersionstampedValue(std::string_view key, std::string_view operand);
  // SET_VERSIONSTAMPED_KEY: the keys it may produce, [unreadableBegin, unreadableEnd),
  // become unreadable.
  void setVersionstampedKey(std::string_view operand, std::string_view value,
                            std::string_view unreadableBegin, std::string_view unreadableEnd);

  KeyState lookup(std::string_view key) const;
  // The value `key` has once its pending operations are applied to `databaseValue`.
  static std::optional<Bytes> applyOps(const std::vector<AtomicOp>& ops,
                                       std::optional<Bytes> databaseValue);

  // If `key` lies in a range this transaction cleared, that range's end.
  std::optional<std::string_view> clearedRangeEnd(std::string_view key) const;
  // If `key` lies in a range this transaction cleared, that range's begin.
  std::optional<std::string_view> clearedRangeBegin(std::string_view key) const;
  bool hasPoint(std::string_view key) const { return points_.count(key) > 0; }
  // Whether [begin, end) holds anything this transaction wrote or cleared.
  bool touchesWrites(std::string_view begin, std::string_view end) const;
  // Whether a read of [begin, end) would touch a key this transaction made unreadable.
  bool touchesUnreadable(std::string_view begin, std::string_view end) const;
  // Whether any key was ever made unreadable (until reset()).
  bool mayHaveUnreadable() const { return madeUnreadable_; }
  // The first key of [begin, end) / the end of the last stretch of [begin, end) that this
  // transaction made unreadable, if any.
  std::optional<Bytes> firstUnreadable(std::string_view begin, std::string_view end) const;
  std::optional<Bytes> lastUnreadableEnd(std::string_view begin, std::string_view end) const;

  // The writes as FoundationDB's write map cuts the key space into pieces (what a range read
  // walks over, docs/semantics.md "Range reads"): each written key [k, k\0) is a piece of its
  // own, cleared ranges and ranges made unreadable are pieces, and what lies between them is
  // unmodified. (FoundationDB may cut one stretch into more pieces where ranges were cleared
  // or conflict ranges added one after another; only a walk's piece count can tell.)
  struct Piece {
    enum class Kind {
      kUnmodified,   // the database decides
      kCleared,      // no key
      kIndependent,  // a written key whose value is known (maybe absent)
      kDependent,    // a written key whose value needs the database's
      kUnreadable,   // depends on the commit's versionstamp
    };
    Kind kind;
    Bytes begin;
    Bytes end;  // kKeySpaceEnd past the last boundary
  };
  // Beyond every key a transaction can read.
  static constexpr std::string_view kKeySpaceEnd = "\xff\xff\xff";
  // The piece holding `key`; the piece just below `key` (begin < key <= end).
  Piece pieceAt(std::string_view key) const;
  Piece pieceBefore(std::string_view key) const;

  // Written keys (set or atomic) in [from, bound), ascending / (bound, before) descending.
  template <typename Visit>  // Visit(std::string_view key) -> bool (true: stop)
  void forEachPointFrom(std::string_view from, std::string_view bound, Visit visit) const {
    for (auto it = points_.lower_bound(from); it != points_.end() && it->first < bound; ++it) {
      if (visit(it->first)) return;
    }
  }
  template <typename Visit>
  void forEachPointBefore(std::string_view before, std::string_view bound, Visit visit) const {
    auto it = points_.lower_bound(before);
    while (it != points_.begin()) {
      --it;
      if (it->first < bound) return;
      if (visit(it->first)) return;
    }
  }

  // [begin, end) minus the parts the transaction's own writes determine: the ranges it
  // cleared and the keys whose value it knows. Keys with operations pending on the
  // database's value stay in. This is what a serializable read of [begin, end) must add as
  // read conflict ranges. (Usually one range: kept inline, so no allocation for the list.)
  absl::InlinedVector<KeyRange, 1> subtractKnown(std::string_view begin,
                                                 std::string_view end) const;

  std::span<const Mutation> mutations() const { return mutations_; }
  bool empty() const { return mutations_.empty(); }
  // Whether reads see nothing of these writes (no written, cleared or unreadable keys).
  bool invisible() const {
    return points_.empty() && cleared_.empty() && unreadableRanges_.empty();
  }

 private:
  struct Point {
    bool known = true;
    bool unreadable = false;                // a versionstamped value was written
    std::optional<std::string_view> value;  // when known
    std::vector<AtomicOp> ops;              // when not known
  };

  // A copy of `bytes` in the arena.
  std::string_view keep(std::string_view bytes);

  std::pmr::monotonic_buffer_resource arena_;  // declared first: the containers use it
  std::pmr::map<std::string_view, Point, std::less<>> points_;
  std::pmr::map<std::string_view, std::string_view, std::less<>> cleared_;  // disjoint
  std::vector<std::pair<std::string_view, std::string_view>> unreadableRanges_;
  std::pmr::vector<Mutation> mutations_;
  bool madeUnreadable_ = false;
};

}  // namespace fdb::engine
