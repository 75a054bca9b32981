// rl::ProtoSchemaLoader — compiles a record schema's .proto file at run time, so a program
// can open stores whose schema it was not built with (records are then DynamicMessages).
//
// The schema may import this library's own schema files (record_metadata_options.proto,
// tuple_fields.proto, record_key_expression.proto, record_metadata.proto) and
// google/protobuf/*.proto: those come from the copies compiled into the library, so no
// .proto file needs to be installed for them. Every other import is looked up in the
// import directories, as protoc's -I does.
//
//   rl::ProtoSchemaLoader loader({"schemas"});
//   rl::LoadedSchema schema = loader.load("orders.proto");   // schemas/orders.proto
//   rl::RecordMetaData metaData = rl::RecordMetaData::build(schema.file, schema.owner);
//   std::unique_ptr<google::protobuf::Message> order = schema.newMessage("shop.Order");
//   // or in one step: rl::loadRecordMetaData("schemas/orders.proto", {"schemas"});
//
// Errors are rl::MetaDataException naming the file and line: "orders.proto:12:3: Expected
// ";"." for a syntax error, "orders.proto:4:1: Import "missing.proto" was not found or had
// errors." for a missing import.
// Thread-safety: a loader is not safe to share between threads; a LoadedSchema is
// immutable and safe to share.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rl/metadata/metadata.h"

namespace google::protobuf {
class FileDescriptor;
class Message;
class MessageFactory;
}  // namespace google::protobuf

namespace rl {

// A compiled schema file and the descriptor pool that owns it.
struct LoadedSchema {
  const google::protobuf::FileDescriptor* file = nullptr;
  // Keeps the pool (and so `file` and every descriptor in it) alive.
  std::shared_ptr<const void> owner;
  // Makes DynamicMessages of the pool's types (thread-safe; shares `owner`'s lifetime).
  std::shared_ptr<google::protobuf::MessageFactory> messageFactory;

  // A new, empty message of the named type (full name, e.g. "shop.Order"), from the
  // schema's pool. Throws MetaDataException when the schema has no such message.
  std::unique_ptr<google::protobuf::Message> newMessage(std::string_view fullName) const;
};

class ProtoSchemaLoader {
 public:
  explicit ProtoSchemaLoader(std::vector<std::string> importDirs = {});

  // Compiles `path`: a name relative to an import directory, or a path on disk (whose
  // directory then also serves as an import directory). Each call builds a fresh pool.
  LoadedSchema load(std::string_view path) const;

 private:
  std::vector<std::string> importDirs_;
};

// ProtoSchemaLoader(importDirs).load(path), then RecordMetaData::build on it.
RecordMetaData loadRecordMetaData(std::string_view path, std::vector<std::string> importDirs = {});

}  // namespace rl
