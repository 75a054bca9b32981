#include "fdb/bytes.h"

#include <stdexcept>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb {
int hexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

Bytes fromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) {
    throw std::invalid_argument(
        fmt::format("hex string has an odd number of digits ({})", hex.size()));
  }
  Bytes out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = hexDigitValue(hex[i]);
    int lo = hexDigitValue(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      size_t bad = hi < 0 ? i : i + 1;
      throw std::invalid_argument(
          fmt::format("'{}' at position {} is not a hex digit", hex[bad], bad));
    }
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

std::string printable(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char b : bytes) {
    if (b == '\\') {
      out += "\\\\";
    } else if (b >= 32 && b < 127) {
      out.push_back(static_cast<char>(b));
    } else {
      out += fmt::format("\\x{:02x}", b);
    }
  }
  return out;
}

Bytes strinc(std::string_view prefix) {
  size_t end = prefix.find_last_not_of('\xff');
  if (end == std::string_view::npos) {
    throw Error(errors::kClientInvalidOperation,
                "strinc: the key is empty or all 0xff bytes, so no key follows its range");
  }
  Bytes out(prefix.substr(0, end + 1));
  out.back() = static_cast<char>(static_cast<unsigned char>(out.back()) + 1);
  return out;
}

KeyRange prefixRange(std::string_view prefix) { return KeyRange{Bytes(prefix), strinc(prefix)}; }

}  // namespace fdb
