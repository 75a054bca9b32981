#include "rl/store/store_location.h"

#include <utility>

#include "fdb/tuple_text.h"

namespace rl {

StoreLocation::StoreLocation(Kind kind, fdb::Bytes prefix, fdb::DirectoryPath path,
                             fdb::Tuple suffix, std::optional<fdb::DirectoryLayer> layer)
    : kind_(kind),
      prefix_(std::move(prefix)),
      path_(std::move(path)),
      suffix_(std::move(suffix)),
      layer_(std::move(layer)) {}

StoreLocation StoreLocation::rawPrefix(fdb::Bytes prefix) {
  return StoreLocation(Kind::kRaw, std::move(prefix), {}, {}, std::nullopt);
}

StoreLocation StoreLocation::tuple(const fdb::Tuple& tuple) {
  return StoreLocation(Kind::kTuple, tuple.pack(), {}, tuple, std::nullopt);
}

StoreLocation StoreLocation::directory(fdb::DirectoryPath path, fdb::Tuple suffix,
                                       fdb::DirectoryLayer layer) {
  return StoreLocation(Kind::kDirectory, {}, std::move(path), std::move(suffix), std::move(layer));
}

fdb::Subspace StoreLocation::resolve(fdb::Transaction& tr, Resolve mode) const {
  if (kind_ != Kind::kDirectory) return fdb::Subspace::fromBytes(prefix_);
  fdb::Bytes prefix;
  appendPrefix(tr, mode, prefix);
  return fdb::Subspace::fromBytes(prefix);
}

void StoreLocation::appendPrefix(fdb::Transaction& tr, Resolve mode, fdb::Bytes& out) const {
  if (kind_ != Kind::kDirectory) {
    out.append(prefix_);
    return;
  }
  fdb::DirectorySubspace dir =
      mode == kCreate ? layer_->createOrOpen(tr, path_) : layer_->open(tr, path_);
  out.append(dir.key());
  suffix_.packInto(out);
}

std::optional<fdb::Bytes> StoreLocation::knownPrefix() const {
  if (kind_ == Kind::kDirectory) return std::nullopt;
  return prefix_;
}

std::string StoreLocation::describe() const {
  switch (kind_) {
    case Kind::kRaw: return "prefix " + fdb::printable(prefix_);
    case Kind::kTuple: return "tuple " + fdb::formatTuple(suffix_);
    case Kind::kDirectory: {
      std::string text = "directory ";
      for (const std::string& name : path_) text += "/" + name;
      if (path_.empty()) text += "/";
      if (suffix_.size() > 0) text += " + " + fdb::formatTuple(suffix_);
      return text;
    }
  }
  return {};
}

}  // namespace rl
