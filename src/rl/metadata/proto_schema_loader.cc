#include "rl/metadata/proto_schema_loader.h"

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/dynamic_message.h>

#include <filesystem>
#include <utility>

#include "rl/metadata/descriptor_pools.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

namespace compiler = google::protobuf::compiler;
using google::protobuf::DescriptorDatabase;
using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptorProto;

// Parse and validation errors as "file:line:column: message", lines counted from 1.
class SchemaErrorCollector : public compiler::MultiFileErrorCollector {
 public:
  void AddError(const std::string& filename, int line, int column,
                const std::string& message) override {
    if (!errors_.empty()) errors_ += "\n";
    errors_ += filename;
    if (line >= 0) errors_ += ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1);
    errors_ += ": " + message;
  }
  const std::string& errors() const { return errors_; }

 private:
  std::string errors_;
};

// The library's own schema files from the compiled-in pool, everything else parsed from
// the source tree.
class SchemaDatabase : public DescriptorDatabase {
 public:
  SchemaDatabase(DescriptorDatabase* compiledIn, DescriptorDatabase* sourceTree)
      : compiledIn_(compiledIn), sourceTree_(sourceTree) {}

  bool FindFileByName(const std::string& filename, FileDescriptorProto* output) override {
    if (isLibrarySchemaFile(filename) && compiledIn_->FindFileByName(filename, output)) {
      return true;
    }
    return sourceTree_->FindFileByName(filename, output);
  }
  bool FindFileContainingSymbol(const std::string& symbol, FileDescriptorProto* output) override {
    return compiledIn_->FindFileContainingSymbol(symbol, output);
  }
  bool FindFileContainingExtension(const std::string& containingType, int fieldNumber,
                                   FileDescriptorProto* output) override {
    return compiledIn_->FindFileContainingExtension(containingType, fieldNumber, output);
  }

 private:
  DescriptorDatabase* compiledIn_;
  DescriptorDatabase* sourceTree_;
};

// Everything a loaded schema's descriptors depend on, destroyed pool first.
struct LoadedPool {
  compiler::DiskSourceTree sourceTree;
  SchemaErrorCollector errors;
  std::unique_ptr<compiler::SourceTreeDescriptorDatabase> sourceTreeDatabase;
  std::unique_ptr<google::protobuf::DescriptorPoolDatabase> compiledIn;
  std::unique_ptr<SchemaDatabase> database;
  std::unique_ptr<DescriptorPool> pool;
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory;
};

}  // namespace

std::unique_ptr<google::protobuf::Message> LoadedSchema::newMessage(
    std::string_view fullName) const {
  const google::protobuf::Descriptor* type =
      file ? file->pool()->FindMessageTypeByName(std::string(fullName)) : nullptr;
  if (type == nullptr || messageFactory == nullptr) {
    throw MetaDataException("schema has no message type " + std::string(fullName));
  }
  return std::unique_ptr<google::protobuf::Message>(messageFactory->GetPrototype(type)->New());
}

ProtoSchemaLoader::ProtoSchemaLoader(std::vector<std::string> importDirs)
    : importDirs_(std::move(importDirs)) {}

LoadedSchema ProtoSchemaLoader::load(std::string_view pathView) const {
  namespace fs = std::filesystem;
  const std::string path(pathView);
  auto loaded = std::make_shared<LoadedPool>();
  std::string virtualName;
  // A relative path may name a file inside an import directory; an absolute one never does
  // (dir / "/abs" would be "/abs" itself, and the source tree cannot open "/abs" under dir).
  const bool relative = fs::path(path).is_relative();
  for (const std::string& dir : importDirs_) {
    loaded->sourceTree.MapPath("", dir);
    if (relative && virtualName.empty() && fs::is_regular_file(fs::path(dir) / path)) {
      virtualName = path;
    }
  }
  if (virtualName.empty()) {
    if (!fs::is_regular_file(path)) {
      throw MetaDataException("cannot load schema " + path + ": no such file" +
                              (importDirs_.empty() ? "" : " (nor in any import directory)"));
    }
    std::string shadowing;
    if (loaded->sourceTree.DiskFileToVirtualFile(path, &virtualName, &shadowing) !=
        compiler::DiskSourceTree::SUCCESS) {
      fs::path file(path);
      std::string dir = file.has_parent_path() ? file.parent_path().string() : ".";
      loaded->sourceTree.MapPath("", dir);
      virtualName = file.filename().string();
    }
  }

  loaded->sourceTreeDatabase =
      std::make_unique<compiler::SourceTreeDescriptorDatabase>(&loaded->sourceTree);
  loaded->sourceTreeDatabase->RecordErrorsTo(&loaded->errors);
  loaded->compiledIn =
      std::make_unique<google::protobuf::DescriptorPoolDatabase>(*DescriptorPool::generated_pool());
  loaded->database =
      std::make_unique<SchemaDatabase>(loaded->compiledIn.get(), loaded->sourceTreeDatabase.get());
  loaded->pool = std::make_unique<DescriptorPool>(
      loaded->database.get(), loaded->sourceTreeDatabase->GetValidationErrorCollector());
  loaded->pool->EnforceWeakDependencies(true);
  const google::protobuf::FileDescriptor* file = loaded->pool->FindFileByName(virtualName);
  if (file == nullptr) {
    std::string errors = loaded->errors.errors();
    throw MetaDataException("cannot load schema " + virtualName + ":\n" +
                            (errors.empty() ? std::string("unknown error") : errors));
  }
  loaded->factory = std::make_unique<google::protobuf::DynamicMessageFactory>(loaded->pool.get());
  LoadedSchema schema;
  schema.file = file;
  schema.messageFactory =
      std::shared_ptr<google::protobuf::MessageFactory>(loaded, loaded->factory.get());
  schema.owner = std::move(loaded);
  return schema;
}

RecordMetaData loadRecordMetaData(std::string_view path, std::vector<std::string> importDirs) {
  return RecordMetaData::build(ProtoSchemaLoader(std::move(importDirs)).load(path));
}

}  // namespace rl
