#!/usr/bin/env bash
# Usage: check_exports.sh <libfdb_c.so> <C compiler> <include dir>
# Passes when the library exports every function the header declares at API 730 and no
# symbol that is not fdb_*.
set -euo pipefail
library=$1 compiler=$2 include=$3

exported=$(nm -D --defined-only "$library" | awk '{print $3}' | sort -u)
foreign=$(grep -v '^fdb_' <<<"$exported" || true)
if [[ -n $foreign ]]; then
  echo "exports symbols other than fdb_*:" >&2
  head -20 <<<"$foreign" >&2
  exit 1
fi
declared=$(echo '#include <foundationdb/fdb_c.h>' |
  "$compiler" -E -P -DFDB_API_VERSION=730 -I"$include" -x c - |
  grep -oE '\bfdb_[a-z0-9_]+[[:space:]]*\(' | tr -d ' (' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [[ -n $missing ]]; then
  echo "declared at API 730 but not exported:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "$(wc -l <<<"$declared") declared functions exported; nothing else exported"
