#!/usr/bin/env bash
# Runs a small kvbench dma case under each compute-sanitizer tool; any reported error fails.
# usage: compute_sanitizer.sh KVBENCH
set -u
bin=$1
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "FAIL: compute-sanitizer not found (CUDA toolkit)"; exit 1; }
args=(dma --backend cuda --block 64KiB --blocks 64 --pool 64MiB --method ce,ce-batch,kernel --direction h2d,d2h,bidir
      --min-time 0 --max-time 0.1 --min-samples 2 --warmups 1)
status=0
for tool in memcheck initcheck racecheck synccheck; do
  if "$sanitizer" --tool "$tool" --error-exitcode 9 "$bin" "${args[@]}" >/tmp/kvbench-sanitizer-$tool.log 2>&1; then
    echo "ok: compute-sanitizer --tool $tool: $(grep -m1 'ERROR SUMMARY' /tmp/kvbench-sanitizer-$tool.log)"
  else
    echo "FAIL: compute-sanitizer --tool $tool"; tail -20 /tmp/kvbench-sanitizer-$tool.log; status=1
  fi
done
exit $status
