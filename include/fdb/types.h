// Plain types of the client API: rows, range results and options, mutation and conflict
// range kinds, with FoundationDB's numeric codes (fdb_c_options.g.h).
//
// A range result keeps every byte of its rows in one block it owns, and hands the rows out
// as views into it (KeyValueRef), as FoundationDB's C API does: a read of 100 rows costs one
// allocation, not two a row.
//
//   fdb::RangeResult result = tr.getRange(fdb::KeyRange{"a", "b"}).get();
//   for (const fdb::KeyValueRef& row : result.rows) use(row.key, row.value);
//   fdb::KeyValue kept = result.rows.front();  // an owned copy, for after the result
//
// The views stay valid as long as the result, or what it was moved into, lives; a copy of a
// result is a new block with its own views. Keep the result while using its rows:
// `fdb::KeyValueRef row = tr.getRange(r).get().rows.front();` views a result that is gone at
// the end of the statement (take a `fdb::KeyValue` there instead).
//
// Thread-safety: plain values; several threads may read one result at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fdb/bytes.h"

namespace fdb {

// A row that owns its bytes.
struct KeyValue {
  Bytes key;
  Bytes value;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// A row seen in place: its key and value view bytes owned by the result it belongs to.
struct KeyValueRef {
  std::string_view key;
  std::string_view value;

  // An owned copy of the row.
  operator KeyValue() const { return KeyValue{Bytes(key), Bytes(value)}; }

  friend bool operator==(const KeyValueRef&, const KeyValueRef&) = default;
  friend bool operator==(const KeyValueRef& row, const KeyValue& owned) {
    return row.key == std::string_view(owned.key) && row.value == std::string_view(owned.value);
  }
};

// Read-only, random-access access to rows laid out one after another, owned elsewhere.
template <typename Row>
class RowSpan {
 public:
  using value_type = Row;
  using size_type = size_t;
  using difference_type = ptrdiff_t;
  using reference = const Row&;
  using const_reference = const Row&;
  using pointer = const Row*;
  using const_pointer = const Row*;
  using iterator = const Row*;
  using const_iterator = const Row*;

  RowSpan() = default;
  RowSpan(const Row* data, size_t size) : data_(data), size_(size) {}

  const Row* begin() const { return data_; }
  const Row* end() const { return data_ + size_; }
  const Row* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Row& operator[](size_t i) const { return data_[i]; }
  const Row& front() const { return data_[0]; }
  const Row& back() const { return data_[size_ - 1]; }

 protected:
  const Row* data_ = nullptr;
  size_t size_ = 0;
};

// Rows viewed in place (a mapped entry's secondary rows). They compare element by element
// with each other and with owned rows.
using KeyValueRefs = RowSpan<KeyValueRef>;

inline bool operator==(KeyValueRefs rows, KeyValueRefs other) {
  return std::equal(rows.begin(), rows.end(), other.begin(), other.end());
}
inline bool operator==(KeyValueRefs rows, const std::vector<KeyValue>& owned) {
  return std::equal(rows.begin(), rows.end(), owned.begin(), owned.end());
}

// One entry of a mapped range read (getMappedRange): an index entry and the rows its mapper
// named, read in the same operation at the same version. Every view points into the
// MappedRangeResult the entry belongs to.
struct MappedKeyValue {
  std::string_view key;  // the index entry
  std::string_view value;
  std::string_view rangeBegin;  // the secondary range the mapper built: [rangeBegin, rangeEnd)
  std::string_view rangeEnd;
  KeyValueRefs rangeRows;

  friend bool operator==(const MappedKeyValue& a, const MappedKeyValue& b) {
    return a.key == b.key && a.value == b.value && a.rangeBegin == b.rangeBegin &&
           a.rangeEnd == b.rangeEnd && a.rangeRows == b.rangeRows;
  }
};

class RangeRowsBuilder;
class MappedRangeRowsBuilder;

// Frees a result's block (ResultRows): small blocks go back to the freeing thread's cache of
// blocks of their size class (range_result.cc), for the next result of a few rows, which is
// then made without an allocation; large ones to the heap.
struct ResultBlockDeleter {
  size_t bytes = 0;  // as allocated
  void operator()(std::byte* block) const;
};
using ResultBlock = std::unique_ptr<std::byte[], ResultBlockDeleter>;

// The block of a result whose rows were turned into another array (ResultRows::intoArray):
// the array first, then the bytes its elements point into.
template <typename T>
struct RowArray {
  ResultBlock block;
  const T* data = nullptr;
  size_t size = 0;
};

// The rows of one result together with every byte they view, in one heap block it owns:
// the rows, then the KeyValueRefs of mapped entries' ranges, then the bytes. A mapped result
// may also own large values apart (MappedRangeRowsBuilder: each in its own allocation, handed
// over instead of copied into the block). Moving keeps every address, so views taken from it
// stay valid in the moved-to object; copying copies every byte into one new block and points
// the copy's views into it (one allocation).
template <typename Row>
class ResultRows : public RowSpan<Row> {
 public:
  ResultRows() = default;
  ResultRows(const ResultRows& other);
  ResultRows(ResultRows&& other) noexcept : RowSpan<Row>() { *this = std::move(other); }
  ResultRows& operator=(const ResultRows& other);
  ResultRows& operator=(ResultRows&& other) noexcept;
  ~ResultRows() = default;  // rows and views have nothing to destroy

  // The bytes the result holds: its block (rows, views and bytes) and its large values.
  size_t blockBytes() const { return blockBytes_; }

  // Turns the rows into an array of T, `fill(row, element)` setting each element from its
  // row, in order, built in place of the rows, and hands the block over with it, leaving this
  // result empty: how the C API makes the FDBKeyValue arrays that point into a result's
  // bytes, with no allocation and no copy of a byte. Needs rows without secondary views (refs)
  // and a T no larger than a row. `row` is a copy: `fill` may write any field of `element`
  // (which overlaps the row's storage) in any order.
  template <typename T, typename Fill>
  RowArray<T> intoArray(Fill fill) && {
    static_assert(sizeof(T) <= sizeof(Row) && alignof(T) <= alignof(Row));
    static_assert(std::is_trivially_destructible_v<Row> &&
                  std::is_trivially_default_constructible_v<T> &&
                  std::is_trivially_destructible_v<T>);
    RowArray<T> array;
    if (refCount_ != 0 || !largeValues_.empty()) {
      throw std::logic_error("intoArray: rows with secondary rows or large values");
    }
    T* out = reinterpret_cast<T*>(block_.get());
    const Row* rows = rowStorage();
    const size_t size = this->size_;
    // Element i covers bytes [i*sizeof(T), (i+1)*sizeof(T)) of the block: rows up to i only,
    // and row i is copied out (into registers: the loop stays a few loads and stores a row)
    // before its element is written.
    for (size_t i = 0; i < size; ++i) {
      const Row row = rows[i];
      fill(row, *new (out + i) T);
    }
    array.data = out;
    array.size = this->size_;
    array.block = std::move(block_);
    *this = ResultRows();
    return array;
  }

 private:
  friend class RangeRowsBuilder;
  friend class MappedRangeRowsBuilder;

  // A block for `rows` rows, `refs` KeyValueRefs and `bytes` bytes, none constructed yet.
  ResultRows(size_t rows, size_t refs, size_t bytes);
  Row* rowStorage() const { return reinterpret_cast<Row*>(block_.get()); }
  KeyValueRef* refStorage() const {
    return reinterpret_cast<KeyValueRef*>(block_.get() + this->size_ * sizeof(Row));
  }
  char* byteStorage() const {
    return reinterpret_cast<char*>(block_.get() + this->size_ * sizeof(Row) +
                                   refCount_ * sizeof(KeyValueRef));
  }

  ResultBlock block_;
  size_t blockBytes_ = 0;
  size_t refCount_ = 0;
  size_t byteCount_ = 0;  // in the block
  // Large values held apart from the block (mapped results only; usually none). blockBytes_
  // counts their bytes too.
  std::vector<std::unique_ptr<char[]>> largeValues_;
};

extern template class ResultRows<KeyValueRef>;
extern template class ResultRows<MappedKeyValue>;

// The rows of a range result.
using RangeRows = ResultRows<KeyValueRef>;
// The entries of a mapped range result, with their secondary rows.
using MappedRangeRows = ResultRows<MappedKeyValue>;

// One batch of a range read. `more` is true when a row or byte limit stopped the read
// (even if no further rows exist); false guarantees the range is exhausted. A batch with no
// rows never has `more`.
struct RangeResult {
  RangeRows rows;
  bool more = false;
};

struct MappedRangeResult {
  MappedRangeRows rows;
  bool more = false;  // as RangeResult::more
};

// Collects the rows of a RangeRows for a backend: append() copies the key and value (so
// they may be views that die right after), build() lays the rows out in one block. The
// builder can be reused; it keeps its buffers (up to kRetainedBytes) between results.
class RangeRowsBuilder {
 public:
  static constexpr size_t kRetainedBytes = size_t{1} << 20;

  void append(std::string_view key, std::string_view value);
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  // Forgets the rows appended so far.
  void clear();
  // The rows appended, in order; leaves the builder empty.
  RangeRows build();

 private:
  struct Row {
    size_t offset;  // of the key; the value follows it
    size_t keySize;
    size_t valueSize;
  };
  std::vector<char> bytes_;
  std::vector<Row> rows_;
};

// Collects the entries of a MappedRangeRows, as RangeRowsBuilder does rows.
class MappedRangeRowsBuilder {
 public:
  // Starts the next entry: the index entry and the range its mapper built.
  void addEntry(std::string_view key, std::string_view value, std::string_view rangeBegin,
                std::string_view rangeEnd);
  // Adds a row of the last entry's range. REQUIRES: an entry was added.
  void addRangeRow(std::string_view key, std::string_view value);
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear();
  MappedRangeRows build();

 private:
  // Bytes the builder copied: at `offset` of its chunks laid out in one run, or, for a large
  // value, in an allocation of its own (`large`).
  struct Span {
    size_t offset;
    size_t size;
    const char* large = nullptr;
  };
  struct Entry {
    Span key, value, rangeBegin, rangeEnd;
    size_t firstRangeRow;
    size_t rangeRowCount;
  };
  struct RangeRow {
    Span key, value;
  };
  // A piece of the builder's byte buffer. Chunks never move, so bytes are copied into one
  // once and not again as the buffer grows; no item straddles two chunks.
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
    size_t used = 0;
  };
  static constexpr size_t kChunkBytes = size_t{64} << 10;
  // Values from this size on get an allocation of their own, which the result takes over:
  // the records of a remote fetch are copied once here and not again into the result's block
  // (docs/index_fetch.md, "Batches of large records").
  static constexpr size_t kLargeValueBytes = size_t{16} << 10;
  Span copy(std::string_view bytes);

  // The small bytes in order: chunks_[0 .. current_] (spare chunks kept for reuse follow).
  // A Span's offset counts every small byte before it, as build() lays them out in one run.
  std::vector<Chunk> chunks_;
  size_t current_ = 0;
  size_t byteCount_ = 0;
  std::vector<std::unique_ptr<char[]>> largeValues_;
  size_t largeValueBytes_ = 0;
  std::vector<Entry> entries_;
  std::vector<RangeRow> rangeRows_;
};

// This thread's builders, emptied, for a backend's reads to collect their rows in: kept
// between reads, so a read allocates only its result's block.
RangeRowsBuilder& threadRangeRowsBuilder();
MappedRangeRowsBuilder& threadMappedRangeRowsBuilder();

// FDBStreamingMode: how many bytes a range read returns per batch when no explicit limit
// says otherwise. Results of a full iteration are the same in every mode.
enum class StreamingMode : int {
  kWantAll = -2,
  kIterator = -1,
  kExact = 0,
  kSmall = 1,
  kMedium = 2,
  kLarge = 3,
  kSerial = 4,
};

// The parameters of fdb_transaction_get_range beyond its selectors.
struct RangeOptions {
  int limit = 0;        // rows; 0 = unlimited
  int targetBytes = 0;  // bytes (key + value + 8 per row, soft); 0 = unlimited
  StreamingMode mode = StreamingMode::kIterator;
  int iteration = 1;  // for kIterator: 1, 2, ... on successive batches
  bool reverse = false;
};

// FDBMutationType: the atomic operations (docs/semantics.md, "Atomic operations").
enum class MutationType : int {
  kAdd = 2,
  kBitAnd = 6,
  kBitOr = 7,
  kBitXor = 8,
  kAppendIfFits = 9,
  kMax = 12,
  kMin = 13,
  kSetVersionstampedKey = 14,
  kSetVersionstampedValue = 15,
  kByteMin = 16,
  kByteMax = 17,
  kMinV2 = 18,
  kAndV2 = 19,
  kCompareAndClear = 20,
};

enum class ConflictRangeType : int { kRead = 0, kWrite = 1 };

// Operations that are a round trip to a FoundationDB cluster, counted by the backend where
// the round trip happens (never by callers): what remote fetch saves and network delay costs.
struct RoundTrips {
  int64_t readVersions = 0;      // GRV
  int64_t reads = 0;             // point reads and key selector resolutions
  int64_t rangeReads = 0;        // range read batches
  int64_t mappedRangeReads = 0;  // mapped range read batches
  int64_t commits = 0;           // commits that reach the cluster (not read-only ones)

  int64_t total() const { return readVersions + reads + rangeReads + mappedRangeReads + commits; }
  friend bool operator==(const RoundTrips&, const RoundTrips&) = default;
  // The round trips between two readings of the counters: `later - earlier`.
  friend RoundTrips operator-(const RoundTrips& a, const RoundTrips& b) {
    return {a.readVersions - b.readVersions, a.reads - b.reads, a.rangeReads - b.rangeReads,
            a.mappedRangeReads - b.mappedRangeReads, a.commits - b.commits};
  }
};

}  // namespace fdb
