#include "store.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include "fdb/tuple_text.h"
#include "rl/context/record_context.h"
#include "rl/store/metadata_store.h"
#include "tuple_argument.h"

namespace rl::cli {

fdb::Tuple storeTuple(const StoreArguments& args) {
  if (args.path.empty()) {
    throw std::invalid_argument(
        "--path STORE is required: the store's tuple, e.g. '(\"shop\", \"orders\")'");
  }
  fdb::Tuple tuple;
  try {
    tuple = parseTupleArgument(args.path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("--path: {}", e.what()));
  }
  if (tuple.empty())
    throw std::invalid_argument("--path: a store's tuple has at least one element");
  return tuple;
}

StoreLocation storeLocation(const StoreArguments& args) {
  return StoreLocation::tuple(storeTuple(args));
}

fdb::Tuple metaDataTuple(const StoreArguments& args) {
  fdb::Tuple tuple{std::string(kMetaDataPrefix)};
  tuple.appendAll(storeTuple(args));
  return tuple;
}

StoreLocation metaDataLocation(const StoreArguments& args) {
  return StoreLocation::tuple(metaDataTuple(args));
}

fdb::Database openStoreDatabase(const StoreArguments& args, DatabaseAccess access) {
  if (args.db.empty()) {
    throw std::invalid_argument(
        "--db ADDRESS is required: memory:<name>, file:<dir>, a directory path, fdb:<cluster "
        "file> or fdb:");
  }
  return openDatabase(args.db, access);
}

RecordMetaData loadStoreMetaData(fdb::Database& db, const StoreArguments& args) {
  const StoreLocation location = metaDataLocation(args);
  std::optional<RecordMetaData> metaData = runInContext(
      db, [&](RecordContext& context) { return MetaDataStore(context, location).load(); });
  if (!metaData) {
    throw std::runtime_error(
        fmt::format("no record store at {} (no metadata at {}): rl store "
                    "create makes one",
                    fdb::formatTuple(storeTuple(args)), fdb::formatTuple(metaDataTuple(args))));
  }
  return *metaData;
}

const Index& storeIndex(const RecordMetaData& metaData, const std::string& name) {
  if (!metaData.hasIndex(name)) {
    std::vector<std::string> names;
    for (const auto& index : metaData.allIndexes()) names.push_back(index->name());
    throw std::invalid_argument(
        fmt::format("no index {} (the store's indexes: {})", name,
                    names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  }
  return metaData.index(name);
}

std::string recordToJson(const google::protobuf::Message& record) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(record, &json, options);
  if (!status.ok()) {
    throw std::runtime_error(fmt::format("cannot print a {} as JSON: {}",
                                         record.GetDescriptor()->full_name(),
                                         std::string(status.message())));
  }
  return json;
}

std::string oneLine(std::string_view message) {
  std::string joined;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string_view::npos) end = message.size();
    std::string_view line = message.substr(start, end - start);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (!line.empty()) {
      if (!joined.empty()) joined += joined.back() == ':' ? " " : "; ";
      joined += line;
    }
    start = end + 1;
  }
  return joined;
}

std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

fdb::Bytes fromHex(std::string_view hex) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument(fmt::format("--continuation: '{}' is not hex", hex));
  };
  if (hex.size() % 2 != 0) {
    throw std::invalid_argument(
        fmt::format("--continuation: '{}' is not an even number of hex digits", hex));
  }
  fdb::Bytes bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes += static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1]));
  }
  return bytes;
}

}  // namespace rl::cli
