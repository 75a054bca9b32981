#include "backup_file.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace rl::cli {
namespace {

constexpr char kMagic[] = "RLBACKUP";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr size_t kPreambleSize = kMagicSize + 4;  // magic, format version
constexpr size_t kFrameHeaderSize = 1 + 4;        // type, payload length
constexpr size_t kFrameCrcSize = 4;
// A data frame is written once its payload reaches this; one key-value (at most 10,000 +
// 100,000 bytes under FoundationDB's limits) may take it a little past.
constexpr size_t kDataFrameBytes = 1 << 20;
// No frame this rl writes comes near it: a larger length is a corrupt one.
constexpr uint32_t kMaxFramePayload = 64u << 20;
constexpr size_t kEndPayloadSize = 8 + 8 + 4;

uint32_t crc32Of(uint32_t crc, std::string_view bytes) {
  return static_cast<uint32_t>(
      ::crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

void appendU32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void appendU64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
uint32_t readU32(const char* in) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = value << 8 | static_cast<uint8_t>(in[i]);
  return value;
}
uint64_t readU64(const char* in) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | static_cast<uint8_t>(in[i]);
  return value;
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    out += kDigits[static_cast<uint8_t>(c) >> 4];
    out += kDigits[static_cast<uint8_t>(c) & 0xf];
  }
  return out;
}

std::optional<fdb::Bytes> unhex(std::string_view text) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (text.size() % 2 != 0) return std::nullopt;
  fdb::Bytes out;
  for (size_t i = 0; i < text.size(); i += 2) {
    const int high = digit(text[i]);
    const int low = digit(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

bool inRanges(const std::vector<fdb::KeyRange>& ranges, std::string_view key) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const fdb::KeyRange& range) {
    return key >= std::string_view(range.begin) && key < std::string_view(range.end);
  });
}

std::string frameName(char type) {
  switch (type) {
    case 'H': return "header frame";
    case 'D': return "data frame";
    case 'E': return "end frame";
  }
  return "frame";
}

}  // namespace

// --- Writer ---

BackupWriter::BackupWriter(const std::string& path, const BackupHeader& header)
    : path_(path), ranges_(header.ranges) {
  file_ = std::fopen(path.c_str(), "wbx");
  if (file_ == nullptr) {
    throw std::runtime_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  }
  std::string preamble(kMagic, kMagicSize);
  appendU32(preamble, kBackupFormatVersion);
  if (std::fwrite(preamble.data(), 1, preamble.size(), file_) != preamble.size()) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  fileCrc_ = crc32Of(0, preamble);
  summary_.fileBytes = static_cast<int64_t>(preamble.size());

  nlohmann::ordered_json json = {
      {"tool", "rl backup"},
      {"format_version", kBackupFormatVersion},
      {"scope", header.scope},
  };
  if (!header.store.empty()) json["store"] = header.store;
  json["source"] = header.source;
  json["version"] = header.version;
  json["created"] = header.created;
  json["ranges"] = nlohmann::ordered_json::array();
  for (const fdb::KeyRange& range : header.ranges) {
    json["ranges"].push_back({{"begin", hex(range.begin)}, {"end", hex(range.end)}});
  }
  writeFrame('H', json.dump());
}

BackupWriter::~BackupWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void BackupWriter::writeFrame(char type, std::string_view payload) {
  std::string frame;
  frame.reserve(kFrameHeaderSize + payload.size() + kFrameCrcSize);
  frame.push_back(type);
  appendU32(frame, static_cast<uint32_t>(payload.size()));
  frame.append(payload);
  appendU32(frame, crc32Of(0, frame));
  if (std::fwrite(frame.data(), 1, frame.size(), file_) != frame.size()) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  }
  fileCrc_ = crc32Of(fileCrc_, frame);
  summary_.fileBytes += static_cast<int64_t>(frame.size());
}

void BackupWriter::add(std::string_view key, std::string_view value) {
  if (lastKey_ && key <= std::string_view(*lastKey_)) {
    throw std::logic_error("BackupWriter::add: keys out of order: " + fdb::printable(key));
  }
  if (!inRanges(ranges_, key)) {
    throw std::logic_error("BackupWriter::add: a key outside the ranges: " + fdb::printable(key));
  }
  lastKey_ = std::string(key);
  appendU32(data_, static_cast<uint32_t>(key.size()));
  data_.append(key);
  appendU32(data_, static_cast<uint32_t>(value.size()));
  data_.append(value);
  summary_.keys += 1;
  summary_.bytes += static_cast<int64_t>(key.size() + value.size());
  if (data_.size() >= kDataFrameBytes) flushData();
}

void BackupWriter::flushData() {
  if (data_.empty()) return;
  writeFrame('D', data_);
  data_.clear();
}

BackupSummary BackupWriter::finish() {
  flushData();
  std::string end;
  appendU64(end, static_cast<uint64_t>(summary_.keys));
  appendU64(end, static_cast<uint64_t>(summary_.bytes));
  appendU32(end, fileCrc_);
  writeFrame('E', end);
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int error = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", path_, std::strerror(error)));
  }
  return summary_;
}

// --- Reader ---

BackupReader::BackupReader(const std::string& path) : path_(path) {
  in_.open(path, std::ios::binary);
  if (!in_) throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  in_.seekg(0, std::ios::end);
  fileBytes_ = static_cast<int64_t>(in_.tellg());
  in_.seekg(0, std::ios::beg);

  char preamble[kPreambleSize];
  if (fileBytes_ < static_cast<int64_t>(kMagicSize) ||
      (in_.read(preamble, kMagicSize), std::memcmp(preamble, kMagic, kMagicSize) != 0)) {
    fail("not an rl backup: it does not start with RLBACKUP");
  }
  offset_ = kMagicSize;
  readExactly(preamble + kMagicSize, 4, "the format version at byte 8");
  const uint32_t version = readU32(preamble + kMagicSize);
  if (version != kBackupFormatVersion) {
    fail(fmt::format("backup format version {}, which this rl does not read (it reads version {})",
                     version, kBackupFormatVersion));
  }
  fileCrc_ = crc32Of(0, std::string_view(preamble, kPreambleSize));

  const int64_t headerAt = offset_;
  std::string payload;
  if (readFrame(payload) != 'H')
    fail(fmt::format("corrupt: the frame at byte {} is not the header", headerAt));
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(payload);
    header_.scope = json.at("scope").get<std::string>();
    if (json.contains("store")) header_.store = json.at("store").get<std::string>();
    header_.source = json.at("source").get<std::string>();
    header_.version = json.at("version").get<int64_t>();
    header_.created = json.value("created", "");
    for (const auto& range : json.at("ranges")) {
      std::optional<fdb::Bytes> begin = unhex(range.at("begin").get<std::string>());
      std::optional<fdb::Bytes> end = unhex(range.at("end").get<std::string>());
      if (!begin || !end) fail("corrupt: a range in the header is not hex");
      header_.ranges.push_back(fdb::KeyRange{*begin, *end});
    }
  } catch (const nlohmann::json::exception& e) {
    fail(fmt::format("corrupt: the header at byte {} is not a backup header: {}", headerAt,
                     e.what()));
  }
  if (header_.scope != "store" && header_.scope != "database") {
    fail(fmt::format("corrupt: unknown scope '{}' in the header", header_.scope));
  }
  for (size_t i = 0; i < header_.ranges.size(); ++i) {
    const fdb::KeyRange& range = header_.ranges[i];
    if (range.begin >= range.end || range.end > "\xff" ||
        (i > 0 && range.begin < header_.ranges[i - 1].end)) {
      fail("corrupt: the header's ranges are not ascending, disjoint ranges below \\xff");
    }
  }
}

void BackupReader::fail(const std::string& what) const { throw BackupFormatError(what); }

void BackupReader::readExactly(char* out, size_t size, const std::string& where) {
  if (offset_ + static_cast<int64_t>(size) > fileBytes_) {
    fail(fmt::format("truncated: the file ends at byte {}, inside {}", fileBytes_, where));
  }
  in_.read(out, static_cast<std::streamsize>(size));
  if (static_cast<size_t>(in_.gcount()) != size) {
    throw std::runtime_error(fmt::format("cannot read {}: {}", path_, std::strerror(errno)));
  }
  offset_ += static_cast<int64_t>(size);
}

char BackupReader::readFrame(std::string& payload) {
  const int64_t at = offset_;
  if (offset_ == fileBytes_) {
    fail(fmt::format("truncated: the file ends at byte {} with no end frame", fileBytes_));
  }
  char head[kFrameHeaderSize];
  readExactly(head, kFrameHeaderSize, fmt::format("the frame at byte {}", at));
  const char type = head[0];
  if (type != 'H' && type != 'D' && type != 'E') {
    fail(fmt::format("corrupt: the frame at byte {} has an unknown type 0x{:02x}", at,
                     static_cast<uint8_t>(type)));
  }
  const uint32_t length = readU32(head + 1);
  const std::string frame = fmt::format("the {} at byte {}", frameName(type), at);
  if (length > kMaxFramePayload) {
    fail(fmt::format("corrupt: {} claims {} bytes, more than rl backup writes", frame, length));
  }
  payload.resize(length);
  readExactly(payload.data(), length, frame);
  char crc[kFrameCrcSize];
  readExactly(crc, kFrameCrcSize, frame);
  const uint32_t computed = crc32Of(crc32Of(0, std::string_view(head, kFrameHeaderSize)), payload);
  if (computed != readU32(crc)) {
    fail(fmt::format("corrupt: the checksum of {} does not match", frame));
  }
  fileCrc_ = crc32Of(crc32Of(crc32Of(fileCrc_, std::string_view(head, kFrameHeaderSize)), payload),
                     std::string_view(crc, kFrameCrcSize));
  return type;
}

std::optional<std::vector<fdb::KeyValue>> BackupReader::nextBatch() {
  if (ended_) return std::nullopt;
  while (true) {
    const int64_t at = offset_;
    const uint32_t crcBefore = fileCrc_;
    std::string payload;
    const char type = readFrame(payload);

    if (type == 'H') fail(fmt::format("corrupt: a second header frame at byte {}", at));
    if (type == 'E') {
      if (payload.size() != kEndPayloadSize) {
        fail(fmt::format("corrupt: the end frame at byte {} has the wrong size", at));
      }
      const auto keys = static_cast<int64_t>(readU64(payload.data()));
      const auto bytes = static_cast<int64_t>(readU64(payload.data() + 8));
      if (readU32(payload.data() + 16) != crcBefore) {
        fail(
            fmt::format("corrupt: the whole file's checksum (in the end frame at byte {}) does "
                        "not match",
                        at));
      }
      if (keys != seen_.keys || bytes != seen_.bytes) {
        fail(
            fmt::format("corrupt: the end frame at byte {} counts {} keys and {} bytes; the file "
                        "holds {} and {}",
                        at, keys, bytes, seen_.keys, seen_.bytes));
      }
      if (offset_ != fileBytes_) {
        fail(fmt::format("corrupt: {} bytes follow the end frame at byte {}", fileBytes_ - offset_,
                         at));
      }
      ended_ = true;
      seen_.fileBytes = fileBytes_;
      return std::nullopt;
    }
    std::vector<fdb::KeyValue> rows;
    size_t position = 0;
    auto field = [&](const char* what) {
      if (payload.size() - position < 4) {
        fail(fmt::format("corrupt: the data frame at byte {} ends inside {}", at, what));
      }
      const uint32_t size = readU32(payload.data() + position);
      position += 4;
      if (payload.size() - position < size) {
        fail(fmt::format("corrupt: the data frame at byte {} ends inside {}", at, what));
      }
      std::string bytes = payload.substr(position, size);
      position += size;
      return bytes;
    };
    while (position < payload.size()) {
      fdb::KeyValue row;
      row.key = field("a key");
      row.value = field("a value");
      if (lastKey_ && row.key <= *lastKey_) {
        fail(fmt::format("corrupt: in the data frame at byte {}, key `{}' is not after `{}'", at,
                         fdb::printable(row.key), fdb::printable(*lastKey_)));
      }
      if (!inRanges(header_.ranges, row.key)) {
        fail(
            fmt::format("corrupt: in the data frame at byte {}, key `{}' is outside the "
                        "backup's ranges",
                        at, fdb::printable(row.key)));
      }
      lastKey_ = row.key;
      seen_.keys += 1;
      seen_.bytes += static_cast<int64_t>(row.key.size() + row.value.size());
      rows.push_back(std::move(row));
    }
    if (!rows.empty()) return rows;
  }
}

BackupSummary BackupReader::verify() {
  while (nextBatch()) {
  }
  return seen_;
}

}  // namespace rl::cli
