// The store checker: a read-only walk of a record store in budgeted steps (store_checker.h).
//
// Phases: the header (and index states), then the records under (1) in key order, then each
// checked index under (2, sk) in key order. A step resumes at the first key it did not
// finish; record and entry groups are never split between steps.
#include "rl/store_checker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "fdb/error.h"
#include "rl/index/value_index.h"
#include "rl/metadata_exception.h"
#include "rl/record/record_serializer.h"
#include "rl/record/split_helper.h"
#include "rl/record_store.h"
#include "rl/record_version.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_codec.h"

namespace rl {
namespace {

using Clock = std::chrono::steady_clock;
using Message = google::protobuf::Message;

// One index the checker verifies.
struct CheckedIndex {
  std::shared_ptr<const Index> index;
  fdb::Bytes prefix;            // P+(2, sk)
  fdb::Bytes violationsPrefix;  // P+(7, sk)
};

// What the header says about the layout of records.
struct Layout {
  int formatVersion = 0;
  int metaDataVersion = 0;
  bool splitLongRecords = false;
  bool omitUnsplitSuffix = false;
  bool legacyUnsuffixed() const { return omitUnsplitSuffix && !splitLongRecords; }
  bool oldVersionFormat() const {
    return formatVersion < kSaveVersionWithRecordFormatVersion || omitUnsplitSuffix;
  }
};

enum class Phase { kHeader, kRecords, kIndexes, kDone };

// Where the walk is; copied at the start of a step and kept only if the step completes.
struct Progress {
  Phase phase = Phase::kHeader;
  size_t indexPosition = 0;
  std::optional<fdb::Bytes> resumeAt;  // the first key not yet checked in this phase
};

// A record's key-values as read, before assembly.
struct RecordRows {
  fdb::Tuple primaryKey;
  std::vector<fdb::KeyValue> rows;
};

// A record that assembled and deserialized.
struct ParsedRecord {
  fdb::Tuple primaryKey;
  fdb::Bytes firstKey;  // its first data key, for reports
  const RecordType* type = nullptr;
  std::unique_ptr<Message> message;
  std::optional<RecordVersion> version;
};

// One entry a record should have in one index.
struct ExpectedEntry {
  fdb::Bytes key;
  fdb::Bytes value;
  bool containsNonUniqueNull = false;
};

fdb::KeyRange prefixRange(const fdb::Bytes& prefix) {
  return fdb::KeyRange{prefix + '\x00', prefix + '\xff'};
}

std::string printable(std::string_view bytes) { return fdb::printable(bytes); }
std::string printable(const fdb::Tuple& tuple) { return fdb::printable(tuple.pack()); }

}  // namespace

std::string_view checkProblemKindName(CheckProblemKind kind) {
  switch (kind) {
    case CheckProblemKind::kMissingHeader: return "missing_header";
    case CheckProblemKind::kBadHeader: return "bad_header";
    case CheckProblemKind::kBadIndexState: return "bad_index_state";
    case CheckProblemKind::kUndecodableKey: return "undecodable_key";
    case CheckProblemKind::kBadSplit: return "bad_split";
    case CheckProblemKind::kUndecodableRecord: return "undecodable_record";
    case CheckProblemKind::kWrongPrimaryKey: return "wrong_primary_key";
    case CheckProblemKind::kMissingIndexEntry: return "missing_index_entry";
    case CheckProblemKind::kWrongIndexValue: return "wrong_index_value";
    case CheckProblemKind::kDanglingIndexEntry: return "dangling_index_entry";
    case CheckProblemKind::kUniquenessViolation: return "uniqueness_violation";
  }
  return "unknown";
}

std::string CheckProblem::toString() const {
  return fmt::format("{} at {}: {}", checkProblemKindName(kind), printableKey, message);
}

int64_t CheckReport::count(CheckProblemKind kind) const {
  return std::count_if(problems.begin(), problems.end(),
                       [&](const CheckProblem& problem) { return problem.kind == kind; });
}

std::string CheckReport::summary() const {
  std::string out = fmt::format(
      "{} transactions; {} records ({} keys); {} index entries expected, {} scanned; "
      "indexes checked: {}; skipped: {}; {} problems{}\n",
      transactions, recordsChecked, recordKeysScanned, indexEntriesExpected, indexEntriesScanned,
      fmt::join(indexesChecked, ", "), fmt::join(indexesSkipped, ", "), problems.size(),
      problemsDropped > 0 ? fmt::format(" (and {} more not listed)", problemsDropped) : "");
  for (const CheckProblem& problem : problems) out += "  " + problem.toString() + "\n";
  return out;
}

struct StoreChecker::Impl {
  Impl(fdb::Database db, StoreLocation location, RecordMetaData metaData, CheckOptions options)
      : db(std::move(db)),
        location(std::move(location)),
        metaData(std::move(metaData)),
        options(options) {
    if (this->metaData.unionDescriptor().file()->pool() ==
        google::protobuf::DescriptorPool::generated_pool()) {
      factory = google::protobuf::MessageFactory::generated_factory();
    } else {
      ownedFactory = std::make_unique<google::protobuf::DynamicMessageFactory>();
      factory = ownedFactory.get();
    }
  }

  fdb::Database db;
  StoreLocation location;
  RecordMetaData metaData;
  CheckOptions options;
  google::protobuf::MessageFactory* factory = nullptr;
  std::unique_ptr<google::protobuf::MessageFactory> ownedFactory;

  // Kept across steps (set by the header phase).
  Progress progress;
  CheckReport report;
  Layout layout;
  fdb::Subspace subspace;
  fdb::Subspace recordsSubspace;
  std::vector<CheckedIndex> indexes;
  // The positions in `indexes` of the checked indexes covering each record type.
  std::map<const RecordType*, std::vector<size_t>> indexesByType;
  TransformedRecordSerializer serializer;
};

namespace {

// One step's work: its reads, its tentative progress and findings.
class Step {
 public:
  Step(StoreChecker::Impl& checker, RecordContext& context)
      : c_(checker),
        tr_(context.transaction()),
        progress_(checker.progress),
        deadline_(Clock::now() + checker.options.maxTimePerTransaction) {}

  // Runs the step: its findings are in found(), where it stopped in progress().
  void run() {
    while (progress_.phase != Phase::kDone && !stopped_) {
      switch (progress_.phase) {
        case Phase::kHeader: checkHeader(); break;
        case Phase::kRecords: checkRecords(); break;
        case Phase::kIndexes: checkIndex(); break;
        case Phase::kDone: break;
      }
    }
  }

  Progress& progress() { return progress_; }
  CheckReport& found() { return found_; }
  Layout& layout() { return layout_; }  // as set up by this step
  std::vector<CheckedIndex>& indexes() { return indexes_; }
  std::map<const RecordType*, std::vector<size_t>>& indexesByType() { return indexesByType_; }
  bool setUp() const { return setUp_; }

 private:
  // --- Budget ---
  bool budgetSpent() const {
    return items_ >= c_.options.maxItemsPerTransaction || Clock::now() >= deadline_;
  }
  // At a boundary before `key`: stop here if the budget is spent.
  bool stopBefore(std::string_view key) {
    if (items_ == 0 || !budgetSpent()) return false;
    progress_.resumeAt = fdb::Bytes(key);
    stopped_ = true;
    return true;
  }
  void nextPhase(Phase phase) {
    progress_.phase = phase;
    progress_.resumeAt.reset();
  }

  void problem(CheckProblemKind kind, std::string_view key, std::string message) {
    found_.problems.push_back(
        CheckProblem{kind, fdb::Bytes(key), printable(key), std::move(message)});
  }

  const Layout& currentLayout() const { return setUp_ ? layout_ : c_.layout; }
  const std::vector<CheckedIndex>& checkedIndexes() const { return setUp_ ? indexes_ : c_.indexes; }
  const std::vector<size_t>& indexesFor(const RecordType& type) const {
    static const std::vector<size_t> none;
    const auto& byType = setUp_ ? indexesByType_ : c_.indexesByType;
    auto it = byType.find(&type);
    return it == byType.end() ? none : it->second;
  }

  fdb::RangeOptions batchOptions() const {
    fdb::RangeOptions options;
    options.limit = c_.options.batchSize;
    options.mode = fdb::StreamingMode::kWantAll;
    return options;
  }

  // --- Header ---
  void checkHeader() {
    try {
      c_.subspace = c_.location.resolve(tr_, StoreLocation::kOpen);
    } catch (const fdb::Error& e) {
      if (e.code() != fdb::errors::kDirectoryDoesNotExist) throw;
      problem(CheckProblemKind::kMissingHeader, "",
              "the store's directory does not exist: " + c_.location.describe());
      nextPhase(Phase::kDone);
      return;
    }
    c_.recordsSubspace = c_.subspace.subspace(fdb::Tuple{keyspace::kRecord});
    const fdb::Bytes headerKey = c_.subspace.pack(fdb::Tuple{keyspace::kStoreInfo});
    fdb::Future<std::optional<fdb::Bytes>> headerRead = tr_.snapshot().get(headerKey);
    const fdb::Subspace stateSubspace = c_.subspace.subspace(fdb::Tuple{keyspace::kIndexState});
    fdb::RangeOptions all;
    all.mode = fdb::StreamingMode::kWantAll;
    fdb::Future<fdb::RangeResult> statesRead = tr_.snapshot().getRange(stateSubspace.range(), all);

    const std::optional<fdb::Bytes> header = std::move(headerRead).get();
    if (!header) {
      fdb::RangeOptions first;
      first.limit = 1;
      const fdb::RangeResult firstKey = tr_.snapshot().getRange(c_.subspace.range(), first).get();
      problem(CheckProblemKind::kMissingHeader, headerKey,
              firstKey.rows.empty() ? "the store is empty: there is no header"
                                    : fmt::format("no header, but the store has keys (first {})",
                                                  printable(firstKey.rows[0].key)));
      nextPhase(Phase::kDone);
      return;
    }
    DataStoreInfo info;
    if (!info.ParseFromArray(header->data(), static_cast<int>(header->size()))) {
      problem(CheckProblemKind::kBadHeader, headerKey,
              "the header does not parse as DataStoreInfo");
      nextPhase(Phase::kDone);
      return;
    }
    if (info.formatversion() < kMinFormatVersion || info.formatversion() > kMaxFormatVersion) {
      problem(CheckProblemKind::kBadHeader, headerKey,
              fmt::format("format version {} is outside {}..{}", info.formatversion(),
                          kMinFormatVersion, kMaxFormatVersion));
      nextPhase(Phase::kDone);
      return;
    }
    if (info.metadataversion() > c_.metaData.version()) {
      problem(CheckProblemKind::kBadHeader, headerKey,
              fmt::format("metadata version {} is above the local metadata's {}: the store "
                          "cannot be checked with this metadata",
                          info.metadataversion(), c_.metaData.version()));
      nextPhase(Phase::kDone);
      return;
    }
    layout_.formatVersion = info.formatversion();
    layout_.metaDataVersion = info.metadataversion();
    layout_.splitLongRecords = c_.metaData.splitLongRecords();
    layout_.omitUnsplitSuffix = info.formatversion() < kSaveUnsplitWithSuffixFormatVersion ||
                                info.omit_unsplit_record_suffix();

    // Index states: absent is READABLE.
    std::map<std::string, IndexState, std::less<>> states;
    const fdb::RangeResult stateRows = std::move(statesRead).get();
    for (const fdb::KeyValueRef& row : stateRows.rows) {
      std::optional<std::string> name;
      int64_t code = -1;
      try {
        const fdb::Tuple key = stateSubspace.unpack(row.key);
        if (key.size() == 1 && key[0].type() == fdb::TupleType::kString) name = key.getString(0);
        const fdb::Tuple value = fdb::Tuple::unpack(row.value);
        if (value.size() == 1 && value[0].type() == fdb::TupleType::kInteger) {
          code = value.getInt(0);
        }
      } catch (const fdb::Error&) {
      }
      if (!name || code < 0 || code > static_cast<int64_t>(IndexState::kWriteOnlyWithQueue)) {
        problem(CheckProblemKind::kBadIndexState, row.key,
                fmt::format("not an index state: value {}", printable(row.value)));
        continue;
      }
      states[*name] = static_cast<IndexState>(code);
    }

    for (const auto& index : c_.metaData.allIndexes()) {
      auto it = states.find(index->name());
      const IndexState state = it == states.end() ? IndexState::kReadable : it->second;
      std::string skipped;
      if (index->type() != Index::kValue) {
        skipped = fmt::format("type {} is not checked", index->type());
      } else if (state == IndexState::kDisabled || state == IndexState::kWriteOnlyWithQueue) {
        skipped = std::string(indexStateName(state));
      } else if (index->lastModifiedVersion() > layout_.metaDataVersion) {
        skipped = fmt::format("newer (version {}) than the store's metadata (version {})",
                              index->lastModifiedVersion(), layout_.metaDataVersion);
      }
      if (!skipped.empty()) {
        found_.indexesSkipped.push_back(index->name() + ": " + skipped);
        continue;
      }
      found_.indexesChecked.push_back(index->name());
      const size_t position = indexes_.size();
      indexes_.push_back(
          CheckedIndex{index, c_.subspace.pack(fdb::Tuple{keyspace::kIndex, index->subspaceKey()}),
                       c_.subspace.pack(fdb::Tuple{keyspace::kIndexUniquenessViolations,
                                                   index->subspaceKey()})});
      for (const RecordType* type : c_.metaData.recordTypesForIndex(*index)) {
        indexesByType_[type].push_back(position);
      }
    }
    setUp_ = true;
    nextPhase(Phase::kRecords);
  }

  // --- Records ---

  // The primary key a record key belongs to, or nullopt when it has none (a problem, reported
  // when `report`).
  std::optional<fdb::Tuple> recordPrimaryKey(std::string_view key, bool report) {
    fdb::Tuple tuple;
    try {
      tuple = c_.recordsSubspace.unpack(key);
    } catch (const fdb::Error& e) {
      if (report) {
        problem(CheckProblemKind::kUndecodableKey, key,
                fmt::format("a key under the records subspace is not a tuple: {}", e.what()));
      }
      return std::nullopt;
    }
    if (currentLayout().legacyUnsuffixed()) return tuple;
    if (tuple.size() < 2) {
      if (report) {
        problem(CheckProblemKind::kBadSplit, key,
                "a record key without a split suffix in a store that writes suffixes");
      }
      return std::nullopt;
    }
    fdb::Tuple primaryKey;
    for (size_t i = 0; i + 1 < tuple.size(); ++i) primaryKey.append(tuple[i]);
    return primaryKey;
  }

  // Whether a record's rows hold any of its data: a record whose only key is its inline
  // version at (pk, -1) is no record (the Java Record Layer's load throws
  // FoundSplitWithoutStartException for it), so it is not counted and index entries pointing
  // at it dangle. A key that does not decode counts as data: something is there.
  bool hasData(const RecordRows& record) const {
    if (currentLayout().legacyUnsuffixed()) return !record.rows.empty();
    for (const fdb::KeyValue& row : record.rows) {
      try {
        const fdb::Tuple tuple = c_.recordsSubspace.unpack(row.key);
        const bool version = tuple.size() == record.primaryKey.size() + 1 &&
                             tuple[tuple.size() - 1].type() == fdb::TupleType::kInteger &&
                             tuple[tuple.size() - 1].asInt() == kRecordVersionSuffix;
        if (!version) return true;
      } catch (const fdb::Error&) {
        return true;
      }
    }
    return false;
  }

  // Checks the layout of one record's rows and joins its data; nullopt when it is broken.
  // Problems are reported only when `report` (an index scan reads records silently: the
  // record phase reports them).
  struct Assembled {
    fdb::Bytes bytes;
    fdb::Bytes firstKey;
    std::optional<RecordVersion> version;
  };
  std::optional<Assembled> assemble(const RecordRows& record, bool report) {
    auto fail = [&](CheckProblemKind kind, std::string_view key, std::string message) {
      if (report) problem(kind, key, std::move(message));
      return std::nullopt;
    };
    Assembled out;
    if (currentLayout().legacyUnsuffixed()) {
      out.firstKey = record.rows.front().key;
      out.bytes = record.rows.front().value;
      return out;
    }
    bool hasUnsplit = false;
    int64_t lastChunk = 0;
    for (const fdb::KeyValue& row : record.rows) {
      fdb::Tuple tuple;
      try {
        tuple = c_.recordsSubspace.unpack(row.key);
      } catch (const fdb::Error& e) {
        return fail(CheckProblemKind::kUndecodableKey, row.key,
                    fmt::format("a key under the records subspace is not a tuple: {}", e.what()));
      }
      if (tuple.size() != record.primaryKey.size() + 1) {
        return fail(CheckProblemKind::kBadSplit, row.key,
                    "a record key without exactly one split suffix after its primary key");
      }
      const fdb::TupleElement& last = tuple[tuple.size() - 1];
      if (last.type() != fdb::TupleType::kInteger) {
        return fail(CheckProblemKind::kBadSplit, row.key,
                    "the split suffix of a record key is not an integer");
      }
      const int64_t suffix = last.asInt();
      if (suffix == kRecordVersionSuffix) {
        if (currentLayout().oldVersionFormat()) {
          return fail(
              CheckProblemKind::kBadSplit, row.key,
              fmt::format("an inline version in a store that keeps versions at (8, pk) "
                          "(format version {}{})",
                          currentLayout().formatVersion,
                          currentLayout().omitUnsplitSuffix ? ", unsplit suffix omitted" : ""));
        }
        try {
          out.version = RecordVersion::fromInlineValue(row.value);
        } catch (const std::exception& e) {
          return fail(CheckProblemKind::kBadSplit, row.key,
                      fmt::format("the inline version does not decode: {}", e.what()));
        }
      } else if (suffix == kUnsplitRecordSuffix) {
        out.firstKey = row.key;
        out.bytes = row.value;
        hasUnsplit = true;
      } else if (suffix >= kStartSplitRecordSuffix) {
        if (hasUnsplit) {
          return fail(CheckProblemKind::kBadSplit, row.key, "unsplit value followed by split");
        }
        if (!currentLayout().splitLongRecords) {
          return fail(CheckProblemKind::kBadSplit, row.key,
                      "a split chunk in a store whose metadata does not split long records");
        }
        if (suffix != lastChunk + 1) {
          return fail(CheckProblemKind::kBadSplit, row.key,
                      lastChunk == 0
                          ? fmt::format("the split record starts at chunk {}", suffix)
                          : fmt::format("chunk {} follows chunk {}: a gap", suffix, lastChunk));
        }
        if (lastChunk == 0) out.firstKey = row.key;
        lastChunk = suffix;
        out.bytes += row.value;
      } else {
        return fail(CheckProblemKind::kBadSplit, row.key,
                    fmt::format("unknown split suffix {}", suffix));
      }
    }
    if (!hasUnsplit && lastChunk == 0) {
      return fail(CheckProblemKind::kBadSplit, record.rows.front().key,
                  "a version without its record: no data key under its primary key, so no "
                  "record (not counted; index entries pointing at it dangle)");
    }
    return out;
  }

  // Deserializes an assembled record; nullopt (reported when `report`) when it is not one.
  std::optional<ParsedRecord> parse(const RecordRows& record, Assembled&& assembled, bool report) {
    ParsedRecord parsed;
    parsed.primaryKey = record.primaryKey;
    parsed.firstKey = std::move(assembled.firstKey);
    parsed.version = assembled.version;
    try {
      fdb::Bytes buffer;
      std::string_view bytes = assembled.bytes;
      if (!bytes.empty() &&
          TransformedRecordSerializer::transformOf(bytes) != RecordTransform::kUntransformed) {
        buffer = c_.serializer.deserialize(bytes);
        bytes = buffer;
      }
      const store::UnionRecord found = store::findUnionRecord(c_.metaData, bytes);
      parsed.type = found.type;
      const Message* prototype = c_.factory->GetPrototype(&found.type->descriptor());
      if (prototype == nullptr) {
        throw RecordCoreException("no message prototype for " +
                                  found.type->descriptor().full_name());
      }
      parsed.message.reset(prototype->New());
      store::parseRecord(*found.type, found.recordBytes(), *parsed.message);
    } catch (const std::exception& e) {
      if (report) problem(CheckProblemKind::kUndecodableRecord, parsed.firstKey, e.what());
      return std::nullopt;
    }
    if (report) {
      try {
        const fdb::Tuple evaluated = parsed.type->primaryKey().evaluateSingleton(
            *parsed.message, parsed.type->evaluationContext());
        if (evaluated != parsed.primaryKey) {
          problem(
              CheckProblemKind::kWrongPrimaryKey, parsed.firstKey,
              fmt::format("a record of type {} whose primary key is {} is stored under {}",
                          parsed.type->name(), printable(evaluated), printable(parsed.primaryKey)));
        }
      } catch (const std::exception& e) {
        problem(CheckProblemKind::kWrongPrimaryKey, parsed.firstKey,
                fmt::format("the primary key of a record of type {} does not evaluate: {}",
                            parsed.type->name(), e.what()));
      }
    }
    return parsed;
  }

  // Old-format versions at (8, pk) of several records, read together (problems reported
  // when `report`).
  void loadOldFormatVersions(std::vector<ParsedRecord>& records, bool report) {
    if (!currentLayout().oldVersionFormat()) return;
    const fdb::Subspace versions = c_.subspace.subspace(fdb::Tuple{keyspace::kRecordVersion});
    std::vector<fdb::Future<std::optional<fdb::Bytes>>> reads;
    reads.reserve(records.size());
    for (const ParsedRecord& record : records) {
      reads.push_back(tr_.snapshot().get(versions.pack(record.primaryKey)));
    }
    for (size_t i = 0; i < records.size(); ++i) {
      const std::optional<fdb::Bytes> value = std::move(reads[i]).get();
      if (!value) continue;
      try {
        records[i].version = RecordVersion::fromOldFormatValue(*value);
      } catch (const std::exception& e) {
        if (report) {
          problem(CheckProblemKind::kBadSplit, versions.pack(records[i].primaryKey),
                  fmt::format("the old-format version does not decode: {}", e.what()));
        }
      }
    }
  }

  // The entries `record` should have in checkedIndexes()[position]; nullopt (reported when
  // `report`) when the index cannot be evaluated on it.
  std::optional<std::vector<ExpectedEntry>> expectedEntries(const ParsedRecord& record,
                                                            size_t position, bool report) {
    const CheckedIndex& checked = checkedIndexes()[position];
    std::vector<EvaluatedIndexEntry> entries;
    try {
      entries = evaluateValueIndex(*checked.index, *record.type, *record.message, record.version);
    } catch (const std::exception& e) {
      if (report) {
        problem(CheckProblemKind::kUndecodableRecord, record.firstKey,
                fmt::format("index {} does not evaluate on the record: {}", checked.index->name(),
                            e.what()));
      }
      return std::nullopt;
    }
    const fdb::Tuple trimmed = checked.index->trimPrimaryKey(record.primaryKey);
    std::vector<ExpectedEntry> expected;
    for (const EvaluatedIndexEntry& entry : entries) {
      fdb::Bytes key = checked.prefix;
      entry.key.packInto(key);
      trimmed.packInto(key);
      if (std::any_of(expected.begin(), expected.end(),
                      [&](const ExpectedEntry& e) { return e.key == key; })) {
        continue;  // a fan-out yielding one entry twice stores it once
      }
      expected.push_back(ExpectedEntry{std::move(key),
                                       entry.value.empty() ? fdb::Bytes() : entry.value.pack(),
                                       entry.containsNonUniqueNull});
    }
    return expected;
  }

  // Checks every record's entries in every index covering it (reads issued together).
  void checkEntriesOf(std::vector<ParsedRecord>& records) {
    loadOldFormatVersions(records, true);
    struct Lookup {
      ExpectedEntry entry;
      std::string indexName;
      fdb::Future<std::optional<fdb::Bytes>> read;
    };
    std::vector<Lookup> lookups;
    for (const ParsedRecord& record : records) {
      for (size_t position : indexesFor(*record.type)) {
        std::optional<std::vector<ExpectedEntry>> expected =
            expectedEntries(record, position, true);
        if (!expected) continue;
        for (ExpectedEntry& entry : *expected) {
          fdb::Future<std::optional<fdb::Bytes>> read = tr_.snapshot().get(entry.key);
          lookups.push_back(
              Lookup{std::move(entry), checkedIndexes()[position].index->name(), std::move(read)});
        }
      }
    }
    for (Lookup& lookup : lookups) {
      found_.indexEntriesExpected += 1;
      const std::optional<fdb::Bytes> stored = std::move(lookup.read).get();
      if (!stored) {
        problem(CheckProblemKind::kMissingIndexEntry, lookup.entry.key,
                fmt::format("index {} lacks the entry of its record", lookup.indexName));
      } else if (*stored != lookup.entry.value) {
        problem(CheckProblemKind::kWrongIndexValue, lookup.entry.key,
                fmt::format("index {} entry has value {}; its record gives {}", lookup.indexName,
                            printable(*stored), printable(lookup.entry.value)));
      }
    }
  }

  // A record's rows and the keys after its first that belong to no record (undecodable, or
  // without a split suffix), in key order: what a step counts and reports together, or
  // leaves whole to the next step. `record` is empty for stray keys before any record.
  struct RecordGroup {
    std::optional<RecordRows> record;
    std::vector<fdb::Bytes> strayKeys;
  };

  // Counts a group's keys and reports its stray ones.
  void countGroup(const RecordGroup& group) {
    if (group.record) found_.recordKeysScanned += static_cast<int64_t>(group.record->rows.size());
    for (const fdb::Bytes& key : group.strayKeys) {
      found_.recordKeysScanned += 1;
      recordPrimaryKey(key, /*report=*/true);
    }
  }

  void checkRecords() {
    const fdb::KeyRange all = c_.recordsSubspace.range();
    fdb::Bytes begin = progress_.resumeAt.value_or(all.begin);
    // The last group of the batch read, whose record may go on in the next batch.
    RecordGroup open;
    bool exhausted = false;
    while (!exhausted) {
      const fdb::RangeResult batch =
          tr_.snapshot().getRange(fdb::KeyRange{begin, all.end}, batchOptions()).get();
      exhausted = !batch.more;
      if (!batch.rows.empty()) begin = fdb::Bytes(batch.rows[batch.rows.size() - 1].key) + '\x00';
      // Group the rows by record; nothing is counted or reported yet, so that rows after the
      // point where this step stops are left to the next step entirely.
      std::vector<RecordGroup> complete;
      for (const fdb::KeyValueRef& row : batch.rows) {
        std::optional<fdb::Tuple> primaryKey = recordPrimaryKey(row.key, /*report=*/false);
        if (!primaryKey) {
          open.strayKeys.emplace_back(row.key);
          continue;
        }
        if (open.record &&
            (open.record->primaryKey != *primaryKey || currentLayout().legacyUnsuffixed())) {
          complete.push_back(std::move(open));
          open = RecordGroup{};
        }
        if (!open.record) {
          if (!open.strayKeys.empty()) {  // stray keys before this record: a group alone
            complete.push_back(std::move(open));
            open = RecordGroup{};
          }
          open.record = RecordRows{std::move(*primaryKey), {}};
        }
        open.record->rows.push_back(row);
      }
      if (exhausted && (open.record || !open.strayKeys.empty())) {
        complete.push_back(std::move(open));
        open = RecordGroup{};
      }
      // Assemble, then check entries for the records of this batch together.
      std::vector<ParsedRecord> parsed;
      std::optional<fdb::Bytes> stopAt;
      for (RecordGroup& group : complete) {
        if (!group.record) {
          countGroup(group);
          continue;
        }
        if (items_ > 0 && budgetSpent()) {
          stopAt = group.record->rows.front().key;
          break;
        }
        items_ += 1;
        countGroup(group);
        RecordRows& rows = *group.record;
        if (hasData(rows)) found_.recordsChecked += 1;
        std::optional<Assembled> assembled = assemble(rows, true);
        if (!assembled) continue;
        std::optional<ParsedRecord> record = parse(rows, std::move(*assembled), true);
        if (record) parsed.push_back(std::move(*record));
      }
      checkEntriesOf(parsed);
      if (!stopAt && !exhausted && open.record && items_ > 0 && budgetSpent()) {
        stopAt = open.record->rows.front().key;
      }
      if (stopAt) {
        progress_.resumeAt = std::move(*stopAt);
        stopped_ = true;
        return;
      }
    }
    nextPhase(c_.indexes.empty() && indexes_.empty() ? Phase::kDone : Phase::kIndexes);
    progress_.indexPosition = 0;
  }

  // --- Indexes ---

  // What a record gives one index, for checking entries against it.
  struct RecordFacts {
    bool exists = false;       // it has data (a version alone is no record)
    bool versionOnly = false;  // no data, but its inline version is there
    bool readable = false;
    bool covered = false;
    std::string typeName;
    std::vector<ExpectedEntry> entries;
  };

  // Reads and evaluates the records of `primaryKeys` for index `position`.
  std::map<fdb::Tuple, RecordFacts> recordFacts(const std::set<fdb::Tuple>& primaryKeys,
                                                size_t position) {
    std::vector<std::pair<fdb::Tuple, fdb::Future<fdb::RangeResult>>> ranges;
    std::vector<std::pair<fdb::Tuple, fdb::Future<std::optional<fdb::Bytes>>>> gets;
    fdb::RangeOptions all;
    all.mode = fdb::StreamingMode::kWantAll;
    for (const fdb::Tuple& primaryKey : primaryKeys) {
      if (currentLayout().legacyUnsuffixed()) {
        gets.emplace_back(primaryKey, tr_.snapshot().get(c_.recordsSubspace.pack(primaryKey)));
      } else {
        ranges.emplace_back(primaryKey,
                            tr_.snapshot().getRange(c_.recordsSubspace.range(primaryKey), all));
      }
    }
    std::vector<RecordRows> rows;
    for (auto& [primaryKey, read] : gets) {
      const std::optional<fdb::Bytes> value = std::move(read).get();
      RecordRows record{primaryKey, {}};
      if (value) record.rows.push_back(fdb::KeyValue{c_.recordsSubspace.pack(primaryKey), *value});
      rows.push_back(std::move(record));
    }
    for (auto& [primaryKey, read] : ranges) {
      fdb::RangeResult result = std::move(read).get();
      RecordRows record{primaryKey, {}};
      for (const fdb::KeyValueRef& row : result.rows) record.rows.push_back(row);
      if (result.more) {  // a record longer than one batch
        const fdb::KeyRange range = c_.recordsSubspace.range(primaryKey);
        const fdb::Bytes after = record.rows.back().key + '\x00';
        for (fdb::KeyValue& row : tr_.snapshot().getRangeAll(fdb::KeyRange{after, range.end})) {
          record.rows.push_back(std::move(row));
        }
      }
      rows.push_back(std::move(record));
    }

    std::map<fdb::Tuple, RecordFacts> facts;
    std::vector<ParsedRecord> parsed;
    for (RecordRows& record : rows) {
      RecordFacts& fact = facts[record.primaryKey];
      if (!hasData(record)) {
        fact.versionOnly = !record.rows.empty();
        continue;
      }
      fact.exists = true;
      std::optional<Assembled> assembled = assemble(record, false);
      if (!assembled) continue;
      std::optional<ParsedRecord> one = parse(record, std::move(*assembled), false);
      if (one) parsed.push_back(std::move(*one));
    }
    loadOldFormatVersions(parsed, false);
    for (const ParsedRecord& record : parsed) {
      RecordFacts& fact = facts[record.primaryKey];
      fact.typeName = record.type->name();
      const std::vector<size_t>& covering = indexesFor(*record.type);
      fact.covered = std::find(covering.begin(), covering.end(), position) != covering.end();
      if (!fact.covered) {
        fact.readable = true;
        continue;
      }
      std::optional<std::vector<ExpectedEntry>> expected = expectedEntries(record, position, false);
      if (!expected) continue;
      fact.readable = true;
      fact.entries = std::move(*expected);
    }
    return facts;
  }

  // An entry of the index being scanned, decoded.
  struct ScannedEntry {
    fdb::Bytes key;
    fdb::Bytes value;
    fdb::Tuple valueKey;  // the index columns
    fdb::Tuple primaryKey;
    std::optional<std::string> undecodable;  // why the key is no entry of the index
  };
  // A run of entries with one value of a unique index.
  struct UniqueGroup {
    fdb::Tuple valueKey;
    std::vector<std::pair<fdb::Tuple, fdb::Bytes>> members;  // primary key, entry key
  };

  void finishGroup(const CheckedIndex& checked, UniqueGroup& group) {
    if (group.members.size() < 2) {
      group.members.clear();
      return;
    }
    // Recorded violations of this value: (7, sk, value..., pk...).
    fdb::Bytes prefix = checked.violationsPrefix;
    group.valueKey.packInto(prefix);
    std::set<fdb::Tuple> recorded;
    const size_t columns = group.valueKey.size();
    for (const fdb::KeyValue& row : tr_.snapshot().getRangeAll(prefixRange(prefix))) {
      try {
        const fdb::Tuple key =
            fdb::Tuple::unpack(std::string_view(row.key).substr(checked.violationsPrefix.size()));
        fdb::Tuple primaryKey;
        for (size_t i = columns; i < key.size(); ++i) primaryKey.append(key[i]);
        recorded.insert(std::move(primaryKey));
      } catch (const fdb::Error&) {
      }
    }
    std::vector<std::string> unrecorded;
    for (const auto& [primaryKey, key] : group.members) {
      if (!recorded.contains(primaryKey)) unrecorded.push_back(printable(primaryKey));
    }
    if (!unrecorded.empty()) {
      std::vector<std::string> all;
      for (const auto& member : group.members) all.push_back(printable(member.first));
      problem(CheckProblemKind::kUniquenessViolation, group.members[1].second,
              fmt::format("unique index {} has value {} for {} records ({}); not recorded as "
                          "violations: {}",
                          checked.index->name(), printable(group.valueKey), all.size(),
                          fmt::join(all, ", "), fmt::join(unrecorded, ", ")));
    }
    group.members.clear();
  }

  void checkIndex() {
    const std::vector<CheckedIndex>& indexes = checkedIndexes();
    if (progress_.indexPosition >= indexes.size()) {
      nextPhase(Phase::kDone);
      return;
    }
    const CheckedIndex& checked = indexes[progress_.indexPosition];
    const Index& index = *checked.index;
    const size_t columns = static_cast<size_t>(index.columnSize());
    const bool unique = index.isUnique();
    const fdb::KeyRange all = prefixRange(checked.prefix);
    fdb::Bytes begin = progress_.resumeAt.value_or(all.begin);
    UniqueGroup group;
    bool exhausted = false;
    while (!exhausted) {
      const fdb::RangeResult batch =
          tr_.snapshot().getRange(fdb::KeyRange{begin, all.end}, batchOptions()).get();
      exhausted = !batch.more;
      if (!batch.rows.empty()) begin = fdb::Bytes(batch.rows[batch.rows.size() - 1].key) + '\x00';
      std::vector<ScannedEntry> entries;
      std::set<fdb::Tuple> primaryKeys;
      for (const fdb::KeyValueRef& row : batch.rows) {
        ScannedEntry entry{fdb::Bytes(row.key), fdb::Bytes(row.value), {}, {}, {}};
        try {
          const fdb::Tuple tuple =
              fdb::Tuple::unpack(std::string_view(row.key).substr(checked.prefix.size()));
          if (tuple.size() < columns) throw fdb::Error(fdb::errors::kInvalidTupleIndex);
          for (size_t i = 0; i < columns; ++i) entry.valueKey.append(tuple[i]);
          entry.primaryKey = index.entryPrimaryKey(tuple);
        } catch (const fdb::Error& e) {
          // Counted and reported in order with the others, so not by a step that stops
          // before it.
          entry.undecodable = fmt::format("not an entry of index {}: {}", index.name(), e.what());
          entries.push_back(std::move(entry));
          continue;
        }
        primaryKeys.insert(entry.primaryKey);
        entries.push_back(std::move(entry));
      }
      const std::map<fdb::Tuple, RecordFacts> facts =
          recordFacts(primaryKeys, progress_.indexPosition);
      for (const ScannedEntry& entry : entries) {
        if (entry.undecodable) {
          found_.indexEntriesScanned += 1;
          problem(CheckProblemKind::kUndecodableKey, entry.key, *entry.undecodable);
          continue;
        }
        // A step ends only where a new value starts (unique) or at any entry (otherwise).
        const bool boundary = !unique || group.members.empty() || entry.valueKey != group.valueKey;
        if (boundary) {
          if (unique) finishGroup(checked, group);
          if (stopBefore(entry.key)) return;
          group.valueKey = entry.valueKey;
        }
        items_ += 1;
        found_.indexEntriesScanned += 1;
        const RecordFacts& fact = facts.at(entry.primaryKey);
        const ExpectedEntry* produced = nullptr;
        for (const ExpectedEntry& expected : fact.entries) {
          if (expected.key == entry.key) produced = &expected;
        }
        if (!fact.exists) {
          problem(CheckProblemKind::kDanglingIndexEntry, entry.key,
                  fmt::format("index {} has an entry for primary key {}, which has no record{}",
                              index.name(), printable(entry.primaryKey),
                              fact.versionOnly ? " (only its version is left)" : ""));
          continue;
        }
        if (!fact.readable) continue;  // the record phase reports the record
        if (!fact.covered) {
          problem(CheckProblemKind::kDanglingIndexEntry, entry.key,
                  fmt::format("index {} has an entry for record {} of type {}, which it does "
                              "not index",
                              index.name(), printable(entry.primaryKey), fact.typeName));
          continue;
        }
        if (produced == nullptr) {
          problem(CheckProblemKind::kDanglingIndexEntry, entry.key,
                  fmt::format("index {} has an entry its record {} does not produce", index.name(),
                              printable(entry.primaryKey)));
          continue;
        }
        if (unique && !produced->containsNonUniqueNull) {
          group.members.emplace_back(entry.primaryKey, entry.key);
        }
      }
    }
    if (unique) finishGroup(checked, group);
    progress_.indexPosition += 1;
    progress_.resumeAt.reset();
  }

  StoreChecker::Impl& c_;
  fdb::Transaction& tr_;
  Progress progress_;
  Clock::time_point deadline_;
  int64_t items_ = 0;
  bool stopped_ = false;
  CheckReport found_;
  // Set by the header phase of this step (moved into the checker when the step completes).
  bool setUp_ = false;
  Layout layout_;
  std::vector<CheckedIndex> indexes_;
  std::map<const RecordType*, std::vector<size_t>> indexesByType_;
};

}  // namespace

StoreChecker::StoreChecker(fdb::Database db, StoreLocation location, RecordMetaData metaData,
                           CheckOptions options)
    : impl_(std::make_unique<Impl>(std::move(db), std::move(location), std::move(metaData),
                                   options)) {}
StoreChecker::StoreChecker(StoreChecker&&) noexcept = default;
StoreChecker& StoreChecker::operator=(StoreChecker&&) noexcept = default;
StoreChecker::~StoreChecker() = default;

bool StoreChecker::done() const { return impl_->progress.phase == Phase::kDone; }
const CheckReport& StoreChecker::report() const { return impl_->report; }

bool StoreChecker::step(RecordContext& context) {
  if (done()) return true;
  Step step(*impl_, context);
  step.run();
  // The step completed: keep what it found.
  Impl& c = *impl_;
  if (step.setUp()) {
    c.layout = step.layout();
    c.indexes = std::move(step.indexes());
    c.indexesByType = std::move(step.indexesByType());
  }
  c.progress = step.progress();
  CheckReport& found = step.found();
  CheckReport& report = c.report;
  report.transactions += 1;
  report.recordsChecked += found.recordsChecked;
  report.recordKeysScanned += found.recordKeysScanned;
  report.indexEntriesExpected += found.indexEntriesExpected;
  report.indexEntriesScanned += found.indexEntriesScanned;
  for (std::string& name : found.indexesChecked) report.indexesChecked.push_back(std::move(name));
  for (std::string& name : found.indexesSkipped) report.indexesSkipped.push_back(std::move(name));
  for (CheckProblem& problem : found.problems) {
    if (report.problems.size() < c.options.maxProblems) {
      report.problems.push_back(std::move(problem));
    } else {
      report.problemsDropped += 1;
    }
  }
  return done();
}

CheckReport StoreChecker::run() {
  while (!done()) {
    runInContext(impl_->db, [&](RecordContext& context) { step(context); });
  }
  return impl_->report;
}

}  // namespace rl
