// Split records: how a record's bytes are laid out under the records subspace (docs/format.md,
// "Records").
//
// A record of primary key pk lives under (pk): unsplit at (pk, 0); longer than 100,000
// bytes, in chunks of 100,000 bytes at (pk, 1), (pk, 2), ...; its version, if stored
// inline, at (pk, -1) (which sorts first). Legacy stores keep an unsplit record at (pk)
// itself. saveWithSplit / loadWithSplit / deleteSplit write, read and clear one record;
// KeyValueUnsplitter turns a scan of key-values back into records, forward or reverse.
// The metadata store uses the same helper with its defaults (split on, no version).
//
//   rl::saveWithSplit(context, records, fdb::Tuple{42}, bytes, rl::RecordVersion::incomplete(
//                     context.claimLocalVersion()));
//   std::optional<rl::RawRecord> back = rl::loadWithSplit(context, records, fdb::Tuple{42});
//
// Errors: RecordCoreArgumentException for what the layout cannot hold (a long record with
// splitting off, an inline version in the legacy layout); on load, FoundSplitOutOfOrderException
// (chunks not consecutive), FoundSplitWithoutStartException (chunks or a version without the
// first chunk), RecordCoreStorageException for other malformed layouts.
// Thread-safety: functions of a RecordContext (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fdb/subspace.h"
#include "fdb/tuple.h"
#include "fdb/types.h"
#include "rl/context/record_context.h"
#include "rl/cursor/cursor.h"
#include "rl/cursor/cursor_limit_manager.h"
#include "rl/cursor/execute_properties.h"
#include "rl/cursor/key_value_cursor.h"
#include "rl/record/record_version.h"

namespace rl {

inline constexpr size_t kSplitRecordSize = 100'000;
inline constexpr int64_t kUnsplitRecordSuffix = 0;
inline constexpr int64_t kStartSplitRecordSuffix = 1;
inline constexpr int64_t kRecordVersionSuffix = -1;
// The stored size of an inline version's value: 0x33 + 12 bytes.
inline constexpr int kInlineVersionValueSize = 1 + static_cast<int>(RecordVersion::kVersionLength);

// What one record occupies: keys, their bytes, its values' bytes, and its layout.
struct SizeInfo {
  int keyCount = 0;
  int keySize = 0;
  int valueSize = 0;
  bool isSplit = false;
  bool isVersionedInline = false;

  // Starts over with one key-value.
  void set(std::string_view key, std::string_view value);
  void add(std::string_view key, std::string_view value);
  // Adds an inline version key (value counted as 13 bytes).
  void addVersion(std::string_view key);
  void reset() { *this = SizeInfo{}; }
  friend bool operator==(const SizeInfo&, const SizeInfo&) = default;
};

// The bytes of a stored record: a copy of its own (a record joined from chunks), or a view
// of its one value in the read result that holds it, kept alive with it (no copy). Moves keep
// a view valid (and leave the moved-from bytes empty); a copy of a view owns a copy of the
// bytes.
class RecordBytes {
 public:
  RecordBytes() = default;
  RecordBytes(fdb::Bytes bytes) : owned_(std::move(bytes)) {}  // NOLINT: bytes are bytes
  // `bytes`, inside `rows`' block.
  static RecordBytes viewIn(fdb::RangeRows rows, std::string_view bytes);
  // `bytes`, kept alive by `owner`.
  static RecordBytes viewIn(std::shared_ptr<const void> owner, std::string_view bytes);

  RecordBytes(const RecordBytes& other) : owned_(other.view()) {}
  RecordBytes& operator=(const RecordBytes& other);
  RecordBytes(RecordBytes&& other) noexcept { *this = std::move(other); }
  RecordBytes& operator=(RecordBytes&& other) noexcept;

  std::string_view view() const { return isView_ ? view_ : std::string_view(owned_); }
  operator std::string_view() const { return view(); }  // NOLINT: read as bytes
  size_t size() const { return view().size(); }
  bool empty() const { return view().empty(); }
  friend bool operator==(const RecordBytes& a, std::string_view b) { return a.view() == b; }

 private:
  fdb::Bytes owned_;
  fdb::RangeRows rows_;                // the owner of a view into a range read's result
  std::shared_ptr<const void> owner_;  // or another owner of the viewed bytes
  std::string_view view_;
  bool isView_ = false;
};

// A record as stored: primary key, the (joined) bytes, its inline version and sizes.
struct RawRecord {
  fdb::Tuple primaryKey;
  RecordBytes rawRecord;
  std::optional<RecordVersion> version;
  SizeInfo sizes;
};

struct SplitSaveOptions {
  // Store records over 100,000 bytes in chunks (else they are refused).
  bool splitLongRecords = true;
  // Legacy layout: an unsplit record at (pk) with no suffix (only with !splitLongRecords).
  bool omitUnsplitSuffix = false;
  // Clear only what `previousSizeInfo` says the replaced record occupied (nullptr: there was
  // no record). Otherwise everything under (pk) is cleared.
  bool clearBasedOnPreviousSizeInfo = false;
  const SizeInfo* previousSizeInfo = nullptr;
  // With clearBasedOnPreviousSizeInfo: clear key by key (one write conflict range for the
  // whole record), which single-key-optimised storage engines prefer.
  bool unrollSingleRecordDeletes = false;
};

// Writes `serialized` as the record `primaryKey` under `subspace`, replacing what was there,
// and its inline version (complete: set; incomplete: held in the context's version-mutation
// cache until commit, and answered from its local-version cache until then). `sizeInfo`, if
// given, receives what the record occupies.
void saveWithSplit(RecordContext& context, const fdb::Subspace& subspace,
                   const fdb::Tuple& primaryKey, std::string_view serialized,
                   const std::optional<RecordVersion>& version = std::nullopt,
                   const SplitSaveOptions& options = {}, SizeInfo* sizeInfo = nullptr);

// Clears the record `primaryKey` (and a pending version of it).
void deleteSplit(RecordContext& context, const fdb::Subspace& subspace,
                 const fdb::Tuple& primaryKey, const SplitSaveOptions& options = {});

struct SplitLoadOptions {
  bool splitLongRecords = true;
  // Legacy layout: the record at (pk) with no suffix (only with !splitLongRecords).
  bool missingUnsplitRecordSuffix = false;
  IsolationLevel isolation = IsolationLevel::kSerializable;
};

// Assembles one record from the key-values under its (pk), in key order (forward): the
// version (-1) first, then the unsplit value (0) or the chunks 1..n. This is what a
// single-record load reads and what a mapped range read returns for an index entry (in key
// order even for reverse scans). Checks what the split helper's loads check and throws the
// errors listed above.
//
//   SingleRecordUnsplitter unsplitter(records.key().size(), prefix.size());
//   unsplitter.add(rows);
//   std::optional<RawRecord> record = unsplitter.finish(primaryKey);
class SingleRecordUnsplitter {
 public:
  // Every key starts with the records subspace (`primaryKeyBegin` bytes) and the packed
  // primary key (up to `prefixSize`), followed by the one-integer suffix.
  SingleRecordUnsplitter(size_t primaryKeyBegin, size_t prefixSize)
      : primaryKeyBegin_(primaryKeyBegin), prefixSize_(prefixSize) {}

  // A version this transaction saved and still holds back (from the context's local-version
  // cache), stored at `versionKey`. Call before add().
  void addPendingVersion(uint16_t localVersion, std::string_view versionKey);
  // Adds key-values that follow those added so far, copying their values.
  void add(const fdb::KeyValueRefs& rows);
  void add(std::string_view key, std::string_view value);
  // The same without a copy when the record is one value (unsplit): the record views it in
  // `rows` (kept) or in bytes `owner` keeps alive. A later add() copies it after all.
  void add(fdb::RangeRows&& rows);
  void add(const fdb::KeyValueRefs& rows, std::shared_ptr<const void> owner);
  bool empty() const { return sizes_.keyCount == 0; }
  // The record, or nullopt when nothing was added. Leaves the unsplitter empty. With
  // `primaryKey` nullopt, the record's primaryKey is left empty (the caller knows it).
  std::optional<RawRecord> finish(std::optional<fdb::Tuple> primaryKey);

 private:
  std::string printablePrimaryKey(std::string_view key) const;
  void addRow(std::string_view key, std::string_view value);
  void appendData(std::string_view value);
  // Copies a viewed value into data_ (before more data or another owner comes).
  void stopViewing();

  size_t primaryKeyBegin_;
  size_t prefixSize_;
  fdb::Bytes data_;
  bool mayView_ = false;  // while adding rows whose owner is kept
  bool viewing_ = false;  // the data is viewed_, not data_
  std::string_view viewed_;
  fdb::RangeRows rows_;
  std::shared_ptr<const void> owner_;
  bool hasData_ = false;
  bool hasUnsplit_ = false;
  int64_t lastIndex_ = 0;
  std::optional<RecordVersion> version_;
  SizeInfo sizes_;
};

// A started load of one record: the read is issued when the load is created, so several
// loads can be in flight at once (mapPipelined); get() waits and assembles the record.
class PendingRecordLoad {
 public:
  PendingRecordLoad(RecordContext& context, const fdb::Subspace& subspace,
                    const fdb::Tuple& primaryKey, const SplitLoadOptions& options);
  // The same with the primary key already packed (as an index entry holds it): the key is
  // decoded only once the record is there.
  PendingRecordLoad(RecordContext& context, const fdb::Subspace& subspace,
                    std::string_view packedPrimaryKey, const SplitLoadOptions& options);
  // The record, or nullopt when there is none. Throws the errors listed above. Call once.
  // With decodePrimaryKey false, the record's primaryKey is left empty (the caller knows it).
  std::optional<RawRecord> get(bool decodePrimaryKey = true);
  bool isReady() const;

 private:
  // A record's key prefix, inline up to kInlineBytes (a load of a record whose key is that
  // short allocates nothing for it), on the heap beyond.
  class KeyPrefix {
   public:
    static constexpr size_t kInlineBytes = 64;
    void assign(std::string_view subspace, std::string_view packedPrimaryKey);
    std::string_view view() const {
      return size_ <= kInlineBytes ? std::string_view(inline_, size_) : std::string_view(heap_);
    }
    size_t size() const { return size_; }

   private:
    char inline_[kInlineBytes];
    size_t size_ = 0;
    fdb::Bytes heap_;
  };

  // Issues the read of the record at recordPrefix_.
  void start();
  fdb::Tuple primaryKey() const;

  RecordContext* context_;
  size_t primaryKeyBegin_;  // in recordPrefix_: the subspace's size
  KeyPrefix recordPrefix_;  // subspace + packed primary key
  SplitLoadOptions options_;
  std::optional<uint16_t> pendingLocalVersion_;
  std::optional<fdb::Future<std::optional<fdb::Bytes>>> legacyRead_;
  std::optional<fdb::Future<fdb::RangeResult>> rangeRead_;
};

inline PendingRecordLoad startLoadWithSplit(RecordContext& context, const fdb::Subspace& subspace,
                                            const fdb::Tuple& primaryKey,
                                            const SplitLoadOptions& options = {}) {
  return PendingRecordLoad(context, subspace, primaryKey, options);
}

// Loads the record `primaryKey`; nullopt when there is none. `sizeInfo`, if given, receives
// what it occupies.
std::optional<RawRecord> loadWithSplit(RecordContext& context, const fdb::Subspace& subspace,
                                       const fdb::Tuple& primaryKey,
                                       const SplitLoadOptions& options = {},
                                       SizeInfo* sizeInfo = nullptr);

// Assembles the key-values of a scan of the records subspace into records: every run of
// keys sharing (pk) becomes one RawRecord. Forward, a version key comes first and chunks are
// appended; reverse, chunks are prepended and the version key, met last, ends the record.
// Records are never cut: out-of-band limits (this cursor's own CursorLimitManager; give the
// inner cursor none) stop the scan only between records, so a record may exceed them. Each
// record's continuation is that of its last key-value.
class KeyValueUnsplitter : public RecordCursor<RawRecord> {
 public:
  // `oldVersionFormat`: versions live elsewhere ((8, pk)); an inline version key is an error.
  KeyValueUnsplitter(RecordContext& context, const fdb::Subspace& subspace,
                     CursorPtr<fdb::KeyValueRef> inner, bool oldVersionFormat, bool reverse,
                     CursorLimitManager limits);
  // The same over a key-value cursor whose batches a record of one value views instead of
  // copying it (the record keeps the batch alive).
  KeyValueUnsplitter(RecordContext& context, const fdb::Subspace& subspace,
                     std::unique_ptr<KeyValueCursor> inner, bool oldVersionFormat, bool reverse,
                     CursorLimitManager limits);

  CursorResult<RawRecord> next() override;

 private:
  struct KeyValueWithContinuation {
    fdb::KeyValue keyValue;
    Continuation continuation;
  };
  KeyValueUnsplitter(RecordContext& context, const fdb::Subspace& subspace,
                     CursorPtr<fdb::KeyValueRef> inner, const KeyValueCursor* batches,
                     bool oldVersionFormat, bool reverse, CursorLimitManager limits);
  // Adds a chunk of the record's bytes (in key order).
  void addChunk(std::string_view value);
  // Appends one key-value; true when it belongs to the next record (kept as pending).
  bool appendKeyValue(std::string_view key, std::string_view value,
                      const Continuation& continuation);
  void startRecord(std::string_view key, std::string_view value);
  bool appendToRecord(int64_t index, std::string_view key, std::string_view value);
  // Checks the record in progress is whole at its end and builds it.
  RawRecord finishRecord();

  RecordContext* context_;
  fdb::Subspace subspace_;
  CursorPtr<fdb::KeyValueRef> inner_;
  const KeyValueCursor* batches_ = nullptr;  // inner_, when it is a KeyValueCursor
  bool oldVersionFormat_;
  bool reverse_;
  CursorLimitManager limits_;

  // The record being assembled.
  bool inRecord_ = false;
  fdb::Tuple primaryKey_;
  fdb::Bytes prefix_;  // subspace + packed pk
  int64_t lastIndex_ = 0;
  bool hasData_ = false;
  std::vector<fdb::Bytes> chunks_;  // in key order
  // The record's first chunk while it is its only one, viewed in the inner cursor's batch
  // (chunkOwner_) rather than copied into chunks_.
  bool viewingChunk_ = false;
  std::string_view viewedChunk_;
  std::shared_ptr<const void> chunkOwner_;
  bool rowFromBatch_ = false;  // the key-value being added views batches_
  std::optional<RecordVersion> version_;
  SizeInfo sizes_;
  bool complete_ = false;
  fdb::Bytes previousPrefix_;  // the prefix of the last record returned

  std::optional<KeyValueWithContinuation> pending_;
  bool innerExhausted_ = false;
  Continuation continuation_ = Continuation::start();
  std::optional<CursorResult<RawRecord>> stopped_;
};

// A cursor of records over `range` of the records subspace, as the record store scans:
// split-aware (unsplitter enforcing the limits, then skip and row limit over records) or, for
// the legacy unsuffixed layout, one record per key-value.
struct RecordScanLayout {
  bool splitLongRecords = true;
  bool omitUnsplitSuffix = false;
  bool oldVersionFormat = false;
};
CursorPtr<RawRecord> scanRawRecords(RecordContext& context, const fdb::Subspace& subspace,
                                    const TupleRange& range, const ScanProperties& properties,
                                    const std::optional<fdb::Bytes>& continuation = std::nullopt,
                                    const RecordScanLayout& layout = {});

// --- Versions in the old format, at (8, pk) of the store: the raw 12 bytes ---
// Writes `version` at `versionSubspace`(pk): complete with set, incomplete held back until
// commit (SET_VERSIONSTAMPED_VALUE with offset 0) and cached locally.
void saveOldFormatVersion(RecordContext& context, const fdb::Subspace& versionSubspace,
                          const fdb::Tuple& primaryKey, const RecordVersion& version);
std::optional<RecordVersion> loadOldFormatVersion(
    RecordContext& context, const fdb::Subspace& versionSubspace, const fdb::Tuple& primaryKey,
    IsolationLevel isolation = IsolationLevel::kSerializable);
void deleteOldFormatVersion(RecordContext& context, const fdb::Subspace& versionSubspace,
                            const fdb::Tuple& primaryKey);

}  // namespace rl
