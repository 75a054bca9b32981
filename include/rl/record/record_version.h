// rl::RecordVersion — the version of a record: when, in commit order, it was last saved.
//
// Twelve bytes, the same as FoundationDB's tuple Versionstamp: a 10-byte global version (the
// commit version big-endian, then the 2-byte batch order) followed by a 2-byte big-endian
// local version that orders the saves of one transaction. Before commit the global part is
// unknown: such an *incomplete* version has ten 0xff bytes there and is filled in by
// FoundationDB at commit (SET_VERSIONSTAMPED_VALUE / _KEY). Versions order as their twelve
// bytes do: complete ones by commit order, every complete one before every incomplete one,
// incomplete ones by local version.
//
//   rl::RecordVersion v = rl::RecordVersion::incomplete(context.claimLocalVersion());
//   context.commit();
//   rl::RecordVersion done = v.withCommittedVersion(*context.committedVersionstamp());
//   fdb::Bytes stored = done.toInlineValue();   // 0x33 + 12 bytes, at (1, pk, -1)
//
// Format: docs/format.md ("Record versions").
// Thread-safety: a value; const access from many threads is safe.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/tuple.h"

namespace rl {

class RecordVersion {
 public:
  static constexpr size_t kVersionLength = 12;
  static constexpr size_t kGlobalVersionLength = 10;
  using GlobalVersion = std::array<uint8_t, kGlobalVersionLength>;

  // A complete version. Throws RecordCoreArgumentException when `globalVersion` is all 0xff
  // (that pattern marks incomplete versions) or, for the string form, is not 10 bytes.
  static RecordVersion complete(const GlobalVersion& globalVersion, uint16_t localVersion);
  static RecordVersion complete(std::string_view globalVersion, uint16_t localVersion);
  // The version the local-th save of a transaction gets before the transaction commits.
  static RecordVersion incomplete(uint16_t localVersion);
  // The 12-byte form; incomplete when the global part is all 0xff. Throws
  // RecordCoreArgumentException when `bytes` is not 12 bytes long.
  static RecordVersion fromBytes(std::string_view bytes);
  static RecordVersion fromVersionstamp(const fdb::Versionstamp& versionstamp);

  // The first / last version a commit at database version `dbVersion` can give:
  // `dbVersion` big-endian then 00 00 00 00 / ff ff ff ff.
  static RecordVersion firstInDBVersion(int64_t dbVersion);
  static RecordVersion lastInDBVersion(int64_t dbVersion);
  // Twelve zero bytes, and ff×9 fe ff ff: the smallest and largest complete versions.
  static RecordVersion minVersion();
  static RecordVersion maxVersion();

  bool isComplete() const;
  uint16_t localVersion() const { return localVersion_; }
  // The 10-byte global part; throws RecordCoreException for an incomplete version.
  const GlobalVersion& globalVersion() const;
  // The commit version (the first 8 bytes); throws RecordCoreException when incomplete.
  int64_t dbVersion() const;

  // This incomplete version completed with the 10-byte versionstamp its transaction
  // committed with. Throws RecordCoreException when this version is already complete.
  RecordVersion withCommittedVersion(std::string_view versionstamp) const;

  // The next / previous version in order (the 12 bytes as one big-endian number; for
  // incomplete versions, the local version). Throws RecordCoreException past the ends.
  RecordVersion next() const;
  RecordVersion prev() const;

  fdb::Bytes toBytes() const;  // the 12 bytes
  fdb::Versionstamp toVersionstamp() const;

  // On-disk encodings (docs/format.md, "Record versions").
  // Inline, at (1, pk, -1): the tuple-packed Versionstamp, 0x33 + 12 bytes. For an incomplete
  // version, the operand of SET_VERSIONSTAMPED_VALUE: those 13 bytes + the 4-byte
  // little-endian offset 1 of the global part.
  fdb::Bytes toInlineValue() const;
  // Reads a stored inline value (13 bytes). Throws RecordCoreStorageException otherwise.
  static RecordVersion fromInlineValue(std::string_view value);
  // Old format, at (8, pk): the raw 12 bytes; for an incomplete version + the 4-byte
  // little-endian offset 0.
  fdb::Bytes toOldFormatValue() const;
  // Reads a stored old-format value (12 bytes). Throws RecordCoreStorageException otherwise.
  static RecordVersion fromOldFormatValue(std::string_view value);

  // Hex of the global part (or "incomplete") and the local version, e.g. "0000000000a1b2c30001-7".
  std::string toString() const;

  friend std::strong_ordering operator<=>(const RecordVersion& a, const RecordVersion& b);
  friend bool operator==(const RecordVersion& a, const RecordVersion& b) = default;

 private:
  RecordVersion(const GlobalVersion& globalVersion, uint16_t localVersion)
      : globalVersion_(globalVersion), localVersion_(localVersion) {}

  GlobalVersion globalVersion_;
  uint16_t localVersion_;
};

std::ostream& operator<<(std::ostream& out, const RecordVersion& version);

}  // namespace rl
