#!/usr/bin/env bash
# The README's second command (and CI's): install, check the sources' format and length, build,
# run every test; then build the host code with AddressSanitizer + UndefinedBehaviorSanitizer (with
# clang, which also builds the libFuzzer targets in the same tree) and run the unit and CLI tests
# again; then run each libFuzzer target for 20 s from the corpus earlier runs grew (scripts/fuzz.sh).
# Each phase's wall time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
phases=()
phase() { phases+=("$1 $((SECONDS - phase_start)) s"); phase_start=$SECONDS; }
phase_start=$SECONDS
scripts/setup.sh --tests
scripts/check-format.sh  # .clang-format, before the long builds
python3 scripts/check-length.py  # no function over 60 lines, no source file over 400
phase setup+format
export KVBENCH_WERROR=ON
# Precompiled headers or the compiler cache's hits, chosen once so both builds agree.
KVBENCH_PCH=$(scripts/pch-choice.sh)
export KVBENCH_PCH
scripts/build.sh
phase build
(cd build && ctest --output-on-failure -j 2 -LE gpu)
phase tests
scripts/build.sh --sanitize
phase sanitized-build
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j 2 -L 'unit|cli')
phase sanitized-tests
# libFuzzer (clang, ASan + UBSan) on every parser of user input, 20 s per target; each run starts
# from the corpus the earlier ones kept (scripts/fuzz.sh), so short runs add up.
scripts/fuzz.sh 20
phase fuzz
echo "test: phases: ${phases[*]}; total $SECONDS s"
echo "test: all suites passed (normal and sanitized builds, fuzz targets)"
