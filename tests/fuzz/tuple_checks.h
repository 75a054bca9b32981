// The properties the tuple fuzz targets check on any input, shared with the unit test that
// replays the committed corpora under GCC. Each returns "" when the property holds and
// a description of the failure otherwise.
#pragma once

#include <string>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"

namespace rl::fuzz {

// Tuple::unpack either throws fdb::Error 2250/2269 or returns a tuple that packs to a
// canonical encoding which unpacks to the same tuple.
inline std::string checkTupleUnpack(std::string_view input) {
  fdb::Tuple tuple;
  try {
    tuple = fdb::Tuple::unpack(input);
  } catch (const fdb::Error& e) {
    if (e.code() == fdb::errors::kInvalidTupleDataType ||
        e.code() == fdb::errors::kInvalidVersionstampSize) {
      return "";
    }
    return "unpack threw an unexpected error: " + std::string(e.what());
  }
  if (tuple.hasIncompleteVersionstamp()) return "";  // pack() refuses these by design
  fdb::Bytes canonical;
  try {
    canonical = tuple.pack();
  } catch (const fdb::Error& e) {
    return "pack of an unpacked tuple threw: " + std::string(e.what());
  }
  fdb::Tuple again = fdb::Tuple::unpack(canonical);
  if (!(again == tuple)) return "unpack(pack(t)) != t for input " + fdb::toHex(input);
  if (again.pack() != canonical) return "pack is not canonical for input " + fdb::toHex(input);
  return "";
}

// parseTuple either throws TupleSyntaxError or returns a tuple whose formatted text parses
// back to an equal tuple.
inline std::string checkTupleText(std::string_view input) {
  fdb::Tuple tuple;
  try {
    tuple = fdb::parseTuple(input);
  } catch (const fdb::TupleSyntaxError&) {
    return "";
  }
  std::string text = fdb::formatTuple(tuple);
  fdb::Tuple again;
  try {
    again = fdb::parseTuple(text);
  } catch (const fdb::TupleSyntaxError& e) {
    return "formatted tuple does not parse: " + text + ": " + e.what();
  }
  if (!(again == tuple)) return "parse(format(t)) != t: " + text;
  return "";
}

}  // namespace rl::fuzz
