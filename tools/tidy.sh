#!/usr/bin/env bash
# clang-tidy (.clang-tidy: bugprone-*, function size) over the C++ files of a configured build
# (default build/, which setup.sh configures): tools/tidy.sh [BUILD_DIR] [FILE...].
# Exit 1 when it finds anything. CUDA files are left out: clang-tidy cannot read nvcc's flags.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
[ -f "$build/compile_commands.json" ] || cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
files=("$@")
((${#files[@]})) || mapfile -t files < <(git ls-files '*.cpp' | grep -v '^tests/fuzz/')
log=$(mktemp)
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet >"$log" 2>/dev/null || true
grep -E "warning:|error:" "$log" | sort -u || true
count=$(grep -cE "warning:|error:" "$log" || true)
rm -f "$log"
echo "clang-tidy: $count finding(s) in ${#files[@]} file(s)"
[ "$count" -eq 0 ]
