#include "engine/atomic.h"

#include <algorithm>

namespace fdb::engine {
namespace {

// E extended with zero bytes or truncated to `length` bytes.
Bytes fitTo(std::string_view existing, size_t length) {
  Bytes out(existing.substr(0, std::min(existing.size(), length)));
  out.resize(length, '\0');
  return out;
}

uint8_t byteAt(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

Bytes add(std::string_view existing, std::string_view param) {
  Bytes out(param.size(), '\0');
  unsigned carry = 0;
  for (size_t i = 0; i < param.size(); ++i) {  // little-endian: byte 0 is least significant
    unsigned e = i < existing.size() ? byteAt(existing, i) : 0;
    unsigned sum = e + byteAt(param, i) + carry;
    out[i] = static_cast<char>(sum & 0xff);
    carry = sum >> 8;
  }
  return out;
}

template <typename Op>
Bytes bitwise(std::string_view existing, std::string_view param, Op op) {
  Bytes out = fitTo(existing, param.size());
  for (size_t i = 0; i < param.size(); ++i) {
    out[i] = static_cast<char>(op(byteAt(out, i), byteAt(param, i)));
  }
  return out;
}

// Compares E (fitted to len(P)) and P as unsigned little-endian integers.
int compareLittleEndian(std::string_view fittedExisting, std::string_view param) {
  for (size_t i = param.size(); i-- > 0;) {
    if (byteAt(fittedExisting, i) != byteAt(param, i)) {
      return byteAt(fittedExisting, i) < byteAt(param, i) ? -1 : 1;
    }
  }
  return 0;
}

}  // namespace

bool isValidMutationType(int code) {
  switch (code) {
    case 2:
    case 6:
    case 7:
    case 8:
    case 9:
    case 12:
    case 13:
    case 14:
    case 15:
    case 16:
    case 17:
    case 18:
    case 19:
    case 20: return true;
    default: return false;
  }
}

bool isPlainAtomicOp(MutationType type) {
  return isValidMutationType(static_cast<int>(type)) &&
         type != MutationType::kSetVersionstampedKey &&
         type != MutationType::kSetVersionstampedValue;
}

std::optional<Bytes> applyAtomicOp(MutationType type, const std::optional<Bytes>& existing,
                                   std::string_view param) {
  const bool absent = !existing.has_value();
  const bool absentOrEmpty = absent || existing->empty();
  switch (type) {
    case MutationType::kAdd:
      if (absentOrEmpty) return Bytes(param);
      return add(*existing, param);
    case MutationType::kBitAnd:  // sent as AndV2 at API >= 510
    case MutationType::kAndV2:
      if (absent) return Bytes(param);
      return bitwise(*existing, param, [](uint8_t a, uint8_t b) { return a & b; });
    case MutationType::kBitOr:
      if (absentOrEmpty) return Bytes(param);
      return bitwise(*existing, param, [](uint8_t a, uint8_t b) { return a | b; });
    case MutationType::kBitXor:
      if (absentOrEmpty) return Bytes(param);
      return bitwise(*existing, param, [](uint8_t a, uint8_t b) { return a ^ b; });
    case MutationType::kAppendIfFits:
      if (absentOrEmpty) return Bytes(param);
      if (existing->size() + param.size() > kValueSizeLimit) return existing;
      return *existing + Bytes(param);
    case MutationType::kMax: {
      if (absentOrEmpty) return Bytes(param);
      Bytes fitted = fitTo(*existing, param.size());
      return compareLittleEndian(fitted, param) >= 0 ? fitted : Bytes(param);
    }
    case MutationType::kMin:  // sent as MinV2 at API >= 510
    case MutationType::kMinV2: {
      if (absent) return Bytes(param);
      Bytes fitted = fitTo(*existing, param.size());
      return compareLittleEndian(fitted, param) <= 0 ? fitted : Bytes(param);
    }
    case MutationType::kByteMin:
      if (absent) return Bytes(param);
      return std::min(*existing, Bytes(param));
    case MutationType::kByteMax:
      if (absent) return Bytes(param);
      return std::max(*existing, Bytes(param));
    case MutationType::kCompareAndClear:
      if (!absent && *existing == param) return std::nullopt;
      return existing;
    case MutationType::kSetVersionstampedKey:
    case MutationType::kSetVersionstampedValue: break;
  }
  return existing;
}

}  // namespace fdb::engine
