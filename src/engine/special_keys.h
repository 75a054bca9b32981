// The special key space [\xff\xff, \xff\xff\xff): keys FoundationDB's client answers itself, in
// modules (SpecialKeySpace.actor.cpp and the modules NativeAPI.actor.cpp registers at API 730).
// This is the engine's version of it (docs/semantics.md, "Special keys"): the same module
// boundaries, so reads outside a module and writes no module takes fail as they do there; the
// keys that describe the database readable; and every write a module takes either doing what
// it does on FoundationDB or failing the commit — never dropped.
//
//   SpecialKeyWrites writes;
//   if (std::optional<Error> e = writes.set("\xff\xff/management/tenant/map/t", "")) defer(*e);
//   writes.commitError();  // tenants_disabled (2136): the engine has no tenants
//
//   std::optional<Bytes> status = readSpecialKey("\xff\xff/status/json", context);
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/conflicting_keys.h"
#include "engine/database_settings.h"
#include "engine/engine.h"
#include "fdb/bytes.h"
#include "fdb/error.h"
#include "fdb/key_selector.h"
#include "fdb/types.h"

namespace fdb::engine {

// Whether `key` is in the special key space. (Every read asks: most keys are told by their
// first byte.)
inline bool isSpecialKey(std::string_view key) {
  return key.starts_with('\xff') && key.starts_with("\xff\xff") && !key.starts_with("\xff\xff\xff");
}

// A transaction's writes to the special key space, with SPECIAL_KEY_SPACE_ENABLE_WRITES: which
// write modules it wrote, and the error message a module left for \xff\xff/error_message.
class SpecialKeyWrites {
 public:
  // A set, clear of a key, or clear of [begin, end): records it with its module, or returns
  // the error FoundationDB's set or clear throws (deferred by the caller):
  // special_keys_no_write_module_found (2115), special_keys_cross_module_clear (2116), or
  // special_keys_api_failure (2117) from a module that refuses it at once.
  // `transactionHasWrites`: the transaction's approximate size is above 0 (tracing options
  // must come first).
  std::optional<Error> set(std::string_view key, std::string_view value, bool transactionHasWrites);
  std::optional<Error> clearKey(std::string_view key);
  std::optional<Error> clearRange(std::string_view begin, std::string_view end);

  // The error the commit fails with: that of the first module written, in key order, whose
  // commit fails (tenants_disabled, 2136, for the tenant module; special_keys_api_failure,
  // 2117, for the management and configuration modules the engine cannot carry out).
  std::optional<Error> commitError();

  // The JSON FoundationDB's modules leave for \xff\xff/error_message, if one failed.
  const std::optional<Bytes>& errorMessage() const { return errorMessage_; }

 private:
  std::optional<Error> failWithMessage(std::string_view command, std::string_view message);

  uint32_t modulesWritten_ = 0;  // bit i: write module i (special_keys.cc)
  std::optional<Bytes> errorMessage_;
};

// What the special keys that describe the database are read from.
struct SpecialKeyReadContext {
  const ConnectionRecord& connection;
  Engine& engine;
  const std::optional<Bytes>& errorMessage;  // \xff\xff/error_message
  const ConflictingKeys& conflictingKeys;    // \xff\xff/transaction/conflicting_keys/
  bool relaxed;                              // SPECIAL_KEY_SPACE_RELAXED: reads may cross modules
};

// The value of a special key. Throws special_keys_no_module_found (2113) for a key outside
// every module (unless relaxed).
std::optional<Bytes> readSpecialKey(std::string_view key, const SpecialKeyReadContext& context);

// A range read whose selector keys are in the special key space: within one module (unless
// relaxed: else special_keys_cross_module_read, 2112, or 2113 outside every module), selectors
// resolved over the keys the modules hold, with the row and byte limits of `options`.
RangeResult readSpecialRange(KeySelectorRef begin, KeySelectorRef end, const RangeOptions& options,
                             const SpecialKeyReadContext& context);

}  // namespace fdb::engine
