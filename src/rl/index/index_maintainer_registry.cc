#include "rl/index/index_maintainer_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mutex>

#include "rl/index/aggregate_index.h"
#include "rl/index/rank_index.h"
#include "rl/index/value_index.h"
#include "rl/index/version_index.h"
#include "rl/metadata/metadata_exception.h"

namespace rl {

IndexMaintainerRegistry::IndexMaintainerRegistry() {
  add(valueIndexMaintainerFactory());
  add(versionIndexMaintainerFactory());
  for (std::string_view type : aggregateIndexTypes()) add(aggregateIndexMaintainerFactory(type));
  add(rankIndexMaintainerFactory());
}

IndexMaintainerRegistry& IndexMaintainerRegistry::instance() {
  static IndexMaintainerRegistry registry;
  return registry;
}

void IndexMaintainerRegistry::add(std::shared_ptr<const IndexMaintainerFactory> factory) {
  std::string type(factory->type());
  std::unique_lock lock(mutex_);
  factories_.insert_or_assign(std::move(type), std::move(factory));
}

std::shared_ptr<const IndexMaintainerFactory> IndexMaintainerRegistry::find(
    std::string_view type) const {
  std::shared_lock lock(mutex_);
  auto it = factories_.find(type);
  return it == factories_.end() ? nullptr : it->second;
}

std::shared_ptr<const IndexMaintainerFactory> IndexMaintainerRegistry::factoryFor(
    const Index& index) const {
  std::shared_ptr<const IndexMaintainerFactory> factory = find(index.type());
  if (factory == nullptr) {
    throw MetaDataException(
        fmt::format("index {} has type {}, for which no index maintainer is registered "
                    "(registered types: {})",
                    index.name(), index.type(), fmt::join(types(), ", ")));
  }
  return factory;
}

std::vector<std::string> IndexMaintainerRegistry::types() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  names.reserve(factories_.size());
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

}  // namespace rl
