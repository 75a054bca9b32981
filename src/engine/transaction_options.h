// TransactionOptions — the options of one engine transaction (docs/semantics.md,
// "Options") and the rules for setting them: parameter checks, what survives a retry.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/database_settings.h"

namespace fdb::engine {

// The defaultable options (TransactionDefaults: timeout, retry limit and max retry delay
// are the persistent ones, kept by onError's retry and dropped by reset():
// docs/semantics.md, "onError" step 4) plus those only a transaction sets.
struct TransactionOptions : TransactionDefaults {
  bool readYourWritesDisabled = false;
  bool nextWriteNoWriteConflictRange = false;
  bool causalWriteRisky = false;
  bool readSystemKeys = false;
  bool accessSystemKeys = false;
  bool specialKeySpaceEnableWrites = false;
  bool reportConflictingKeys = false;
  bool specialKeySpaceRelaxed = false;  // special-key reads may cross modules
  bool debugIdentifierSet = false;
  int tags = 0;

  static TransactionOptions fromDefaults(const TransactionDefaults& defaults);
  // The options of the next attempt after onError: the defaults plus the persistent ones.
  TransactionOptions forRetry(const TransactionDefaults& defaults) const;
};

// What the transaction is doing, for the options that care.
struct OptionContext {
  bool hasReadOrWritten = false;  // READ_YOUR_WRITES_DISABLE must come first
  bool readVersionSet = false;    // INITIALIZE_NEW_DATABASE needs none yet
};

// Applies option `code` with `value` (nullopt: no parameter; integers as 8 bytes
// little-endian). Throws fdb::Error: 2007 for an unknown code (the caller fails at once);
// any other error (2006, 2000, 2010, 2109, 2110) is deferred by the caller.
void applyTransactionOption(TransactionOptions& options, int code,
                            std::optional<std::string_view> value, const OptionContext& context);

// Whether `code` is a transaction option FoundationDB 7.3 defines.
bool isKnownTransactionOption(int code);

}  // namespace fdb::engine
