// Descriptor pools built at run time, and the compiled-in schema files they fall back on
// (private to the library).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rl {

// Whether `fileName` is one of this library's schema files or a google/protobuf/ file:
// the files a run-time pool takes from the compiled-in (generated) pool.
bool isLibrarySchemaFile(std::string_view fileName);

// Collects a pool's build errors as "file: element: message" lines.
class PoolErrorCollector : public google::protobuf::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name,
                const google::protobuf::Message* descriptor, ErrorLocation location,
                const std::string& message) override;
  const std::string& errors() const { return errors_; }

 private:
  std::string errors_;
};

// A descriptor pool together with the databases it reads from, kept alive as one.
struct OwnedDescriptorPool {
  std::vector<std::unique_ptr<google::protobuf::DescriptorDatabase>> databases;
  std::unique_ptr<PoolErrorCollector> errors;
  std::unique_ptr<google::protobuf::DescriptorPool> pool;
};

// A pool holding `records` and `dependencies`; files neither holds come from the
// compiled-in pool. Throws MetaDataException naming the problem when `records` cannot
// be built.
std::shared_ptr<const OwnedDescriptorPool> poolFromFileProtos(
    const google::protobuf::FileDescriptorProto& records,
    const std::vector<const google::protobuf::FileDescriptorProto*>& dependencies,
    const google::protobuf::FileDescriptor** recordsOut);

}  // namespace rl
