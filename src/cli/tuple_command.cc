// `rl tuple pack '<tuple>'` prints the packed encoding as lowercase hex;
// `rl tuple pack --versionstamp '<tuple>'` prints what packWithVersionstamp returns;
// `rl tuple unpack <hex>` prints the tuple in the text syntax of docs/tuple.md.
#include <algorithm>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "commands.h"
#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdb/tuple_text.h"
#include "tuple_argument.h"

namespace rl::cli {
namespace {

fdb::Bytes parseHex(std::string text) {
  std::erase_if(text, [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
  if (text.starts_with("0x") || text.starts_with("0X")) text.erase(0, 2);
  try {
    return fdb::fromHex(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("bad hex: {}", e.what()));
  }
}

}  // namespace

void addTupleCommand(CLI::App& app) {
  CLI::App* tuple = app.add_subcommand("tuple", "Pack and unpack FoundationDB tuples");
  tuple->require_subcommand(1);

  CLI::App* pack = tuple->add_subcommand("pack", "Print a tuple's packed encoding as hex");
  auto text = std::make_shared<std::string>();
  auto withVersionstamp = std::make_shared<bool>(false);
  pack->add_option("tuple", *text, R"(The tuple, e.g. '("a", 1, null)' (docs/tuple.md))")
      ->required();
  pack->add_flag("--versionstamp", *withVersionstamp,
                 "Pack with the one incomplete versionstamp vs() and append its 4-byte "
                 "little-endian offset, as SET_VERSIONSTAMPED_KEY expects");
  pack->callback([text, withVersionstamp] {
    fdb::Tuple tuple = parseTupleArgument(*text);
    fdb::Bytes packed = *withVersionstamp ? tuple.packWithVersionstamp() : tuple.pack();
    fmt::print("{}\n", fdb::toHex(packed));
  });

  CLI::App* unpack = tuple->add_subcommand("unpack", "Print the tuple that hex bytes encode");
  auto hex = std::make_shared<std::string>();
  unpack->add_option("hex", *hex, "The packed tuple as hex digits (0x prefix and spaces allowed)")
      ->required();
  unpack->callback(
      [hex] { fmt::print("{}\n", fdb::formatTuple(fdb::Tuple::unpack(parseHex(*hex)))); });
}

}  // namespace rl::cli
