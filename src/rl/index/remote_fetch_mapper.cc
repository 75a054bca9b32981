#include "rl/index/remote_fetch_mapper.h"

#include <cstdint>
#include <string>

#include "fdb/error.h"
#include "rl/store/keyspace.h"

namespace rl::index {

namespace {

// The type codes FoundationDB's storage server parses in a mapped range's keys.
bool isServerTypeCode(uint8_t code) {
  switch (code) {
    case 0x00:  // null
    case 0x01:  // byte string
    case 0x02:  // unicode string
    case 0x20:  // float
    case 0x21:  // double
    case 0x26:  // false
    case 0x27:  // true
    case 0x33:  // versionstamp
      return true;
    default: return code >= 0x0c && code <= 0x1c;  // integers of at most 8 bytes
  }
}

}  // namespace

std::optional<fdb::Tuple> decodeServerTuple(std::string_view packed) {
  fdb::Tuple tuple;
  try {
    tuple = fdb::Tuple::unpack(packed);
  } catch (const fdb::Error&) {
    return std::nullopt;
  }
  for (size_t i = 0; i < tuple.size(); ++i) {
    // Each element's own encoding starts with its type code.
    fdb::Bytes element = fdb::Tuple{tuple.at(i)}.pack();
    if (!isServerTypeCode(static_cast<uint8_t>(element[0]))) return std::nullopt;
  }
  return tuple;
}

std::vector<int> entryPrimaryKeyPositions(std::span<const int> componentPositions, int columnSize,
                                          int primaryKeyLength) {
  std::vector<int> positions;
  positions.reserve(static_cast<size_t>(primaryKeyLength));
  int next = columnSize;
  for (int i = 0; i < primaryKeyLength; ++i) {
    bool indexed = static_cast<size_t>(i) < componentPositions.size() && componentPositions[i] >= 0;
    positions.push_back(indexed ? componentPositions[i] : next++);
  }
  return positions;
}

std::optional<fdb::Bytes> remoteFetchMapper(std::string_view storePrefix,
                                            std::string_view indexSubspacePrefix,
                                            std::span<const int> entryPrimaryKeyPositions) {
  std::optional<fdb::Tuple> store = decodeServerTuple(storePrefix);
  std::optional<fdb::Tuple> indexSubspace = decodeServerTuple(indexSubspacePrefix);
  if (!store || !indexSubspace) return std::nullopt;
  fdb::Tuple mapper = *store;
  mapper.append(keyspace::kRecord);
  const auto prefixLength = static_cast<int>(indexSubspace->size());
  for (int position : entryPrimaryKeyPositions) {
    mapper.append("{K[" + std::to_string(position + prefixLength) + "]}");
  }
  mapper.append("{...}");
  return mapper.pack();
}

}  // namespace rl::index
