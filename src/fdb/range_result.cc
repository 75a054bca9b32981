// The one-block storage of range results (ResultRows) and its builders.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "fdb/detail/thread_block_cache.h"
#include "fdb/future.h"
#include "fdb/types.h"

namespace fdb {
namespace {

// Points views of one block at the same places in a copy of it.
class Rebase {
 public:
  Rebase(const char* fromBytes, char* toBytes, const KeyValueRef* fromRefs,
         const KeyValueRef* toRefs)
      : fromBytes_(fromBytes), toBytes_(toBytes), fromRefs_(fromRefs), toRefs_(toRefs) {}

  std::string_view operator()(std::string_view view) const {
    return std::string_view(toBytes_ + (view.data() - fromBytes_), view.size());
  }
  KeyValueRef operator()(const KeyValueRef& row) const {
    return KeyValueRef{(*this)(row.key), (*this)(row.value)};
  }
  MappedKeyValue operator()(const MappedKeyValue& entry) const {
    return MappedKeyValue{
        (*this)(entry.key), (*this)(entry.value), (*this)(entry.rangeBegin),
        (*this)(entry.rangeEnd),
        KeyValueRefs(toRefs_ + (entry.rangeRows.data() - fromRefs_), entry.rangeRows.size())};
  }

 private:
  const char* fromBytes_;
  char* toBytes_;
  const KeyValueRef* fromRefs_;
  const KeyValueRef* toRefs_;
};

// Copies every byte views of a result point at, one view after the other, into `to`: how a
// result whose bytes are not in one run (large values apart) is copied.
class Flatten {
 public:
  Flatten(char* to, const KeyValueRef* fromRefs, const KeyValueRef* toRefs)
      : next_(to), fromRefs_(fromRefs), toRefs_(toRefs) {}

  std::string_view operator()(std::string_view view) {
    if (view.empty()) return std::string_view(next_, 0);
    std::memcpy(next_, view.data(), view.size());
    next_ += view.size();
    return std::string_view(next_ - view.size(), view.size());
  }
  KeyValueRef operator()(const KeyValueRef& row) {
    return KeyValueRef{(*this)(row.key), (*this)(row.value)};
  }
  // The entry's range rows are already copied (the refs come first): only pointed at.
  MappedKeyValue operator()(const MappedKeyValue& entry) {
    return MappedKeyValue{
        (*this)(entry.key), (*this)(entry.value), (*this)(entry.rangeBegin),
        (*this)(entry.rangeEnd),
        KeyValueRefs(toRefs_ + (entry.rangeRows.data() - fromRefs_), entry.rangeRows.size())};
  }

 private:
  char* next_;
  const KeyValueRef* fromRefs_;
  const KeyValueRef* toRefs_;
};

// memcpy, for a source that may be null when there is nothing to copy.
void copyBytes(char* to, const char* from, size_t size) {
  if (size > 0) std::memcpy(to, from, size);
}

// Releases a builder's buffer when it grew past what a builder keeps between results.
template <typename T>
void clearKeepingUpTo(std::vector<T>& buffer, size_t retainedBytes) {
  if (buffer.capacity() * sizeof(T) > retainedBytes) {
    std::vector<T>().swap(buffer);
  } else {
    buffer.clear();
  }
}

// Blocks of up to kCachedBlockBytes come in six size classes, each kept for reuse by the
// thread that frees them (detail::BlockCache, as future states are): a class wastes at most
// half its block, and a thread keeps at most 64 blocks of each up to 1 kB, 64 kB of the
// larger ones. (Ten rows of 100-byte values take about 1.4 kB: past glibc's per-thread cache,
// whose chunks end at 1,032 bytes.)
constexpr size_t kCachedBlockBytes = 4096;

template <typename Visit>
auto withSizeClass(size_t bytes, Visit visit) {
  if (bytes <= 128) return visit(std::integral_constant<size_t, 128>());
  if (bytes <= 256) return visit(std::integral_constant<size_t, 256>());
  if (bytes <= 512) return visit(std::integral_constant<size_t, 512>());
  if (bytes <= 1024) return visit(std::integral_constant<size_t, 1024>());
  if (bytes <= 2048) return visit(std::integral_constant<size_t, 2048>());
  return visit(std::integral_constant<size_t, kCachedBlockBytes>());
}

ResultBlock allocateResultBlock(size_t bytes) {
  if (bytes > kCachedBlockBytes) return ResultBlock(new std::byte[bytes], {bytes});
  return withSizeClass(bytes, [](auto size) {
    return ResultBlock(static_cast<std::byte*>(detail::BlockCache<size()>::allocate()), {size()});
  });
}

}  // namespace

void ResultBlockDeleter::operator()(std::byte* block) const {
  if (bytes > kCachedBlockBytes) {
    delete[] block;
    return;
  }
  withSizeClass(bytes, [block](auto size) { detail::BlockCache<size()>::deallocate(block); });
}

// ---- ResultRows ---------------------------------------------------------------------

template <typename Row>
ResultRows<Row>::ResultRows(size_t rows, size_t refs, size_t bytes) {
  static_assert(std::is_trivially_destructible_v<Row>);
  static_assert(alignof(Row) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  static_assert(sizeof(Row) % alignof(KeyValueRef) == 0);
  blockBytes_ = rows * sizeof(Row) + refs * sizeof(KeyValueRef) + bytes;
  block_ = allocateResultBlock(blockBytes_);
  this->data_ = rowStorage();
  this->size_ = rows;
  refCount_ = refs;
  byteCount_ = bytes;
}

template <typename Row>
ResultRows<Row>::ResultRows(const ResultRows& other) : RowSpan<Row>() {
  if (other.block_ == nullptr) return;
  if (!other.largeValues_.empty()) {
    // Every byte into the copy's one block, view by view.
    const size_t blockOnly =
        other.size_ * sizeof(Row) + other.refCount_ * sizeof(KeyValueRef) + other.byteCount_;
    ResultRows copy(other.size_, other.refCount_,
                    other.byteCount_ + (other.blockBytes_ - blockOnly));
    Flatten flatten(copy.byteStorage(), other.refStorage(), copy.refStorage());
    for (size_t i = 0; i < other.refCount_; ++i) {
      new (copy.refStorage() + i) KeyValueRef(flatten(other.refStorage()[i]));
    }
    for (size_t i = 0; i < other.size_; ++i) new (copy.rowStorage() + i) Row(flatten(other[i]));
    *this = std::move(copy);
    return;
  }
  ResultRows copy(other.size_, other.refCount_, other.byteCount_);
  copyBytes(copy.byteStorage(), other.byteStorage(), other.byteCount_);
  Rebase rebase(other.byteStorage(), copy.byteStorage(), other.refStorage(), copy.refStorage());
  for (size_t i = 0; i < other.refCount_; ++i) {
    new (copy.refStorage() + i) KeyValueRef(rebase(other.refStorage()[i]));
  }
  for (size_t i = 0; i < other.size_; ++i) new (copy.rowStorage() + i) Row(rebase(other[i]));
  *this = std::move(copy);
}

template <typename Row>
ResultRows<Row>& ResultRows<Row>::operator=(const ResultRows& other) {
  if (this != &other) *this = ResultRows(other);
  return *this;
}

template <typename Row>
ResultRows<Row>& ResultRows<Row>::operator=(ResultRows&& other) noexcept {
  block_ = std::move(other.block_);
  this->data_ = std::exchange(other.data_, nullptr);
  this->size_ = std::exchange(other.size_, 0);
  blockBytes_ = std::exchange(other.blockBytes_, 0);
  refCount_ = std::exchange(other.refCount_, 0);
  byteCount_ = std::exchange(other.byteCount_, 0);
  largeValues_ = std::move(other.largeValues_);
  other.largeValues_.clear();
  return *this;
}

template class ResultRows<KeyValueRef>;
template class ResultRows<MappedKeyValue>;

// ---- RangeRowsBuilder ---------------------------------------------------------------

void RangeRowsBuilder::append(std::string_view key, std::string_view value) {
  rows_.push_back(Row{bytes_.size(), key.size(), value.size()});
  bytes_.insert(bytes_.end(), key.begin(), key.end());
  bytes_.insert(bytes_.end(), value.begin(), value.end());
}

void RangeRowsBuilder::clear() {
  clearKeepingUpTo(bytes_, kRetainedBytes);
  clearKeepingUpTo(rows_, kRetainedBytes);
}

RangeRows RangeRowsBuilder::build() {
  RangeRows built;
  if (!rows_.empty()) {
    built = RangeRows(rows_.size(), 0, bytes_.size());
    char* bytes = built.byteStorage();
    copyBytes(bytes, bytes_.data(), bytes_.size());
    KeyValueRef* out = built.rowStorage();
    for (const Row& row : rows_) {
      const char* key = bytes + row.offset;
      new (out++) KeyValueRef{std::string_view(key, row.keySize),
                              std::string_view(key + row.keySize, row.valueSize)};
    }
  }
  clear();
  return built;
}

// ---- MappedRangeRowsBuilder ---------------------------------------------------------

MappedRangeRowsBuilder::Span MappedRangeRowsBuilder::copy(std::string_view bytes) {
  Span span{byteCount_, bytes.size()};
  if (bytes.empty()) return span;
  if (bytes.size() >= kLargeValueBytes) {
    // Not value-initialised: every byte is written next.
    largeValues_.emplace_back(new char[bytes.size()]);
    std::memcpy(largeValues_.back().get(), bytes.data(), bytes.size());
    largeValueBytes_ += bytes.size();
    span.large = largeValues_.back().get();
    return span;
  }
  Chunk* chunk = current_ < chunks_.size() ? &chunks_[current_] : nullptr;
  if (chunk == nullptr || chunk->capacity - chunk->used < bytes.size()) {
    // The next chunk: a spare one if it is large enough, else a new one.
    if (chunk != nullptr && chunk->used > 0) ++current_;
    if (current_ == chunks_.size()) chunks_.emplace_back();
    chunk = &chunks_[current_];
    if (chunk->capacity < bytes.size()) {
      chunk->capacity = std::max(bytes.size(), kChunkBytes);
      chunk->data.reset(new char[chunk->capacity]);
    }
  }
  std::memcpy(chunk->data.get() + chunk->used, bytes.data(), bytes.size());
  chunk->used += bytes.size();
  byteCount_ += bytes.size();
  return span;
}

void MappedRangeRowsBuilder::addEntry(std::string_view key, std::string_view value,
                                      std::string_view rangeBegin, std::string_view rangeEnd) {
  entries_.push_back(
      Entry{copy(key), copy(value), copy(rangeBegin), copy(rangeEnd), rangeRows_.size(), 0});
}

void MappedRangeRowsBuilder::addRangeRow(std::string_view key, std::string_view value) {
  rangeRows_.push_back(RangeRow{copy(key), copy(value)});
  ++entries_.back().rangeRowCount;
}

void MappedRangeRowsBuilder::clear() {
  // Keeps the first chunks up to kRetainedBytes, emptied.
  size_t kept = 0, retained = 0;
  while (kept < chunks_.size() &&
         retained + chunks_[kept].capacity <= RangeRowsBuilder::kRetainedBytes) {
    retained += chunks_[kept].capacity;
    chunks_[kept++].used = 0;
  }
  chunks_.resize(kept);
  current_ = 0;
  byteCount_ = 0;
  largeValues_.clear();
  largeValueBytes_ = 0;
  clearKeepingUpTo(entries_, RangeRowsBuilder::kRetainedBytes);
  clearKeepingUpTo(rangeRows_, RangeRowsBuilder::kRetainedBytes);
}

MappedRangeRows MappedRangeRowsBuilder::build() {
  MappedRangeRows built;
  if (!entries_.empty()) {
    built = MappedRangeRows(entries_.size(), rangeRows_.size(), byteCount_);
    char* bytes = built.byteStorage();
    char* next = bytes;
    for (const Chunk& chunk : chunks_) {
      copyBytes(next, chunk.data.get(), chunk.used);
      next += chunk.used;
    }
    // The large values go over as they are: their views point into them.
    built.blockBytes_ += largeValueBytes_;
    built.largeValues_ = std::move(largeValues_);
    largeValues_.clear();
    auto view = [&](Span span) {
      return std::string_view(span.large != nullptr ? span.large : bytes + span.offset, span.size);
    };
    KeyValueRef* refs = built.refStorage();
    for (size_t i = 0; i < rangeRows_.size(); ++i) {
      new (refs + i) KeyValueRef{view(rangeRows_[i].key), view(rangeRows_[i].value)};
    }
    MappedKeyValue* out = built.rowStorage();
    for (const Entry& entry : entries_) {
      new (out++) MappedKeyValue{view(entry.key), view(entry.value), view(entry.rangeBegin),
                                 view(entry.rangeEnd),
                                 KeyValueRefs(refs + entry.firstRangeRow, entry.rangeRowCount)};
    }
  }
  clear();
  return built;
}

// Held through a pointer: a thread-local of the builder's own size would make
// libfdb_c.so's thread-locals too big for glibc's static TLS reserve (fdb/future.h).
RangeRowsBuilder& threadRangeRowsBuilder() {
  thread_local std::unique_ptr<RangeRowsBuilder> builder;
  if (builder == nullptr) builder = std::make_unique<RangeRowsBuilder>();
  builder->clear();
  return *builder;
}

MappedRangeRowsBuilder& threadMappedRangeRowsBuilder() {
  thread_local std::unique_ptr<MappedRangeRowsBuilder> builder;
  if (builder == nullptr) builder = std::make_unique<MappedRangeRowsBuilder>();
  builder->clear();
  return *builder;
}

}  // namespace fdb
