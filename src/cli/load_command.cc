// `rl load`: records from NDJSON, one JSON object a line through protobuf's JSON mapping (or a
// JSON array of them, when the input starts with '['),
// saved in batches of at most 500 records and 1 MB, one transaction a batch
// (docs/cli.md "rl load").
//
//   rl load --db file:/tmp/shop --path '("shop", "orders")' [--type Order] orders.ndjson
//
// A line that does not parse as a record stops the load: every line before it is saved (the
// records parsed since the last batch are committed first), none from it on, and the error
// names the line. A batch whose commit fails is not saved; the error names its lines.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/tuple_text.h"
#include "progress.h"
#include "rl/context/record_context.h"
#include "rl/metadata/record_type.h"
#include "rl/store/record_store.h"
#include "rl/store/record_store_exception.h"
#include "store.h"
#include "table.h"

namespace rl::cli {
namespace {

constexpr size_t kBatchRecords = 500;
constexpr size_t kBatchBytes = 1'000'000;  // of serialized records; FoundationDB allows 10 MB

struct LoadOptions {
  std::optional<std::string> type;
  std::string file;
  int64_t fromLine = 1;  // lines before it are skipped (resuming a load that stopped)
  bool json = false;     // the summary as JSON
};

// A record parsed from a line, waiting for its batch to commit.
struct PendingRecord {
  int64_t line;
  std::unique_ptr<google::protobuf::Message> message;
};

const RecordType& chooseRecordType(const RecordMetaData& metaData,
                                   const std::optional<std::string>& name) {
  std::vector<std::string> names;
  for (const auto& [typeName, type] : metaData.recordTypes()) names.push_back(typeName);
  if (name) {
    if (const RecordType* type = metaData.findRecordType(*name)) return *type;
    throw std::invalid_argument(
        fmt::format("--type {}: the store has no such record type (its "
                    "record types: {})",
                    *name, fmt::join(names, ", ")));
  }
  if (names.size() != 1) {
    throw std::invalid_argument(
        fmt::format("the store has {} record types ({}): --type names the one the file holds",
                    names.size(), fmt::join(names, ", ")));
  }
  return metaData.recordTypes().begin()->second;
}

class Loader {
 public:
  // `unit` names what a record came from in errors: "line" or "element".
  Loader(fdb::Database& db, StoreLocation location, RecordMetaData metaData, std::string unit)
      : db_(db),
        location_(std::move(location)),
        metaData_(std::move(metaData)),
        unit_(std::move(unit)) {}

  void add(PendingRecord record) {
    batchBytes_ += record.message->ByteSizeLong();
    batch_.push_back(std::move(record));
    if (batch_.size() >= kBatchRecords || batchBytes_ >= kBatchBytes) flush();
  }

  // Saves the pending records in one transaction. A record the store refuses is reported
  // with its line, after the records before it in the batch are saved.
  void flush() {
    if (batch_.empty()) return;
    size_t refused = batch_.size();
    std::string refusal;
    commit(batch_.size(), &refused, &refusal);
    if (refused < batch_.size()) {
      commit(refused, nullptr, nullptr);
      throw std::runtime_error(
          fmt::format("line {}: {}; {}", batch_[refused].line, refusal, keptNote()));
    }
    batch_.clear();
    batchBytes_ = 0;
  }

  int64_t saved() const { return saved_; }
  // What a failed load kept: "the 3 records before it are loaded".
  std::string keptNote() const {
    if (saved_ == 0) return "no record before it is loaded";
    return saved_ == 1 ? "the record before it is loaded"
                       : fmt::format("the {} records before it are loaded", groupDigits(saved_));
  }
  int64_t transactions() const { return transactions_; }

 private:
  // Saves batch_[0, count) in one transaction. With `refused`, a record the store refuses
  // (not a FoundationDB error) ends the attempt without committing: its position and message
  // are returned there.
  void commit(size_t count, size_t* refused, std::string* refusal) {
    if (count == 0) return;
    try {
      runInContext(db_, [&](RecordContext& context) {
        RecordStore store = RecordStore::openExisting(context, location_, metaData_);
        for (size_t i = 0; i < count; ++i) {
          try {
            store.saveRecord(*batch_[i].message);
          } catch (const fdb::Error&) {
            throw;
          } catch (const RecordIndexUniquenessViolation& e) {
            // Said from the exception's fields: its message loses the existing record's key
            // (src/rl/index/value_index.cc moves the key while formatting it).
            if (refused == nullptr) throw;
            *refused = i;
            *refusal = fmt::format(
                "unique index {}: record {} has the value {}, as record {} already does",
                e.indexName, fdb::formatTuple(e.primaryKey), fdb::formatTuple(e.valueKey),
                fdb::formatTuple(e.existingPrimaryKey));
            throw Refused{};
          } catch (const std::exception& e) {
            if (refused == nullptr) throw;
            *refused = i;
            *refusal = e.what();
            throw Refused{};
          }
        }
      });
    } catch (const Refused&) {
      return;
    } catch (const fdb::Error& e) {
      throw std::runtime_error(
          fmt::format("lines {} to {} (one transaction): {}; the lines "
                      "before {} are loaded",
                      batch_.front().line, batch_[count - 1].line, e.what(), batch_.front().line));
    }
    saved_ += static_cast<int64_t>(count);
    ++transactions_;
  }

  struct Refused {};

  fdb::Database& db_;
  StoreLocation location_;
  RecordMetaData metaData_;
  std::string unit_;
  std::vector<PendingRecord> batch_;
  size_t batchBytes_ = 0;
  int64_t saved_ = 0;
  int64_t transactions_ = 0;
};

void printSummary(const StoreArguments& args, const RecordType& type, const Loader& loader,
                  bool json) {
  if (json) {
    const nlohmann::ordered_json out = {{"store", fdb::formatTuple(storeTuple(args))},
                                        {"type", type.name()},
                                        {"records", loader.saved()},
                                        {"transactions", loader.transactions()}};
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("Loaded {} {} record{} into {} in {} transaction{}.\n", groupDigits(loader.saved()),
             type.name(), loader.saved() == 1 ? "" : "s", fdb::formatTuple(storeTuple(args)),
             groupDigits(loader.transactions()), loader.transactions() == 1 ? "" : "s");
}

// Parses `json` as a record into a new message from `prototype`; on failure, saves what came
// before and throws "UNIT N: not a valid TYPE: ...".
std::unique_ptr<google::protobuf::Message> parseRecord(const std::string& json,
                                                       const google::protobuf::Message& prototype,
                                                       const RecordType& type, Loader& loader,
                                                       const char* unit, int64_t position) {
  google::protobuf::util::JsonParseOptions parseOptions;
  parseOptions.ignore_unknown_fields = false;
  std::unique_ptr<google::protobuf::Message> message(prototype.New());
  const auto status =
      google::protobuf::util::JsonStringToMessage(json, message.get(), parseOptions);
  if (status.ok()) return message;
  loader.flush();  // every record before this one is kept
  // protobuf's parser may add the text and a caret on lines of their own: the first line says
  // what is wrong.
  const std::string why(status.message());
  throw std::runtime_error(fmt::format("{} {}: not a valid {}: {}; {}", unit, position, type.name(),
                                       why.substr(0, why.find('\n')), loader.keptNote()));
}

// Skips the whitespace before the first character; returns that character (EOF at the end) and
// counts the newlines skipped.
int peekFirst(std::istream& in, int64_t& newlines) {
  while (true) {
    const int c = in.peek();
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
    if (c == '\n') ++newlines;
    in.get();
  }
}

// A JSON array of records: each element saved as a line of NDJSON would be.
void loadArray(std::istream& in, const google::protobuf::Message& prototype, const RecordType& type,
               Loader& loader, int64_t fromElement) {
  nlohmann::json array;
  try {
    array = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("not valid JSON: {}", e.what()));
  }
  int64_t element = 0;
  for (const nlohmann::json& value : array) {
    ++element;
    if (element < fromElement) continue;
    loader.add({element, parseRecord(value.dump(), prototype, type, loader, "element", element)});
  }
}

void runLoad(const StoreArguments& args, const LoadOptions& options) {
  const StoreLocation location = storeLocation(args);
  if (options.fromLine < 1) {
    throw std::invalid_argument(
        fmt::format("--from-line {}: lines are counted from 1", options.fromLine));
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  int64_t fileSize = -1;
  if (options.file != "-") {
    file.open(options.file, std::ios::binary);
    if (!file) {
      throw std::runtime_error(
          fmt::format("cannot read {}: no such file or not readable", options.file));
    }
    file.seekg(0, std::ios::end);
    fileSize = file.tellg();
    file.seekg(0, std::ios::beg);
    in = &file;
  }
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadWrite);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  const RecordType& type = chooseRecordType(metaData, options.type);
  const google::protobuf::Message* prototype =
      metaData.messageFactory()->GetPrototype(&type.descriptor());

  // A bar on a terminal only: the load's own output is the summary.
  std::optional<Progress> progress;
  if (fileSize > 0 && ::isatty(STDERR_FILENO) == 1) progress.emplace("loading", fileSize);

  int64_t line = 0;
  if (peekFirst(*in, line) == '[') {
    Loader loader(db, location, metaData, "element");
    loadArray(*in, *prototype, type, loader, options.fromLine);
    loader.flush();
    printSummary(args, type, loader, options.json);
    return;
  }
  Loader loader(db, location, metaData, "line");
  std::string text;
  int64_t bytesRead = 0;
  while (std::getline(*in, text)) {
    ++line;
    bytesRead += static_cast<int64_t>(text.size()) + 1;
    if (line < options.fromLine) continue;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines
    loader.add({line, parseRecord(text, *prototype, type, loader, "line", line)});
    if (progress) {
      progress->update(bytesRead,
                       fmt::format("bytes, {} records saved", groupDigits(loader.saved())));
    }
  }
  loader.flush();
  if (progress) {
    progress->update(fileSize, fmt::format("bytes, {} records saved", groupDigits(loader.saved())));
    progress->finish();
  }
  printSummary(args, type, loader, options.json);
}

}  // namespace

void addLoadCommand(CLI::App& app) {
  CLI::App* load = app.add_subcommand(
      "load",
      "Save records from NDJSON (one JSON object a line, protobuf's JSON mapping) or a JSON array "
      "into a record store, 500 records or 1 MB a transaction");
  auto args = std::make_shared<StoreArguments>();
  auto options = std::make_shared<LoadOptions>();
  addStoreArguments(load, *args);
  load->add_option("--type", options->type,
                   "The record type of every line (needed when the store has several)");
  load->add_option("--from-line", options->fromLine,
                   "Start at this line of the file (resuming a load that stopped at it), lines "
                   "counted from 1; in a JSON array, at this element")
      ->capture_default_str();
  load->add_flag("--json", options->json,
                 "Print the summary as JSON: {\"store\", \"type\", \"records\", \"transactions\"}");
  load->add_option("file", options->file, "The NDJSON file, or - for standard input")->required();
  load->callback([args, options] { runLoad(*args, *options); });
}

}  // namespace rl::cli
