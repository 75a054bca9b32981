#include "printable.h"

#include <stdexcept>

#include <fmt/core.h>

#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"

namespace rl::cli {
namespace {

// The 1-based character (UTF-8 code point) at byte `offset` of `text`.
size_t characterAt(std::string_view text, size_t offset) {
  size_t column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) ++column;
  }
  return column;
}

}  // namespace

std::string parsePrintable(std::string_view text) {
  std::string bytes;
  bytes.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      bytes.push_back(text[i]);
      continue;
    }
    auto fail = [&](std::string_view what) {
      throw std::invalid_argument(
          fmt::format("bad escape at character {} of `{}': {}", characterAt(text, i), text, what));
    };
    if (i + 1 == text.size()) fail("a backslash at the end (\\\\ is a backslash)");
    const char next = text[i + 1];
    if (next == '\\') {
      bytes.push_back('\\');
      ++i;
    } else if (next == 'x') {
      const int high = i + 2 < text.size() ? fdb::hexDigitValue(text[i + 2]) : -1;
      const int low = i + 3 < text.size() ? fdb::hexDigitValue(text[i + 3]) : -1;
      if (high < 0 || low < 0) fail("\\x takes two hex digits (\\x00 to \\xff)");
      bytes.push_back(static_cast<char>(high * 16 + low));
      i += 3;
    } else {
      fail("a backslash starts \\xNN (a byte) or \\\\ (a backslash)");
    }
  }
  return bytes;
}

std::optional<std::string> decodedTuple(std::string_view key) {
  try {
    return fdb::formatTuple(fdb::Tuple::unpack(key));
  } catch (const fdb::Error&) {
    return std::nullopt;
  }
}

}  // namespace rl::cli
