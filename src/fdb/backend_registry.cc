#include "fdb/backend_registry.h"

#include <fmt/format.h>

#include <optional>

namespace fdb {
namespace {

// An address's scheme: what comes before its first ':' when no '/' does ("file:/x" has
// one, "./a:b" has none).
std::optional<std::string_view> schemeOf(std::string_view address) {
  const size_t colon = address.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  if (address.substr(0, colon).find('/') != std::string_view::npos) return std::nullopt;
  return address.substr(0, colon);
}

// A directory path with no scheme: it has a '/' ("/var/lib/x", "./data", "data/"). A word
// alone ("memory") is a mistyped address, not a directory.
bool isBarePath(std::string_view address) {
  return !schemeOf(address) && address.find('/') != std::string_view::npos;
}

}  // namespace

BackendRegistry& BackendRegistry::instance() {
  // Built once, with the built-in backends, on first use (never destroyed: databases may be
  // opened from static destructors).
  static BackendRegistry* registry = [] {
    auto* made = new BackendRegistry();
    registerBuiltinBackends(*made);
    return made;
  }();
  return *registry;
}

void BackendRegistry::add(BackendScheme scheme) {
  std::lock_guard lock(mutex_);
  if (findLocked(scheme.scheme) != nullptr) {
    throw Error(errors::kClientInvalidOperation,
                fmt::format("address scheme '{}:' is already registered", scheme.scheme));
  }
  if (scheme.servesBarePaths) {
    for (const BackendScheme& other : schemes_) {
      if (other.servesBarePaths) {
        throw Error(errors::kClientInvalidOperation,
                    fmt::format("'{}:' cannot serve bare directory paths: '{}:' does",
                                scheme.scheme, other.scheme));
      }
    }
  }
  schemes_.push_back(std::move(scheme));
}

const BackendScheme* BackendRegistry::findLocked(std::string_view scheme) const {
  for (const BackendScheme& candidate : schemes_) {
    if (candidate.scheme == scheme) return &candidate;
  }
  return nullptr;
}

std::shared_ptr<DatabaseBackend> BackendRegistry::open(std::string_view address,
                                                       const EngineOptions& options) {
  // The backend's open is copied out and called outside the lock (opening may take long,
  // and may open another database).
  std::function<std::shared_ptr<DatabaseBackend>(std::string_view, const EngineOptions&)> open;
  std::string_view rest;
  std::string forms;
  {
    std::lock_guard lock(mutex_);
    const BackendScheme* chosen = nullptr;
    if (std::optional<std::string_view> scheme = schemeOf(address)) {
      chosen = findLocked(*scheme);
      rest = address.substr(scheme->size() + 1);
    } else if (isBarePath(address)) {
      for (const BackendScheme& candidate : schemes_) {
        if (candidate.servesBarePaths) chosen = &candidate;
      }
      rest = address;
    }
    if (chosen != nullptr) {
      open = chosen->open;
    } else {
      std::vector<std::string_view> all;
      for (const BackendScheme& scheme : schemes_)
        all.insert(all.end(), scheme.forms.begin(), scheme.forms.end());
      for (size_t i = 0; i < all.size(); ++i) {
        if (i > 0) forms += i + 1 == all.size() ? " or " : ", ";
        forms += all[i];
      }
    }
  }
  if (open) return open(rest, options);
  throw Error(errors::kClientInvalidOperation,
              fmt::format("cannot open '{}': addresses are {}", address, forms));
}

std::vector<std::string> BackendRegistry::schemes() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const BackendScheme& scheme : schemes_) names.push_back(scheme.scheme);
  return names;
}

}  // namespace fdb
