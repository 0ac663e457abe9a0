#!/usr/bin/env bash
# simulate --calibration applies to every point of a sweep (every shipped scenario sweeps): with a
# GPU at 5% of its peak (a tenth of the default efficiencies), every point's TTFT p99 must rise.
# usage: calibration_sweep_test.sh KVBENCH
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf 'compute-efficiency: 0.05\nmemory-efficiency: 0.05\n' >"$work/slow.yaml"
"$bin" simulate ttft-reload --requests 40 --json >"$work/default.json" || fail "default run exited $?"
"$bin" simulate ttft-reload --requests 40 --calibration "$work/slow.yaml" --json >"$work/slow.json" || fail "slow run exited $?"
python3 - "$work/default.json" "$work/slow.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pa, pb = a["points"], b["points"]
assert len(pa) == len(pb) > 1, f"expected a sweep of several points, got {len(pa)} and {len(pb)}"
for x, y in zip(pa, pb):
    tx, ty = x["metrics"]["ttft_s"]["p99"], y["metrics"]["ttft_s"]["p99"]
    if not ty > 2 * tx:
        sys.exit(f"FAIL: point {x['params']}: TTFT p99 {ty} s with a 5% GPU is not above twice the default's {tx} s")
print(f"calibration applies to all {len(pa)} sweep points")
PY
