// What the record-store commands (`rl store`, `rl load`, `rl get`, `rl scan`) share: the
// store's address and location from the command line, and its metadata from the metadata
// store, so that separate processes open a store with one schema (docs/cli.md "Record
// stores").
//
//   StoreArguments args{.db = "file:/tmp/shop", .path = R"(("shop", "orders"))"};
//   fdb::Database db = openStoreDatabase(args, DatabaseAccess::kReadOnly);
//   RecordMetaData metaData = loadStoreMetaData(db, args);
//   runInContext(db, [&](RecordContext& context) {
//     RecordStore store = RecordStore::openExisting(context, storeLocation(args), metaData);
//   });
//
// Layout: the record store is at the tuple STORE (its prefix P is STORE packed); its metadata
// store (rl::MetaDataStore) at the tuple ("rl-metadata",) + STORE, outside P: opening a store
// reads the first key under P and takes anything before its header at P+(0) for a store
// without a header, so P holds the Record Layer's layout only.
//
// Thread-safety: pure functions, apart from the database they are given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "database_access.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/tuple.h"
#include "rl/metadata/metadata.h"
#include "rl/store/store_location.h"

namespace google::protobuf {
class Message;
}

namespace rl::cli {

struct StoreArguments {
  std::string db;    // the address; required
  std::string path;  // the store's tuple, in the rl tuple syntax; required
};

// The element put before the store's tuple for its metadata store.
inline constexpr std::string_view kMetaDataPrefix = "rl-metadata";

// The store's tuple. Throws std::invalid_argument when --path is missing, does not parse or is
// the empty tuple.
fdb::Tuple storeTuple(const StoreArguments& args);
StoreLocation storeLocation(const StoreArguments& args);
fdb::Tuple metaDataTuple(const StoreArguments& args);  // ("rl-metadata",) + STORE
StoreLocation metaDataLocation(const StoreArguments& args);

// Opens args.db (database_access.h: a command that only reads creates nothing). Throws
// std::invalid_argument when it is empty, fdb::Error when it cannot be opened.
fdb::Database openStoreDatabase(const StoreArguments& args, DatabaseAccess access);

// The current metadata from the store's metadata store. Throws std::runtime_error when
// there is none ("no record store at ...: rl store create makes one").
RecordMetaData loadStoreMetaData(fdb::Database& db, const StoreArguments& args);

// The index named `name`; std::invalid_argument listing the store's indexes when there is none.
const Index& storeIndex(const RecordMetaData& metaData, const std::string& name);

// A record as one line of JSON (protobuf's JSON mapping, the .proto's field names).
std::string recordToJson(const google::protobuf::Message& record);

// A multi-line message (protoc's errors, one a line) as one line: the lines joined with "; ",
// or a space after a line ending in ':'.
std::string oneLine(std::string_view message);

// Continuations on the command line: lowercase hex, and back (std::invalid_argument when
// `hex` is not an even number of hex digits).
std::string toHex(std::string_view bytes);
fdb::Bytes fromHex(std::string_view hex);

}  // namespace rl::cli
