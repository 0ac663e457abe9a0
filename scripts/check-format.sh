#!/usr/bin/env bash
# Fails when a C++ or CUDA source differs from .clang-format (Google style, 110 columns), as
# formatted by Debian 12's clang-format-14: another version formats some constructs differently.
# scripts/check-format.sh --fix rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || true)
if [ -z "$format" ]; then
  echo "check-format: clang-format-14 is not installed (scripts/setup.sh --tests installs it)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files --cached --others --exclude-standard 'src/*.cpp' 'src/*.hpp' 'src/*.cu' 'tests/*.cpp' 'tests/*.hpp' 'kernels/*.hpp' \
  'kernels/*.cu' 'kernels/*.cpp')
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
"$format" --dry-run --Werror "${files[@]}"
echo "check-format: ${#files[@]} files match .clang-format"
