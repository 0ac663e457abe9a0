#!/usr/bin/env bash
# scripts/perf-regression.sh fails on a regression: a baseline made 2x faster than this run must
# give exit 1, the run against its own fresh baseline must not, and bad usage is exit 2.
# usage: perf_regression_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { KVBENCH_BUILD="$build" "$src/scripts/perf-regression.sh" --quick --skip-bench --baselines "$work/base" --out "$work/out" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

run --update >"$work/log1" 2>&1 || fail "first run (creating the baseline) exited $?: $(tail -5 "$work/log1")"
baseline=$(ls "$work"/base/*.json)
[ -f "$baseline" ] || fail "no baseline created"
# Every baseline sample half as long: the baseline moved twice the bandwidth this run will.
python3 - "$baseline" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for r in d["records"]:
    if not r.get("waived"):
        r["samples"] = [s * 0.5 for s in r["samples"]]
json.dump(d, open(p, "w"))
PY
run >"$work/log2" 2>&1
code=$?
[ "$code" -eq 1 ] || fail "against a 2x faster baseline exit $code, expected 1: $(tail -5 "$work/log2")"
grep -q "REGRESSION" "$work/log2" || fail "no REGRESSION line: $(tail -5 "$work/log2")"
grep -q "SLOWER" "$work/out/dma.md" || fail "the Markdown does not show SLOWER"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d and all("value" in x and "unit" in x for x in d)' \
  "$work/out/dma-action.json" || fail "the github-action-benchmark JSON is not a list of {name, unit, value}"
KVBENCH_BUILD="$build" "$src/scripts/perf-regression.sh" --frobnicate >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown argument did not exit 2"
echo "ok: perf-regression.sh fails on a 2x regression and reports it"
