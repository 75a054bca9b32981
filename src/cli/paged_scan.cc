#include "paged_scan.h"

#include <stdexcept>

#include "fdb/tuple_text.h"
#include "rl/metadata/record_type.h"

namespace rl::cli {

std::string recordEnvelope(const LoadedRecord& record,
                           const std::optional<fdb::Tuple>& indexEntry) {
  nlohmann::ordered_json out;
  if (indexEntry) out["index_entry"] = fdb::formatTuple(*indexEntry);
  out["primary_key"] = fdb::formatTuple(record.primaryKey);
  out["type"] = record.recordType != nullptr ? record.recordType->name() : "";
  out["version"] = record.version ? nlohmann::ordered_json(toHex(record.version->toBytes()))
                                  : nlohmann::ordered_json(nullptr);
  out["record"] = nlohmann::ordered_json::parse(recordToJson(*record.record));
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void checkScanOptions(const ScanOptions& options) {
  if (options.limit < 0) {
    throw std::invalid_argument(
        fmt::format("--limit {}: a limit is 0 (every record) or more", options.limit));
  }
  if (options.skip < 0) {
    throw std::invalid_argument(fmt::format("--skip {}: a skip is 0 (none) or more", options.skip));
  }
  if (options.continuation) fromHex(*options.continuation);
}

IndexFetchMethod parseFetch(const std::string& fetch) {
  if (fetch == "scan") return IndexFetchMethod::kScanAndFetch;
  if (fetch == "remote") return IndexFetchMethod::kUseRemoteFetch;
  if (fetch == "fallback") return IndexFetchMethod::kUseRemoteFetchWithFallback;
  if (fetch == "adaptive") return IndexFetchMethod::kAdaptive;
  throw std::invalid_argument(
      fmt::format("--fetch {}: the methods are adaptive, scan, remote and fallback", fetch));
}

}  // namespace rl::cli
