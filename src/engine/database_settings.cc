#include "engine/database_settings.h"

#include <climits>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb::engine {

int64_t optionInt(std::optional<std::string_view> value) {
  if (!value || value->size() != 8) {
    throw Error(errors::kInvalidOptionValue, "an integer option takes 8 bytes, little-endian");
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | static_cast<uint8_t>((*value)[static_cast<size_t>(i)]);
  return static_cast<int64_t>(n);
}

int64_t optionIntIn(std::optional<std::string_view> value, int64_t lo, int64_t hi) {
  int64_t n = optionInt(value);
  if (n < lo || n > hi) {
    throw Error(errors::kInvalidOptionValue,
                fmt::format("option value {} is outside [{}, {}]", n, lo, hi));
  }
  return n;
}

TransactionDefaults DatabaseSettings::transactionDefaults() const {
  std::lock_guard lock(mutex_);
  return defaults_;
}

int64_t DatabaseSettings::maxWatches() const {
  std::lock_guard lock(mutex_);
  return maxWatches_;
}

ConnectionRecord DatabaseSettings::connectionRecord() const {
  std::lock_guard lock(mutex_);
  return connection_;
}

void DatabaseSettings::setConnectionRecord(ConnectionRecord record) {
  std::lock_guard lock(mutex_);
  connection_ = std::move(record);
}

bool applyDefaultableOption(TransactionDefaults& defaults, int transactionCode,
                            std::optional<std::string_view> value) {
  switch (transactionCode) {
    case 405:  // transaction_logging_max_field_length
      if (optionIntIn(value, -1, INT_MAX) == 0) {
        throw Error(errors::kInvalidOptionValue,
                    "transaction_logging_max_field_length must not be 0");
      }
      return true;
    case 500:  // timeout
      defaults.timeoutMillis = optionIntIn(value, 0, INT_MAX);
      return true;
    case 501:  // retry_limit
      defaults.retryLimit = optionIntIn(value, -1, INT_MAX);
      return true;
    case 502:  // max_retry_delay
      defaults.maxRetryDelayMillis = optionIntIn(value, 0, INT_MAX);
      return true;
    case 503:  // size_limit
      defaults.sizeLimit = optionIntIn(value, 32, 10000000);
      return true;
    case 505:  // automatic_idempotency
      defaults.automaticIdempotency = true;
      return true;
    case 600:  // snapshot_ryw_enable
      ++defaults.snapshotRyw;
      return true;
    case 601:  // snapshot_ryw_disable
      --defaults.snapshotRyw;
      return true;
    case 701:  // used_during_commit_protection_disable
      defaults.usedDuringCommitProtectionDisable = true;
      return true;
    case 1100:  // bypass_unreadable
      defaults.bypassUnreadable = true;
      return true;
    default: return false;
  }
}

void DatabaseSettings::setOption(int code, std::optional<std::string_view> value) {
  // Database options that default a transaction option, by the transaction option's code.
  auto transactionCode = [](int databaseCode) {
    switch (databaseCode) {
      case 26: return 600;    // snapshot_ryw_enable
      case 27: return 601;    // snapshot_ryw_disable
      case 405: return 405;   // transaction_logging_max_field_length
      case 500: return 500;   // transaction_timeout
      case 501: return 501;   // transaction_retry_limit
      case 502: return 502;   // transaction_max_retry_delay
      case 503: return 503;   // transaction_size_limit
      case 506: return 505;   // transaction_automatic_idempotency
      case 700: return 1100;  // transaction_bypass_unreadable
      case 701: return 701;   // transaction_used_during_commit_protection_disable
      default: return 0;
    }
  };
  std::lock_guard lock(mutex_);
  if (int forTransactions = transactionCode(code)) {
    applyDefaultableOption(defaults_, forTransactions, value);
    return;
  }
  switch (code) {
    case 10:  // location_cache_size
      optionIntIn(value, 0, INT_MAX);
      return;
    case 20:  // max_watches
      maxWatches_ = optionIntIn(value, 0, 1000000);
      return;
    case 21:   // machine_id
    case 22:   // datacenter_id
    case 504:  // transaction_causal_read_risky
    case 505:  // transaction_include_port_in_address
    case 702:  // transaction_report_conflicting_keys
    case 800:  // use_config_database
      return;
    case 900:  // test_causal_read_risky
      optionIntIn(value, 0, 100);
      return;
    default: throw Error(errors::kInvalidOption, fmt::format("unknown database option {}", code));
  }
}

}  // namespace fdb::engine
