#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan (in build-asan/, the sanitized build the
# unit and CLI tests run in: scripts/build.sh --sanitize) and runs each for SECONDS
# (default 30) with its dictionary (tests/fuzz/dict/) from its seed corpus in tests/fuzz/corpus/<target>/; the corpus in the repository is
# only read (new inputs go to a scratch copy). A crash, leak, UB or an exception other than the
# input errors kvbench reports fails the run; its input is saved under tests/fuzz/regressions/ and
# is replayed by every later run.   usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(units hf_config scenario result_json node_facts trace trace_csv vllm_results prom_text)
scripts/build.sh --sanitize >/dev/null  # a no-op after scripts/test.sh's own sanitized build
mkdir -p tests/fuzz/regressions
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in "${targets[@]}"; do
  bin=build-asan/tests/fuzz/fuzz_$t
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  # Earlier findings first: each must now pass.
  regressions=(tests/fuzz/regressions/"$t"-*)
  if [ -e "${regressions[0]}" ]; then "$bin" "${regressions[@]}" >/dev/null 2>&1 || { echo "fuzz: $t: a saved regression fails again"; "$bin" "${regressions[@]}"; exit 1; }; fi
  # A target's dictionary (tests/fuzz/dict/<target>.dict): integer edges, YAML aliases, bad UTF-8.
  dict=(); [ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
  if ! "$bin" "$work" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
       -artifact_prefix="tests/fuzz/regressions/$t-" >"$work.log" 2>&1; then
    tail -40 "$work.log"
    echo "fuzz: $t found a failure; its input is in tests/fuzz/regressions/ (commit it with the fix)"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work.log" | tail -1 | grep -o '[0-9]*$' || true)
  [ -n "$runs" ] || runs=$(grep -Eo '#[0-9]+' "$work.log" | tail -1 | tr -d '#')
  echo "fuzz: $t: ${runs:-?} inputs in ${seconds} s, no failure"
  rm -rf "$work" "$work.log"
done
