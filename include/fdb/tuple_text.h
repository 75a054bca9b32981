// The text syntax of tuples: how `rl tuple`, `rl kv` and diagnostics show and read them.
//
// It reads like Python's tuple literals (docs/tuple.md has the grammar):
//   ("a", 1, -2.5, null, true, b"\x00\xff", ("nested",), f32(1.5),
//    uuid(0123456789abcdef0123456789abcdef), vs(0102030405060708090a, 7), vs())
//
//   fdb::Tuple t = fdb::parseTuple(R"(("orders", 42))");
//   std::string shown = fdb::formatTuple(t);   // ("orders", 42)
//
// formatTuple's output parses back to an equal tuple (NaN payloads aside).
// Thread-safety: pure functions.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "fdb/tuple.h"

namespace fdb {

// A syntax error: what() says what is wrong; position() is the 0-based byte offset
// in the input where it was found.
class TupleSyntaxError : public std::invalid_argument {
 public:
  TupleSyntaxError(const std::string& message, size_t position)
      : std::invalid_argument(message), position_(position) {}
  size_t position() const { return position_; }

 private:
  size_t position_;
};

std::string formatTuple(const Tuple& tuple);
std::string formatElement(const TupleElement& element);

// Parses one tuple literal, surrounded by optional whitespace. Throws TupleSyntaxError.
Tuple parseTuple(std::string_view text);

}  // namespace fdb
