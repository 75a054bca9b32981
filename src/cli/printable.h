// Bytes typed in FoundationDB's printable form, the inverse of fdb::printable: how `rl kv`
// (like fdbcli) reads keys and values.
//
//   fdb::Bytes key = rl::cli::parsePrintable(R"(orders\x00\x15*)");  // "orders", 0x00, 0x15, '*'
//   fdb::printable(key) == R"(orders\x00\x15*)"
//
// Printable ASCII stands for itself (and any other byte typed as it is, e.g. UTF-8);
// `\xNN` (two hex digits, either case) is the byte NN and `\\` a backslash. Any other
// backslash is an error, so that a typo does not silently become a different key.
// parsePrintable(fdb::printable(b)) == b for every byte string b.
//
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rl::cli {

// Throws std::invalid_argument ("bad escape at character 4 of `ab\xZZ': ...") for a
// backslash that is not `\\` or `\x` and two hex digits; characters are counted in UTF-8 code
// points from 1.
std::string parsePrintable(std::string_view text);

// The tuple `key` decodes to, in the tuple text syntax (docs/tuple.md), or nothing when it is
// not a packed tuple: how keys are shown beside their printable bytes.
std::optional<std::string> decodedTuple(std::string_view key);

}  // namespace rl::cli
