// WriteMap — a transaction's own writes, as read-your-writes needs them.
//
// It keeps three views of the same writes: the mutations in issue order (what commit
// applies), the ranges the transaction cleared, and per written key either its value when
// the transaction knows it (after a set, a clear, or atomic operations on a known value)
// or the atomic operations still waiting for the database's value of the key.
//
// Thread-safety: none (a transaction is used by one thread at a time).
#pragma once

#include <map>
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
    Bytes param;
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
    // kKnown: the value, inside the WriteMap (valid until its next write).
    const std::optional<Bytes>* value = nullptr;
    const std::vector<AtomicOp>* ops = nullptr;
  };

  void set(std::string_view key, std::string_view value);
  void clearRange(std::string_view begin, std::string_view end);
  void atomicOp(std::string_view key, MutationType type, std::string_view param);
  // SET_VERSIONSTAMPED_VALUE: `key` becomes unreadable until set or cleared again.
  void setVersionstampedValue(std::string_view key, std::string_view operand);
  // SET_VERSIONSTAMPED_KEY: the keys it may produce, `unreadable`, become unreadable.
  void setVersionstampedKey(std::string_view operand, std::string_view value, KeyRange unreadable);

  KeyState lookup(std::string_view key) const;
  // The value `key` has once its pending operations are applied to `databaseValue`.
  static std::optional<Bytes> applyOps(const std::vector<AtomicOp>& ops,
                                       std::optional<Bytes> databaseValue);

  // If `key` lies in a range this transaction cleared, that range's end.
  std::optional<Bytes> clearedRangeEnd(std::string_view key) const;
  // If `key` lies in a range this transaction cleared, that range's begin.
  std::optional<Bytes> clearedRangeBegin(std::string_view key) const;
  bool hasPoint(std::string_view key) const { return points_.count(key) > 0; }
  // Whether [begin, end) holds anything this transaction wrote or cleared.
  bool touchesWrites(std::string_view begin, std::string_view end) const;
  // Whether a read of [begin, end) would touch a key this transaction made unreadable.
  bool touchesUnreadable(std::string_view begin, std::string_view end) const;

  // Written keys (set or atomic) in [from, bound), ascending / (bound, before) descending.
  template <typename Visit>  // Visit(const Bytes& key) -> bool (true: stop)
  void forEachPointFrom(std::string_view from, std::string_view bound, Visit visit) const {
    for (auto it = points_.lower_bound(from);
         it != points_.end() && std::string_view(it->first) < bound; ++it) {
      if (visit(it->first)) return;
    }
  }
  template <typename Visit>
  void forEachPointBefore(std::string_view before, std::string_view bound, Visit visit) const {
    auto it = points_.lower_bound(before);
    while (it != points_.begin()) {
      --it;
      if (std::string_view(it->first) < bound) return;
      if (visit(it->first)) return;
    }
  }

  // [begin, end) minus the parts the transaction's own writes determine: the ranges it
  // cleared and the keys whose value it knows. Keys with operations pending on the
  // database's value stay in. This is what a serializable read of [begin, end) must add as
  // read conflict ranges.
  std::vector<KeyRange> subtractKnown(std::string_view begin, std::string_view end) const;

  std::span<const Mutation> mutations() const { return mutations_; }
  bool empty() const { return mutations_.empty(); }
  // Whether reads see nothing of these writes (no written, cleared or unreadable keys).
  bool invisible() const {
    return points_.empty() && cleared_.empty() && unreadableRanges_.empty();
  }

 private:
  struct Point {
    bool known = true;
    bool unreadable = false;     // a versionstamped value was written
    std::optional<Bytes> value;  // when known
    std::vector<AtomicOp> ops;   // when not known
  };

  std::map<Bytes, Point, std::less<>> points_;
  std::map<Bytes, Bytes, std::less<>> cleared_;  // begin -> end; disjoint, not adjacent
  std::vector<KeyRange> unreadableRanges_;       // from SET_VERSIONSTAMPED_KEY
  absl::InlinedVector<Mutation, 1> mutations_;
};

}  // namespace fdb::engine
