#include "rl/record/split_helper.h"

#include <fmt/format.h>
#include <algorithm>

#include "fdb/error.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

std::string describe(const fdb::Subspace& subspace, const fdb::Tuple& primaryKey) {
  return fmt::format("primary key {} in subspace {}", fdb::printable(fdb::Tuple(primaryKey).pack()),
                     fdb::printable(subspace.key()));
}

// The one integer element a record key has after (pk): its split suffix, described for
// errors by `primaryKey` (printable bytes).
int64_t splitSuffix(std::string_view afterPrefix, std::string_view primaryKey) {
  // Fast path, no allocation: one integer of at most 8 bytes (type codes 0x0c..0x1c).
  if (!afterPrefix.empty()) {
    const auto code = static_cast<uint8_t>(afterPrefix[0]);
    if (code >= 0x0c && code <= 0x1c) {
      const bool negative = code < 0x14;
      const size_t length = negative ? 0x14u - code : code - 0x14u;
      if (afterPrefix.size() == 1 + length && length < 8) {
        uint64_t magnitude = 0;
        for (size_t i = 1; i <= length; ++i) {
          magnitude = (magnitude << 8) | static_cast<uint8_t>(afterPrefix[i]);
        }
        if (!negative) return static_cast<int64_t>(magnitude);
        // Negative integers are stored as the one's complement of their magnitude.
        const uint64_t mask = (uint64_t{1} << (8 * length)) - 1;
        return -static_cast<int64_t>(~magnitude & mask);
      }
    }
  }
  try {
    fdb::Tuple suffix = fdb::Tuple::unpack(afterPrefix);
    if (suffix.size() != 1) {
      throw RecordCoreStorageException(fmt::format(
          "a split record key has exactly one element after the primary key {}; found {}",
          primaryKey, suffix.size()));
    }
    return suffix.getInt(0);
  } catch (const fdb::Error& e) {
    throw RecordCoreStorageException(
        fmt::format("a split record key of {} has no integer suffix: {}", primaryKey, e.what()));
  }
}

int64_t splitSuffix(std::string_view afterPrefix, const fdb::Tuple& primaryKey) {
  return splitSuffix(afterPrefix, fdb::printable(primaryKey.pack()));
}

// The range read of one record's keys. WANT_ALL stops a batch at 80,000 bytes, so a split
// record (chunks of kSplitRecordSize) took a second, un-pipelined round trip from get(). The
// range holds one record only, so ask for all of it: EXACT with a byte target no record
// reaches (a transaction writes at most 10 MB). get() still goes on if a batch ends
// early.
fdb::RangeOptions wholeRecordRangeOptions() {
  fdb::RangeOptions options;
  options.mode = fdb::StreamingMode::kExact;
  options.targetBytes = 1 << 30;
  return options;
}

fdb::Bytes joinChunks(std::vector<fdb::Bytes>& chunks) {
  if (chunks.size() == 1) return std::move(chunks.front());
  size_t total = 0;
  for (const auto& chunk : chunks) total += chunk.size();
  fdb::Bytes joined;
  joined.reserve(total);
  for (const auto& chunk : chunks) joined += chunk;
  return joined;
}

// Clears what the previous record under (pk) occupied, and any pending version of it.
void clearPreviousRecord(RecordContext& context, const fdb::Subspace& recordSubspace,
                         const SplitSaveOptions& options) {
  fdb::Transaction& tr = context.transaction();
  const fdb::KeyRange whole = recordSubspace.range();
  if (!options.clearBasedOnPreviousSizeInfo) {
    context.clearRange(whole);  // the unsplit value and any longer split alike
  } else if (const SizeInfo* previous = options.previousSizeInfo) {
    if (options.unrollSingleRecordDeletes) {
      tr.addWriteConflictRange(whole.begin, whole.end);
      std::vector<int64_t> suffixes;
      if (previous->isVersionedInline) suffixes.push_back(kRecordVersionSuffix);
      if (previous->isSplit) {
        for (int64_t i = kStartSplitRecordSuffix;
             static_cast<int>(suffixes.size()) < previous->keyCount; ++i) {
          suffixes.push_back(i);
        }
      } else {
        suffixes.push_back(kUnsplitRecordSuffix);
      }
      for (int64_t suffix : suffixes) context.clear(recordSubspace.pack(fdb::Tuple{suffix}));
    } else if (previous->isSplit || previous->isVersionedInline) {
      context.clearRange(whole);  // the new record may be shorter
    } else {
      context.clear(recordSubspace.pack(fdb::Tuple{kUnsplitRecordSuffix}));
    }
  }
  const fdb::Bytes versionKey = recordSubspace.pack(fdb::Tuple{kRecordVersionSuffix});
  context.removeVersionMutation(versionKey);
  context.removeLocalVersion(versionKey);
}

void writeInlineVersion(RecordContext& context, const fdb::Subspace& recordSubspace,
                        const std::optional<RecordVersion>& version, SizeInfo* sizeInfo) {
  if (!version) {
    if (sizeInfo != nullptr) sizeInfo->isVersionedInline = false;
    return;
  }
  const fdb::Bytes key = recordSubspace.pack(fdb::Tuple{kRecordVersionSuffix});
  const fdb::Bytes value = version->toInlineValue();
  if (version->isComplete()) {
    context.transaction().set(key, value);
  } else {
    context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, key, value);
    context.addToLocalVersionCache(key, version->localVersion());
  }
  if (sizeInfo != nullptr) {
    sizeInfo->isVersionedInline = true;
    sizeInfo->addVersion(key);  // the stored 13 bytes, not the operand's offset
  }
}

}  // namespace

void SizeInfo::set(std::string_view key, std::string_view value) {
  keyCount = 1;
  keySize = static_cast<int>(key.size());
  valueSize = static_cast<int>(value.size());
}

void SizeInfo::add(std::string_view key, std::string_view value) {
  keyCount += 1;
  keySize += static_cast<int>(key.size());
  valueSize += static_cast<int>(value.size());
}

void SizeInfo::addVersion(std::string_view key) {
  keyCount += 1;
  keySize += static_cast<int>(key.size());
  valueSize += kInlineVersionValueSize;
  isVersionedInline = true;
}

void saveWithSplit(RecordContext& context, const fdb::Subspace& subspace,
                   const fdb::Tuple& primaryKey, std::string_view serialized,
                   const std::optional<RecordVersion>& version, const SplitSaveOptions& options,
                   SizeInfo* sizeInfo) {
  if (options.omitUnsplitSuffix && version) {
    throw RecordCoreArgumentException("the legacy unsplit layout cannot hold an inline version: " +
                                      describe(subspace, primaryKey));
  }
  fdb::Transaction& tr = context.transaction();
  const fdb::Subspace recordSubspace = subspace.subspace(primaryKey);
  if (serialized.size() > kSplitRecordSize) {
    if (!options.splitLongRecords) {
      throw RecordCoreArgumentException(fmt::format(
          "a record of {} bytes is too long for one value; consider split_long_records ({})",
          serialized.size(), describe(subspace, primaryKey)));
    }
    clearPreviousRecord(context, recordSubspace, options);
    int64_t index = kStartSplitRecordSuffix;
    for (size_t offset = 0; offset < serialized.size(); offset += kSplitRecordSize, ++index) {
      const std::string_view chunk = serialized.substr(offset, kSplitRecordSize);
      const fdb::Bytes key = recordSubspace.pack(fdb::Tuple{index});
      tr.set(key, chunk);
      if (sizeInfo != nullptr) {
        if (offset == 0) {
          sizeInfo->set(key, chunk);
          sizeInfo->isSplit = true;
        } else {
          sizeInfo->add(key, chunk);
        }
      }
    }
  } else {
    const SizeInfo* previous = options.previousSizeInfo;
    if (options.splitLongRecords || !options.clearBasedOnPreviousSizeInfo || previous == nullptr ||
        previous->isVersionedInline) {
      clearPreviousRecord(context, recordSubspace, options);
    }
    const fdb::Bytes key = (options.splitLongRecords || !options.omitUnsplitSuffix)
                               ? recordSubspace.pack(fdb::Tuple{kUnsplitRecordSuffix})
                               : subspace.pack(primaryKey);
    tr.set(key, serialized);
    if (sizeInfo != nullptr) {
      sizeInfo->set(key, serialized);
      sizeInfo->isSplit = false;
    }
  }
  writeInlineVersion(context, recordSubspace, version, sizeInfo);
}

void deleteSplit(RecordContext& context, const fdb::Subspace& subspace,
                 const fdb::Tuple& primaryKey, const SplitSaveOptions& options) {
  if (!options.splitLongRecords && options.omitUnsplitSuffix) {
    context.clear(subspace.pack(primaryKey));
  } else {
    clearPreviousRecord(context, subspace.subspace(primaryKey), options);
  }
}

// --- Loading one record ---

RecordBytes RecordBytes::viewIn(fdb::RangeRows rows, std::string_view bytes) {
  RecordBytes viewed;
  viewed.rows_ = std::move(rows);  // moving keeps the block, so `bytes` stays where it is
  viewed.view_ = bytes;
  viewed.isView_ = true;
  return viewed;
}

RecordBytes RecordBytes::viewIn(std::shared_ptr<const void> owner, std::string_view bytes) {
  RecordBytes viewed;
  viewed.owner_ = std::move(owner);
  viewed.view_ = bytes;
  viewed.isView_ = true;
  return viewed;
}

RecordBytes& RecordBytes::operator=(RecordBytes&& other) noexcept {
  if (this == &other) return *this;
  owned_ = std::move(other.owned_);
  rows_ = std::move(other.rows_);  // the block moves whole: view_ stays valid
  owner_ = std::move(other.owner_);
  view_ = other.view_;
  isView_ = other.isView_;
  other.owned_.clear();
  other.view_ = {};
  other.isView_ = false;
  return *this;
}

RecordBytes& RecordBytes::operator=(const RecordBytes& other) {
  if (this != &other) *this = RecordBytes(other);
  return *this;
}

std::string SingleRecordUnsplitter::printablePrimaryKey(std::string_view key) const {
  return fdb::printable(key.substr(primaryKeyBegin_, prefixSize_ - primaryKeyBegin_));
}

void SingleRecordUnsplitter::addPendingVersion(uint16_t localVersion, std::string_view versionKey) {
  version_ = RecordVersion::incomplete(localVersion);
  sizes_.addVersion(versionKey);
}

void SingleRecordUnsplitter::add(const fdb::KeyValueRefs& rows) {
  stopViewing();
  // One allocation for the record's bytes when it arrives in one read.
  size_t total = 0;
  for (const fdb::KeyValueRef& row : rows) total += row.value.size();
  data_.reserve(data_.size() + total);
  for (const fdb::KeyValueRef& row : rows) addRow(row.key, row.value);
}

void SingleRecordUnsplitter::add(std::string_view key, std::string_view value) {
  stopViewing();
  addRow(key, value);
}

void SingleRecordUnsplitter::add(fdb::RangeRows&& rows) {
  stopViewing();
  // The rows' block does not move with them: views taken before the move stay valid.
  rows_ = std::move(rows);
  owner_.reset();
  mayView_ = true;
  for (const fdb::KeyValueRef& row : rows_) addRow(row.key, row.value);
  mayView_ = false;
}

void SingleRecordUnsplitter::add(const fdb::KeyValueRefs& rows, std::shared_ptr<const void> owner) {
  stopViewing();
  owner_ = std::move(owner);
  rows_ = fdb::RangeRows();
  mayView_ = true;
  for (const fdb::KeyValueRef& row : rows) addRow(row.key, row.value);
  mayView_ = false;
}

void SingleRecordUnsplitter::stopViewing() {
  if (!viewing_) return;
  data_.assign(viewed_);
  viewing_ = false;
  viewed_ = {};
}

void SingleRecordUnsplitter::appendData(std::string_view value) {
  if (!hasData_ && mayView_) {
    viewing_ = true;
    viewed_ = value;
  } else {
    stopViewing();
    data_.append(value);
  }
  hasData_ = true;
}

void SingleRecordUnsplitter::addRow(std::string_view key, std::string_view value) {
  if (key.size() < prefixSize_) {
    throw RecordCoreStorageException("a record key shorter than its prefix: " +
                                     fdb::printable(key));
  }
  const int64_t index = splitSuffix(key.substr(prefixSize_), printablePrimaryKey(key));
  if (index == kRecordVersionSuffix) {
    version_ = RecordVersion::fromInlineValue(value);
    sizes_.isVersionedInline = true;
    sizes_.add(key, value);
  } else if (index == kUnsplitRecordSuffix) {
    if (hasUnsplit_) {
      throw RecordCoreStorageException("more than one unsplit value for " +
                                       printablePrimaryKey(key));
    }
    hasUnsplit_ = true;
    appendData(value);
    sizes_.add(key, value);
    sizes_.isSplit = false;
  } else if (index == lastIndex_ + 1) {
    if (index == kStartSplitRecordSuffix) {
      if (hasUnsplit_) {
        throw RecordCoreStorageException("Unsplit value followed by split, for " +
                                         printablePrimaryKey(key));
      }
      sizes_.isSplit = true;
    }
    appendData(value);
    sizes_.add(key, value);
    lastIndex_ = index;
  } else if (lastIndex_ >= kStartSplitRecordSuffix) {
    throw FoundSplitOutOfOrderException(
        fmt::format("Split record segments out of order: expected {}, found {}, for {}",
                    lastIndex_ + 1, index, printablePrimaryKey(key)));
  } else {
    throw FoundSplitWithoutStartException(fmt::format(
        "Found split record without start: index {} for {}", index, printablePrimaryKey(key)));
  }
}

std::optional<RawRecord> SingleRecordUnsplitter::finish(std::optional<fdb::Tuple> primaryKey) {
  if (!hasData_) {
    if (version_) {
      throw FoundSplitWithoutStartException(
          "Found split record without start: a version without data for " +
          (primaryKey ? fdb::printable(primaryKey->pack()) : std::string("a record")));
    }
    return std::nullopt;
  }
  RawRecord record{
      primaryKey ? std::move(*primaryKey) : fdb::Tuple(), {}, std::move(version_), sizes_};
  if (viewing_) {
    record.rawRecord = owner_ ? RecordBytes::viewIn(std::move(owner_), viewed_)
                              : RecordBytes::viewIn(std::move(rows_), viewed_);
  } else {
    record.rawRecord = RecordBytes(std::move(data_));
  }
  viewing_ = false;
  viewed_ = {};
  rows_ = fdb::RangeRows();
  owner_.reset();
  data_.clear();
  hasData_ = false;
  hasUnsplit_ = false;
  lastIndex_ = 0;
  version_.reset();
  sizes_.reset();
  return record;
}

PendingRecordLoad::PendingRecordLoad(RecordContext& context, const fdb::Subspace& subspace,
                                     const fdb::Tuple& primaryKey, const SplitLoadOptions& options)
    : context_(&context), primaryKeyBegin_(subspace.key().size()), options_(options) {
  // Packed in a per-thread buffer, then kept inline.
  thread_local fdb::Bytes packed;
  packed.clear();
  primaryKey.packInto(packed);
  recordPrefix_.assign(subspace.key(), packed);
  start();
}

PendingRecordLoad::PendingRecordLoad(RecordContext& context, const fdb::Subspace& subspace,
                                     std::string_view packedPrimaryKey,
                                     const SplitLoadOptions& options)
    : context_(&context), primaryKeyBegin_(subspace.key().size()), options_(options) {
  recordPrefix_.assign(subspace.key(), packedPrimaryKey);
  start();
}

void PendingRecordLoad::KeyPrefix::assign(std::string_view subspace,
                                          std::string_view packedPrimaryKey) {
  size_ = subspace.size() + packedPrimaryKey.size();
  if (size_ <= kInlineBytes) {
    std::copy(subspace.begin(), subspace.end(), inline_);
    std::copy(packedPrimaryKey.begin(), packedPrimaryKey.end(), inline_ + subspace.size());
    heap_.clear();
  } else {
    heap_.reserve(size_);
    heap_.assign(subspace);
    heap_.append(packedPrimaryKey);
  }
}

void PendingRecordLoad::start() {
  RecordContext& context = *context_;
  const SplitLoadOptions& options = options_;
  fdb::Transaction& tr = context.transaction();
  const bool snapshot = options.isolation == IsolationLevel::kSnapshot;
  const std::string_view recordPrefix = recordPrefix_.view();
  if (!options.splitLongRecords && options.missingUnsplitRecordSuffix) {
    legacyRead_ = snapshot ? tr.snapshot().get(recordPrefix) : tr.get(recordPrefix);
    return;
  }
  if (context.hasLocalVersions()) {
    fdb::Bytes versionKey(recordPrefix);
    fdb::Tuple{kRecordVersionSuffix}.packInto(versionKey);
    pendingLocalVersion_ = context.localVersion(versionKey);
  }
  // Every key strictly under (pk): the version, the unsplit value, the chunks. The read
  // copies its selectors, so they are built in per-thread buffers (no allocation a load).
  thread_local fdb::KeySelector begin, end;
  begin.key.assign(recordPrefix);
  begin.key.push_back('\x00');
  end.key.assign(recordPrefix);
  end.key.push_back('\xff');
  begin.orEqual = end.orEqual = false;
  begin.offset = end.offset = 1;
  const fdb::RangeOptions rangeOptions = wholeRecordRangeOptions();
  rangeRead_ = snapshot ? tr.snapshot().getRange(begin, end, rangeOptions)
                        : tr.getRange(begin, end, rangeOptions);
}

bool PendingRecordLoad::isReady() const {
  if (legacyRead_) return legacyRead_->isReady();
  return rangeRead_ && rangeRead_->isReady();
}

fdb::Tuple PendingRecordLoad::primaryKey() const {
  return fdb::Tuple::unpack(recordPrefix_.view().substr(primaryKeyBegin_));
}

std::optional<RawRecord> PendingRecordLoad::get(bool decodePrimaryKey) {
  const std::string_view recordPrefix = recordPrefix_.view();
  if (legacyRead_) {
    std::optional<fdb::Bytes> value = std::move(*legacyRead_).get();
    legacyRead_.reset();
    if (!value) return std::nullopt;
    RawRecord record{decodePrimaryKey ? primaryKey() : fdb::Tuple(), {}, std::nullopt, {}};
    record.sizes.set(recordPrefix, *value);
    record.rawRecord = std::move(*value);
    return record;
  }
  if (!rangeRead_) throw RecordCoreException("a pending record load was already used");

  SingleRecordUnsplitter unsplitter(primaryKeyBegin_, recordPrefix.size());
  if (pendingLocalVersion_) {
    fdb::Bytes versionKey(recordPrefix);
    fdb::Tuple{kRecordVersionSuffix}.packInto(versionKey);
    unsplitter.addPendingVersion(*pendingLocalVersion_, versionKey);
  }
  const bool snapshot = options_.isolation == IsolationLevel::kSnapshot;
  while (true) {
    fdb::RangeResult batch = std::move(*rangeRead_).get();
    rangeRead_.reset();
    if (!batch.more) {
      // The last (usually the only) batch: an unsplit record is viewed in it, not copied.
      unsplitter.add(std::move(batch.rows));
      break;
    }
    unsplitter.add(batch.rows);
    // A record of many chunks can take more than one read; go on after the last key.
    fdb::Transaction& tr = context_->transaction();
    const fdb::RangeOptions rangeOptions = wholeRecordRangeOptions();
    const fdb::KeySelector begin = fdb::KeySelector::firstGreaterThan(batch.rows.back().key);
    fdb::KeySelector end{fdb::Bytes(recordPrefix), false, 1};
    end.key.push_back('\xff');
    rangeRead_ = snapshot ? tr.snapshot().getRange(begin, end, rangeOptions)
                          : tr.getRange(begin, end, rangeOptions);
  }
  if (unsplitter.empty()) return std::nullopt;  // no record: the key is not decoded
  return unsplitter.finish(decodePrimaryKey ? std::optional<fdb::Tuple>(primaryKey())
                                            : std::nullopt);
}

std::optional<RawRecord> loadWithSplit(RecordContext& context, const fdb::Subspace& subspace,
                                       const fdb::Tuple& primaryKey,
                                       const SplitLoadOptions& options, SizeInfo* sizeInfo) {
  std::optional<RawRecord> record = PendingRecordLoad(context, subspace, primaryKey, options).get();
  if (sizeInfo != nullptr) *sizeInfo = record ? record->sizes : SizeInfo{};
  return record;
}

// --- Assembling records from a scan ---

KeyValueUnsplitter::KeyValueUnsplitter(RecordContext& context, const fdb::Subspace& subspace,
                                       CursorPtr<fdb::KeyValueRef> inner, bool oldVersionFormat,
                                       bool reverse, CursorLimitManager limits)
    : KeyValueUnsplitter(context, subspace, std::move(inner), nullptr, oldVersionFormat, reverse,
                         std::move(limits)) {}

KeyValueUnsplitter::KeyValueUnsplitter(RecordContext& context, const fdb::Subspace& subspace,
                                       std::unique_ptr<KeyValueCursor> inner, bool oldVersionFormat,
                                       bool reverse, CursorLimitManager limits)
    : KeyValueUnsplitter(context, subspace, nullptr, inner.get(), oldVersionFormat, reverse,
                         std::move(limits)) {
  inner_ = std::move(inner);
}

KeyValueUnsplitter::KeyValueUnsplitter(RecordContext& context, const fdb::Subspace& subspace,
                                       CursorPtr<fdb::KeyValueRef> inner,
                                       const KeyValueCursor* batches, bool oldVersionFormat,
                                       bool reverse, CursorLimitManager limits)
    : context_(&context),
      subspace_(subspace),
      inner_(std::move(inner)),
      batches_(batches),
      oldVersionFormat_(oldVersionFormat),
      reverse_(reverse),
      limits_(std::move(limits)) {}

CursorResult<RawRecord> KeyValueUnsplitter::next() {
  if (stopped_) return *stopped_;
  if (innerExhausted_ && !pending_) {
    // The limits may have run out while reading the last record; the data ran out too.
    stopped_ = CursorResult<RawRecord>::exhausted();
    return *stopped_;
  }
  if (std::optional<NoNextReason> reason = limits_.stoppedReason()) {
    stopped_ = CursorResult<RawRecord>::withoutValue(*reason, continuation_);
    return *stopped_;
  }
  if (pending_) {
    KeyValueWithContinuation first = std::move(*pending_);
    pending_.reset();
    appendKeyValue(first.keyValue.key, first.keyValue.value, first.continuation);
  }
  while (!complete_) {
    CursorResult<fdb::KeyValueRef> result = inner_->next();
    if (!result.hasValue()) {
      if (result.noNextReason() == NoNextReason::kSourceExhausted) {
        innerExhausted_ = true;
        if (inRecord_) break;  // the last record ends with the data
        stopped_ = CursorResult<RawRecord>::exhausted();
      } else {
        // The inner cursor stopped inside the data: resume after the last whole record.
        if (!inRecord_) continuation_ = result.continuation();
        stopped_ = CursorResult<RawRecord>::withoutValue(
            limits_.stoppedReason().value_or(result.noNextReason()), continuation_);
      }
      return *stopped_;
    }
    limits_.tryRecordScan();  // a record is never cut: a stop shows at the next record
    rowFromBatch_ = batches_ != nullptr;
    const bool last =
        appendKeyValue(result.value().key, result.value().value, result.continuation());
    rowFromBatch_ = false;
    if (last) break;
  }
  RawRecord record = finishRecord();
  return CursorResult<RawRecord>::withValue(std::move(record), continuation_);
}

void KeyValueUnsplitter::addChunk(std::string_view value) {
  if (chunks_.empty() && !viewingChunk_ && rowFromBatch_) {
    // Maybe the record's only chunk: viewed in the inner cursor's batch, which it keeps.
    viewingChunk_ = true;
    viewedChunk_ = value;
    chunkOwner_ = batches_->currentBatch();
    return;
  }
  if (viewingChunk_) {
    chunks_.emplace_back(viewedChunk_);
    viewingChunk_ = false;
    chunkOwner_.reset();
  }
  chunks_.emplace_back(value);
}

bool KeyValueUnsplitter::appendKeyValue(std::string_view key, std::string_view value,
                                        const Continuation& continuation) {
  limits_.reportScannedBytes(static_cast<int64_t>(key.size() + value.size()));
  if (inRecord_ && !key.starts_with(prefix_)) {
    pending_ =
        KeyValueWithContinuation{fdb::KeyValue{fdb::Bytes(key), fdb::Bytes(value)}, continuation};
    return true;
  }
  continuation_ = continuation;
  if (!inRecord_) {
    startRecord(key, value);
  } else {
    complete_ = appendToRecord(splitSuffix(key.substr(prefix_.size()), primaryKey_), key, value);
  }
  return complete_;
}

void KeyValueUnsplitter::startRecord(std::string_view key, std::string_view value) {
  fdb::Tuple keyTuple = subspace_.unpack(key);
  if (keyTuple.empty()) {
    throw RecordCoreStorageException("a record key without a primary key: " + fdb::printable(key));
  }
  int64_t index = 0;
  try {
    index = keyTuple.getInt(keyTuple.size() - 1);
  } catch (const fdb::Error&) {
    throw RecordCoreStorageException("a record key without an integer suffix: " +
                                     fdb::printable(key));
  }
  fdb::Tuple primaryKey;
  for (size_t i = 0; i + 1 < keyTuple.size(); ++i) primaryKey.append(keyTuple[i]);
  fdb::Bytes prefix = subspace_.pack(primaryKey);
  if (prefix == previousPrefix_) {
    throw RecordCoreStorageException("Unsplit value followed by split, for " +
                                     fdb::printable(primaryKey.pack()));
  }
  inRecord_ = true;
  primaryKey_ = std::move(primaryKey);
  prefix_ = std::move(prefix);
  lastIndex_ = index;
  chunks_.clear();
  viewingChunk_ = false;
  chunkOwner_.reset();
  version_.reset();
  hasData_ = false;
  complete_ = false;
  sizes_.reset();
  sizes_.set(key, value);

  if (index == kRecordVersionSuffix) {
    if (oldVersionFormat_) {
      throw RecordCoreStorageException(
          "found an inline record version in the old version format: " + fdb::printable(key));
    }
    if (reverse_) {
      throw FoundSplitWithoutStartException(
          "Found split record without start: a version without data for " +
          fdb::printable(primaryKey_.pack()));
    }
    version_ = RecordVersion::fromInlineValue(value);
    sizes_.isVersionedInline = true;
  } else if (index == kUnsplitRecordSuffix) {
    hasData_ = true;
    addChunk(value);
    sizes_.isSplit = false;
    complete_ = !reverse_;  // reverse: a version key may come next
  } else if (index == kStartSplitRecordSuffix || (reverse_ && index > kStartSplitRecordSuffix)) {
    hasData_ = true;
    addChunk(value);
    sizes_.isSplit = true;
  } else {
    throw FoundSplitWithoutStartException(
        fmt::format("Found split record without start: index {} for {}", index,
                    fdb::printable(primaryKey_.pack())));
  }
}

bool KeyValueUnsplitter::appendToRecord(int64_t index, std::string_view key,
                                        std::string_view value) {
  sizes_.add(key, value);
  if (!reverse_) {
    if (lastIndex_ == kRecordVersionSuffix &&
        (index == kUnsplitRecordSuffix || index == kStartSplitRecordSuffix)) {
      hasData_ = true;
      addChunk(value);
      sizes_.isSplit = index == kStartSplitRecordSuffix;
      lastIndex_ = index;
      return index == kUnsplitRecordSuffix;
    }
    if (lastIndex_ >= kStartSplitRecordSuffix && index == lastIndex_ + 1) {
      addChunk(value);
      lastIndex_ = index;
      return false;  // more chunks may follow
    }
    if (lastIndex_ == kRecordVersionSuffix) {
      throw FoundSplitWithoutStartException(
          fmt::format("Found split record without start: index {} after the version of {}", index,
                      fdb::printable(primaryKey_.pack())));
    }
    throw FoundSplitOutOfOrderException(
        fmt::format("Split record segments out of order: expected {}, found {}, for {}",
                    lastIndex_ + 1, index, fdb::printable(primaryKey_.pack())));
  }
  // Reverse: chunks n, n-1, ..., 1 (or the unsplit 0), then the version.
  if (index == kRecordVersionSuffix &&
      (lastIndex_ == kStartSplitRecordSuffix || lastIndex_ == kUnsplitRecordSuffix)) {
    if (oldVersionFormat_) {
      throw RecordCoreStorageException(
          "found an inline record version in the old version format: " + fdb::printable(key));
    }
    version_ = RecordVersion::fromInlineValue(value);
    sizes_.isVersionedInline = true;
    lastIndex_ = index;
    return true;  // the version is a record's first key
  }
  if (index >= kStartSplitRecordSuffix && index == lastIndex_ - 1) {
    addChunk(value);
    lastIndex_ = index;
    return false;
  }
  if (index == kUnsplitRecordSuffix && lastIndex_ >= kStartSplitRecordSuffix) {
    throw RecordCoreStorageException("Unsplit value followed by split, for " +
                                     fdb::printable(primaryKey_.pack()));
  }
  if (lastIndex_ - 1 == kStartSplitRecordSuffix || index == kRecordVersionSuffix) {
    // The record's first chunk should come next (or already have come, before the version).
    throw FoundSplitWithoutStartException(
        fmt::format("Found split record without start: index {} where 1 belongs, for {}", index,
                    fdb::printable(primaryKey_.pack())));
  }
  throw FoundSplitOutOfOrderException(
      fmt::format("Split record segments out of order: expected {}, found {}, for {}",
                  lastIndex_ - 1, index, fdb::printable(primaryKey_.pack())));
}

RawRecord KeyValueUnsplitter::finishRecord() {
  if (!hasData_) {
    throw FoundSplitWithoutStartException(
        "Found split record without start: a version without data for " +
        fdb::printable(primaryKey_.pack()));
  }
  if (reverse_ && lastIndex_ > kStartSplitRecordSuffix) {
    throw FoundSplitWithoutStartException(
        fmt::format("Found split record without start: chunks down to {} only, for {}", lastIndex_,
                    fdb::printable(primaryKey_.pack())));
  }
  if (reverse_) std::reverse(chunks_.begin(), chunks_.end());
  if (!oldVersionFormat_ && context_->hasLocalVersions()) {
    // A version saved in this transaction is still in the context's cache.
    const fdb::Bytes versionKey = prefix_ + fdb::Tuple{kRecordVersionSuffix}.pack();
    if (std::optional<uint16_t> local = context_->localVersion(versionKey)) {
      version_ = RecordVersion::incomplete(*local);
      sizes_.addVersion(versionKey);
    }
  }
  sizes_.isVersionedInline = version_.has_value();
  RawRecord record{std::move(primaryKey_), {}, std::move(version_), sizes_};
  if (viewingChunk_) {
    record.rawRecord = RecordBytes::viewIn(std::move(chunkOwner_), viewedChunk_);
    viewingChunk_ = false;
  } else {
    record.rawRecord = joinChunks(chunks_);
  }
  previousPrefix_ = std::move(prefix_);
  inRecord_ = false;
  complete_ = false;
  hasData_ = false;
  chunks_.clear();
  version_.reset();
  return record;
}

CursorPtr<RawRecord> scanRawRecords(RecordContext& context, const fdb::Subspace& subspace,
                                    const TupleRange& range, const ScanProperties& properties,
                                    const std::optional<fdb::Bytes>& continuation,
                                    const RecordScanLayout& layout) {
  if (!layout.splitLongRecords && layout.omitUnsplitSuffix) {
    // One key-value is one record.
    auto inner =
        std::make_unique<KeyValueCursor>(context, subspace, range, properties, continuation);
    return map(CursorPtr<fdb::KeyValueRef>(std::move(inner)), [subspace](fdb::KeyValueRef&& row) {
      RawRecord record{subspace.unpack(row.key), fdb::Bytes(row.value), std::nullopt, {}};
      record.sizes.set(row.key, row.value);
      return record;
    });
  }
  // The unsplitter enforces the out-of-band limits between records; skip and the row limit
  // count records, not key-values.
  ScanProperties innerProperties = properties;
  innerProperties.execute =
      properties.execute.clearSkipAndLimit().clearRowAndTimeLimits().clearState();
  auto inner =
      std::make_unique<KeyValueCursor>(context, subspace, range, innerProperties, continuation);
  auto unsplitter = std::make_unique<KeyValueUnsplitter>(
      context, subspace, std::move(inner), layout.oldVersionFormat, properties.reverse,
      CursorLimitManager(context.createTime(), properties.execute));
  const ExecuteProperties& execute = properties.execute;
  if (execute.skip == 0 && execute.normalizedRowLimit() == 0) return unsplitter;
  return skipThenLimit(CursorPtr<RawRecord>(std::move(unsplitter)), execute.skip,
                       execute.normalizedRowLimit());
}

// --- Old-format versions ---

void saveOldFormatVersion(RecordContext& context, const fdb::Subspace& versionSubspace,
                          const fdb::Tuple& primaryKey, const RecordVersion& version) {
  const fdb::Bytes key = versionSubspace.pack(primaryKey);
  if (version.isComplete()) {
    context.removeVersionMutation(key);
    context.removeLocalVersion(key);
    context.transaction().set(key, version.toOldFormatValue());
  } else {
    context.addVersionMutation(fdb::MutationType::kSetVersionstampedValue, key,
                               version.toOldFormatValue());
    context.addToLocalVersionCache(key, version.localVersion());
  }
}

std::optional<RecordVersion> loadOldFormatVersion(RecordContext& context,
                                                  const fdb::Subspace& versionSubspace,
                                                  const fdb::Tuple& primaryKey,
                                                  IsolationLevel isolation) {
  const fdb::Bytes key = versionSubspace.pack(primaryKey);
  if (std::optional<uint16_t> local = context.localVersion(key)) {
    return RecordVersion::incomplete(*local);
  }
  fdb::Transaction& tr = context.transaction();
  std::optional<fdb::Bytes> value =
      isolation == IsolationLevel::kSnapshot ? tr.snapshot().get(key).get() : tr.get(key).get();
  if (!value) return std::nullopt;
  return RecordVersion::fromOldFormatValue(*value);
}

void deleteOldFormatVersion(RecordContext& context, const fdb::Subspace& versionSubspace,
                            const fdb::Tuple& primaryKey) {
  context.clear(versionSubspace.pack(primaryKey));
}

}  // namespace rl
