// `rl store create|info`: a record store from a .proto file compiled at run time, its metadata
// kept in the store's metadata store (docs/cli.md "Record stores"; the layout in store.h).
//
//   rl store create --db file:/tmp/shop --path '("shop", "orders")' --proto orders.proto
//   rl store info --db file:/tmp/shop --path '("shop", "orders")' [--json]
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fdb/tuple_text.h"
#include "rl/index.h"
#include "rl/metadata_exception.h"
#include "rl/metadata_store.h"
#include "rl/proto_schema_loader.h"
#include "rl/record_context.h"
#include "rl/record_store.h"
#include "rl/record_type.h"
#include "store.h"
#include "table.h"

namespace rl::cli {
namespace {

struct CreateOptions {
  std::string proto;
  std::vector<std::string> importDirs;
};

void runCreate(const StoreArguments& args, const CreateOptions& options) {
  const StoreLocation location = storeLocation(args);  // checks --path before anything else
  const StoreLocation metaLocation = metaDataLocation(args);
  std::optional<RecordMetaData> loaded;
  try {
    loaded = loadRecordMetaData(options.proto, options.importDirs);
  } catch (const MetaDataException& e) {
    throw MetaDataException(oneLine(e.what()));  // protoc's errors come one a line
  }
  const RecordMetaData& metaData = *loaded;
  fdb::Database db = openStoreDatabase(args);
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
  fdb::Database db = openStoreDatabase(args);
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
                                       "show one's metadata and index states");
  store->require_subcommand(1);

  auto args = std::make_shared<StoreArguments>();
  auto options = std::make_shared<CreateOptions>();
  CLI::App* create = store->add_subcommand(
      "create",
      "Create a record store: compile a .proto file (its record_metadata_options give the "
      "primary keys and indexes), keep the metadata in the store's metadata store, write the "
      "store's header");
  addStoreArguments(create, *args);
  create->add_option("--proto", options->proto, "The schema's .proto file")->required();
  create->add_option("-I,--import-dir", options->importDirs,
                     "Where the schema's imports are looked up (repeatable; the .proto's own "
                     "directory always is)");
  create->callback([args, options] { runCreate(*args, *options); });

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
