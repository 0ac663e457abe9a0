#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan (in build-asan/, the sanitized build the
# unit and CLI tests run in: scripts/build.sh --sanitize) and runs each for SECONDS
# (default 30), one target per core,
# with its dictionary (tests/fuzz/dict/) from its seed corpus in tests/fuzz/corpus/<target>/ and the
# corpus earlier runs on this machine grew, kept in KVBENCH_FUZZ_CACHE (default
# ~/.cache/kvbench/fuzz/<target>/, minimised after each run), so that short runs add up; the corpus
# in the repository is only read (new inputs go to a scratch copy). A crash, leak, UB or an exception other than the
# input errors kvbench reports fails the run; its input is saved under tests/fuzz/regressions/ and
# is replayed by every later run.   usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(units hf_config scenario result_json node_facts trace trace_csv vllm_results prom_text vllm_startup_log)
scripts/build.sh --sanitize >/dev/null  # a no-op after scripts/test.sh's own sanitized build
mkdir -p tests/fuzz/regressions
cache=${KVBENCH_FUZZ_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/kvbench/fuzz}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One target: its saved regressions, then SECONDS of fuzzing. Prints its verdict; fails on a finding.
fuzz_target() {
  local t=$1 bin=build-asan/tests/fuzz/fuzz_$1 work runs kept=$cache/$1
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  [ -d "$kept" ] && cp -r "$kept/." "$work/"
  # Earlier findings first: each must now pass.
  local regressions=(tests/fuzz/regressions/"$t"-*)
  if [ -e "${regressions[0]}" ]; then "$bin" "${regressions[@]}" >/dev/null 2>&1 || { echo "fuzz: $t: a saved regression fails again"; "$bin" "${regressions[@]}"; return 1; }; fi
  # A target's dictionary (tests/fuzz/dict/<target>.dict): integer edges, YAML aliases, bad UTF-8.
  local dict=(); [ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
  if ! "$bin" "$work" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
       -artifact_prefix="tests/fuzz/regressions/$t-" >"$work.log" 2>&1; then
    tail -40 "$work.log"
    echo "fuzz: $t found a failure; its input is in tests/fuzz/regressions/ (commit it with the fix)"
    return 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work.log" | tail -1 | grep -o '[0-9]*$' || true)
  [ -n "$runs" ] || runs=$(grep -Eo '#[0-9]+' "$work.log" | tail -1 | tr -d '#')
  echo "fuzz: $t: ${runs:-?} inputs in ${seconds} s, no failure"
  keep_corpus "$bin" "$work" "$kept"
  rm -rf "$work" "$work.log"
}

# The grown corpus, minimised by libFuzzer's merge (the inputs that add coverage), replaces the
# kept one: it stays the size of what the target's code can tell apart, not of the runs' total.
keep_corpus() {
  local bin=$1 work=$2 kept=$3 merged
  mkdir -p "$(dirname "$kept")" || return 0
  merged=$(mktemp -d "$kept.XXXXXX") || return 0
  if "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 "$merged" "$work" >/dev/null 2>&1; then
    rm -rf "$kept" && mv "$merged" "$kept"
  else
    rm -rf "$merged"
  fi
}

# The targets run side by side, one per core (KVBENCH_FUZZ_JOBS to choose): each still fuzzes for
# SECONDS of wall time on a core of its own. Their verdicts are printed in the targets' order.
max_jobs=${KVBENCH_FUZZ_JOBS:-$(nproc)}
results=$(mktemp -d)
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do sleep 1; done
  (fuzz_target "$t" >"$results/$t.out" 2>&1; echo $? >"$results/$t.rc") &
done
wait
failed=0
for t in "${targets[@]}"; do
  cat "$results/$t.out"
  [ "$(cat "$results/$t.rc" 2>/dev/null)" = 0 ] || failed=1
done
rm -rf "$results"
exit $failed
