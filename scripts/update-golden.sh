#!/usr/bin/env bash
# Rewrites tests/golden/*.json from the current build (all cases, or the ones named).
# A change that moves a golden file says why in its commit message.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
python3 tests/golden/golden.py build/src/kvbench tests/golden/cases.txt --update "$@"
git --no-pager diff --stat -- tests/golden || true
