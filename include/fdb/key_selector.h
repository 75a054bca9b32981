// fdb::KeySelector — a key named by its position relative to another key.
//
// A selector (key, orEqual, offset) resolves, over the keys the transaction sees, to
// "the last key < key (or <= key when orEqual), then `offset` keys further" — FoundationDB's
// definition. The four standard forms:
//
//   KeySelector::firstGreaterOrEqual("b")   // (b, false, 1): the first key >= b
//   KeySelector::firstGreaterThan("b")      // (b, true, 1):  the first key > b
//   KeySelector::lastLessThan("b")          // (b, false, 0): the last key < b
//   KeySelector::lastLessOrEqual("b")       // (b, true, 0):  the last key <= b
//   KeySelector::firstGreaterOrEqual("b") + 2   // two keys after that
//
// Resolution before the first key gives "" and past the last gives the end of the key
// space ("\xff" without system-key access). Thread-safety: a plain value.
#pragma once

#include <string>
#include <string_view>

#include "fdb/bytes.h"

namespace fdb {

struct KeySelector {
  Bytes key;
  bool orEqual = false;
  int offset = 1;

  static KeySelector lastLessThan(std::string_view key) { return {Bytes(key), false, 0}; }
  static KeySelector lastLessOrEqual(std::string_view key) { return {Bytes(key), true, 0}; }
  static KeySelector firstGreaterThan(std::string_view key) { return {Bytes(key), true, 1}; }
  static KeySelector firstGreaterOrEqual(std::string_view key) { return {Bytes(key), false, 1}; }

  friend KeySelector operator+(KeySelector s, int delta) {
    s.offset += delta;
    return s;
  }
  friend KeySelector operator-(KeySelector s, int delta) {
    s.offset -= delta;
    return s;
  }
  friend bool operator==(const KeySelector&, const KeySelector&) = default;
};

}  // namespace fdb
