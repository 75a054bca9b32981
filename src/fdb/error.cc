#include "fdb/error.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>

namespace fdb {
namespace {

struct ErrorInfo {
  int code;
  std::string_view name;
  std::string_view description;
};

constexpr ErrorInfo kErrorTable[] = {
#define ERROR(code, name, description) {code, name, description},
#include "error_table.inc"
#undef ERROR
};

constexpr bool tableIsSorted() {
  for (size_t i = 1; i < std::size(kErrorTable); ++i) {
    if (kErrorTable[i - 1].code >= kErrorTable[i].code) return false;
  }
  return true;
}
static_assert(tableIsSorted(), "error_table.inc must be sorted by code");

const ErrorInfo* findError(int code) {
  auto it = std::lower_bound(std::begin(kErrorTable), std::end(kErrorTable), code,
                             [](const ErrorInfo& e, int c) { return e.code < c; });
  if (it == std::end(kErrorTable) || it->code != code) return nullptr;
  return &*it;
}

std::string formatMessage(int code, const std::string& detail) {
  if (detail.empty()) return fmt::format("{} ({})", errorName(code), code);
  return fmt::format("{} ({}): {}", errorName(code), code, detail);
}

}  // namespace

std::string_view errorName(int code) {
  const ErrorInfo* info = findError(code);
  return info ? info->name : "unknown_error";
}

std::string_view errorDescription(int code) {
  const ErrorInfo* info = findError(code);
  return info ? info->description : "UNKNOWN_ERROR";
}

bool isMaybeCommitted(int code) {
  return code == 1021 /* commit_unknown_result */ || code == 1039 /* cluster_version_changed */;
}

bool isRetryableNotCommitted(int code) {
  switch (code) {
    case 1020:  // not_committed
    case 1007:  // transaction_too_old
    case 1009:  // future_version
    case 1038:  // database_locked
    case 1078:  // grv_proxy_memory_limit_exceeded
    case 1042:  // commit_proxy_memory_limit_exceeded
    case 1051:  // batch_transaction_throttled
    case 1037:  // process_behind
    case 1213:  // tag_throttled
    case 1223:  // proxy_tag_throttled
      return true;
    default: return false;
  }
}

bool isRetryable(int code) { return isMaybeCommitted(code) || isRetryableNotCommitted(code); }

Error::Error(int code) : Error(code, std::string()) {}

Error::Error(int code, std::string detail)
    : std::runtime_error(formatMessage(code, detail)),
      code_(code),
      detail_(detail.empty() ? nullptr : std::make_shared<const std::string>(std::move(detail))) {}

const std::string& Error::detail() const noexcept {
  static const std::string kNoDetail;
  return detail_ ? *detail_ : kNoDetail;
}

}  // namespace fdb
