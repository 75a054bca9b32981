// A reference model of a FoundationDB database and its transactions, for the model-based
// randomized test (model_test.cc). It shares no code with the engine (src/engine/) and
// does not even use the client API's types: it is a second, independent reading of the
// semantics as docs/semantics.md states them ("Snapshot reads" to "Commits", "Key selectors",
// "Range reads", "Atomic operations").
//
// It is deliberately brute force so that it is obviously correct:
//   - range reads over keys the transaction knows something about follow FoundationDB's
//     read-your-writes rule (docs/semantics.md, "Range reads": known pieces, segments, walks,
//     early stop), with the segments rebuilt from scratch from every boundary each time;
//   - the database is a list of whole states, one std::map per commit, plus the write
//     conflict ranges each commit brought;
//   - a transaction is its read version (an index into that list) plus the ordered list of
//     its operations; every read copies the snapshot and replays the operations over it;
//   - read conflict ranges are computed by the rules written out in ModelTransaction.
//
//   ModelDatabase db;
//   ModelTransaction tr(&db);                 // pins the read version (latest state)
//   tr.set("a", "1");
//   std::optional<std::string> v = tr.get("a", /*snapshot=*/false);   // "1"
//   bool committed = tr.commit();             // false: not_committed (1020)
//
// Versions here are commit indices (0 = the empty database), not FoundationDB versions;
// only their order matters. Keys must be < maxKey ("\xff"): the model does not model the
// system key space. Thread-safety: none; single-threaded test code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fdb::refmodel {

using KeyValueMap = std::map<std::string, std::string>;

// The end of the normal key space: selectors past the last key resolve to it.
inline const std::string kMaxKey = "\xff";

// The error codes the model produces (FoundationDB's).
inline constexpr int kNotCommitted = 1020;
inline constexpr int kExactModeWithoutLimits = 2210;

// A half-open key range [begin, end).
struct Range {
  std::string begin;
  std::string end;
  bool empty() const { return begin >= end; }
  friend bool operator==(const Range&, const Range&) = default;
};

// The atomic mutation codes (docs/semantics.md, "Atomic operations") the model implements (AND/MIN
// are the V2 forms).
enum class AtomicOp : int {
  kAdd = 2,
  kBitAnd = 6,
  kBitOr = 7,
  kBitXor = 8,
  kAppendIfFits = 9,
  kMax = 12,
  kMin = 13,
  kByteMin = 16,
  kByteMax = 17,
  kCompareAndClear = 20,
};

// The value after applying `op` with `param` to `existing` (nullopt = absent), per
// docs/semantics.md, "Atomic operations".
std::optional<std::string> applyAtomic(AtomicOp op, const std::optional<std::string>& existing,
                                       const std::string& param);

// A key selector (key, orEqual, offset): docs/semantics.md, "Key selectors".
struct Selector {
  std::string key;
  bool orEqual = false;
  int offset = 1;
};

// Streaming modes, with FoundationDB's codes.
enum class Mode : int {
  kWantAll = -2,
  kIterator = -1,
  kExact = 0,
  kSmall = 1,
  kMedium = 2,
  kLarge = 3,
  kSerial = 4,
};

struct RangeRequest {
  Selector begin;
  Selector end;
  int limit = 0;        // rows, 0 = unlimited
  int targetBytes = 0;  // 0 = unlimited
  Mode mode = Mode::kIterator;
  int iteration = 1;
  bool reverse = false;
};

struct RangeReadResult {
  int error = 0;  // 0, or kExactModeWithoutLimits
  std::vector<std::pair<std::string, std::string>> rows;
  bool more = false;
};

// Resolves `selector` over the keys of `view` (docs/semantics.md, "Key selectors").
// Sets *ranOffStart / *ranOffEnd (when given) as FoundationDB's readToBegin /
// readThroughEnd: the selector ran out of keys going back, or going forward with more than
// one step left.
std::string resolveSelector(const KeyValueMap& view, const Selector& selector,
                            bool* ranOffStart = nullptr, bool* ranOffEnd = nullptr);

// The byte limit of a range read, -1 for unlimited (docs/semantics.md, "Range reads" step 1).
int effectiveByteLimit(const RangeRequest& request);

// [begin, end) minus every range of `removed`, in key order; empty pieces dropped.
std::vector<Range> subtractRanges(const Range& range, const std::vector<Range>& removed);

bool rangesIntersect(const Range& a, const Range& b);

// The committed history: states_[v] is the database after commit v (state 0 is empty).
class ModelDatabase {
 public:
  ModelDatabase();

  int64_t latestVersion() const { return static_cast<int64_t>(states_.size()) - 1; }
  const KeyValueMap& state(int64_t version) const { return states_.at(version); }
  const KeyValueMap& latestState() const { return states_.back(); }
  // The write conflict ranges of the commit that produced `version` (version >= 1).
  const std::vector<Range>& writeConflicts(int64_t version) const {
    return writeConflicts_.at(version);
  }

  // Appends a committed state with its write conflict ranges.
  void appendCommit(KeyValueMap state, std::vector<Range> writeConflicts);

 private:
  std::vector<KeyValueMap> states_;
  std::vector<std::vector<Range>> writeConflicts_;
};

// One transaction. Its read version is pinned at construction and at reset().
class ModelTransaction {
 public:
  explicit ModelTransaction(ModelDatabase* db);

  // Forgets everything and pins the latest state again.
  void reset();

  int64_t readVersion() const { return readVersion_; }

  std::optional<std::string> get(const std::string& key, bool snapshot);
  std::string getKey(const Selector& selector, bool snapshot);
  RangeReadResult getRange(const RangeRequest& request, bool snapshot);
  // Every row of [begin, end) (the first `limit` of them when limit > 0), as getRangeAll
  // returns them; a serializable one is only modelled with limit 0 (conflict [begin, end)).
  std::vector<std::pair<std::string, std::string>> getRangeAll(const Range& range, int limit,
                                                               bool reverse, bool snapshot);

  void set(const std::string& key, const std::string& value);
  void clear(const std::string& key);
  // REQUIRES: begin <= end. An empty range is a no-op (no mutation, no conflict range).
  void clearRange(const std::string& begin, const std::string& end);
  void atomicOp(const std::string& key, const std::string& param, AtomicOp op);
  void addReadConflictRange(const std::string& begin, const std::string& end);
  void addWriteConflictRange(const std::string& begin, const std::string& end);

  // true = committed (or read-only), false = not_committed (1020). The caller must reset or
  // drop the transaction afterwards.
  bool commit();

  // The transaction's view: the snapshot at the read version with its own writes applied.
  KeyValueMap view() const;

  const std::vector<Range>& readConflicts() const { return readConflicts_; }
  const std::vector<Range>& writeConflicts() const { return writeConflicts_; }

 private:
  enum class OpKind { kSet, kClear, kClearRange, kAtomic };
  struct Op {
    OpKind kind;
    std::string key;       // the key, or the range's begin
    std::string argument;  // the value, the atomic param, or the range's end
    AtomicOp atomic = AtomicOp::kAdd;
  };

  static void applyOp(KeyValueMap& map, const Op& op);
  // The ranges whose content the transaction's own writes determine (own-write exclusion).
  std::vector<Range> ownWriteExclusion() const;

  // FoundationDB's read-your-writes rule for range reads (docs/semantics.md, "Range reads").
  enum class SegmentKind { kUnknown, kEmpty, kRow };
  struct Segment {
    std::string begin;
    std::string end;
    SegmentKind kind;
  };
  // The whole key space cut at every boundary of the known pieces (and of the database's rows
  // in them) and of the write pieces, each segment classified.
  std::vector<Segment> segments() const;
  // [begin, end) now known, as FoundationDB's snapshot cache inserts it.
  void remember(Range range);
  // Whether [begin, end] meets a known piece or a write piece.
  bool touchesKnown(const std::string& begin, const std::string& end) const;
  // The rows of [begin, end) (begin < end) read by the rule; *more as the read says it.
  std::vector<std::pair<std::string, std::string>> readByRule(const std::string& begin,
                                                              const std::string& end, bool reverse,
                                                              int rowLimit, int byteLimit,
                                                              bool* more);
  // The rows of [begin, end) as one read of the view, remembered as known.
  std::vector<std::pair<std::string, std::string>> readPlain(const std::string& begin,
                                                             const std::string& end, bool reverse,
                                                             int rowLimit, int byteLimit,
                                                             bool* more);
  // Records [begin, end) minus the own-write exclusion as read conflict ranges.
  void addReadConflict(const Range& range);

  ModelDatabase* db_;
  int64_t readVersion_ = 0;
  std::vector<Op> ops_;
  std::vector<Range> readConflicts_;
  std::vector<Range> writeConflicts_;
  std::vector<Range> known_;  // FoundationDB's snapshot cache pieces, sorted
};

}  // namespace fdb::refmodel
