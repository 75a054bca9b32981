#include "rl/index/raw_index_entry.h"

#include <fmt/format.h>
#include <cstdint>

#include "fdb/error.h"
#include "fdb/types.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

[[noreturn]] void notATuple(std::string_view packed, std::string_view why) {
  throw RecordCoreStorageException(
      fmt::format("an index entry that is not a tuple ({}): {}", why, fdb::printable(packed)));
}

// The end of a byte or unicode string's encoding starting at `pos` (after its type code):
// just past its terminating 0x00 (0x00 0xff is an escaped zero byte).
size_t endOfString(std::string_view packed, size_t pos) {
  while (pos < packed.size()) {
    if (packed[pos] == '\0') {
      if (pos + 1 < packed.size() && static_cast<uint8_t>(packed[pos + 1]) == 0xff) {
        pos += 2;
        continue;
      }
      return pos + 1;
    }
    ++pos;
  }
  notATuple(packed, "unterminated string");
}

// The end of the element whose type code is at `pos` (tuple layer encoding; inside a nested
// tuple, null is 0x00 0xff).
size_t endOfElement(std::string_view packed, size_t pos, bool nested) {
  const auto code = static_cast<uint8_t>(packed[pos]);
  size_t length = 0;  // bytes after the type code, for fixed-size elements
  switch (code) {
    case 0x00: return nested ? pos + 2 : pos + 1;
    case 0x01:
    case 0x02: return endOfString(packed, pos + 1);
    case 0x05: {
      size_t at = pos + 1;
      while (true) {
        if (at >= packed.size()) notATuple(packed, "unterminated nested tuple");
        if (packed[at] == '\0') {
          if (at + 1 < packed.size() && static_cast<uint8_t>(packed[at + 1]) == 0xff) {
            at += 2;  // a null inside the nested tuple
            continue;
          }
          return at + 1;
        }
        at = endOfElement(packed, at, /*nested=*/true);
      }
    }
    case 0x0b:  // negative integer of more than 8 bytes: length byte (complemented), bytes
    case 0x1d:  // positive integer of more than 8 bytes: length byte, bytes
      if (pos + 1 >= packed.size()) notATuple(packed, "truncated integer");
      length = 1 + (code == 0x1d ? static_cast<uint8_t>(packed[pos + 1])
                                 : static_cast<uint8_t>(~static_cast<uint8_t>(packed[pos + 1])));
      break;
    case 0x20: length = 4; break;   // float
    case 0x21: length = 8; break;   // double
    case 0x26:                      // false
    case 0x27: length = 0; break;   // true
    case 0x30: length = 16; break;  // UUID
    case 0x32: length = 10; break;  // 80-bit versionstamp
    case 0x33: length = 12; break;  // 96-bit versionstamp
    default:
      if (code >= 0x0c && code <= 0x1c) {
        length = code >= 0x14 ? code - 0x14u : 0x14u - code;
        break;
      }
      notATuple(packed, fmt::format("unknown type code 0x{:02x}", code));
  }
  if (pos + 1 + length > packed.size()) notATuple(packed, "truncated element");
  return pos + 1 + length;
}

// The encoding of top-level element `index` of `packed`.
std::string_view elementAt(std::string_view packed, size_t index) {
  size_t pos = 0;
  for (size_t i = 0; i < index; ++i) {
    if (pos >= packed.size()) notATuple(packed, fmt::format("no element {}", index));
    pos = endOfElement(packed, pos, /*nested=*/false);
  }
  if (pos >= packed.size()) notATuple(packed, fmt::format("no element {}", index));
  return packed.substr(pos, endOfElement(packed, pos, /*nested=*/false) - pos);
}

fdb::Tuple decode(std::string_view packed) {
  try {
    return fdb::Tuple::unpack(packed);
  } catch (const fdb::Error& e) {
    notATuple(packed, e.what());
  }
}

const std::vector<int>& noPositions() {
  static const std::vector<int> none;
  return none;
}

}  // namespace

RawIndexEntry::RawIndexEntry(std::shared_ptr<const void> owner, std::string_view key,
                             std::string_view value, size_t prefixLength,
                             std::shared_ptr<const std::vector<int>> primaryKeyPositions)
    : owner_(std::move(owner)),
      key_(key),
      value_(value),
      prefixLength_(prefixLength <= key.size() ? prefixLength : key.size()),
      primaryKeyPositions_(std::move(primaryKeyPositions)) {}

RawIndexEntry RawIndexEntry::copyOf(std::string_view key, std::string_view value,
                                    size_t prefixLength,
                                    std::shared_ptr<const std::vector<int>> primaryKeyPositions) {
  auto owned =
      std::make_shared<const fdb::KeyValue>(fdb::KeyValue{fdb::Bytes(key), fdb::Bytes(value)});
  std::string_view keyView = owned->key;
  std::string_view valueView = owned->value;
  return RawIndexEntry(std::move(owned), keyView, valueView, prefixLength,
                       std::move(primaryKeyPositions));
}

fdb::Tuple RawIndexEntry::key() const { return decode(packedKey()); }

fdb::Tuple RawIndexEntry::value() const {
  if (value_.empty()) return fdb::Tuple{};
  return decode(value_);
}

const std::vector<int>& RawIndexEntry::primaryKeyPositions() const {
  return primaryKeyPositions_ ? *primaryKeyPositions_ : noPositions();
}

void RawIndexEntry::appendPackedPrimaryKey(fdb::Bytes& out) const {
  const std::string_view entry = packedKey();
  for (int position : primaryKeyPositions()) {
    if (position < 0) notATuple(entry, "negative primary-key position");
    out.append(elementAt(entry, static_cast<size_t>(position)));
  }
}

fdb::Tuple RawIndexEntry::primaryKey() const {
  fdb::Bytes packed;
  appendPackedPrimaryKey(packed);
  return decode(packed);
}

bool operator==(const RawIndexEntry& a, const RawIndexEntry& b) {
  return a.key_ == b.key_ && a.prefixLength_ == b.prefixLength_ && a.value_ == b.value_ &&
         a.primaryKeyPositions() == b.primaryKeyPositions();
}

}  // namespace rl
