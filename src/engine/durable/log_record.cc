#include "engine/durable/log_record.h"

#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb::engine {
namespace {

void putVarint(Bytes& out, size_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

}  // namespace

void LogRecord::set(std::string_view key, std::string_view value) {
  bytes_.push_back(static_cast<char>(Op::kSet));
  putVarint(bytes_, key.size());
  bytes_.append(key);
  putVarint(bytes_, value.size());
  bytes_.append(value);
}

void LogRecord::clear(std::string_view key) {
  bytes_.push_back(static_cast<char>(Op::kClear));
  putVarint(bytes_, key.size());
  bytes_.append(key);
}

void LogRecord::clearRange(std::string_view begin, std::string_view end) {
  bytes_.push_back(static_cast<char>(Op::kClearRange));
  putVarint(bytes_, begin.size());
  bytes_.append(begin);
  putVarint(bytes_, end.size());
  bytes_.append(end);
}

void LogRecord::forEach(std::string_view record,
                        FunctionRef<void(Op, std::string_view, std::string_view)> visit) {
  size_t at = 0;
  auto malformed = [&](std::string_view what) {
    throw Error(errors::kFileCorrupt, fmt::format("malformed log record: {} at byte {}", what, at));
  };
  auto readBytes = [&]() -> std::string_view {
    size_t length = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= record.size() || shift > 28) malformed("bad length");
      auto byte = static_cast<uint8_t>(record[at++]);
      length |= static_cast<size_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    if (length > record.size() - at) malformed("truncated bytes");
    std::string_view bytes = record.substr(at, length);
    at += length;
    return bytes;
  };
  while (at < record.size()) {
    auto op = static_cast<Op>(record[at++]);
    switch (op) {
      case Op::kSet:
      case Op::kClearRange: {
        std::string_view first = readBytes();
        std::string_view second = readBytes();
        visit(op, first, second);
        break;
      }
      case Op::kClear: visit(op, readBytes(), {}); break;
      default: malformed("unknown mutation tag");
    }
  }
}

}  // namespace fdb::engine
