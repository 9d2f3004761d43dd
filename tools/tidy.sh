#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over the project's C++ files that a configured build compiles
# (default build/, which setup.sh configures; CMake writes its compile_commands.json):
#   tools/tidy.sh [BUILD_DIR] [FILE...]
# Prints each finding and exits 1 when there is any. CUDA files are left out (clang-tidy
# cannot read nvcc's flags), and so are the fuzz targets (built by clang alone, CI's
# sanitized tree). Compiler warnings are the build's to report (-Werror there), not
# clang-tidy's: GCC-only warning flags are ignored and warnings stay warnings here.
# $CLANG_TIDY names the binary; the default, clang-tidy-16 (Debian: clang-tidy-16), is the
# oldest that parses all of our C++20 (clang 14 refuses lambdas capturing structured bindings).
set -euo pipefail
cd "$(dirname "$0")/.."
tidy=${CLANG_TIDY:-clang-tidy-16}
command -v "$tidy" >/dev/null || { echo "tidy: no $tidy (apt-get install clang-tidy-16, or set CLANG_TIDY)"; exit 2; }
build=${1:-build}
shift || true
[ -f "$build/compile_commands.json" ] || cmake -S . -B "$build" >/dev/null
files=("$@")
if ((${#files[@]} == 0)); then
  mapfile -t files < <(python3 - "$build/compile_commands.json" "$PWD" <<'PY'
import json, os, sys
root = sys.argv[2] + os.sep
for entry in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if f.startswith(root) and f.endswith(".cpp") and "/tests/fuzz/" not in f and "/build" not in f[len(root) - 1:]:
        print(f[len(root):])
PY
  )
  mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 2 "$tidy" -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error >"$log" 2>/dev/null ||
  true
grep -E "warning:|error:" "$log" | sort -u || true
count=$(grep -E "warning:|error:" "$log" | sort -u | grep -c . || true)
echo "clang-tidy: $count finding(s) in ${#files[@]} file(s)"
[ "$count" -eq 0 ]
