#include "rl/record/record_version.h"

#include <fmt/format.h>
#include <algorithm>

#include "rl/record_core_exception.h"

namespace rl {
namespace {

constexpr uint8_t kTupleVersionstampCode = 0x33;

bool isAllOnes(const RecordVersion::GlobalVersion& global) {
  return std::all_of(global.begin(), global.end(), [](uint8_t b) { return b == 0xff; });
}

RecordVersion::GlobalVersion incompleteGlobal() {
  RecordVersion::GlobalVersion global;
  global.fill(0xff);
  return global;
}

void appendLittleEndian32(fdb::Bytes& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

RecordVersion::GlobalVersion dbVersionGlobal(int64_t dbVersion, uint8_t fill) {
  RecordVersion::GlobalVersion global;
  const auto v = static_cast<uint64_t>(dbVersion);
  for (int i = 0; i < 8; ++i) global[i] = static_cast<uint8_t>(v >> (8 * (7 - i)));
  global[8] = fill;
  global[9] = fill;
  return global;
}

}  // namespace

RecordVersion RecordVersion::complete(const GlobalVersion& globalVersion, uint16_t localVersion) {
  if (isAllOnes(globalVersion)) {
    throw RecordCoreArgumentException(
        "a complete record version cannot have an all-0xff global version (that marks an "
        "incomplete one)");
  }
  return RecordVersion(globalVersion, localVersion);
}

RecordVersion RecordVersion::complete(std::string_view globalVersion, uint16_t localVersion) {
  if (globalVersion.size() != kGlobalVersionLength) {
    throw RecordCoreArgumentException(fmt::format("a global version is {} bytes, not {}",
                                                  kGlobalVersionLength, globalVersion.size()));
  }
  GlobalVersion global;
  std::copy(globalVersion.begin(), globalVersion.end(), global.begin());
  return complete(global, localVersion);
}

RecordVersion RecordVersion::incomplete(uint16_t localVersion) {
  return RecordVersion(incompleteGlobal(), localVersion);
}

RecordVersion RecordVersion::fromBytes(std::string_view bytes) {
  if (bytes.size() != kVersionLength) {
    throw RecordCoreArgumentException(
        fmt::format("a record version is {} bytes, not {}", kVersionLength, bytes.size()));
  }
  GlobalVersion global;
  std::copy(bytes.begin(), bytes.begin() + kGlobalVersionLength, global.begin());
  const auto local = static_cast<uint16_t>((static_cast<uint8_t>(bytes[10]) << 8) |
                                           static_cast<uint8_t>(bytes[11]));
  return RecordVersion(global, local);
}

RecordVersion RecordVersion::fromVersionstamp(const fdb::Versionstamp& versionstamp) {
  return RecordVersion(versionstamp.transactionVersion(), versionstamp.userVersion());
}

RecordVersion RecordVersion::firstInDBVersion(int64_t dbVersion) {
  return RecordVersion(dbVersionGlobal(dbVersion, 0x00), 0);
}

RecordVersion RecordVersion::lastInDBVersion(int64_t dbVersion) {
  return RecordVersion(dbVersionGlobal(dbVersion, 0xff), 0xffff);
}

RecordVersion RecordVersion::minVersion() { return RecordVersion(GlobalVersion{}, 0); }

RecordVersion RecordVersion::maxVersion() {
  GlobalVersion global = incompleteGlobal();
  global[9] = 0xfe;
  return RecordVersion(global, 0xffff);
}

bool RecordVersion::isComplete() const { return !isAllOnes(globalVersion_); }

const RecordVersion::GlobalVersion& RecordVersion::globalVersion() const {
  if (!isComplete())
    throw RecordCoreException("an incomplete record version has no global version");
  return globalVersion_;
}

int64_t RecordVersion::dbVersion() const {
  const GlobalVersion& global = globalVersion();
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | global[i];
  return static_cast<int64_t>(v);
}

RecordVersion RecordVersion::withCommittedVersion(std::string_view versionstamp) const {
  if (isComplete()) throw RecordCoreException("the record version is already complete");
  return complete(versionstamp, localVersion_);
}

RecordVersion RecordVersion::next() const {
  if (!isComplete()) {
    if (localVersion_ == 0xffff)
      throw RecordCoreException("no incomplete version follows this one");
    return incomplete(static_cast<uint16_t>(localVersion_ + 1));
  }
  if (*this == maxVersion()) throw RecordCoreException("no complete version follows the maximum");
  fdb::Bytes bytes = toBytes();
  for (size_t i = bytes.size(); i-- > 0;) {
    auto& b = reinterpret_cast<uint8_t&>(bytes[i]);
    if (b != 0xff) {
      ++b;
      break;
    }
    b = 0x00;
  }
  return fromBytes(bytes);
}

RecordVersion RecordVersion::prev() const {
  if (!isComplete()) {
    if (localVersion_ == 0) throw RecordCoreException("no incomplete version precedes this one");
    return incomplete(static_cast<uint16_t>(localVersion_ - 1));
  }
  if (*this == minVersion()) throw RecordCoreException("no version precedes the minimum");
  fdb::Bytes bytes = toBytes();
  for (size_t i = bytes.size(); i-- > 0;) {
    auto& b = reinterpret_cast<uint8_t&>(bytes[i]);
    if (b != 0x00) {
      --b;
      break;
    }
    b = 0xff;
  }
  return fromBytes(bytes);
}

fdb::Bytes RecordVersion::toBytes() const {
  fdb::Bytes bytes(reinterpret_cast<const char*>(globalVersion_.data()), kGlobalVersionLength);
  bytes.push_back(static_cast<char>(localVersion_ >> 8));
  bytes.push_back(static_cast<char>(localVersion_ & 0xff));
  return bytes;
}

fdb::Versionstamp RecordVersion::toVersionstamp() const {
  if (!isComplete()) return fdb::Versionstamp::incomplete(localVersion_);
  return fdb::Versionstamp::complete(globalVersion_, localVersion_);
}

fdb::Bytes RecordVersion::toInlineValue() const {
  fdb::Bytes value;
  value.reserve(1 + kVersionLength + 4);
  value.push_back(static_cast<char>(kTupleVersionstampCode));
  value += toBytes();
  if (!isComplete()) appendLittleEndian32(value, 1);  // the global part starts after 0x33
  return value;
}

RecordVersion RecordVersion::fromInlineValue(std::string_view value) {
  if (value.size() != 1 + kVersionLength ||
      static_cast<uint8_t>(value[0]) != kTupleVersionstampCode) {
    throw RecordCoreStorageException(fmt::format(
        "an inline record version is 0x33 and 12 bytes; found {}", fdb::printable(value)));
  }
  return fromBytes(value.substr(1));
}

fdb::Bytes RecordVersion::toOldFormatValue() const {
  fdb::Bytes value = toBytes();
  if (!isComplete()) appendLittleEndian32(value, 0);
  return value;
}

RecordVersion RecordVersion::fromOldFormatValue(std::string_view value) {
  if (value.size() != kVersionLength) {
    throw RecordCoreStorageException(
        fmt::format("an old-format record version is 12 bytes; found {}", fdb::printable(value)));
  }
  return fromBytes(value);
}

std::string RecordVersion::toString() const {
  if (!isComplete()) return fmt::format("incomplete-{}", localVersion_);
  return fmt::format(
      "{}-{}",
      fdb::toHex(std::string_view(reinterpret_cast<const char*>(globalVersion_.data()),
                                  kGlobalVersionLength)),
      localVersion_);
}

std::strong_ordering operator<=>(const RecordVersion& a, const RecordVersion& b) {
  // Incomplete versions carry 0xff×10, which no complete one has, so byte order is the order.
  if (auto c = a.globalVersion_ <=> b.globalVersion_; c != 0) return c;
  return a.localVersion_ <=> b.localVersion_;
}

std::ostream& operator<<(std::ostream& out, const RecordVersion& version) {
  return out << version.toString();
}

}  // namespace rl
