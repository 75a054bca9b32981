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

// A selector seen in place: the form the read calls take, so a caller can name a selector
// by bytes it owns elsewhere (a KeySelector converts to one). The key is read during the
// call only: it need not outlive it.
struct KeySelectorRef {
  std::string_view key;
  bool orEqual = false;
  int offset = 1;

  KeySelectorRef() = default;
  KeySelectorRef(std::string_view key, bool orEqual, int offset)
      : key(key), orEqual(orEqual), offset(offset) {}
  KeySelectorRef(const KeySelector& selector)  // NOLINT(google-explicit-constructor)
      : key(selector.key), orEqual(selector.orEqual), offset(selector.offset) {}

  static KeySelectorRef firstGreaterOrEqual(std::string_view key) { return {key, false, 1}; }
  static KeySelectorRef firstGreaterThan(std::string_view key) { return {key, true, 1}; }

  // An owned copy.
  KeySelector owned() const { return KeySelector{Bytes(key), orEqual, offset}; }
};

}  // namespace fdb
