#!/usr/bin/env bash
# Checks that every code snippet of a guide is quoted exactly from the example sources.
#
#   examples/record_layer/check_guide_snippets.sh [--update] [docs/guide.md]
#
# In the guide, a fenced code block is a quote when the line just before it is a marker
#   <!-- snippet: examples/record_layer/record_layer_tour.cc#save -->
# naming a file (from the repository root) and a region in it. A region is the lines between
#   // [guide:save]    and    // [/guide:save]      (or `#` comments, for CMake)
# in that file, without marker lines and without their common indentation. The check fails
# when a quoted block differs from its region (printing the diff), when a marker names a region
# that is missing or marked twice, when a cpp/proto/cmake block has no marker (every such
# snippet must come from a compiled example), and when a region of a quoted file is quoted
# nowhere. --update rewrites the guide's quoted blocks from the sources instead.
# CTest runs it as `guide_snippets` (examples/record_layer/CMakeLists.txt).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  shift
fi
guide=${1:-$root/docs/guide.md}

# The region `name` of `file`, dedented; fails unless it is marked exactly once.
region() {
  awk -v name="$2" -v file="$1" '
    function marker(line, closing) {
      return line ~ ("^[ \t]*(//|#) \\[" closing "guide:" name "\\][ \t]*$")
    }
    marker($0, "")  { opened++; inside = 1; next }
    marker($0, "/") { closed++; inside = 0; next }
    inside && $0 ~ /^[ \t]*(\/\/|#) \[\/?guide:[A-Za-z0-9_-]+\][ \t]*$/ { next }
    inside { lines[n++] = $0 }
    END {
      if (opened != 1 || closed != 1) {
        printf "%s: region %s is marked %d times (closed %d times)\n", file, name, opened, closed \
            > "/dev/stderr"
        exit 1
      }
      indent = -1
      for (i = 0; i < n; i++) {
        if (lines[i] ~ /^[ \t]*$/) continue
        match(lines[i], /^ */)
        if (indent < 0 || RLENGTH < indent) indent = RLENGTH
      }
      for (i = 0; i < n; i++) print (lines[i] ~ /^[ \t]*$/ ? "" : substr(lines[i], indent + 1))
    }' "$root/$1"
}

# Every region name marked in `file`.
regions_of() {
  sed -n -E 's@^[[:space:]]*(//|#) \[guide:([A-Za-z0-9_-]+)\][[:space:]]*$@\2@p' "$root/$1"
}

expected=$(mktemp)
trap 'rm -f "$expected"' EXIT
errors=0
declare -A quoted=()  # "file#name" -> 1
declare -A files=()   # quoted files
state=text
lineno=0
marker_re='^<!-- snippet: ([^#[:space:]]+)#([A-Za-z0-9_-]+) -->$'
while IFS= read -r line || [[ -n $line ]]; do
  lineno=$((lineno + 1))
  case $state in
    text)
      printf '%s\n' "$line" >>"$expected"
      if [[ $line =~ $marker_re ]]; then
        file=${BASH_REMATCH[1]}
        name=${BASH_REMATCH[2]}
        state=marker
      elif [[ $line =~ ^\`\`\`(cpp|c\+\+|proto|protobuf|cmake)[[:space:]]*$ ]]; then
        echo "$guide:$lineno: a ${BASH_REMATCH[1]} block without a snippet marker" >&2
        errors=$((errors + 1))
        state=block
      elif [[ $line =~ ^\`\`\` ]]; then
        state=block
      fi
      ;;
    marker)
      printf '%s\n' "$line" >>"$expected"
      if [[ ! $line =~ ^\`\`\` ]]; then
        echo "$guide:$lineno: a snippet marker not followed by a code block" >&2
        errors=$((errors + 1))
        state=text
        continue
      fi
      if ! region "$file" "$name" >>"$expected"; then
        errors=$((errors + 1))
      fi
      quoted["$file#$name"]=1
      files["$file"]=1
      state=quote
      ;;
    quote)  # the old quote is replaced by the region; keep only its closing fence
      if [[ $line =~ ^\`\`\`[[:space:]]*$ ]]; then
        printf '%s\n' "$line" >>"$expected"
        state=text
      fi
      ;;
    block)
      printf '%s\n' "$line" >>"$expected"
      [[ $line =~ ^\`\`\`[[:space:]]*$ ]] && state=text
      ;;
  esac
done <"$guide"
if [[ $state != text ]]; then
  echo "$guide: ends inside a code block" >&2
  errors=$((errors + 1))
fi

for file in "${!files[@]}"; do
  for name in $(regions_of "$file"); do
    if [[ -z ${quoted["$file#$name"]:-} ]]; then
      echo "$file: region $name is not quoted in $guide" >&2
      errors=$((errors + 1))
    fi
  done
done

if ((update)); then
  ((errors == 0)) || exit 1
  cp "$expected" "$guide"
  echo "updated $guide"
  exit 0
fi
if ! diff -u --label "$guide (as written)" --label "$guide (quoting the sources)" \
  "$guide" "$expected" >&2; then
  echo "the guide's snippets differ from the sources: fix the guide, or run $0 --update" >&2
  errors=$((errors + 1))
fi
if ((errors)); then
  echo "guide snippets: $errors problem(s)" >&2
  exit 1
fi
echo "guide snippets: ${#quoted[@]} quoted regions match the sources"
