// The index an `--index` option of `rl store create` / `rl store open` describes:
// [TYPE:]RecordType:field[,field...] (docs/cli.md, "Index options").
//
//   IndexSpec spec = parseIndexSpec("--index", "sum:Order:customer,price");
//   builder.addIndex(spec.recordType, indexFromSpec(spec, false));
//   // Index "Order$customer-price$sum", root field("price").groupBy(field("customer"))
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rl/metadata/index.h"

namespace rl::cli {

struct IndexSpec {
  std::string type;  // the index type, "value" when the option names none
  std::string recordType;
  std::vector<std::string> fields;  // "version()" stands for the record's version
};

// Parses [TYPE:]RecordType:field[,field...]; std::invalid_argument naming `option` when the
// text is not one.
IndexSpec parseIndexSpec(std::string_view option, const std::string& text);

// The index `spec` describes: its key is the fields' concatenation, wrapped for an aggregate
// type as the Java Record Layer wraps one loaded without a grouping: count and count_updates
// group by every field; the other aggregates aggregate the last field, grouped by those
// before it. Named RecordType$field[-field...] (version() named "version") for a value or
// version index, with "$TYPE" appended for the other types. std::invalid_argument for a unique
// index of a type other than value.
Index indexFromSpec(const IndexSpec& spec, bool unique);

}  // namespace rl::cli
