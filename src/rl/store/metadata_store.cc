// The metadata store: MetaData protos through the split helper (metadata_store.h).
#include "rl/store/metadata_store.h"

#include <fmt/format.h>

#include "fdb/error.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/record/split_helper.h"

namespace rl {

MetaDataStore::MetaDataStore(RecordContext& context, StoreLocation location)
    : context_(&context), location_(std::move(location)) {}

std::optional<fdb::Subspace> MetaDataStore::subspace(bool create) {
  try {
    return location_.resolve(context_->transaction(),
                             create ? StoreLocation::kCreate : StoreLocation::kOpen);
  } catch (const fdb::Error& e) {
    if (e.code() == fdb::errors::kDirectoryDoesNotExist) return std::nullopt;
    throw;
  }
}

std::optional<MetaDataProto> MetaDataStore::read(const fdb::Subspace& subspace,
                                                 const fdb::Tuple& key) {
  const std::optional<RawRecord> raw = loadWithSplit(*context_, subspace, key);
  if (!raw) return std::nullopt;
  MetaDataProto proto;
  if (!proto.ParseFromArray(raw->rawRecord.view().data(),
                            static_cast<int>(raw->rawRecord.size()))) {
    throw MetaDataException(fmt::format("the metadata stored at {} does not parse as MetaData",
                                        fdb::printable(subspace.pack(key))));
  }
  return proto;
}

std::optional<MetaDataProto> MetaDataStore::loadProto() {
  const std::optional<fdb::Subspace> at = subspace(false);
  if (!at) return std::nullopt;
  return read(*at, currentKey());
}

std::optional<MetaDataProto> MetaDataStore::loadProto(int version) {
  const std::optional<fdb::Subspace> at = subspace(false);
  if (!at) return std::nullopt;
  std::optional<MetaDataProto> current = read(*at, currentKey());
  if (current && current->version() == version) return current;
  return read(*at, historyKey(version));
}

std::optional<RecordMetaData> MetaDataStore::load() {
  std::optional<MetaDataProto> proto = loadProto();
  if (!proto) return std::nullopt;
  return RecordMetaData::fromProto(*proto);
}

std::optional<RecordMetaData> MetaDataStore::load(int version) {
  std::optional<MetaDataProto> proto = loadProto(version);
  if (!proto) return std::nullopt;
  return RecordMetaData::fromProto(*proto);
}

int MetaDataStore::currentVersion() {
  const std::optional<MetaDataProto> proto = loadProto();
  return proto ? proto->version() : -1;
}

void MetaDataStore::save(const RecordMetaData& metaData) { save(metaData.toProto()); }

void MetaDataStore::save(const MetaDataProto& proto) {
  // What cannot be built is not stored (throws MetaDataException).
  const RecordMetaData metaData = RecordMetaData::fromProto(proto);
  const fdb::Subspace at = *subspace(true);
  // A serializable read: concurrent saves conflict, and the later one sees the earlier.
  const std::optional<RawRecord> current = loadWithSplit(*context_, at, currentKey());
  if (current) {
    MetaDataProto old;
    if (!old.ParseFromArray(current->rawRecord.view().data(),
                            static_cast<int>(current->rawRecord.size()))) {
      throw MetaDataException(fmt::format("the metadata stored at {} does not parse as MetaData",
                                          fdb::printable(at.pack(currentKey()))));
    }
    if (proto.version() <= old.version()) {
      throw MetaDataException(
          fmt::format("meta-data version must increase: saving version {} over stored version {}",
                      proto.version(), old.version()));
    }
    validator_.validate(RecordMetaData::fromProto(old), metaData);
    saveWithSplit(*context_, at, historyKey(old.version()), current->rawRecord);
  }
  saveWithSplit(*context_, at, currentKey(), proto.SerializeAsString());
}

}  // namespace rl
