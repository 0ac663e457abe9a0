#!/usr/bin/env bash
# One command for a device (GPU) session: build with CUDA, run the GPU tests (compute-sanitizer
# included) and time them, time the default `kvbench dma` sweep, then the CTA-budget sweep under
# the compute load and the per-layer layout; results land in $OUT (or reports/out/gpu). Carry
# .gpu-deps (scripts/gpu-deps.sh) when the machine lacks the C++ deps.
# usage: OUT=... scripts/gpu-session.sh [--quick] [--torch] [--experiments]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-reports/out/gpu}
mkdir -p "$out"
quick=0; torch=0; experiments=0
for a in "$@"; do
  case "$a" in --quick) quick=1 ;; --torch) torch=1 ;; --experiments) experiments=1 ;; esac
done
log() { echo "gpu-session: $*"; }
seconds() { date +%s.%N; }
took() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(seconds)"; }

# Dependencies from carried Debian packages, unpacked beside the system (never over it).
if [ -d .gpu-deps ] && ls .gpu-deps/*.deb >/dev/null 2>&1; then
  prefix=/opt/kvbench-deps
  for f in .gpu-deps/*.deb; do dpkg -x "$f" "$prefix"; done
  export CMAKE_PREFIX_PATH="$prefix/usr:$prefix/usr/lib/x86_64-linux-gnu/cmake"
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  export CPATH="$prefix/usr/include:${CPATH:-}"
  export LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:${LIBRARY_PATH:-}"
  log "dependencies unpacked into $prefix"
fi
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv | tee "$out/nvidia-smi.csv"

t=$(seconds)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVBENCH_GPU_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DKVBENCH_BUILD_BENCH=OFF >"$out/cmake.log" 2>&1 || { log "cmake failed"; tail -30 "$out/cmake.log"; exit 2; }
cmake --build build-gpu -j 16 >"$out/build.log" 2>&1 || { log "build failed"; grep -m20 -E "error" "$out/build.log"; exit 2; }
log "build: $(took "$t")"
bin=build-gpu/src/kvbench

t=$(seconds)
(cd build-gpu && ctest -L gpu --output-on-failure) >"$out/ctest-gpu.log" 2>&1
log "ctest -L gpu: exit $? in $(took "$t") ($(grep -E 'tests passed|tests failed' "$out/ctest-gpu.log"))"
grep -E "Test +#.*(Passed|Failed)" "$out/ctest-gpu.log" | sed -E 's/^ *[0-9]+\/[0-9]+ //' | tail -25

log "kernel driver: sysfs $(cat /sys/module/nvidia/version 2>/dev/null || echo -), procfs $(head -1 /proc/driver/nvidia/version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1 || echo -)"
device=$($bin dma --backend cuda --block 4KiB --method ce --direction h2d --max-time 0.1 --json 2>/dev/null |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["records"][0]["device"])')
slug=$(tr '[:upper:]' '[:lower:]' <<<"cuda-$device" | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')

# The default sweep, as an operator runs it: the issue's target is 60 s on an H100.
t=$(seconds)
args=(); [ "$quick" -eq 1 ] && args=(--quick)
$bin dma --backend cuda "${args[@]}" -o "$out/$slug.json" >"$out/dma-default.txt" 2>"$out/dma-default.log"
log "default dma sweep: exit $? in $(took "$t"); $(tail -1 "$out/dma-default.log")"

# The copy kernel's CTA budget under the many-wave compute load, beside ce.
t=$(seconds)
$bin dma --backend cuda --block 64KiB,2MiB --direction h2d,d2h --method ce,kernel --ctas 4,8,16,32,0 --with-compute \
  -o "$out/$slug-compute.json" >"$out/dma-compute.txt" 2>>"$out/dma.log"
log "dma --with-compute --ctas: exit $? in $(took "$t")"
$bin dma --backend cuda --block 2MiB --layout per-layer --layers 32 --direction h2d,d2h \
  -o "$out/$slug-per-layer.json" >"$out/dma-per-layer.txt" 2>>"$out/dma.log"
log "dma per-layer: exit $?"
# calibrate (issue 12): the fitted efficiencies beside the hardware file's ground-truth fit.
t=$(seconds)
$bin calibrate --backend cuda -o "$out/$slug-calibration.yaml" >"$out/calibrate.txt" 2>>"$out/dma.log"
log "calibrate: exit $? in $(took "$t") (commit $slug-calibration.yaml under reports/baselines/)"
cat "$out/calibrate.txt"
if [ "$torch" -eq 1 ]; then
  python3 scripts/torch_dma_peer.py --block "4KiB,16KiB,64KiB,256KiB,2MiB,16MiB" -o "$out/torch-$slug.json" >"$out/torch.log" 2>&1
  log "torch peer: exit $?"
fi
if [ "$experiments" -eq 1 ]; then
  scripts/experiments/bidir_order.sh "$out" >"$out/bidir-order.txt" 2>&1; log "bidir order experiment: exit $?"
  cat "$out/bidir-order.txt"
fi
grep -E "^(method|kernel|ce)" "$out/dma-compute.txt" | cut -c1-200
head -3 "$out/dma-default.txt"
sed -n '/What this means/,$p' "$out/dma-default.txt"
log "results in $out (commit $slug.json under reports/baselines/)"
