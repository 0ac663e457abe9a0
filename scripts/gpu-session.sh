#!/usr/bin/env bash
# One command for a device (GPU) session: build with CUDA, run the GPU tests (compute-sanitizer
# included), the full dma sweep, the PyTorch peer and a report; results land in $OUT (or
# reports/out/gpu). Carry .gpu-deps (scripts/gpu-deps.sh) when the machine lacks the C++ deps.
# usage: OUT=... scripts/gpu-session.sh [--quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-reports/out/gpu}
mkdir -p "$out"
quick=0; [ "${1:-}" = "--quick" ] && quick=1
log() { echo "gpu-session: $*"; }

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

cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVBENCH_GPU_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$out/cmake.log" 2>&1 || { log "cmake failed"; tail -30 "$out/cmake.log"; exit 2; }
cmake --build build-gpu -j 16 >"$out/build.log" 2>&1 || { log "build failed"; grep -m20 -E "error" "$out/build.log"; exit 2; }
bin=build-gpu/src/kvbench
(cd build-gpu && ctest -L gpu --output-on-failure) >"$out/ctest-gpu.log" 2>&1; log "ctest -L gpu: exit $? ($(grep -E 'tests passed|tests failed' "$out/ctest-gpu.log"))"
(cd build-gpu && ctest -L 'unit|cli' -j 8) >"$out/ctest-host.log" 2>&1; log "ctest unit+cli: exit $? ($(grep -E 'tests passed|tests failed' "$out/ctest-host.log"))"

device=$($bin dma --backend cuda --block 4KiB --method ce --direction h2d --min-time 0 --max-time 0.1 --json 2>/dev/null |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["records"][0]["device"])')
slug=$(tr '[:upper:]' '[:lower:]' <<<"cuda-$device" | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')
blocks="4KiB..16MiB"; [ "$quick" -eq 1 ] && blocks="4KiB,64KiB,2MiB"
$bin dma --backend cuda --block "$blocks" --max-time 5 --json -o "$out/$slug.json" >/dev/null 2>"$out/dma.log"; log "dma sweep: exit $?"
$bin dma --backend cuda --block 64KiB,2MiB --direction h2d,d2h --with-compute --max-time 3 --json -o "$out/$slug-compute.json" >/dev/null 2>>"$out/dma.log"; log "dma --with-compute: exit $?"
python3 scripts/torch_dma_peer.py --block "4KiB,16KiB,64KiB,256KiB,2MiB,16MiB" -o "$out/torch-$slug.json" >"$out/torch.log" 2>&1; log "torch peer: exit $?"
$bin report "$out/$slug.json" "$out/$slug-compute.json" "$out/torch-$slug.json" -o "$out/report.html" >/dev/null 2>&1; log "report: exit $?"
$bin dma --backend cuda --block 2MiB --method ce,ce-batch,kernel 2>/dev/null | tail -12
log "results in $out (commit $slug.json under reports/baselines/)"
