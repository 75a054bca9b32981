// IndexMaintainerRegistry — the index types this process can maintain, each an
// IndexMaintainerFactory registered under its type name (docs/indexes.md). It is made with
// the built-in types (`value`) the first time it is used, so registration does not depend on
// which object files a static link pulls in; more types are added with add().
//
//   IndexMaintainerRegistry::instance().add(std::make_shared<MyIndexMaintainerFactory>());
//   std::shared_ptr<const IndexMaintainerFactory> factory =
//       IndexMaintainerRegistry::instance().factoryFor(index);  // MetaDataException if none
//
// Thread-safety: every member may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "rl/index/index_maintainer.h"
#include "rl/metadata/index.h"

namespace rl {

class IndexMaintainerRegistry {
 public:
  // The process's registry.
  static IndexMaintainerRegistry& instance();

  // Registers `factory` under factory->type(), replacing the factory registered under that
  // name before (stores already open keep the one they opened with).
  void add(std::shared_ptr<const IndexMaintainerFactory> factory);

  // The factory registered for `type`, or null.
  std::shared_ptr<const IndexMaintainerFactory> find(std::string_view type) const;
  // The factory for `index`'s type. Throws MetaDataException naming the index and its type
  // when none is registered.
  std::shared_ptr<const IndexMaintainerFactory> factoryFor(const Index& index) const;

  // The registered type names, in order.
  std::vector<std::string> types() const;

 private:
  IndexMaintainerRegistry();  // with the built-in types

  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const IndexMaintainerFactory>, std::less<>> factories_;
};

}  // namespace rl
