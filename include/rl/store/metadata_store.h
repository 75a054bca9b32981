// rl::MetaDataStore — a RecordMetaData kept in the database, so that every process using a
// record store shares one metadata version (the Java Record Layer's FDBMetaDataStore,
// docs/format.md, "Metadata store").
//
// The metadata is stored as its serialized form, the MetaData proto, through the split
// helper with splitting always on (so metadata over 100,000 bytes is chunked as records are):
// the current metadata under the tuple (null), and each replaced version under ("H", version).
//
//   rl::runInContext(db, [&](rl::RecordContext& context) {
//     rl::MetaDataStore metaDataStore(context, rl::StoreLocation::tuple({"app", "meta"}));
//     metaDataStore.save(newMetaData);          // version must go up
//   });
//   std::optional<rl::RecordMetaData> current = rl::runInContext(db, [&](rl::RecordContext& c) {
//     return rl::MetaDataStore(c, location).load();
//   });
//
// Keys, P the location's prefix: current `P 00` + split suffix (`P 00 14` when unsplit);
// history `P 02 48 00 15 <v>` + split suffix. Saving reads the current metadata with a read
// conflict, so two processes updating at once serialize: the second one sees the first one's
// version, and fails if its own is not above it.
//
// Saving over stored metadata checks that the new metadata is a safe successor of the stored
// one with a MetaDataEvolutionValidator (the default, strict rules unless
// setEvolutionValidator gives another), as the Java store does; a refused change throws
// MetaDataException naming the rule and writes nothing.
//
// Not here (yet): the metadata cache, and the very old layout at the empty tuple.
//
// Thread-safety: as its RecordContext, one thread at a time.
#pragma once

#include <optional>

#include "fdb/subspace.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata.h"
#include "rl/metadata/metadata_evolution_validator.h"
#include "rl/store/store_location.h"

namespace rl {

class MetaDataStore {
 public:
  // The key of the current metadata, (null), and the prefix of the history, ("H").
  static fdb::Tuple currentKey() { return fdb::Tuple{nullptr}; }
  static fdb::Tuple historyKey(int version) { return fdb::Tuple{"H", version}; }

  MetaDataStore(RecordContext& context, StoreLocation location);

  // The current metadata, or nullopt when none was saved. Throws MetaDataException when the
  // stored bytes do not parse or do not build.
  std::optional<RecordMetaData> load();
  // The metadata of `version`: the current one if it has that version, else the history's;
  // nullopt when neither has it.
  std::optional<RecordMetaData> load(int version);
  // The serialized forms, as stored.
  std::optional<MetaDataProto> loadProto();
  std::optional<MetaDataProto> loadProto(int version);
  // The current version, or -1 when none was saved.
  int currentVersion();

  // Makes `metaData` current, moving the current one (if any) to the history. Throws
  // MetaDataException when its version is not above the stored one, or when the evolution
  // validator refuses it as a successor of the stored one.
  void save(const RecordMetaData& metaData);
  void save(const MetaDataProto& proto);

  // The rules save() checks new metadata against the stored metadata by.
  const MetaDataEvolutionValidator& evolutionValidator() const { return validator_; }
  void setEvolutionValidator(MetaDataEvolutionValidator validator) { validator_ = validator; }

 private:
  // The subspace P, or nullopt when a directory location does not exist (and `create` is
  // false).
  std::optional<fdb::Subspace> subspace(bool create);
  std::optional<MetaDataProto> read(const fdb::Subspace& subspace, const fdb::Tuple& key);

  RecordContext* context_;
  StoreLocation location_;
  MetaDataEvolutionValidator validator_;
};

}  // namespace rl
