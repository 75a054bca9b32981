// Byte strings and key ranges: the currency of the client API.
//
// FoundationDB keys and values are arbitrary byte strings; this code base holds them in
// std::string (`fdb::Bytes`), whose comparison is bytewise unsigned — the order
// FoundationDB sorts keys in.
//
//   fdb::KeyRange r = fdb::Tuple{"orders"}.range();
//   std::string shown = fdb::printable(r.begin);   // "\x05\x02orders\x00\x00" style
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>

namespace fdb {

using Bytes = std::string;

// The half-open range [begin, end) of keys.
struct KeyRange {
  Bytes begin;
  Bytes end;

  bool contains(std::string_view key) const { return key >= begin && key < end; }
  friend bool operator==(const KeyRange&, const KeyRange&) = default;
};

// Lowercase hex, two digits a byte ("0201ff").
std::string toHex(std::string_view bytes);

// The value of one hex digit (either case), or -1 when `c` is not one.
int hexDigitValue(char c);

// The bytes of a hex string (either case). Throws std::invalid_argument naming the
// offending position when the length is odd or a character is not a hex digit.
Bytes fromHex(std::string_view hex);

// FoundationDB's printable form (fdbcli, printable() in the bindings): printable ASCII
// as is, backslash doubled, every other byte as \xNN.
std::string printable(std::string_view bytes);

// The first key after every key that starts with `prefix`: drop trailing 0xff bytes and
// increment the last byte (FoundationDB's strinc). Throws fdb::Error 2000 when `prefix`
// is empty or all 0xff, which have no such key.
Bytes strinc(std::string_view prefix);

// Every key that starts with `prefix`, `prefix` itself included: [prefix, strinc(prefix)).
// Throws as strinc does.
KeyRange prefixRange(std::string_view prefix);

}  // namespace fdb
