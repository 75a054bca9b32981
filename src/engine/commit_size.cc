#include "engine/commit_size.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/atomic.h"
#include "engine/transaction_internal.h"

namespace fdb::engine {
namespace {

using internal::kConflictRangeOverhead;
using internal::kMutationOverhead;

// One operation on a key's stack in FoundationDB's WriteMap: a set (of a value, or of nothing:
// a clear of the key), or an atomic operation with its operand.
struct StackedOp {
  bool isSet = true;
  MutationType type = MutationType::kAdd;  // atomic operations only
  std::optional<std::string_view> value;   // the set's value (nullopt: cleared) or the operand
};

struct KeyEntry {
  std::vector<StackedOp> stack;
  // After SET_VERSIONSTAMPED_VALUE the value depends on the commit: later operations are
  // stacked, not merged (WriteMap::mutate).
  bool unreadable = false;
};

// The type FoundationDB's client stacks for `type`: at API version 510 and later it sends And
// and Min as AndV2 and MinV2.
MutationType stackedType(MutationType type) {
  if (type == MutationType::kBitAnd) return MutationType::kAndV2;
  if (type == MutationType::kMin) return MutationType::kMinV2;
  return type;
}

// FoundationDB's NON_ASSOCIATIVE_MASK, for the types stackedType gives.
bool isNonAssociative(MutationType type) {
  switch (type) {
    case MutationType::kAdd:
    case MutationType::kBitOr:
    case MutationType::kBitXor:
    case MutationType::kMax:
    case MutationType::kMinV2:
    case MutationType::kCompareAndClear: return true;
    default: return false;
  }
}

// The writes of one transaction as FoundationDB's WriteMap holds them after they were issued in
// order (WriteMap::mutate, WriteMap::clear, WriteMap::coalesceOver).
class MergedWrites {
 public:
  void apply(const Mutation& mutation) {
    switch (mutation.kind) {
      case Mutation::Kind::kSet:
        setKey(mutation.key, StackedOp{true, MutationType::kAdd, mutation.param}, false);
        break;
      case Mutation::Kind::kClearRange: clearRange(mutation.key, mutation.param); break;
      case Mutation::Kind::kAtomic:
        if (mutation.atomicType == MutationType::kSetVersionstampedKey) {
          // Its key is the template with the read version as the stamp: never one another write
          // names, so it is sent as it is. (FoundationDB also sends the writes made so far to the
          // keys the stamp may produce at once, unmerged with later ones; they are merged here.)
          versionstampedKeyBytes_ +=
              kMutationOverhead + static_cast<int64_t>(mutation.key.size() + mutation.param.size());
        } else if (mutation.atomicType == MutationType::kSetVersionstampedValue) {
          setKey(mutation.key,
                 StackedOp{false, MutationType::kSetVersionstampedValue, mutation.param}, true);
        } else {
          atomicOp(mutation.key,
                   StackedOp{false, stackedType(mutation.atomicType), mutation.param});
        }
        break;
    }
  }

  // The bytes of the mutations sent at commit: each key's stack, and the cleared ranges cut
  // around the keys written inside them (ReadYourWritesTransaction::writeRangeToNativeTransaction).
  int64_t bytes() const {
    int64_t total = versionstampedKeyBytes_;
    for (const auto& [key, entry] : entries_) {
      for (const StackedOp& op : entry.stack) {
        const size_t keySize = key.size();
        if (op.isSet && !op.value) {
          total += kMutationOverhead + static_cast<int64_t>(2 * keySize + 1);  // [key, key\0)
        } else {
          total += kMutationOverhead + static_cast<int64_t>(keySize + op.value->size());
        }
      }
    }
    for (const auto& [begin, end] : cleared_) {
      // Pieces [begin, k1), [k1\0, k2), ..., [kn\0, end) around the written keys k1..kn in it;
      // an empty piece is not sent.
      std::string_view pieceBegin = begin;
      bool afterKey = false;  // pieceBegin stands for pieceBegin + '\0'
      auto emptyPiece = [&](std::string_view pieceEnd) {
        return afterKey ? pieceEnd.size() == pieceBegin.size() + 1 &&
                              pieceEnd.starts_with(pieceBegin) && pieceEnd.back() == '\0'
                        : pieceEnd == pieceBegin;
      };
      auto piece = [&](std::string_view pieceEnd) {
        if (emptyPiece(pieceEnd)) return;
        total += kMutationOverhead +
                 static_cast<int64_t>(pieceBegin.size() + (afterKey ? 1 : 0) + pieceEnd.size());
      };
      for (auto it = entries_.lower_bound(begin); it != entries_.end() && it->first < end; ++it) {
        piece(it->first);
        pieceBegin = it->first;
        afterKey = true;
      }
      piece(end);
    }
    return total;
  }

 private:
  void setKey(std::string_view key, StackedOp op, bool makesUnreadable) {
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      entries_.emplace(key, KeyEntry{{op}, makesUnreadable});
    } else if (!it->second.unreadable) {
      it->second = KeyEntry{{op}, makesUnreadable};
    } else {
      it->second.stack.push_back(op);
    }
  }

  void clearRange(std::string_view begin, std::string_view end) {
    if (begin >= end) return;
    entries_.erase(entries_.lower_bound(begin), entries_.lower_bound(end));
    // Merged with every cleared range it overlaps or touches: FoundationDB sends one clear for
    // a run of cleared keys.
    auto it = cleared_.upper_bound(begin);
    if (it != cleared_.begin() && std::prev(it)->second >= begin) --it;
    while (it != cleared_.end() && it->first <= end) {
      begin = std::min(begin, it->first);
      end = std::max(end, it->second);
      it = cleared_.erase(it);
    }
    cleared_.emplace(begin, end);
  }

  bool isCleared(std::string_view key) const {
    auto it = cleared_.upper_bound(key);
    return it != cleared_.begin() && key < std::prev(it)->second;
  }

  // An atomic operation on the database's value (WriteMap::mutate for a dependent operation).
  void atomicOp(std::string_view key, StackedOp op) {
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      if (isCleared(key)) {
        // Over a cleared key the value is known: absent, then the operation.
        entries_.emplace(key, KeyEntry{{setOf(applyAtomicOp(op.type, std::nullopt, *op.value))}});
      } else {
        entries_.emplace(key, KeyEntry{{op}});
      }
      return;
    }
    KeyEntry& entry = it->second;
    if (entry.unreadable) {
      entry.stack.push_back(op);
      return;
    }
    // WriteMap::coalesceOver: an operation of the same kind merges into the one below it
    // (except a non-associative one with an operand of another size, and compare-and-clear);
    // one on a set becomes a set of the result; one on another kind of operation stacks.
    StackedOp& top = entry.stack.back();
    if (!top.isSet && top.type == op.type && op.type != MutationType::kCompareAndClear) {
      if (isNonAssociative(op.type) && top.value->size() != op.value->size()) {
        entry.stack.push_back(op);
      } else {
        top.value = keep(applyAtomicOp(op.type, Bytes(*top.value), *op.value));
      }
    } else if (!top.isSet) {
      entry.stack.push_back(op);
    } else {
      std::optional<Bytes> base;
      if (top.value) base = Bytes(*top.value);
      top = setOf(applyAtomicOp(op.type, base, *op.value));
    }
  }

  StackedOp setOf(const std::optional<Bytes>& value) {
    return StackedOp{true, MutationType::kAdd, keep(value)};
  }

  // A value computed here, kept while the map is (the mutations' own bytes are views).
  std::optional<std::string_view> keep(const std::optional<Bytes>& value) {
    if (!value) return std::nullopt;
    return std::string_view(computed_.emplace_back(*value));
  }

  std::map<std::string_view, KeyEntry, std::less<>> entries_;
  std::map<std::string_view, std::string_view, std::less<>> cleared_;  // disjoint, not touching
  std::deque<Bytes> computed_;
  int64_t versionstampedKeyBytes_ = 0;
};

}  // namespace

int64_t mergedMutationBytes(std::span<const Mutation> mutations) {
  MergedWrites writes;
  for (const Mutation& mutation : mutations) writes.apply(mutation);
  return writes.bytes();
}

int64_t coalescedRangeBytes(const KeyRangesView& ranges) {
  std::vector<KeyRangeView> sorted;
  sorted.reserve(ranges.size());
  for (KeyRangeView range : ranges) {
    if (range.begin < range.end) sorted.push_back(range);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const KeyRangeView& a, const KeyRangeView& b) { return a.begin < b.begin; });
  int64_t total = 0;
  size_t i = 0;
  while (i < sorted.size()) {
    std::string_view begin = sorted[i].begin;
    std::string_view end = sorted[i].end;
    for (++i; i < sorted.size() && sorted[i].begin <= end; ++i) end = std::max(end, sorted[i].end);
    total += kConflictRangeOverhead + static_cast<int64_t>(begin.size() + end.size());
  }
  return total;
}

}  // namespace fdb::engine
