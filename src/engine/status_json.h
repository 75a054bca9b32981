// The document \xff\xff/status/json answers: FoundationDB's status JSON (its schema is
// fdbclient/Schemas.cpp there) with the fields that mean something for the embedded engine, as
// docs/semantics.md ("Special keys") lists them.
//
//   Bytes status = statusJson(ConnectionRecord{"memory:", "memory:"}, *engine);
//   // {"client":{"cluster_file":{"path":"memory:","up_to_date":true},...},"cluster":{...}}
#pragma once

#include <string>
#include <string_view>

#include "engine/database_settings.h"
#include "engine/engine.h"
#include "fdb/bytes.h"

namespace fdb::engine {

// The status document of `engine` opened as `connection`, compact, its keys in order (as
// FoundationDB writes it).
Bytes statusJson(const ConnectionRecord& connection, Engine& engine);

// `text` as the content of a JSON string: quotes, backslashes and control characters escaped.
std::string jsonEscape(std::string_view text);

}  // namespace fdb::engine
