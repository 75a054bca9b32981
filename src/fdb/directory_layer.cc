// The directory layer over the public fdb:: API. The layout (docs/directory.md) is
// FoundationDB's:
//   node(P)            = nodeSubspace[P]                 (P a byte-string element)
//   root node          = nodeSubspace[nodeSubspace.key()]
//   node(P)[0][name]   = prefix of the child `name`     (name a unicode-string element)
//   node(P)[b"layer"]  = layer bytes
//   root[b"version"]   = <III little-endian (1, 0, 0)
//   root[b"hca"]       = the prefix allocator's state
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <utility>

#include "fdb/directory.h"
#include "fdb/error.h"
#include "fdb/high_contention_allocator.h"

namespace fdb {
namespace {

constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 0;
constexpr uint32_t kPatchVersion = 0;
constexpr int64_t kSubdirsKey = 0;

const TupleElement kVersionKey = ByteString{"version"};
const TupleElement kLayerKey = ByteString{"layer"};
const TupleElement kHcaKey = ByteString{"hca"};

Bytes encodeVersion() {
  Bytes out;
  for (uint32_t part : {kMajorVersion, kMinorVersion, kPatchVersion}) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((part >> (8 * i)) & 0xff));
  }
  return out;
}

uint32_t decodeUint32(std::string_view bytes) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

std::string describe(const DirectoryPath& path) {
  std::string out = "(";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + path[i] + "'";
  }
  return out + ")";
}

// A source seeded from std::random_device, shared by every copy.
DirectoryLayer::RandomSource defaultRandom() {
  return DirectoryLayer::seededRandom((static_cast<uint64_t>(std::random_device{}()) << 32) ^
                                      std::random_device{}());
}

DirectoryPath concat(const DirectoryPath& a, const DirectoryPath& b) {
  DirectoryPath out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

bool startsWith(const DirectoryPath& path, const DirectoryPath& prefix) {
  return prefix.size() <= path.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

}  // namespace

struct DirectoryLayer::State {
  Subspace nodeSubspace;
  Subspace contentSubspace;
  Subspace rootNode;
  bool allowManualPrefixes = false;
  DirectoryPath path;
  RandomSource random;  // thread-safe (wrapped in a lock by the constructor)
  HighContentionAllocator allocator;

  State(Subspace node, Subspace content, bool manual, DirectoryPath partitionPath,
        RandomSource source)
      : nodeSubspace(std::move(node)),
        contentSubspace(std::move(content)),
        rootNode(nodeSubspace.subspace(Tuple{ByteString{nodeSubspace.key()}})),
        allowManualPrefixes(manual),
        path(std::move(partitionPath)),
        random(std::move(source)),
        allocator(rootNode.subspace(Tuple{kHcaKey}), random) {}
};

// A directory found (or not) while walking a path from the root.
struct DirectoryLayer::Node {
  std::optional<Bytes> prefix;  // absent: the directory does not exist
  Subspace subspace;            // nodeWithPrefix(*prefix); the root node for the root
  DirectoryPath path;           // the part of the target path walked so far
  DirectoryPath targetPath;
  Bytes layer;

  bool exists() const { return prefix.has_value(); }
  // Whether the walk stopped at a partition above the target (or at it, if `includeEmpty`).
  bool isInPartition(bool includeEmptySubpath = false) const {
    return exists() && layer == kPartitionLayer &&
           (includeEmptySubpath || targetPath.size() > path.size());
  }
  DirectoryPath partitionSubpath() const {
    return DirectoryPath(targetPath.begin() + static_cast<std::ptrdiff_t>(path.size()),
                         targetPath.end());
  }
};

DirectoryLayer::DirectoryLayer() : DirectoryLayer(Subspace::fromBytes("\xfe"), Subspace()) {}

DirectoryLayer::DirectoryLayer(Subspace nodeSubspace, Subspace contentSubspace,
                               bool allowManualPrefixes, RandomSource random) {
  if (!random) random = defaultRandom();
  auto mutex = std::make_shared<std::mutex>();
  RandomSource locked = [mutex, source = std::move(random)](int64_t lo, int64_t hi) {
    std::lock_guard lock(*mutex);
    return source(lo, hi);
  };
  state_ = std::make_shared<const State>(std::move(nodeSubspace), std::move(contentSubspace),
                                         allowManualPrefixes, DirectoryPath{}, std::move(locked));
}

DirectoryLayer::DirectoryLayer(std::shared_ptr<const State> state) : state_(std::move(state)) {}

DirectoryLayer::RandomSource DirectoryLayer::seededRandom(uint64_t seed) {
  auto engine = std::make_shared<std::mt19937_64>(seed);
  return [engine](int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi - lo);
    return lo + static_cast<int64_t>((*engine)() % span);
  };
}

const Subspace& DirectoryLayer::nodeSubspace() const { return state_->nodeSubspace; }
const Subspace& DirectoryLayer::contentSubspace() const { return state_->contentSubspace; }
bool DirectoryLayer::allowsManualPrefixes() const { return state_->allowManualPrefixes; }
const DirectoryPath& DirectoryLayer::path() const { return state_->path; }

Subspace DirectoryLayer::nodeWithPrefix(std::string_view prefix) const {
  return state_->nodeSubspace.subspace(Tuple{ByteString{Bytes(prefix)}});
}

void DirectoryLayer::checkVersion(Transaction& tr, bool writeAccess) const {
  Bytes versionKey = state_->rootNode.pack(Tuple{kVersionKey});
  std::optional<Bytes> version = tr.get(versionKey).get();
  if (!version) {
    if (writeAccess) tr.set(versionKey, encodeVersion());
    return;
  }
  if (version->size() != 12) {
    throw Error(errors::kInvalidDirectoryLayerMetadata,
                fmt::format("directory version of {} bytes, expected 12", version->size()));
  }
  uint32_t major = decodeUint32(std::string_view(*version).substr(0, 4));
  uint32_t minor = decodeUint32(std::string_view(*version).substr(4, 4));
  uint32_t patch = decodeUint32(std::string_view(*version).substr(8, 4));
  if (major > kMajorVersion) {
    throw Error(errors::kIncompatibleDirectoryVersion,
                fmt::format("cannot load directory version {}.{}.{} with directory layer {}.{}.{}",
                            major, minor, patch, kMajorVersion, kMinorVersion, kPatchVersion));
  }
  if (minor > kMinorVersion && writeAccess) {
    throw Error(errors::kIncompatibleDirectoryVersion,
                fmt::format("directory version {}.{}.{} is read-only for directory layer {}.{}.{}",
                            major, minor, patch, kMajorVersion, kMinorVersion, kPatchVersion));
  }
}

DirectoryLayer::Node DirectoryLayer::find(Transaction& tr, const DirectoryPath& path) const {
  Node node{state_->nodeSubspace.key(), state_->rootNode, {}, path, {}};
  for (const std::string& name : path) {
    std::optional<Bytes> child = tr.get(node.subspace.pack(Tuple{kSubdirsKey, name})).get();
    node.path.push_back(name);
    node.prefix = child;
    if (!child) return node;
    node.subspace = nodeWithPrefix(*child);
    node.layer = tr.get(node.subspace.pack(Tuple{kLayerKey})).get().value_or(Bytes());
    if (node.layer == kPartitionLayer) return node;
  }
  return node;
}

DirectorySubspace DirectoryLayer::contentsOf(const Bytes& prefix, const DirectoryPath& relativePath,
                                             const Bytes& layer) const {
  DirectoryPath absolutePath = concat(state_->path, relativePath);
  if (layer == kPartitionLayer) {
    auto partition = std::make_shared<const State>(Subspace::fromBytes(prefix + '\xfe'),
                                                   Subspace::fromBytes(prefix),
                                                   /*manual=*/false, absolutePath, state_->random);
    return DirectorySubspace(prefix, std::move(absolutePath), layer, DirectoryLayer(partition),
                             *this);
  }
  return DirectorySubspace(prefix, std::move(absolutePath), layer, *this, std::nullopt);
}

DirectorySubspace DirectoryLayer::contentsOfNode(const Node& node) const {
  return contentsOf(*node.prefix, node.path, node.layer);
}

bool DirectoryLayer::isPrefixFree(Transaction& tr, const Bytes& prefix, bool snapshot) const {
  if (prefix.empty()) return false;
  // Inside the node subspace, a prefix would overlap the root node's metadata.
  if (prefix.starts_with(state_->nodeSubspace.key())) return false;

  auto rangeRead = [&](const KeyRange& range, bool reverse) {
    return snapshot ? tr.snapshot().getRangeAll(range, 1, reverse)
                    : tr.getRangeAll(range, 1, reverse);
  };
  // The node with the greatest prefix <= `prefix`: if it is a prefix of ours, we lie inside it.
  Bytes nodeKey = state_->nodeSubspace.pack(Tuple{ByteString{prefix}});
  std::vector<KeyValue> before =
      rangeRead(KeyRange{state_->nodeSubspace.range().begin, nodeKey + '\x00'}, true);
  if (!before.empty()) {
    const Tuple entry = state_->nodeSubspace.unpack(before.front().key);
    if (prefix.starts_with(entry.getBytes(0))) return false;
  }
  // Any node whose prefix starts with ours lies inside us.
  std::vector<KeyValue> inside = rangeRead(
      KeyRange{nodeKey, state_->nodeSubspace.pack(Tuple{ByteString{strinc(prefix)}})}, false);
  return inside.empty();
}

DirectorySubspace DirectoryLayer::createOrOpen(Transaction& tr, const DirectoryPath& path,
                                               std::string_view layer) const {
  return createOrOpenInternal(tr, path, layer, std::nullopt, true, true);
}

DirectorySubspace DirectoryLayer::open(Transaction& tr, const DirectoryPath& path,
                                       std::string_view layer) const {
  return createOrOpenInternal(tr, path, layer, std::nullopt, false, true);
}

DirectorySubspace DirectoryLayer::create(Transaction& tr, const DirectoryPath& path,
                                         std::string_view layer,
                                         const std::optional<Bytes>& prefix) const {
  return createOrOpenInternal(tr, path, layer, prefix, true, false);
}

DirectorySubspace DirectoryLayer::createOrOpenInternal(Transaction& tr, const DirectoryPath& path,
                                                       std::string_view layer,
                                                       const std::optional<Bytes>& prefix,
                                                       bool allowCreate, bool allowOpen) const {
  checkVersion(tr, /*writeAccess=*/false);
  if (prefix && !state_->allowManualPrefixes) {
    if (state_->path.empty()) throw Error(errors::kManualPrefixesNotEnabled);
    throw Error(errors::kPrefixInPartition);
  }
  if (path.empty()) throw Error(errors::kCannotOpenRootDirectory);

  Node existing = find(tr, path);
  if (existing.exists()) {
    if (existing.isInPartition()) {
      DirectorySubspace partition = contentsOfNode(existing);
      return partition.directoryLayer().createOrOpenInternal(tr, existing.partitionSubpath(), layer,
                                                             prefix, allowCreate, allowOpen);
    }
    if (!allowOpen) {
      throw Error(errors::kDirectoryAlreadyExists, describe(concat(state_->path, path)));
    }
    if (!layer.empty() && existing.layer != layer) {
      throw Error(
          errors::kMismatchedLayer,
          fmt::format("{} has layer '{}', asked for '{}'", describe(concat(state_->path, path)),
                      printable(existing.layer), printable(layer)));
    }
    return contentsOfNode(existing);
  }
  if (!allowCreate) {
    throw Error(errors::kDirectoryDoesNotExist, describe(concat(state_->path, path)));
  }
  return createInternal(tr, path, layer, prefix);
}

DirectorySubspace DirectoryLayer::createInternal(Transaction& tr, const DirectoryPath& path,
                                                 std::string_view layer,
                                                 const std::optional<Bytes>& manualPrefix) const {
  checkVersion(tr, /*writeAccess=*/true);

  Bytes prefix;
  if (manualPrefix) {
    prefix = *manualPrefix;
    if (!isPrefixFree(tr, prefix, /*snapshot=*/false)) {
      throw Error(errors::kDirectoryPrefixInUse,
                  fmt::format("prefix '{}' overlaps another directory", printable(prefix)));
    }
  } else {
    prefix = state_->contentSubspace.key() + state_->allocator.allocate(tr);
    if (!tr.getRangeAll(KeyRange{prefix, strinc(prefix)}, 1).empty()) {
      throw Error(errors::kDirectoryPrefixNotEmpty,
                  fmt::format("keys exist under the allocated prefix '{}'", printable(prefix)));
    }
    if (!isPrefixFree(tr, prefix, /*snapshot=*/true)) {
      throw Error(errors::kDirectoryPrefixInUse,
                  fmt::format("allocated prefix '{}' overlaps a manually chosen prefix",
                              printable(prefix)));
    }
  }

  // Parents are created (with no layer) after the child's prefix is allocated, as the other
  // bindings do; the allocation order is visible in the allocator's state.
  Subspace parentNode = state_->rootNode;
  if (path.size() > 1) {
    DirectoryPath parentPath(path.begin(), path.end() - 1);
    DirectorySubspace parent = createOrOpenInternal(tr, parentPath, {}, std::nullopt, true, true);
    parentNode = nodeWithPrefix(parent.prefix());
  }
  Subspace node = nodeWithPrefix(prefix);
  tr.set(parentNode.pack(Tuple{kSubdirsKey, path.back()}), prefix);
  tr.set(node.pack(Tuple{kLayerKey}), layer);
  return contentsOf(prefix, path, Bytes(layer));
}

bool DirectoryLayer::exists(Transaction& tr, const DirectoryPath& path) const {
  checkVersion(tr, /*writeAccess=*/false);
  Node node = find(tr, path);
  if (!node.exists()) return false;
  if (node.isInPartition()) {
    return contentsOfNode(node).directoryLayer().exists(tr, node.partitionSubpath());
  }
  return true;
}

std::vector<std::string> DirectoryLayer::list(Transaction& tr, const DirectoryPath& path) const {
  checkVersion(tr, /*writeAccess=*/false);
  Node node = find(tr, path);
  if (!node.exists()) {
    throw Error(errors::kDirectoryDoesNotExist, describe(concat(state_->path, path)));
  }
  if (node.isInPartition(/*includeEmptySubpath=*/true)) {
    return contentsOfNode(node).directoryLayer().list(tr, node.partitionSubpath());
  }
  Subspace subdirs = node.subspace.subspace(Tuple{kSubdirsKey});
  std::vector<std::string> names;
  for (const KeyValue& entry : tr.getRangeAll(subdirs.range())) {
    names.push_back(subdirs.unpack(entry.key).getString(0));
  }
  return names;
}

DirectorySubspace DirectoryLayer::move(Transaction& tr, const DirectoryPath& oldPath,
                                       const DirectoryPath& newPath) const {
  checkVersion(tr, /*writeAccess=*/true);
  if (oldPath.empty() || newPath.empty()) {
    throw Error(errors::kCannotModifyRootDirectory, "the root directory cannot be moved");
  }
  if (startsWith(newPath, oldPath)) {
    throw Error(
        errors::kInvalidDestinationDirectory,
        fmt::format("cannot move {} to {}, inside itself", describe(oldPath), describe(newPath)));
  }

  Node oldNode = find(tr, oldPath);
  Node newNode = find(tr, newPath);
  if (!oldNode.exists()) {
    throw Error(errors::kDirectoryDoesNotExist, describe(concat(state_->path, oldPath)));
  }
  if (oldNode.isInPartition() || newNode.isInPartition()) {
    if (!oldNode.isInPartition() || !newNode.isInPartition() || oldNode.path != newNode.path) {
      throw Error(errors::kCannotMoveDirectoryBetweenPartitions,
                  fmt::format("{} -> {}", describe(concat(state_->path, oldPath)),
                              describe(concat(state_->path, newPath))));
    }
    return contentsOfNode(newNode).directoryLayer().move(tr, oldNode.partitionSubpath(),
                                                         newNode.partitionSubpath());
  }
  if (newNode.exists()) {
    throw Error(errors::kDirectoryAlreadyExists, describe(concat(state_->path, newPath)));
  }
  Node parent = find(tr, DirectoryPath(newPath.begin(), newPath.end() - 1));
  if (!parent.exists()) {
    throw Error(errors::kParentDirectoryDoesNotExist, describe(concat(state_->path, newPath)));
  }
  tr.set(parent.subspace.pack(Tuple{kSubdirsKey, newPath.back()}), *oldNode.prefix);
  removeFromParent(tr, oldPath);
  return contentsOf(*oldNode.prefix, newPath, oldNode.layer);
}

void DirectoryLayer::remove(Transaction& tr, const DirectoryPath& path) const {
  removeInternal(tr, path, /*failIfMissing=*/true);
}

bool DirectoryLayer::removeIfExists(Transaction& tr, const DirectoryPath& path) const {
  return removeInternal(tr, path, /*failIfMissing=*/false);
}

bool DirectoryLayer::removeInternal(Transaction& tr, const DirectoryPath& path,
                                    bool failIfMissing) const {
  checkVersion(tr, /*writeAccess=*/true);
  if (path.empty()) {
    throw Error(errors::kCannotModifyRootDirectory, "the root directory cannot be removed");
  }
  Node node = find(tr, path);
  if (!node.exists()) {
    if (failIfMissing) {
      throw Error(errors::kDirectoryDoesNotExist, describe(concat(state_->path, path)));
    }
    return false;
  }
  if (node.isInPartition()) {
    return contentsOfNode(node).directoryLayer().removeInternal(tr, node.partitionSubpath(),
                                                                failIfMissing);
  }
  removeRecursive(tr, *node.prefix);
  removeFromParent(tr, path);
  return true;
}

void DirectoryLayer::removeRecursive(Transaction& tr, const Bytes& prefix) const {
  Subspace node = nodeWithPrefix(prefix);
  for (const KeyValue& child : tr.getRangeAll(node.subspace(Tuple{kSubdirsKey}).range())) {
    removeRecursive(tr, child.value);
  }
  tr.clearRange(prefix, strinc(prefix));
  tr.clearRange(node.range());
}

void DirectoryLayer::removeFromParent(Transaction& tr, const DirectoryPath& path) const {
  Node parent = find(tr, DirectoryPath(path.begin(), path.end() - 1));
  if (parent.exists()) tr.clear(parent.subspace.pack(Tuple{kSubdirsKey, path.back()}));
}

// --- DirectorySubspace ---------------------------------------------------------------------

DirectorySubspace::DirectorySubspace(Bytes prefix, DirectoryPath path, Bytes layer,
                                     DirectoryLayer directoryLayer,
                                     std::optional<DirectoryLayer> parentLayer)
    : subspace_(Subspace::fromBytes(prefix)),
      prefix_(std::move(prefix)),
      path_(std::move(path)),
      layer_(std::move(layer)),
      directoryLayer_(std::move(directoryLayer)),
      parentLayer_(std::move(parentLayer)) {}

const Subspace& DirectorySubspace::asSubspace() const {
  if (isPartition()) {
    throw Error(errors::kCannotUsePartitionAsSubspace,
                fmt::format("{} is a partition", describe(path_)));
  }
  return subspace_;
}

const DirectoryLayer& DirectorySubspace::layerForPath(const DirectoryPath& subpath) const {
  if (subpath.empty() && parentLayer_) return *parentLayer_;
  return directoryLayer_;
}

DirectoryPath DirectorySubspace::partitionSubpath(const DirectoryPath& subpath,
                                                  const DirectoryLayer& layer) const {
  DirectoryPath relative(path_.begin() + static_cast<std::ptrdiff_t>(layer.path().size()),
                         path_.end());
  return concat(relative, subpath);
}

DirectorySubspace DirectorySubspace::createOrOpen(Transaction& tr, const DirectoryPath& subpath,
                                                  std::string_view layer) const {
  return directoryLayer_.createOrOpen(tr, partitionSubpath(subpath, directoryLayer_), layer);
}

DirectorySubspace DirectorySubspace::open(Transaction& tr, const DirectoryPath& subpath,
                                          std::string_view layer) const {
  return directoryLayer_.open(tr, partitionSubpath(subpath, directoryLayer_), layer);
}

DirectorySubspace DirectorySubspace::create(Transaction& tr, const DirectoryPath& subpath,
                                            std::string_view layer,
                                            const std::optional<Bytes>& prefix) const {
  return directoryLayer_.create(tr, partitionSubpath(subpath, directoryLayer_), layer, prefix);
}

std::vector<std::string> DirectorySubspace::list(Transaction& tr,
                                                 const DirectoryPath& subpath) const {
  return directoryLayer_.list(tr, partitionSubpath(subpath, directoryLayer_));
}

bool DirectorySubspace::exists(Transaction& tr, const DirectoryPath& subpath) const {
  const DirectoryLayer& layer = layerForPath(subpath);
  return layer.exists(tr, partitionSubpath(subpath, layer));
}

DirectorySubspace DirectorySubspace::move(Transaction& tr, const DirectoryPath& oldSubpath,
                                          const DirectoryPath& newSubpath) const {
  return directoryLayer_.move(tr, partitionSubpath(oldSubpath, directoryLayer_),
                              partitionSubpath(newSubpath, directoryLayer_));
}

DirectorySubspace DirectorySubspace::moveTo(Transaction& tr,
                                            const DirectoryPath& newAbsolutePath) const {
  const DirectoryLayer& layer = layerForPath({});
  if (!startsWith(newAbsolutePath, layer.path())) {
    throw Error(errors::kCannotMoveDirectoryBetweenPartitions,
                fmt::format("{} -> {}", describe(path_), describe(newAbsolutePath)));
  }
  DirectoryPath newSubpath(
      newAbsolutePath.begin() + static_cast<std::ptrdiff_t>(layer.path().size()),
      newAbsolutePath.end());
  return layer.move(tr, partitionSubpath({}, layer), newSubpath);
}

void DirectorySubspace::remove(Transaction& tr, const DirectoryPath& subpath) const {
  const DirectoryLayer& layer = layerForPath(subpath);
  layer.remove(tr, partitionSubpath(subpath, layer));
}

bool DirectorySubspace::removeIfExists(Transaction& tr, const DirectoryPath& subpath) const {
  const DirectoryLayer& layer = layerForPath(subpath);
  return layer.removeIfExists(tr, partitionSubpath(subpath, layer));
}

}  // namespace fdb
