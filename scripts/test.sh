#!/usr/bin/env bash
# The README's second command (and CI's): install, check the sources' format, build, run every test; then build the host
# code with AddressSanitizer + UndefinedBehaviorSanitizer and run the unit and CLI tests again;
# then run each libFuzzer target for 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
scripts/check-format.sh  # .clang-format, before the long builds
export KVBENCH_WERROR=ON
scripts/build.sh
(cd build && ctest --output-on-failure -j 2 -LE gpu)
scripts/build.sh --sanitize
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j 2 -L 'unit|cli')
# libFuzzer (clang, ASan + UBSan) on every parser of user input, 30 s per target.
scripts/fuzz.sh 30
echo "test: all suites passed (normal and sanitized builds, fuzz targets)"
