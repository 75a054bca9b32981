// `rl store create|info`: a record store from a .proto file compiled at run time, its metadata
// kept in the store's metadata store (docs/cli.md "Record stores"; the layout in store.h).
//
//   rl store create --db file:/tmp/shop --path '("shop", "orders")' --proto orders.proto
//   rl store info --db file:/tmp/shop --path '("shop", "orders")' [--json]
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <google/protobuf/util/message_differencer.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/tuple_text.h"
#include "index_spec.h"
#include "rl/context/record_context.h"
#include "rl/metadata/index.h"
#include "rl/metadata/key_expression.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_evolution_validator.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/metadata/proto_schema_loader.h"
#include "rl/metadata/record_type.h"
#include "rl/store/metadata_store.h"
#include "rl/store/record_store.h"
#include "store.h"
#include "table.h"

namespace rl::cli {
namespace {

struct CreateOptions {
  std::string proto;
  std::vector<std::string> importDirs;
  // Metadata options over the .proto file's own.
  std::optional<bool> splitLongRecords;
  std::optional<bool> storeRecordVersions;
  std::vector<std::string> indexes;        // [INDEXTYPE:]TYPE:FIELD[,FIELD...]
  std::vector<std::string> uniqueIndexes;  // the same, unique
  std::vector<std::string> primaryKeys;    // TYPE:FIELD[,FIELD...]
  std::optional<int> version;
  // How rl store open checks the new metadata against the stored one.
  MetaDataEvolutionOptions evolution;
};

// TYPE:FIELD[,FIELD...] as given to `option`: the record type and its fields. `what` names it
// in errors ("an index"), `example` shows one ("Order:customer").
std::pair<std::string, std::vector<std::string>> typeAndFields(std::string_view option,
                                                               const std::string& text,
                                                               std::string_view what,
                                                               std::string_view example) {
  const size_t colon = text.find(':');
  const std::string type = text.substr(0, colon);
  std::vector<std::string> fields;
  if (colon != std::string::npos) {
    const std::string list = text.substr(colon + 1);
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      fields.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  if (type.empty() || fields.empty() ||
      std::any_of(fields.begin(), fields.end(), [](const std::string& f) { return f.empty(); })) {
    throw std::invalid_argument(
        fmt::format("{} {}: {} is TYPE:FIELD[,FIELD...], e.g. {}", option, text, what, example));
  }
  return {type, fields};
}

// The key of `fields` in order: one field, or their concatenation. "version()" is the
// record's version.
KeyExpression fieldsKey(const std::vector<std::string>& fields) {
  std::vector<KeyExpression> columns;
  columns.reserve(fields.size());
  for (const std::string& f : fields) columns.push_back(f == "version()" ? version() : field(f));
  return columns.size() == 1 ? columns.front() : concatAll(columns);
}

// An index from [TYPE:]RecordType:FIELD[,FIELD...] (index_spec.h).
void addIndexOption(RecordMetaDataBuilder& builder, const std::string& text, bool unique) {
  const IndexSpec spec = parseIndexSpec(unique ? "--unique-index" : "--index", text);
  builder.addIndex(spec.recordType, indexFromSpec(spec, unique));
}

// A record type's primary key from TYPE:FIELD[,FIELD...], in place of the .proto's
// (primary_key) field option: what a schema without record_metadata_options.proto needs.
void setPrimaryKeyOption(RecordMetaDataBuilder& builder, const std::string& text) {
  const auto [type, fields] = typeAndFields("--primary-key", text, "a primary key", "User:id");
  RecordTypeBuilder* recordType = nullptr;
  try {
    recordType = &builder.recordType(type);
  } catch (const MetaDataException& e) {
    throw std::invalid_argument(fmt::format("--primary-key {}: {}", text, e.what()));
  }
  recordType->setPrimaryKey(fieldsKey(fields));
}

// The metadata the .proto file declares, with the command line's options over it, ready to
// build.
RecordMetaDataBuilder schemaBuilder(const CreateOptions& options) {
  LoadedSchema schema = ProtoSchemaLoader(options.importDirs).load(options.proto);
  RecordMetaDataBuilder builder(schema);
  if (options.splitLongRecords) builder.setSplitLongRecords(*options.splitLongRecords);
  if (options.storeRecordVersions) builder.setStoreRecordVersions(*options.storeRecordVersions);
  for (const std::string& primaryKey : options.primaryKeys)
    setPrimaryKeyOption(builder, primaryKey);
  for (const std::string& index : options.indexes) addIndexOption(builder, index, false);
  for (const std::string& index : options.uniqueIndexes) addIndexOption(builder, index, true);
  if (options.version) {
    if (*options.version < builder.version()) {
      throw std::invalid_argument(
          fmt::format("--version {}: the metadata's version is at least {} (one per index)",
                      *options.version, builder.version()));
    }
    builder.setVersion(*options.version);
  }
  return builder;
}

RecordMetaData buildMetaData(const CreateOptions& options) {
  return schemaBuilder(options).build();
}

void runCreate(const StoreArguments& args, const CreateOptions& options) {
  const StoreLocation location = storeLocation(args);  // checks --path before anything else
  const StoreLocation metaLocation = metaDataLocation(args);
  std::optional<RecordMetaData> loaded;
  try {
    loaded = buildMetaData(options);
  } catch (const MetaDataException& e) {
    throw MetaDataException(oneLine(e.what()));  // protoc's errors come one a line
  }
  const RecordMetaData& metaData = *loaded;
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadWrite);
  int formatVersion = 0;
  runInContext(db, [&](RecordContext& context) {
    // The store first: creating it checks that its key range holds nothing yet.
    RecordStore store = RecordStore::create(context, location, metaData);
    MetaDataStore(context, metaLocation).save(metaData);
    formatVersion = store.formatVersion();
  });
  std::vector<std::string> types;
  for (const auto& [name, type] : metaData.recordTypes()) types.push_back(name);
  fmt::print(
      "Created the record store {} in {}: format version {}, metadata version {}, "
      "record types {}, {} index{}.\n",
      fdb::formatTuple(storeTuple(args)), args.db, formatVersion, metaData.version(),
      fmt::join(types, ", "), metaData.allIndexes().size(),
      metaData.allIndexes().size() == 1 ? "" : "es");
}

// An evolution rule's refusal as rl store open says it: the options it names as the flags that
// set them.
std::string withFlagNames(std::string message) {
  static const std::pair<std::string_view, std::string_view> kFlags[] = {
      {"allowIndexRebuilds", "--allow-index-rebuilds"},
      {"allowFieldRenames", "--allow-field-renames"},
      {"allowUndeprecatingFields", "--allow-undeprecating-fields"},
      {"allowUnsplitToSplit", "--allow-unsplit-to-split"},
  };
  for (const auto& [option, flag] : kFlags) {
    const size_t at = message.find(option);
    if (at != std::string::npos) message.replace(at, option.size(), flag);
  }
  return message;
}

// `rl store open`: the store with this schema; creates it when there is none, else evolves its
// metadata (the version must go up, or stay with the same metadata): the schema's metadata
// made a successor of the stored one (RecordMetaDataBuilder::evolveFrom) and checked against
// it by the evolution rules before it replaces it.
void runOpen(const StoreArguments& args, const CreateOptions& options) {
  const StoreLocation location = storeLocation(args);
  const StoreLocation metaLocation = metaDataLocation(args);
  std::optional<RecordMetaDataBuilder> builder;
  std::optional<RecordMetaData> loaded;
  try {
    builder = schemaBuilder(options);
    loaded = builder->build();
  } catch (const MetaDataException& e) {
    throw MetaDataException(oneLine(e.what()));
  }
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadWrite);
  int storedVersion = -1;
  bool unchanged = false;
  int formatVersion = 0;
  // "New index NAME" or "Rebuilt index NAME", and its state.
  std::vector<std::pair<std::string, std::string>> newIndexes;
  runInContext(db, [&](RecordContext& context) {
    newIndexes.clear();
    MetaDataStore metaDataStore(context, metaLocation);
    metaDataStore.setEvolutionValidator(MetaDataEvolutionValidator(options.evolution));
    const std::optional<MetaDataProto> stored = metaDataStore.loadProto();
    storedVersion = stored ? stored->version() : -1;
    if (stored && stored->version() > builder->version()) {
      throw std::invalid_argument(fmt::format(
          "the store's metadata version {} is above this schema's {}: an older schema cannot "
          "replace it",
          stored->version(), builder->version()));
    }
    std::optional<RecordMetaData> previous;
    if (stored) {
      previous = RecordMetaData::fromProto(*stored);
      RecordMetaDataBuilder successor = *builder;
      successor.evolveFrom(*previous);
      loaded = successor.build();
    }
    const RecordMetaData& metaData = *loaded;
    unchanged = stored && stored->version() == metaData.version();
    if (unchanged &&
        !google::protobuf::util::MessageDifferencer::Equals(*stored, metaData.toProto())) {
      throw std::invalid_argument(
          fmt::format("the store's metadata version {} is this schema's, but the metadata "
                      "differs: a changed schema needs a higher --version",
                      metaData.version()));
    }
    if (!unchanged) {
      try {
        metaDataStore.save(metaData);
      } catch (const MetaDataException& e) {
        throw MetaDataException(withFlagNames(e.what()));
      }
    }
    RecordStore store = RecordStore::open(context, location, metaData);
    formatVersion = store.formatVersion();
    for (const auto& index : metaData.allIndexes()) {
      const bool kept = previous && previous->hasIndex(index->name());
      if (kept && index->lastModifiedVersion() <= previous->version()) continue;
      newIndexes.emplace_back((kept ? "Rebuilt index " : "New index ") + index->name(),
                              std::string(indexStateName(store.indexState(index->name()))));
    }
  });
  const RecordMetaData& metaData = *loaded;
  const std::string store = fdb::formatTuple(storeTuple(args));
  if (storedVersion < 0) {
    fmt::print("Created the record store {} in {}: format version {}, metadata version {}.\n",
               store, args.db, formatVersion, metaData.version());
  } else if (unchanged) {
    fmt::print("The record store {} in {} has this schema: metadata version {}.\n", store, args.db,
               metaData.version());
  } else {
    fmt::print("Updated the record store {} in {}: metadata version {} -> {}.\n", store, args.db,
               storedVersion, metaData.version());
  }
  if (storedVersion >= 0) {
    for (const auto& [what, state] : newIndexes) fmt::print("{}: {}\n", what, state);
  }
}

std::vector<std::string> recordTypeNames(const RecordMetaData& metaData, const Index& index) {
  std::vector<std::string> names;
  for (const RecordType* type : metaData.recordTypesForIndex(index)) names.push_back(type->name());
  return names;
}

std::string recordTypesOf(const RecordMetaData& metaData, const Index& index) {
  return fmt::format("{}", fmt::join(recordTypeNames(metaData, index), ", "));
}

void runInfo(const StoreArguments& args, bool json) {
  const StoreLocation location = storeLocation(args);
  fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
  const RecordMetaData metaData = loadStoreMetaData(db, args);
  DataStoreInfo header;
  std::vector<std::string> states;
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::openExisting(context, location, metaData);
    header = store.header();
    states.clear();
    for (const auto& index : metaData.allIndexes()) {
      states.emplace_back(indexStateName(store.indexState(index->name())));
    }
  });

  const auto& indexes = metaData.allIndexes();
  if (json) {
    nlohmann::ordered_json out = {
        {"store", fdb::formatTuple(storeTuple(args))},
        {"format_version", header.formatversion()},
        {"metadata_version", header.metadataversion()},
        {"split_long_records", metaData.splitLongRecords()},
        {"store_record_versions", metaData.storeRecordVersions()},
        {"record_types", nlohmann::ordered_json::array()},
        {"indexes", nlohmann::ordered_json::array()},
    };
    for (const auto& [name, type] : metaData.recordTypes()) {
      out["record_types"].push_back(
          {{"name", name}, {"primary_key", type.primaryKey().toString()}});
    }
    for (size_t i = 0; i < indexes.size(); ++i) {
      out["indexes"].push_back({{"name", indexes[i]->name()},
                                {"type", indexes[i]->type()},
                                {"record_types", recordTypeNames(metaData, *indexes[i])},
                                {"key", indexes[i]->rootExpression().toString()},
                                {"unique", indexes[i]->isUnique()},
                                {"state", states[i]}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }

  fmt::print("Record store {} in {}\n", fdb::formatTuple(storeTuple(args)), args.db);
  Table facts({{"format version"},
               {"metadata version"},
               {"split long records"},
               {"store record versions"}});
  facts.addRow({std::to_string(header.formatversion()), std::to_string(header.metadataversion()),
                metaData.splitLongRecords() ? "yes" : "no",
                metaData.storeRecordVersions() ? "yes" : "no"});
  facts.print(stdout, 2);
  fmt::print("\nRecord types:\n");
  Table types({{"type"}, {"primary key"}});
  for (const auto& [name, type] : metaData.recordTypes()) {
    types.addRow({name, type.primaryKey().toString()});
  }
  types.print(stdout, 2);
  fmt::print("\nIndexes:\n");
  if (indexes.empty()) {
    fmt::print("  (none)\n");
    return;
  }
  Table table({{"index"}, {"type"}, {"on"}, {"key"}, {"unique"}, {"state"}});
  for (size_t i = 0; i < indexes.size(); ++i) {
    table.addRow({indexes[i]->name(), indexes[i]->type(), recordTypesOf(metaData, *indexes[i]),
                  indexes[i]->rootExpression().toString(), indexes[i]->isUnique() ? "yes" : "no",
                  states[i]});
  }
  table.print(stdout, 2);
}

// The schema file and the metadata options over it, which rl store create and rl store open
// share.
void addSchemaOptions(CLI::App* command, CreateOptions& options) {
  command->add_option("--proto", options.proto, "The schema's .proto file")->required();
  command->add_option("-I,--import-dir", options.importDirs,
                      "Where the schema's imports are looked up (repeatable; the .proto's own "
                      "directory always is)");
  command->add_option("--split-long-records", options.splitLongRecords,
                      "true or false: split records over 100,000 bytes across keys (default: the "
                      ".proto's split_long_records)");
  command->add_option("--store-record-versions", options.storeRecordVersions,
                      "true or false: store each record's commit version (default: the .proto's "
                      "store_record_versions)");
  command->add_option("--primary-key", options.primaryKeys,
                      "A record type's primary key TYPE:FIELD[,FIELD...], for a schema whose "
                      ".proto does not mark it (repeatable; kept in the metadata)");
  command->add_option(
      "--index", options.indexes,
      "Add an index [INDEXTYPE:]TYPE:FIELD[,FIELD...] keyed by the fields in "
      "order (version() is the record's version): a value index TYPE$FIELD[-FIELD...] by "
      "default; version: a VERSION index of the same name; count:, sum:, min_ever:, "
      "max_ever:, ... an aggregate, rank: a RANK index, named TYPE$FIELD[-FIELD...]$INDEXTYPE "
      "(count groups by every field; the others aggregate or rank the last field, grouped by "
      "those before it) (repeatable)");
  command->add_option("--unique-index", options.uniqueIndexes,
                      "Add a unique VALUE index, as --index (repeatable)");
  command->add_option("--version", options.version,
                      "The metadata version (default: one per index); rl store open needs it "
                      "above the stored one for a changed schema");
}

// How rl store open may evolve a store's metadata: the evolution rules' relaxations.
void addEvolutionOptions(CLI::App* command, MetaDataEvolutionOptions& evolution) {
  command->add_flag("--allow-index-rebuilds", evolution.allowIndexRebuilds,
                    "Allow changing an index's definition (it is rebuilt: cleared, then built as "
                    "a new index is)");
  command->add_flag("--allow-field-renames", evolution.allowFieldRenames,
                    "Allow renaming fields (same number, new name)");
  command->add_flag("--allow-deprecated-field-renames", evolution.allowDeprecatedFieldRenames,
                    "Allow renaming fields that are deprecated, before or after");
  command->add_flag("--allow-undeprecating-fields", evolution.allowUndeprecatingFields,
                    "Allow a deprecated field to stop being deprecated");
  command->add_flag("--allow-unsplit-to-split", evolution.allowUnsplitToSplit,
                    "Allow turning split_long_records on (safe for stores created at format "
                    "version 5 or later)");
  command->add_flag("--disallow-type-renames", evolution.disallowTypeRenames,
                    "Refuse renamed record types");
}

}  // namespace

void addStoreArguments(CLI::App* command, StoreArguments& args) {
  command->add_option("--db", args.db,
                      "The database (required): memory:<name>, file:<dir>, a directory path or "
                      "fdb:<cluster file>");
  command->add_option("--path", args.path,
                      "The record store (required): its tuple, e.g. '(\"shop\", \"orders\")'");
}

void addStoreCommand(CLI::App& app) {
  CLI::App* store = app.add_subcommand("store",
                                       "Record stores: create one from a .proto file, "
                                       "open one with a new schema, show one's metadata and "
                                       "index states");
  store->require_subcommand(1);

  auto args = std::make_shared<StoreArguments>();
  auto options = std::make_shared<CreateOptions>();
  CLI::App* create = store->add_subcommand(
      "create",
      "Create a record store: compile a .proto file (its record_metadata_options give the "
      "primary keys and indexes), keep the metadata in the store's metadata store, write the "
      "store's header");
  addStoreArguments(create, *args);
  addSchemaOptions(create, *options);
  create->callback([args, options] { runCreate(*args, *options); });

  CLI::App* open = store->add_subcommand(
      "open",
      "Open a record store with a schema: create it when there is none, else make this schema "
      "its metadata (a higher version; new indexes are built at once on stores of at most 200 "
      "records, else DISABLED, for rl index build; removed indexes are cleared)");
  addStoreArguments(open, *args);
  addSchemaOptions(open, *options);
  addEvolutionOptions(open, options->evolution);
  open->callback([args, options] { runOpen(*args, *options); });

  auto json = std::make_shared<bool>(false);
  CLI::App* info = store->add_subcommand(
      "info",
      "Show a record store: format and metadata versions, record types, indexes and "
      "their states");
  addStoreArguments(info, *args);
  info->add_flag("--json", *json, "Print JSON");
  info->callback([args, json] { runInfo(*args, *json); });
}

}  // namespace rl::cli
