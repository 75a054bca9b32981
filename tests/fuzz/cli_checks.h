// The properties the command line's decoder fuzz targets check on any input, shared with the
// unit test that replays their committed corpora under GCC. Each returns "" when the property
// holds and a description of the failure otherwise.
#pragma once

#include <unistd.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backup_file.h"
#include "fdb/bytes.h"
#include "printable.h"

namespace rl::fuzz {

// parsePrintable (how `rl kv` reads keys and values) either refuses the text with
// std::invalid_argument naming the character, or returns bytes whose printable form parses
// back to the same bytes; decodedTuple never throws.
inline std::string checkPrintable(std::string_view input) {
  try {
    (void)cli::decodedTuple(input);
  } catch (const std::exception& e) {
    return std::string("decodedTuple threw: ") + e.what();
  }
  std::string bytes;
  try {
    bytes = cli::parsePrintable(input);
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).find("bad escape at character") == std::string_view::npos) {
      return std::string("refused without naming the character: ") + e.what();
    }
    return "";
  } catch (const std::exception& e) {
    return std::string("parsePrintable threw an unexpected error: ") + e.what();
  }
  if (bytes.size() > input.size()) return "more bytes than characters typed";
  if (cli::parsePrintable(fdb::printable(bytes)) != bytes) {
    return "parsePrintable(printable(b)) != b for input " + fdb::toHex(input);
  }
  return "";
}

// A backup file of the input's bytes: BackupReader either refuses it with BackupFormatError,
// or verifies it and then reads back batches whose keys ascend, lie inside the header's
// ranges, and add up to the counts the end frame holds.
inline std::string checkBackupFile(std::string_view input) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("rl-backup-fuzz-" + std::to_string(::getpid()) + ".rlbak");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  std::string failure;
  try {
    cli::BackupReader reader(path.string());
    const cli::BackupSummary verified = reader.verify();
    cli::BackupReader again(path.string());
    const std::vector<fdb::KeyRange>& ranges = again.header().ranges;
    cli::BackupSummary read;
    std::optional<std::string> last;
    while (std::optional<std::vector<fdb::KeyValue>> rows = again.nextBatch()) {
      for (const fdb::KeyValue& row : *rows) {
        if (last && !(*last < row.key)) failure = "keys do not ascend after verify() passed";
        bool inside = false;
        for (const fdb::KeyRange& range : ranges) {
          inside = inside || (range.begin <= row.key && row.key < range.end);
        }
        if (!inside) failure = "a key outside the header's ranges after verify() passed";
        last = row.key;
        ++read.keys;
        read.bytes += static_cast<int64_t>(row.key.size() + row.value.size());
      }
    }
    if (failure.empty() && (read.keys != verified.keys || read.bytes != verified.bytes)) {
      failure = "the batches do not add up to what verify() counted";
    }
  } catch (const cli::BackupFormatError& e) {
    if (std::string_view(e.what()).empty()) failure = "refused without a message";
  } catch (const std::exception& e) {
    failure = std::string("unexpected exception: ") + e.what();
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return failure;
}

}  // namespace rl::fuzz
