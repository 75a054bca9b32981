#include "engine/special_keys.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/status_json.h"
#include "engine/transaction_internal.h"

namespace fdb::engine {
namespace {

using namespace std::string_view_literals;

constexpr int kSpecialKeysCrossModuleRead = 2112;
constexpr int kSpecialKeysNoModuleFound = 2113;
constexpr int kSpecialKeysNoWriteModuleFound = 2115;
constexpr int kSpecialKeysCrossModuleClear = 2116;
constexpr int kSpecialKeysApiFailure = 2117;
constexpr int kTenantsDisabled = 2136;

constexpr std::string_view kSpaceBegin = "\xff\xff"sv;
constexpr std::string_view kSpaceEnd = "\xff\xff\xff"sv;

struct Span {
  std::string_view begin;
  std::string_view end;
  bool contains(std::string_view key) const { return begin <= key && key < end; }
};

// The modules FoundationDB 7.3 defines (SpecialKeySpace::moduleToBoundary), in key order. A
// single-key module is [key, key\0).
constexpr std::array<Span, 14> kModules = {{
    {"\xff\xff/actor_lineage/"sv, "\xff\xff/actor_lineage0"sv},
    {"\xff\xff/actor_profiler_conf/"sv, "\xff\xff/actor_profiler_conf0"sv},
    {"\xff\xff/cluster_file_path"sv, "\xff\xff/cluster_file_path\0"sv},
    {"\xff\xff/cluster_id"sv, "\xff\xff/cluster_id\0"sv},
    {"\xff\xff/configuration/"sv, "\xff\xff/configuration0"sv},
    {"\xff\xff/connection_string"sv, "\xff\xff/connection_string\0"sv},
    {"\xff\xff/error_message"sv, "\xff\xff/error_message\0"sv},
    {"\xff\xff/global_config/"sv, "\xff\xff/global_config0"sv},
    {"\xff\xff/management/"sv, "\xff\xff/management0"sv},
    {"\xff\xff/metrics/"sv, "\xff\xff/metrics0"sv},
    {"\xff\xff/status/json"sv, "\xff\xff/status/json\0"sv},
    {"\xff\xff/tracing/"sv, "\xff\xff/tracing0"sv},
    {"\xff\xff/transaction/"sv, "\xff\xff/transaction0"sv},
    {"\xff\xff/worker_interfaces/"sv, "\xff\xff/worker_interfaces0"sv},
}};

constexpr std::string_view kClusterFilePathKey = "\xff\xff/cluster_file_path"sv;
constexpr std::string_view kConnectionStringKey = "\xff\xff/connection_string"sv;
constexpr std::string_view kErrorMessageKey = "\xff\xff/error_message"sv;
constexpr std::string_view kStatusJsonKey = "\xff\xff/status/json"sv;
constexpr std::string_view kTracingTokenKey = "\xff\xff/tracing/token"sv;

// What a write module does with the writes it takes.
enum class WriteKind {
  kIgnored,      // management/options/: options for other modules' commits, nothing of its own
  kTenants,      // management/tenant/: the engine has no tenants (tenants_disabled at commit)
  kTracing,      // tracing/: this transaction's tracing options, to be set before any write
  kUnsupported,  // a cluster management command the engine cannot carry out (2117 at commit)
};

struct WriteModule {
  Span span;
  WriteKind kind;
  std::string_view command;  // FoundationDB's name of the command, for error messages
  // Set when FoundationDB refuses clears at once (special_keys_api_failure), with its messages
  // for a clear of a key and of a range.
  std::string_view clearKeyRefusal = {};
  std::string_view clearRangeRefusal = {};
  bool clearsIgnored = false;  // a clear records nothing (actor_profiler_conf/)
};

// The read-write modules NativeAPI.actor.cpp registers at API 730, in key order.
// (management/profiling/ is registered only below API 720.)
constexpr std::array<WriteModule, 17> kWriteModules = {{
    {{"\xff\xff/actor_profiler_conf/"sv, "\xff\xff/actor_profiler_conf0"sv},
     WriteKind::kUnsupported,
     "actor profiler",
     {},
     {},
     true},
    {{"\xff\xff/configuration/coordinators/"sv, "\xff\xff/configuration/coordinators0"sv},
     WriteKind::kUnsupported,
     "coordinators",
     "Clear operation is meaningless thus forbidden for coordinators",
     "Clear range is meaningless thus forbidden for coordinators"},
    // FoundationDB's setclass messages are this way round.
    {{"\xff\xff/configuration/process/class_type/"sv,
      "\xff\xff/configuration/process/class_type0"sv},
     WriteKind::kUnsupported,
     "setclass",
     "Clear range operation is meaningless thus forbidden for setclass",
     "Clear operation is meaningless thus forbidden for setclass"},
    {{"\xff\xff/global_config/"sv, "\xff\xff/global_config0"sv},
     WriteKind::kUnsupported,
     "global config"},
    {{"\xff\xff/management/consistency_check_suspended"sv,
      "\xff\xff/management/consistency_check_suspended\0"sv},
     WriteKind::kUnsupported,
     "consistencycheck"},
    {{"\xff\xff/management/data_distribution/"sv, "\xff\xff/management/data_distribution0"sv},
     WriteKind::kUnsupported,
     "datadistribution"},
    {{"\xff\xff/management/db_locked"sv, "\xff\xff/management/db_locked\0"sv},
     WriteKind::kUnsupported,
     "lock"},
    {{"\xff\xff/management/excluded/"sv, "\xff\xff/management/excluded0"sv},
     WriteKind::kUnsupported,
     "exclude"},
    {{"\xff\xff/management/excluded_locality/"sv, "\xff\xff/management/excluded_locality0"sv},
     WriteKind::kUnsupported,
     "excludedlocality"},
    {{"\xff\xff/management/failed/"sv, "\xff\xff/management/failed0"sv},
     WriteKind::kUnsupported,
     "failed"},
    {{"\xff\xff/management/failed_locality/"sv, "\xff\xff/management/failed_locality0"sv},
     WriteKind::kUnsupported,
     "failedlocality"},
    {{"\xff\xff/management/maintenance/"sv, "\xff\xff/management/maintenance0"sv},
     WriteKind::kUnsupported,
     "maintenance"},
    {{"\xff\xff/management/min_required_commit_version"sv,
      "\xff\xff/management/min_required_commit_version\0"sv},
     WriteKind::kUnsupported,
     "advanceversion"},
    {{"\xff\xff/management/options/"sv, "\xff\xff/management/options0"sv},
     WriteKind::kIgnored,
     "options"},
    {{"\xff\xff/management/tenant/"sv, "\xff\xff/management/tenant0"sv},
     WriteKind::kTenants,
     "tenant"},
    {{"\xff\xff/management/version_epoch"sv, "\xff\xff/management/version_epoch\0"sv},
     WriteKind::kUnsupported,
     "versionepoch"},
    {{"\xff\xff/tracing/"sv, "\xff\xff/tracing0"sv}, WriteKind::kTracing, "tracing"},
}};

// The write module holding `key` (an index into kWriteModules), if any.
std::optional<size_t> writeModuleAt(std::string_view key) {
  for (size_t i = 0; i < kWriteModules.size(); ++i) {
    if (kWriteModules[i].span.contains(key)) return i;
  }
  return std::nullopt;
}

// The write module holding the keys just before `end` (FoundationDB's
// rangeContainingKeyBefore): the one with begin < end <= its end.
std::optional<size_t> writeModuleBefore(std::string_view end) {
  for (size_t i = 0; i < kWriteModules.size(); ++i) {
    const Span& span = kWriteModules[i].span;
    if (span.begin < end && end <= span.end) return i;
  }
  return std::nullopt;
}

// FoundationDB's ManagementAPIError::toJsonString (a JSON object, its keys in order).
Bytes managementError(std::string_view command, std::string_view message) {
  return fmt::format(R"({{"command":"{}","message":"{}","retriable":false}})", jsonEscape(command),
                     jsonEscape(message));
}

// The module (or the gap between modules: known false) whose range holds `key` (FoundationDB's
// modules map, where the gaps are UNKNOWN).
struct Boundary {
  Span span;
  bool known;
};
Boundary boundaryAt(std::string_view key) {
  std::string_view gapBegin = kSpaceBegin;
  for (const Span& module : kModules) {
    if (key < module.begin) return Boundary{Span{gapBegin, module.begin}, false};
    if (key < module.end) return Boundary{module, true};
    gapBegin = module.end;
  }
  return Boundary{Span{gapBegin, kSpaceEnd}, false};
}

// The keys the engine's modules hold, in key order, with their values computed on demand.
struct SpecialRow {
  std::string_view key;
  std::function<std::optional<Bytes>()> value;
};
std::vector<SpecialRow> rowsIn(const Span& span, const SpecialKeyReadContext& context) {
  std::vector<SpecialRow> rows;
  auto add = [&](std::string_view key, std::function<std::optional<Bytes>()> value) {
    if (span.contains(key)) rows.push_back(SpecialRow{key, std::move(value)});
  };
  add(kClusterFilePathKey,
      [&] { return std::optional<Bytes>(context.connection.clusterFilePath); });
  add(kConnectionStringKey,
      [&] { return std::optional<Bytes>(context.connection.connectionString); });
  add(kErrorMessageKey, [&] { return context.errorMessage; });
  add(kStatusJsonKey,
      [&] { return std::optional<Bytes>(statusJson(context.connection, context.engine)); });
  // \xff\xff/transaction/... sorts after the keys above.
  for (const KeyValue& row : context.conflictingKeys.rows()) {
    add(row.key, [&row] { return std::optional<Bytes>(row.value); });
  }
  return rows;
}

// Where a selector lands among `keys` (sorted), within `span`: FoundationDB's
// normalizeKeySelectorActor, which clamps a selector running off the module to its ends.
std::string_view resolveIn(const std::vector<std::string_view>& keys, const Span& span,
                           std::string_view key, int offset) {
  if (offset == 1) return key;
  auto below = static_cast<int64_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
  int64_t target = below - 1 + offset;
  if (target < 0) return span.begin;
  if (target >= static_cast<int64_t>(keys.size())) return span.end;
  return keys[static_cast<size_t>(target)];
}

}  // namespace

// ---- Writes ---------------------------------------------------------------------------------

std::optional<Error> SpecialKeyWrites::failWithMessage(std::string_view command,
                                                       std::string_view message) {
  errorMessage_ = managementError(command, message);
  return Error(kSpecialKeysApiFailure, std::string(message));
}

std::optional<Error> SpecialKeyWrites::set(std::string_view key, std::string_view value,
                                           bool transactionHasWrites) {
  std::optional<size_t> module = writeModuleAt(key);
  if (!module) {
    return Error(kSpecialKeysNoWriteModuleFound,
                 fmt::format("no special-key module takes writes of '{}'", printable(key)));
  }
  switch (kWriteModules[*module].kind) {
    case WriteKind::kIgnored: return std::nullopt;
    case WriteKind::kTracing:
      // TracingOptionsImpl::set: after the transaction has written, the option is refused at
      // commit; before, it applies (the engine traces nothing).
      if (transactionHasWrites) {
        errorMessage_ = managementError("configure trace", "tracing options must be set first");
        break;
      }
      if (key == kTracingTokenKey && value != "true" && value != "false") {
        return failWithMessage("configure trace token", "token must be set to true/false");
      }
      return std::nullopt;
    case WriteKind::kTenants:
    case WriteKind::kUnsupported: break;
  }
  modulesWritten_ |= uint32_t{1} << *module;
  return std::nullopt;
}

std::optional<Error> SpecialKeyWrites::clearKey(std::string_view key) {
  std::optional<size_t> module = writeModuleAt(key);
  if (!module) {
    return Error(kSpecialKeysNoWriteModuleFound,
                 fmt::format("no special-key module takes a clear of '{}'", printable(key)));
  }
  const WriteModule& writeModule = kWriteModules[*module];
  switch (writeModule.kind) {
    case WriteKind::kIgnored: return std::nullopt;
    case WriteKind::kTracing: return failWithMessage("clear trace", "clear disabled");
    case WriteKind::kTenants: break;
    case WriteKind::kUnsupported:
      if (!writeModule.clearKeyRefusal.empty()) {
        return failWithMessage(writeModule.command, writeModule.clearKeyRefusal);
      }
      if (writeModule.clearsIgnored) return std::nullopt;
      break;
  }
  modulesWritten_ |= uint32_t{1} << *module;
  return std::nullopt;
}

std::optional<Error> SpecialKeyWrites::clearRange(std::string_view begin, std::string_view end) {
  if (begin >= end) return std::nullopt;
  std::optional<size_t> module = writeModuleAt(begin);
  if (module != writeModuleBefore(end)) {
    return Error(kSpecialKeysCrossModuleClear,
                 fmt::format("the clear of ['{}', '{}') crosses special-key modules",
                             printable(begin), printable(end)));
  }
  if (!module) {
    return Error(kSpecialKeysNoWriteModuleFound,
                 fmt::format("no special-key module takes a clear of ['{}', '{}')",
                             printable(begin), printable(end)));
  }
  const WriteModule& writeModule = kWriteModules[*module];
  switch (writeModule.kind) {
    case WriteKind::kIgnored: return std::nullopt;
    case WriteKind::kTracing: return failWithMessage("clear trace", "clear range disabled");
    case WriteKind::kTenants: break;
    case WriteKind::kUnsupported:
      if (!writeModule.clearRangeRefusal.empty()) {
        return failWithMessage(writeModule.command, writeModule.clearRangeRefusal);
      }
      if (writeModule.clearsIgnored) return std::nullopt;
      break;
  }
  modulesWritten_ |= uint32_t{1} << *module;
  return std::nullopt;
}

std::optional<Error> SpecialKeyWrites::commitError() {
  for (size_t i = 0; i < kWriteModules.size(); ++i) {
    if ((modulesWritten_ & (uint32_t{1} << i)) == 0) continue;
    const WriteModule& module = kWriteModules[i];
    switch (module.kind) {
      case WriteKind::kIgnored: break;
      case WriteKind::kTenants:
        // TenantAPI::checkTenantMode: a cluster whose tenant mode is disabled.
        return Error(kTenantsDisabled, "tenants are disabled: the engine has no tenants");
      case WriteKind::kTracing:
        return Error(kSpecialKeysApiFailure, "tracing options must be set first");
      case WriteKind::kUnsupported:
        return failWithMessage(module.command, "the embedded engine has no cluster to manage: " +
                                                   std::string(module.command) +
                                                   " is not supported");
    }
  }
  return std::nullopt;
}

// ---- Reads ----------------------------------------------------------------------------------

std::optional<Bytes> readSpecialKey(std::string_view key, const SpecialKeyReadContext& context) {
  // SpecialKeySpace::get reads [key, key\0) as a range: the module holding key must be known.
  if (!context.relaxed && !boundaryAt(key).known) {
    throw Error(kSpecialKeysNoModuleFound,
                fmt::format("no special-key module holds '{}'", printable(key)));
  }
  const Bytes after = internal::keyAfter(key);
  for (const SpecialRow& row : rowsIn(Span{key, after}, context)) {
    if (row.key == key) return row.value();
  }
  return std::nullopt;
}

RangeResult readSpecialRange(KeySelectorRef begin, KeySelectorRef end, const RangeOptions& options,
                             const SpecialKeyReadContext& context) {
  // The parameter checks of fdb_c.cpp and GetRangeLimits, as for any range read.
  int mode = static_cast<int>(options.mode);
  if (mode < -2 || mode > 4) {
    throw Error(errors::kClientInvalidOperation, fmt::format("unknown streaming mode {}", mode));
  }
  if (options.mode == StreamingMode::kIterator && options.iteration < 1) {
    throw Error(errors::kClientInvalidOperation, "ITERATOR streaming mode needs iteration >= 1");
  }
  if (options.limit < 0 || options.targetBytes < 0) {
    throw Error(errors::kRangeLimitsInvalid, "range limits must not be negative");
  }
  if (options.mode == StreamingMode::kExact && options.limit == 0 && options.targetBytes == 0) {
    throw Error(errors::kExactModeWithoutLimits, "EXACT streaming mode needs a row or byte limit");
  }
  int64_t bytesLeft = internal::modeByteLimit(options.mode, options.iteration);
  if (options.targetBytes > 0) {
    bytesLeft =
        bytesLeft < 0 ? options.targetBytes : std::min<int64_t>(bytesLeft, options.targetBytes);
  }
  int64_t rowsLeft = options.limit > 0 ? options.limit : -1;

  RangeResult result;
  Bytes beginKey = begin.orEqual ? internal::keyAfter(begin.key) : Bytes(begin.key);
  Bytes endKey = end.orEqual ? internal::keyAfter(end.key) : Bytes(end.key);
  if (begin.offset >= end.offset && beginKey >= endKey) return result;  // inverted: empty

  // One module, unless relaxed (SpecialKeySpace::getRangeAggregationActor).
  Span boundary{kSpaceBegin, kSpaceEnd};
  if (!context.relaxed) {
    Boundary at = boundaryAt(beginKey);
    if (!(at.span.begin <= std::string_view(endKey) && std::string_view(endKey) <= at.span.end)) {
      throw Error(kSpecialKeysCrossModuleRead,
                  fmt::format("the read of ['{}', '{}') crosses special-key modules",
                              printable(beginKey), printable(endKey)));
    }
    if (!at.known) {
      throw Error(kSpecialKeysNoModuleFound,
                  fmt::format("no special-key module holds '{}'", printable(beginKey)));
    }
    boundary = at.span;
  }

  std::vector<SpecialRow> rows = rowsIn(boundary, context);
  std::vector<std::string_view> keys;
  for (const SpecialRow& row : rows) keys.push_back(row.key);
  std::string_view from = resolveIn(keys, boundary, beginKey, begin.offset);
  std::string_view to = resolveIn(keys, boundary, endKey, end.offset);
  if (from >= to) return result;

  RangeRowsBuilder& builder = threadRangeRowsBuilder();
  builder.clear();
  auto take = [&](const SpecialRow& row) {
    if (row.key < from || row.key >= to) return true;
    std::optional<Bytes> value = row.value();
    if (!value) return true;
    builder.append(row.key, *value);
    // GetRangeLimits::decrement and isReached: the limit reached sets `more`, even at the
    // last row.
    if (rowsLeft > 0) --rowsLeft;
    if (bytesLeft >= 0) {
      bytesLeft = std::max<int64_t>(
          0, bytesLeft - 8 - static_cast<int64_t>(row.key.size() + value->size()));
    }
    if (rowsLeft == 0 || bytesLeft == 0) {
      result.more = true;
      return false;
    }
    return true;
  };
  if (options.reverse) {
    for (auto it = rows.rbegin(); it != rows.rend() && take(*it); ++it) {
    }
  } else {
    for (auto it = rows.begin(); it != rows.end() && take(*it); ++it) {
    }
  }
  result.rows = builder.build();
  return result;
}

}  // namespace fdb::engine
