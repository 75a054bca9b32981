#include "tuple_argument.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/core.h>

#include "fdb/tuple_text.h"

namespace rl::cli {

fdb::Tuple parseTupleArgument(const std::string& text) {
  try {
    return fdb::parseTuple(text);
  } catch (const fdb::TupleSyntaxError& e) {
    // The error's position is a byte offset; the user counts characters (UTF-8 code points).
    size_t column =
        1 + std::count_if(
                text.begin(),
                text.begin() + static_cast<std::ptrdiff_t>(std::min(e.position(), text.size())),
                [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
    std::string message = fmt::format("bad tuple at character {}: {}", column, e.what());
    if (text.find('\n') == std::string::npos) {
      message += fmt::format("\n  {}\n  {:>{}}", text, "^", column);
    }
    throw std::invalid_argument(message);
  }
}

}  // namespace rl::cli
