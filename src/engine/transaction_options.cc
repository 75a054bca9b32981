#include "engine/transaction_options.h"

#include <climits>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb::engine {

TransactionOptions TransactionOptions::fromDefaults(const TransactionDefaults& defaults) {
  TransactionOptions options;
  static_cast<TransactionDefaults&>(options) = defaults;
  return options;
}

TransactionOptions TransactionOptions::forRetry(const TransactionDefaults& defaults) const {
  TransactionOptions next = fromDefaults(defaults);
  next.timeoutMillis = timeoutMillis;
  next.retryLimit = retryLimit;
  next.maxRetryDelayMillis = maxRetryDelayMillis;
  return next;
}

bool isKnownTransactionOption(int code) {
  switch (code) {
    case 10:
    case 20:
    case 21:
    case 23:
    case 30:
    case 40:
    case 50:
    case 51:
    case 52:
    case 110:
    case 120:
    case 130:
    case 200:
    case 201:
    case 300:
    case 301:
    case 302:
    case 303:
    case 304:
    case 400:
    case 401:
    case 402:
    case 403:
    case 404:
    case 405:
    case 406:
    case 500:
    case 501:
    case 502:
    case 503:
    case 504:
    case 505:
    case 507:
    case 508:
    case 509:
    case 510:
    case 511:
    case 600:
    case 601:
    case 700:
    case 701:
    case 702:
    case 710:
    case 711:
    case 712:
    case 713:
    case 714:
    case 800:
    case 801:
    case 900:
    case 1000:
    case 1100:
    case 1101:
    case 1102:
    case 2000: return true;
    default: return false;
  }
}

void applyTransactionOption(TransactionOptions& options, int code,
                            std::optional<std::string_view> value, const OptionContext& context) {
  if (!isKnownTransactionOption(code)) {
    throw Error(errors::kInvalidOption, fmt::format("unknown transaction option {}", code));
  }
  if (applyDefaultableOption(options, code, value)) return;
  switch (code) {
    case 10:  // causal_write_risky
      options.causalWriteRisky = true;
      return;
    case 30:  // next_write_no_write_conflict_range
      options.nextWriteNoWriteConflictRange = true;
      return;
    case 51:  // read_your_writes_disable
      if (context.hasReadOrWritten) {
        throw Error(errors::kClientInvalidOperation,
                    "read_your_writes_disable must be set before any read or write");
      }
      options.readYourWritesDisabled = true;
      return;
    case 300:  // initialize_new_database
      if (context.readVersionSet) {
        throw Error(errors::kReadVersionAlreadySet, "initialize_new_database after a read version");
      }
      options.causalWriteRisky = true;
      return;
    case 301:  // access_system_keys
      options.accessSystemKeys = true;
      options.readSystemKeys = true;
      return;
    case 302:  // read_system_keys
      options.readSystemKeys = true;
      return;
    case 403:  // debug_transaction_identifier
      if (!value || value->empty() || value->size() > 100) {
        throw Error(errors::kInvalidOptionValue, "debug_transaction_identifier takes 1..100 bytes");
      }
      options.debugIdentifierSet = true;
      return;
    case 404:  // log_transaction
      if (!options.debugIdentifierSet) {
        throw Error(errors::kClientInvalidOperation,
                    "log_transaction needs debug_transaction_identifier first");
      }
      return;
    case 504:  // idempotency_id
      if (!value || value->size() < 16 || value->size() > 255) {
        throw Error(errors::kInvalidOptionValue, "idempotency_id takes 16..255 bytes");
      }
      return;
    case 712:  // report_conflicting_keys
      options.reportConflictingKeys = true;
      return;
    case 713:  // special_key_space_relaxed
      options.specialKeySpaceRelaxed = true;
      return;
    case 714:  // special_key_space_enable_writes
      options.specialKeySpaceEnableWrites = true;
      return;
    case 800:  // tag
    case 801:  // auto_throttle_tag
      if (value && value->size() > 16)
        throw Error(2110, "a tag is at most 16 bytes");             // tag_too_long
      if (++options.tags > 5) throw Error(2109, "at most 5 tags");  // too_many_tags
      return;
    default:
      // Accepted and without effect on an embedded engine (docs/semantics.md, "Options").
      return;
  }
}

}  // namespace fdb::engine
