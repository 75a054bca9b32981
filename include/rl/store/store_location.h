// rl::StoreLocation — where a record store lives: the key prefix P under which every key
// of the store is written (docs/format.md).
//
// Three ways to name it, as the Java Record Layer's users do: a raw prefix; a tuple (P is
// the packed tuple); or a directory-layer path followed by a tuple, like a KeySpacePath
// (P is the directory's allocated prefix + the packed tuple). Remote fetch needs P to be a
// packed tuple; the directory layer's prefixes are, so the last two forms always can use it.
//
//   rl::StoreLocation orders = rl::StoreLocation::directory({"app", "orders"}, fdb::Tuple{42});
//   fdb::Subspace subspace = orders.resolve(tr, rl::StoreLocation::kCreate);
//
// Thread-safety: immutable; resolve() may be called from any thread with its own transaction.
#pragma once

#include <optional>
#include <string>

#include "fdb/bytes.h"
#include "fdb/directory.h"
#include "fdb/subspace.h"
#include "fdb/transaction.h"
#include "fdb/tuple.h"

namespace rl {

class StoreLocation {
 public:
  // Whether resolving may create the directory (only directory locations create anything).
  enum Resolve { kOpen, kCreate };

  static StoreLocation rawPrefix(fdb::Bytes prefix);
  static StoreLocation tuple(const fdb::Tuple& tuple);
  // The directory at `path` (in `layer`, the default directory layer if not given), then
  // `suffix` packed after its prefix.
  static StoreLocation directory(fdb::DirectoryPath path, fdb::Tuple suffix = {},
                                 fdb::DirectoryLayer layer = fdb::DirectoryLayer());

  // The store's subspace. A directory location reads the directory layer in `tr`
  // (kOpen: fdb::Error 2257 directory_does_not_exist when missing; kCreate creates it and
  // any missing parents). The other forms need no reads.
  fdb::Subspace resolve(fdb::Transaction& tr, Resolve mode = kOpen) const;
  // resolve()'s prefix appended to `out` (no allocation beyond `out`'s growth).
  void appendPrefix(fdb::Transaction& tr, Resolve mode, fdb::Bytes& out) const;

  // The prefix when it is known without reading (raw and tuple locations).
  std::optional<fdb::Bytes> knownPrefix() const;

  // For messages: "prefix \x15\x01", "tuple (\"app\", 5)", "directory /app/orders + (42,)".
  std::string describe() const;

 private:
  enum class Kind { kRaw, kTuple, kDirectory };
  StoreLocation(Kind kind, fdb::Bytes prefix, fdb::DirectoryPath path, fdb::Tuple suffix,
                std::optional<fdb::DirectoryLayer> layer);

  Kind kind_;
  fdb::Bytes prefix_;  // raw and tuple locations
  fdb::DirectoryPath path_;
  fdb::Tuple suffix_;
  std::optional<fdb::DirectoryLayer> layer_;
};

}  // namespace rl
