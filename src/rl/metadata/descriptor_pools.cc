#include "rl/metadata/descriptor_pools.h"

#include <array>

#include "rl/metadata/metadata_exception.h"

namespace rl {

namespace {

using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptorProto;

constexpr std::array<std::string_view, 5> kLibraryFiles = {
    "record_metadata_options.proto", "record_metadata.proto",
    "record_key_expression.proto",   "tuple_fields.proto",
    "record_cursor.proto",
};

}  // namespace

bool isLibrarySchemaFile(std::string_view fileName) {
  if (fileName.substr(0, 16) == "google/protobuf/") return true;
  for (std::string_view name : kLibraryFiles) {
    if (fileName == name) return true;
  }
  return false;
}

void PoolErrorCollector::AddError(const std::string& filename, const std::string& element_name,
                                  const google::protobuf::Message*, ErrorLocation,
                                  const std::string& message) {
  if (!errors_.empty()) errors_ += "; ";
  errors_ += filename;
  if (!element_name.empty()) errors_ += ": " + element_name;
  errors_ += ": " + message;
}

std::shared_ptr<const OwnedDescriptorPool> poolFromFileProtos(
    const FileDescriptorProto& records, const std::vector<const FileDescriptorProto*>& dependencies,
    const google::protobuf::FileDescriptor** recordsOut) {
  auto owned = std::make_shared<OwnedDescriptorPool>();
  auto local = std::make_unique<google::protobuf::SimpleDescriptorDatabase>();
  for (const FileDescriptorProto* dependency : dependencies) {
    if (!local->Add(*dependency)) {
      throw MetaDataException("metadata carries conflicting definitions of " + dependency->name());
    }
  }
  if (!local->Add(records)) {
    throw MetaDataException("metadata's records file " + records.name() +
                            " conflicts with one of its dependencies");
  }
  auto compiledIn =
      std::make_unique<google::protobuf::DescriptorPoolDatabase>(*DescriptorPool::generated_pool());
  auto merged =
      std::make_unique<google::protobuf::MergedDescriptorDatabase>(local.get(), compiledIn.get());
  owned->errors = std::make_unique<PoolErrorCollector>();
  owned->pool = std::make_unique<DescriptorPool>(merged.get(), owned->errors.get());
  owned->databases.push_back(std::move(local));
  owned->databases.push_back(std::move(compiledIn));
  owned->databases.push_back(std::move(merged));
  const google::protobuf::FileDescriptor* file = owned->pool->FindFileByName(records.name());
  if (file == nullptr) {
    throw MetaDataException("cannot build the metadata's records file " + records.name() + ": " +
                            owned->errors->errors());
  }
  *recordsOut = file;
  return owned;
}

}  // namespace rl
