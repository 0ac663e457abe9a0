#!/usr/bin/env bash
# The CI performance regression job: measure, compare against reports/baselines/, fail on SLOWER.
#
# usage: scripts/perf-regression.sh [--baselines DIR] [--out DIR] [--update] [--quick]
#                                   [--skip-dma] [--skip-bench]
#   1. kvbench dma: a fixed sweep on the best backend present (a GPU when there is one, else the
#      host backend), baseline DIR/<backend>-<device>.json
#   2. the simulator's Google Benchmark programs, 5 repetitions each, baseline
#      DIR/bench-sim-<cpu>.json
#   Each is compared with `kvbench compare` (Mann-Whitney U, 5% minimum effect): the table goes to
#   stdout; Markdown for a pull-request comment and github-action-benchmark JSON go to --out.
#   A missing baseline is reported and, with --update, created from this run (commit it).
# Exit: 0 no regression, 1 a case is SLOWER, 2 bad usage or a failed step.
# KVBENCH_BUILD=DIR uses an existing build instead of running scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

baselines=reports/baselines
out=reports/out/perf
update=0 quick=0 skip_dma=0 skip_bench=0
while [ $# -gt 0 ]; do
  case "$1" in
    --baselines) baselines=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --update) update=1; shift ;;
    --quick) quick=1; shift ;;
    --skip-dma) skip_dma=1; shift ;;
    --skip-bench) skip_bench=1; shift ;;
    *) echo "perf-regression: unknown argument '$1'; expected --baselines DIR, --out DIR, --update, --quick, --skip-dma or --skip-bench" >&2; exit 2 ;;
  esac
done

build=${KVBENCH_BUILD:-}
if [ -z "$build" ]; then
  scripts/build.sh >/dev/null
  build=build
fi
kvbench=$build/src/kvbench
[ -x "$kvbench" ] || { echo "perf-regression: $kvbench not found; build first (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$out" "$baselines"

# A file name from free text: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
slug() { tr '[:upper:]' '[:lower:]' <<<"$1" | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g'; }

status=0
# Compares $2 (head) against baseline $1 under the name $3; keeps the worst exit status.
compare() {
  local base=$1 head=$2 name=$3 rc=0
  if [ ! -f "$base" ]; then
    if [ "$update" -eq 1 ]; then
      cp "$head" "$base"
      echo "perf-regression: $name: no baseline; created $base from this run (commit it)"
    else
      echo "perf-regression: $name: no baseline at $base; run with --update to create it from this run"
    fi
    return
  fi
  "$kvbench" compare "$base" "$head" --markdown-output "$out/$name.md" --action-output "$out/$name-action.json" || rc=$?
  if [ "$rc" -ge 2 ]; then
    echo "perf-regression: $name: kvbench compare failed (exit $rc)" >&2
    status=2
  elif [ "$rc" -eq 1 ] && [ "$status" -eq 0 ]; then
    status=1
  fi
}

if [ "$skip_dma" -eq 0 ]; then
  if [ "$quick" -eq 1 ]; then
    dma_args=(--block 64KiB,2MiB --method ce,kernel --direction h2d,d2h --min-time 0.1 --max-time 0.5 --min-samples 10)
  else
    dma_args=(--block 4KiB,16KiB,64KiB,256KiB,2MiB,16MiB --min-time 0.5 --max-time 5 --min-samples 20)
  fi
  "$kvbench" dma "${dma_args[@]}" --json -o "$out/dma.json" >/dev/null
  device=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["records"][0]; print(r["backend"]+"-"+r["device"])' "$out/dma.json")
  compare "$baselines/$(slug "$device").json" "$out/dma.json" dma
fi

if [ "$skip_bench" -eq 0 ]; then
  bench=$build/tests/bench/kvbench_bench_sim
  [ -x "$bench" ] || { echo "perf-regression: $bench not found; build with -DKVBENCH_BUILD_BENCH=ON" >&2; exit 2; }
  filter='BM_EventQueuePushPop|BM_BlockManagerRequestCycle|BM_PrefixLookup|BM_OffloadTierStoreAndHit|BM_SimulateChatRequests/(1000|10000)/'
  reps=5
  [ "$quick" -eq 1 ] && { filter='BM_EventQueuePushPop|BM_PrefixLookup'; reps=3; }
  "$bench" --benchmark_filter="$filter" --benchmark_repetitions=$reps --benchmark_min_time=0.2 \
    --benchmark_format=json --benchmark_out="$out/bench-sim.json" --benchmark_out_format=json >/dev/null
  cpu=$(python3 -c 'import sys
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        print(line.split(":", 1)[1].strip()); break
else:
    print("unknown-cpu")')
  compare "$baselines/bench-sim-$(slug "$cpu").json" "$out/bench-sim.json" bench-sim
fi

case $status in
  0) echo "perf-regression: no regression (results in $out)" ;;
  1) echo "perf-regression: REGRESSION: a case is SLOWER than its baseline (see $out/*.md)" ;;
esac
exit $status
