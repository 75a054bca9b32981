// fdb::DirectoryLayer — FoundationDB's directory layer: names (paths of unicode strings)
// mapped to short, automatically allocated key prefixes, stored exactly as the Python, Java
// and Go bindings store them, so a tree created by one is read by the others
// (docs/directory.md describes the bytes).
//
//   fdb::DirectoryLayer directories;  // node subspace "\xfe", contents anywhere
//   fdb::DirectorySubspace orders = db.run([&](fdb::Transaction& tr) {
//     return directories.createOrOpen(tr, {"app", "orders"});
//   });
//   db.run([&](fdb::Transaction& tr) { tr.set(orders.pack(fdb::Tuple{7}), "..."); });
//
// Every operation takes the transaction it runs in (the bindings' transactional forms);
// run it inside Database::run so conflicts are retried. Failures are fdb::Error with
// FoundationDB's codes 2253..2267 (errors::kDirectoryAlreadyExists, ...), or the
// transaction's own errors.
//
// Thread-safety: DirectoryLayer and DirectorySubspace are immutable handles and may be used
// from any number of threads (each with its own transaction); the prefix allocator's random
// source is called under a lock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/subspace.h"
#include "fdb/transaction.h"
#include "fdb/tuple.h"

namespace fdb {

// A directory path: names from the root, each a unicode (UTF-8) string.
using DirectoryPath = std::vector<std::string>;

class DirectorySubspace;

class DirectoryLayer {
 public:
  // Returns an integer in [lo, hi), uniformly at random. The prefix allocator asks it for a
  // candidate in the current window; tests inject a seeded or scripted source.
  using RandomSource = std::function<int64_t(int64_t lo, int64_t hi)>;

  // The layer bytes that mark a directory partition.
  static constexpr std::string_view kPartitionLayer = "partition";

  // FoundationDB's default layer: node subspace raw prefix "\xfe", content subspace the
  // whole key space, no manual prefixes, a randomly seeded random source.
  DirectoryLayer();
  // Metadata under `nodeSubspace`, allocated prefixes inside `contentSubspace`. With
  // `allowManualPrefixes`, create() accepts a caller-chosen prefix. An empty `random` means
  // a randomly seeded source.
  DirectoryLayer(Subspace nodeSubspace, Subspace contentSubspace, bool allowManualPrefixes = false,
                 RandomSource random = nullptr);

  // A deterministic source: the same seed yields the same candidates on every platform
  // (std::mt19937_64, reduced modulo the window).
  static RandomSource seededRandom(uint64_t seed);

  // Opens the directory at `path`, creating it (and any missing parents, with no layer) if
  // it does not exist. A non-empty `layer` is recorded on creation and must match an
  // existing directory's layer (else kMismatchedLayer). An empty path is
  // kCannotOpenRootDirectory.
  DirectorySubspace createOrOpen(Transaction& tr, const DirectoryPath& path,
                                 std::string_view layer = {}) const;
  // As createOrOpen, but kDirectoryDoesNotExist when the directory does not exist.
  DirectorySubspace open(Transaction& tr, const DirectoryPath& path,
                         std::string_view layer = {}) const;
  // As createOrOpen, but kDirectoryAlreadyExists when it exists. `prefix` chooses the
  // directory's key prefix instead of the allocator: allowed only when manual prefixes are
  // enabled (kManualPrefixesNotEnabled; kPrefixInPartition inside a partition), and it must
  // neither contain nor lie inside another directory's prefix (kDirectoryPrefixInUse).
  DirectorySubspace create(Transaction& tr, const DirectoryPath& path, std::string_view layer = {},
                           const std::optional<Bytes>& prefix = std::nullopt) const;

  // Whether a directory exists at `path` (the empty path, the root, always does).
  bool exists(Transaction& tr, const DirectoryPath& path = {}) const;
  // The names of the subdirectories of `path`, in key order (bytewise order of their
  // packed names). kDirectoryDoesNotExist when `path` does not exist.
  std::vector<std::string> list(Transaction& tr, const DirectoryPath& path = {}) const;

  // Moves the directory at `oldPath` to `newPath`: rewrites the name entries only, so its
  // prefix and contents stay. Errors: either path empty -> kCannotModifyRootDirectory;
  // `newPath` inside `oldPath` -> kInvalidDestinationDirectory; no `oldPath` ->
  // kDirectoryDoesNotExist; `newPath` exists -> kDirectoryAlreadyExists; no parent of
  // `newPath` -> kParentDirectoryDoesNotExist; across a partition boundary ->
  // kCannotMoveDirectoryBetweenPartitions.
  DirectorySubspace move(Transaction& tr, const DirectoryPath& oldPath,
                         const DirectoryPath& newPath) const;

  // Removes the directory at `path`, its contents and every subdirectory (kDirectoryDoesNotExist
  // when missing; an empty path is kCannotModifyRootDirectory).
  void remove(Transaction& tr, const DirectoryPath& path) const;
  // As remove; returns whether the directory existed.
  bool removeIfExists(Transaction& tr, const DirectoryPath& path) const;

  const Subspace& nodeSubspace() const;
  const Subspace& contentSubspace() const;
  bool allowsManualPrefixes() const;
  // The absolute path of the partition this layer serves; empty for a top-level layer.
  const DirectoryPath& path() const;

 private:
  friend class DirectorySubspace;
  struct State;
  struct Node;

  explicit DirectoryLayer(std::shared_ptr<const State> state);

  DirectorySubspace createOrOpenInternal(Transaction& tr, const DirectoryPath& path,
                                         std::string_view layer, const std::optional<Bytes>& prefix,
                                         bool allowCreate, bool allowOpen) const;
  DirectorySubspace createInternal(Transaction& tr, const DirectoryPath& path,
                                   std::string_view layer,
                                   const std::optional<Bytes>& prefix) const;
  bool removeInternal(Transaction& tr, const DirectoryPath& path, bool failIfMissing) const;
  void removeRecursive(Transaction& tr, const Bytes& prefix) const;
  void removeFromParent(Transaction& tr, const DirectoryPath& path) const;
  void checkVersion(Transaction& tr, bool writeAccess) const;
  Node find(Transaction& tr, const DirectoryPath& path) const;
  DirectorySubspace contentsOfNode(const Node& node) const;
  DirectorySubspace contentsOf(const Bytes& prefix, const DirectoryPath& relativePath,
                               const Bytes& layer) const;
  Subspace nodeWithPrefix(std::string_view prefix) const;
  bool isPrefixFree(Transaction& tr, const Bytes& prefix, bool snapshot) const;

  std::shared_ptr<const State> state_;
};

// The contents of one directory: the subspace of its prefix, with the path it was opened at,
// its layer, and the directory layer that serves its subdirectories. A partition (layer
// "partition") has a directory layer of its own and cannot be used as a subspace: key(),
// pack(), unpack(), range(), contains(), subspace() and asSubspace() throw
// kCannotUsePartitionAsSubspace.
class DirectorySubspace {
 public:
  // The absolute path (including the partitions above it).
  const DirectoryPath& path() const { return path_; }
  const Bytes& layer() const { return layer_; }
  bool isPartition() const { return layer_ == DirectoryLayer::kPartitionLayer; }
  // The directory's raw prefix, whatever its layer (the key() a partition refuses).
  const Bytes& prefix() const { return prefix_; }
  // The layer that serves this directory's subdirectories: a partition's own layer, else
  // the layer this directory belongs to.
  const DirectoryLayer& directoryLayer() const { return directoryLayer_; }

  // Subspace access (kCannotUsePartitionAsSubspace for a partition).
  const Subspace& asSubspace() const;
  const Bytes& key() const { return asSubspace().key(); }
  Bytes pack(const Tuple& tuple = {}) const { return asSubspace().pack(tuple); }
  Bytes packWithVersionstamp(const Tuple& tuple) const {
    return asSubspace().packWithVersionstamp(tuple);
  }
  Tuple unpack(std::string_view key) const { return asSubspace().unpack(key); }
  KeyRange range(const Tuple& tuple = {}) const { return asSubspace().range(tuple); }
  bool contains(std::string_view key) const { return asSubspace().contains(key); }
  Subspace subspace(const Tuple& tuple) const { return asSubspace().subspace(tuple); }

  // Directory operations relative to this directory (`subpath` is appended to path()).
  DirectorySubspace createOrOpen(Transaction& tr, const DirectoryPath& subpath,
                                 std::string_view layer = {}) const;
  DirectorySubspace open(Transaction& tr, const DirectoryPath& subpath,
                         std::string_view layer = {}) const;
  DirectorySubspace create(Transaction& tr, const DirectoryPath& subpath,
                           std::string_view layer = {},
                           const std::optional<Bytes>& prefix = std::nullopt) const;
  std::vector<std::string> list(Transaction& tr, const DirectoryPath& subpath = {}) const;
  bool exists(Transaction& tr, const DirectoryPath& subpath = {}) const;
  DirectorySubspace move(Transaction& tr, const DirectoryPath& oldSubpath,
                         const DirectoryPath& newSubpath) const;
  // Moves this directory to `newAbsolutePath`, which must lie in the same partition
  // (kCannotMoveDirectoryBetweenPartitions).
  DirectorySubspace moveTo(Transaction& tr, const DirectoryPath& newAbsolutePath) const;
  // With an empty subpath, removes this directory itself.
  void remove(Transaction& tr, const DirectoryPath& subpath = {}) const;
  bool removeIfExists(Transaction& tr, const DirectoryPath& subpath = {}) const;

 private:
  friend class DirectoryLayer;

  DirectorySubspace(Bytes prefix, DirectoryPath path, Bytes layer, DirectoryLayer directoryLayer,
                    std::optional<DirectoryLayer> parentLayer);

  // The layer that handles `subpath`: the parent's for a partition's own path, else ours.
  const DirectoryLayer& layerForPath(const DirectoryPath& subpath) const;
  // path() + subpath, relative to `layer`'s partition.
  DirectoryPath partitionSubpath(const DirectoryPath& subpath, const DirectoryLayer& layer) const;

  Subspace subspace_;
  Bytes prefix_;
  DirectoryPath path_;
  Bytes layer_;
  DirectoryLayer directoryLayer_;
  std::optional<DirectoryLayer> parentLayer_;  // set for partitions
};

}  // namespace fdb
