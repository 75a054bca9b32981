// VERSION index maintenance (docs/format.md, "VERSION index entries"): entries laid out as a
// VALUE index's, P+(2, sk) + (index columns..., trimmed primary key...), where one column is
// the record's version (version()). A record saved in this transaction has an incomplete
// version: its entry is written at commit with SET_VERSIONSTAMPED_KEY, which puts the commit's
// versionstamp into the key, so the entry ends up holding the same complete version the
// record is stored with. Never unique; the metadata must store record versions.
//
// Scans, record fetches, range deletes and the checker's check are VALUE's: the entries are
// ordered by their columns, so with the version last in the key (concat(customer,
// version())) a BY_VALUE scan from version V on lists every record of a customer changed
// since V, in commit order.
//
// Registered under "version" in the IndexMaintainerRegistry (index_maintainer_registry.h).
#pragma once

#include <memory>
#include <string_view>

#include "fdb/bytes.h"
#include "fdb/tuple.h"
#include "rl/index/index_maintainer.h"

namespace rl {

// The factory of VERSION index maintainers.
std::shared_ptr<const IndexMaintainerFactory> versionIndexMaintainerFactory();

// An entry's key as written: `indexPrefix` P+(2, sk), the index columns, the trimmed primary
// key. When the columns hold an incomplete version, the operand of SET_VERSIONSTAMPED_KEY:
// those bytes then the 4-byte little-endian offset of the version's ten 0xff bytes.
fdb::Bytes versionIndexEntryKey(std::string_view indexPrefix, const fdb::Tuple& key,
                                const fdb::Tuple& trimmedPrimaryKey);

}  // namespace rl
