// LogRecord — one commit as the durable store's log keeps it (docs/durable.md, "On disk").
//
//   LogRecord record;
//   record.set("k", "v");
//   record.clearRange("a", "b");
//   LogRecord::forEach(record.bytes(), [](LogRecord::Op op, std::string_view key,
//                                         std::string_view second) { ... });
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "engine/function_ref.h"
#include "fdb/bytes.h"

namespace fdb::engine {

// One commit's mutations as the log keeps them: resolved (atomic operations evaluated,
// versionstamps placed), in the order the commit applied them. Encoding (docs/durable.md):
// per mutation one tag byte ('S' set, 'C' clear, 'R' clear range), then the key (and, for
// 'S' and 'R', the value or the range's end), each as a varint32 length and its bytes.
class LogRecord {
 public:
  enum class Op : char { kSet = 'S', kClear = 'C', kClearRange = 'R' };
  void set(std::string_view key, std::string_view value);
  void clear(std::string_view key);
  void clearRange(std::string_view begin, std::string_view end);
  const Bytes& bytes() const { return bytes_; }
  Bytes release() { return std::move(bytes_); }

  // Calls visit(op, key, second) for every mutation of `record` (second: the value, the
  // range's end, or empty). Throws fdb::Error 1522 (file_corrupt) on a malformed record.
  static void forEach(std::string_view record,
                      FunctionRef<void(Op, std::string_view, std::string_view)> visit);

 private:
  Bytes bytes_;
};

// A commit's record with its version, as the log writes it.
struct LoggedCommit {
  int64_t version;
  Bytes record;  // LogRecord bytes
};

}  // namespace fdb::engine
