#!/usr/bin/env bash
# clang-format (.clang-format) over every tracked C++ and CUDA file: tools/format.sh applies it,
# tools/format.sh --check lists the files it would change and exits 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${files[@]}" 2>&1 | grep -oE "^[^:]+\.(cpp|hpp|cu|cuh):" | sort -u || true
  clang-format --dry-run --Werror "${files[@]}" >/dev/null 2>&1
else
  clang-format -i "${files[@]}"
fi
