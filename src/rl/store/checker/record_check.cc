// The record check: every record under (1) — its keys, split chunks and version — and the
// entries each record should have in the checked indexes covering it; and the reading of the
// records under given primary keys that index checks ask for (check_step.h).
#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <utility>

#include "fdb/error.h"
#include "rl/record/record_version.h"
#include "rl/record/split_helper.h"
#include "rl/store/checker/check_step.h"
#include "rl/store/keyspace.h"
#include "rl/store/record_codec.h"

namespace rl::checker {
namespace {

std::string printable(std::string_view bytes) { return fdb::printable(bytes); }
std::string printable(const fdb::Tuple& tuple) { return fdb::printable(tuple.pack()); }

// A record's key-values as read, before assembly.
struct RecordRows {
  fdb::Tuple primaryKey;
  std::vector<fdb::KeyValue> rows;
};

class RecordCheck {
 public:
  explicit RecordCheck(CheckStep& step) : step_(step) {}

  // The record phase: every record under (1), from where the last step stopped.
  void checkRecords() {
    const fdb::KeyRange all = step_.checker.recordsSubspace.range();
    fdb::Bytes begin = step_.progress.resumeAt.value_or(all.begin);
    // The last group of the batch read, whose record may go on in the next batch.
    RecordGroup open;
    bool exhausted = false;
    while (!exhausted) {
      const fdb::RangeResult batch = step_.readBatch(begin, all.end);
      exhausted = !batch.more;
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
            (open.record->primaryKey != *primaryKey || step_.layout().legacyUnsuffixed())) {
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
      std::vector<CheckedRecord> parsed;
      std::optional<fdb::Bytes> stopAt;
      for (RecordGroup& group : complete) {
        if (!group.record) {
          countGroup(group);
          continue;
        }
        if (step_.items() > 0 && step_.budgetSpent()) {
          stopAt = group.record->rows.front().key;
          break;
        }
        step_.countItem();
        countGroup(group);
        RecordRows& rows = *group.record;
        if (hasData(rows)) step_.found.recordsChecked += 1;
        std::optional<Assembled> assembled = assemble(rows, true);
        if (!assembled) continue;
        std::optional<CheckedRecord> record = parse(rows, std::move(*assembled), true);
        if (record) parsed.push_back(std::move(*record));
      }
      checkEntriesOf(parsed);
      if (!stopAt && !exhausted && open.record && step_.items() > 0 && step_.budgetSpent()) {
        stopAt = open.record->rows.front().key;
      }
      if (stopAt) {
        step_.stopAt(std::move(*stopAt));
        return;
      }
    }
    step_.nextPhase(step_.setup().indexes.empty() ? Phase::kDone : Phase::kIndexes);
    step_.progress.indexPosition = 0;
  }

  // The records under `primaryKeys`, read silently.
  std::map<fdb::Tuple, RecordUnderKey> readRecords(const std::set<fdb::Tuple>& primaryKeys) {
    std::vector<std::pair<fdb::Tuple, fdb::Future<fdb::RangeResult>>> ranges;
    std::vector<std::pair<fdb::Tuple, fdb::Future<std::optional<fdb::Bytes>>>> gets;
    fdb::RangeOptions all;
    all.mode = fdb::StreamingMode::kWantAll;
    for (const fdb::Tuple& primaryKey : primaryKeys) {
      if (step_.layout().legacyUnsuffixed()) {
        gets.emplace_back(primaryKey,
                          step_.reads().get(step_.checker.recordsSubspace.pack(primaryKey)));
      } else {
        ranges.emplace_back(primaryKey, step_.reads().getRange(
                                            step_.checker.recordsSubspace.range(primaryKey), all));
      }
    }
    std::vector<RecordRows> rows;
    for (auto& [primaryKey, read] : gets) {
      const std::optional<fdb::Bytes> value = std::move(read).get();
      RecordRows record{primaryKey, {}};
      if (value) {
        record.rows.push_back(
            fdb::KeyValue{step_.checker.recordsSubspace.pack(primaryKey), *value});
      }
      rows.push_back(std::move(record));
    }
    for (auto& [primaryKey, read] : ranges) {
      fdb::RangeResult result = std::move(read).get();
      RecordRows record{primaryKey, {}};
      for (const fdb::KeyValueRef& row : result.rows) record.rows.push_back(row);
      if (result.more) {  // a record longer than one batch
        const fdb::KeyRange range = step_.checker.recordsSubspace.range(primaryKey);
        const fdb::Bytes after = record.rows.back().key + '\x00';
        for (fdb::KeyValue& row : step_.reads().getRangeAll(fdb::KeyRange{after, range.end})) {
          record.rows.push_back(std::move(row));
        }
      }
      rows.push_back(std::move(record));
    }

    std::map<fdb::Tuple, RecordUnderKey> found;
    std::vector<CheckedRecord> parsed;
    for (RecordRows& record : rows) {
      RecordUnderKey& under = found[record.primaryKey];
      if (!hasData(record)) {
        under.versionOnly = !record.rows.empty();
        continue;
      }
      under.exists = true;
      std::optional<Assembled> assembled = assemble(record, false);
      if (!assembled) continue;
      std::optional<CheckedRecord> one = parse(record, std::move(*assembled), false);
      if (one) parsed.push_back(std::move(*one));
    }
    loadOldFormatVersions(parsed, false);
    for (CheckedRecord& record : parsed) {
      RecordUnderKey& under = found[record.primaryKey];
      under.record = std::move(record);
    }
    return found;
  }

 private:
  // The primary key a record key belongs to, or nullopt when it has none (a problem, reported
  // when `report`).
  std::optional<fdb::Tuple> recordPrimaryKey(std::string_view key, bool report) {
    fdb::Tuple tuple;
    try {
      tuple = step_.checker.recordsSubspace.unpack(key);
    } catch (const fdb::Error& e) {
      if (report) {
        step_.problem(CheckProblemKind::kUndecodableKey, key,
                      fmt::format("a key under the records subspace is not a tuple: {}", e.what()));
      }
      return std::nullopt;
    }
    if (step_.layout().legacyUnsuffixed()) return tuple;
    if (tuple.size() < 2) {
      if (report) {
        step_.problem(CheckProblemKind::kBadSplit, key,
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
    if (step_.layout().legacyUnsuffixed()) return !record.rows.empty();
    for (const fdb::KeyValue& row : record.rows) {
      try {
        const fdb::Tuple tuple = step_.checker.recordsSubspace.unpack(row.key);
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
      if (report) step_.problem(kind, key, std::move(message));
      return std::nullopt;
    };
    Assembled out;
    if (step_.layout().legacyUnsuffixed()) {
      out.firstKey = record.rows.front().key;
      out.bytes = record.rows.front().value;
      return out;
    }
    bool hasUnsplit = false;
    int64_t lastChunk = 0;
    for (const fdb::KeyValue& row : record.rows) {
      fdb::Tuple tuple;
      try {
        tuple = step_.checker.recordsSubspace.unpack(row.key);
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
        if (step_.layout().oldVersionFormat()) {
          return fail(
              CheckProblemKind::kBadSplit, row.key,
              fmt::format("an inline version in a store that keeps versions at (8, pk) "
                          "(format version {}{})",
                          step_.layout().formatVersion,
                          step_.layout().omitUnsplitSuffix ? ", unsplit suffix omitted" : ""));
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
        if (!step_.layout().splitLongRecords) {
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
  std::optional<CheckedRecord> parse(const RecordRows& record, Assembled&& assembled, bool report) {
    CheckedRecord parsed;
    parsed.primaryKey = record.primaryKey;
    parsed.firstKey = std::move(assembled.firstKey);
    parsed.version = assembled.version;
    try {
      const StoreChecker::Impl& c = step_.checker;
      parsed.message = store::parseStoredRecord(c.metaData, *c.factory, c.serializer,
                                                assembled.bytes, parsed.type);
    } catch (const std::exception& e) {
      if (report) step_.problem(CheckProblemKind::kUndecodableRecord, parsed.firstKey, e.what());
      return std::nullopt;
    }
    if (report) {
      try {
        const fdb::Tuple evaluated = parsed.type->primaryKey().evaluateSingleton(
            *parsed.message, parsed.type->evaluationContext());
        if (evaluated != parsed.primaryKey) {
          step_.problem(
              CheckProblemKind::kWrongPrimaryKey, parsed.firstKey,
              fmt::format("a record of type {} whose primary key is {} is stored under {}",
                          parsed.type->name(), printable(evaluated), printable(parsed.primaryKey)));
        }
      } catch (const std::exception& e) {
        step_.problem(CheckProblemKind::kWrongPrimaryKey, parsed.firstKey,
                      fmt::format("the primary key of a record of type {} does not evaluate: {}",
                                  parsed.type->name(), e.what()));
      }
    }
    return parsed;
  }

  // Old-format versions at (8, pk) of several records, read together (problems reported
  // when `report`).
  void loadOldFormatVersions(std::vector<CheckedRecord>& records, bool report) {
    if (!step_.layout().oldVersionFormat()) return;
    const fdb::Subspace versions =
        step_.checker.subspace.subspace(fdb::Tuple{keyspace::kRecordVersion});
    std::vector<fdb::Future<std::optional<fdb::Bytes>>> reads;
    reads.reserve(records.size());
    for (const CheckedRecord& record : records) {
      reads.push_back(step_.reads().get(versions.pack(record.primaryKey)));
    }
    for (size_t i = 0; i < records.size(); ++i) {
      const std::optional<fdb::Bytes> value = std::move(reads[i]).get();
      if (!value) continue;
      try {
        records[i].version = RecordVersion::fromOldFormatValue(*value);
      } catch (const std::exception& e) {
        if (report) {
          step_.problem(CheckProblemKind::kBadSplit, versions.pack(records[i].primaryKey),
                        fmt::format("the old-format version does not decode: {}", e.what()));
        }
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
    if (group.record) {
      step_.found.recordKeysScanned += static_cast<int64_t>(group.record->rows.size());
    }
    for (const fdb::Bytes& key : group.strayKeys) {
      step_.found.recordKeysScanned += 1;
      recordPrimaryKey(key, /*report=*/true);
    }
  }

  // Checks every record's entries in every index covering it (reads issued together).
  void checkEntriesOf(std::vector<CheckedRecord>& records) {
    loadOldFormatVersions(records, true);
    struct Lookup {
      ExpectedIndexEntry entry;
      std::string indexName;
      fdb::Future<std::optional<fdb::Bytes>> read;
    };
    std::vector<Lookup> lookups;
    const Setup& setup = step_.setup();
    for (const CheckedRecord& record : records) {
      for (size_t position : setup.indexesFor(*record.type)) {
        const CheckedIndex& checked = setup.indexes[position];
        std::vector<ExpectedIndexEntry> expected;
        try {
          expected = checked.check->expectedEntries(record);
        } catch (const std::exception& e) {
          step_.problem(CheckProblemKind::kUndecodableRecord, record.firstKey,
                        fmt::format("index {} does not evaluate on the record: {}",
                                    checked.index->name(), e.what()));
          continue;
        }
        for (ExpectedIndexEntry& entry : expected) {
          fdb::Future<std::optional<fdb::Bytes>> read = step_.reads().get(entry.key);
          lookups.push_back(Lookup{std::move(entry), checked.index->name(), std::move(read)});
        }
      }
    }
    for (Lookup& lookup : lookups) {
      step_.found.indexEntriesExpected += 1;
      const std::optional<fdb::Bytes> stored = std::move(lookup.read).get();
      if (!stored) {
        step_.problem(CheckProblemKind::kMissingIndexEntry, lookup.entry.key,
                      fmt::format("index {} lacks the entry of its record", lookup.indexName));
      } else if (*stored != lookup.entry.value) {
        step_.problem(
            CheckProblemKind::kWrongIndexValue, lookup.entry.key,
            fmt::format("index {} entry has value {}; its record gives {}", lookup.indexName,
                        printable(*stored), printable(lookup.entry.value)));
      }
    }
  }

  CheckStep& step_;
};

}  // namespace

void checkRecords(CheckStep& step) { RecordCheck(step).checkRecords(); }

std::map<fdb::Tuple, RecordUnderKey> readRecordsAt(CheckStep& step,
                                                   const std::set<fdb::Tuple>& primaryKeys) {
  return RecordCheck(step).readRecords(primaryKeys);
}

}  // namespace rl::checker
