#!/usr/bin/env bash
# One command for a device (GPU) lease: build the kvbench binary and the GPU test programs with CUDA,
# run `ctest -L gpu` (compute-sanitizer, calibrate's cuBLAS timer and doctor included), show doctor's
# and calibrate's real output, time the default `kvbench dma` sweep, the CTA budget under a compute
# load and the per-layer layout, and (--torch) PyTorch's pinned copies as a peer. Every step has its
# own time limit so the lease ends inside its budget. A device tool returns at most 8 files, so the
# headline files land in $OUT and everything else in $OUT/logs.tgz. Carry .gpu-deps
# (scripts/gpu-deps.sh) when the machine lacks the C++ dependencies.
# usage: OUT=... scripts/gpu-session.sh [--quick] [--torch] [--nvbandwidth] [--also "ARGS"]... [--experiments]
#          [--only REGEX]
#   --nvbandwidth: build nvbandwidth v0.8 from .gpu-deps (scripts/gpu-deps.sh) and time its own
#                  default run beside the sweep ($OUT/nvbandwidth.json)
#   --also "ARGS": the default sweep again with these flags added, timed the same way (repeatable;
#                  e.g. the previous defaults, to show what a change of defaults moved)
#   --only REGEX: only the GPU tests whose names match, then doctor and calibrate (no dma sweeps):
#                 a second, short lease that checks a fix
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-reports/out/gpu}
logs=$(mktemp -d /tmp/kvbench-gpu-logs.XXXXXX)
mkdir -p "$out"
quick=0; torch=0; experiments=0; nvbw=0; only=; also=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;; --torch) torch=1 ;; --experiments) experiments=1 ;; --nvbandwidth) nvbw=1 ;;
    --only | --also)
      [ $# -ge 2 ] || { echo "gpu-session: $1 needs a value (--only REGEX, --also \"FLAGS\")" >&2; exit 2; }
      if [ "$1" = --only ]; then only=$2; else also+=("$2"); fi
      shift ;;
    *) echo "gpu-session: unknown option $1 (see the usage at the top of this script)" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "gpu-session: $*"; }
seconds() { date +%s.%N; }
took() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$1" "$(seconds)"; }
pack() { tar -C "$logs" -czf "$out/logs.tgz" . 2>/dev/null; }
trap pack EXIT

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
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,memory.total \
  --format=csv | tee "$out/nvidia-smi.csv"
{ nvcc --version | tail -2; lscpu | grep -E "Model name|^CPU\(s\)|NUMA node\(s\)"; free -g | head -2; df -h /dev/shm; } \
  >"$logs/machine.txt" 2>&1

# Only the programs `ctest -L gpu` runs: the unit tests are CI's and need no GPU.
t=$(seconds)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVBENCH_GPU_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DKVBENCH_BUILD_BENCH=OFF >"$logs/cmake.log" 2>&1 || { log "cmake failed"; tail -30 "$logs/cmake.log"; exit 2; }
cmake --build build-gpu -j 16 --target kvbench kvbench_gpu_verify_test kvbench_calibrate_gpu_test \
  >"$logs/build.log" 2>&1 || { log "build failed"; grep -m20 -E "error" "$logs/build.log"; exit 2; }
log "build: $(took "$t")"
bin=build-gpu/src/kvbench

t=$(seconds)
(cd build-gpu && timeout 240 ctest -L gpu ${only:+-R "$only"} --output-on-failure) >"$out/ctest-gpu.log" 2>&1
log "ctest -L gpu: exit $? in $(took "$t") ($(grep -E 'tests passed|tests failed' "$out/ctest-gpu.log"))"
grep -E "Test +#.*(Passed|Failed|Timeout|Not Run)" "$out/ctest-gpu.log" | sed -E 's/^ *[0-9]+\/[0-9]+ //'

device=$($bin dma --backend cuda --block 4KiB --method ce --direction h2d --max-time 0.1 --json 2>/dev/null |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["records"][0]["device"])')
slug=$(tr '[:upper:]' '[:lower:]' <<<"cuda-$device" | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')

# doctor and calibrate as an operator runs them: their real output.
timeout 90 $bin doctor --backend cuda --device all --tier-size 64 >"$out/doctor.txt" 2>&1
log "doctor --tier-size 64: exit $?"
cat "$out/doctor.txt"
t=$(seconds)
timeout 120 $bin calibrate --backend cuda -o "$out/$slug-calibration.yaml" >"$out/calibrate.txt" 2>&1
log "calibrate: exit $? in $(took "$t")"
cat "$out/calibrate.txt"

[ -n "$only" ] && { log "--only: no dma sweeps"; exit 0; }
# The default sweep, as an operator runs it (--quick: the short one).
t=$(seconds)
args=(); [ "$quick" -eq 1 ] && args=(--quick)
timeout 120 $bin dma --backend cuda "${args[@]}" -o "$out/$slug.json" >"$logs/dma-default.txt" 2>"$logs/dma-default.log"
log "default dma sweep: exit $? in $(took "$t"); $(tail -1 "$logs/dma-default.log")"
sed -n '1,3p;/What this means/,$p' "$logs/dma-default.txt"

# The same sweep under other settings, each timed by the clock around it.
i=0
for extra in "${also[@]}"; do
  i=$((i + 1)); t=$(seconds)
  # shellcheck disable=SC2086  # the flags split on spaces
  timeout 120 $bin dma --backend cuda $extra -o "$logs/$slug-also-$i.json" >"$logs/dma-also-$i.txt" 2>"$logs/dma-also-$i.log"
  log "dma sweep with '$extra': exit $? in $(took "$t"); $(tail -1 "$logs/dma-also-$i.log")"
done
# NVIDIA's own tool in the same lease: its default run (every single-GPU testcase), timed.
if [ "$nvbw" -eq 1 ]; then
  if ls .gpu-deps/nvbandwidth-*.tar.gz >/dev/null 2>&1; then
    t=$(seconds)
    if nvb=$(timeout 240 scripts/nvbandwidth/build.sh .gpu-deps/nvbandwidth-*.tar.gz /tmp/nvbandwidth \
             2>"$logs/nvbandwidth-build.log"); then
      log "nvbandwidth build: $(took "$t")"
      t=$(seconds)
      timeout 120 "$nvb" -j >"$out/nvbandwidth.json" 2>"$logs/nvbandwidth.log"
      log "nvbandwidth default run: exit $? in $(took "$t")"
      timeout 60 "$nvb" >"$logs/nvbandwidth.txt" -t host_to_device_memcpy_ce device_to_host_memcpy_ce 2>&1
    else
      log "nvbandwidth build failed:"; tail -20 "$logs/nvbandwidth-build.log"
    fi
  else
    log "--nvbandwidth: no .gpu-deps/nvbandwidth-*.tar.gz (run scripts/gpu-deps.sh here first)"
  fi
fi
# The copy kernel's CTA budget under the compute load, beside ce; the per-layer layout.
t=$(seconds)
timeout 90 $bin dma --backend cuda --block 64KiB,2MiB --direction h2d,d2h --method ce,kernel --ctas 4,8,16,0 \
  --with-compute --max-time 1 -o "$logs/$slug-compute.json" >"$logs/dma-compute.txt" 2>>"$logs/dma.log"
log "dma --with-compute --ctas: exit $? in $(took "$t")"
grep -E "^(method|kernel|ce)" "$logs/dma-compute.txt" | cut -c1-160
timeout 60 $bin dma --backend cuda --block 2MiB --layout per-layer --layers 32 --direction h2d,d2h --max-time 1 \
  -o "$logs/$slug-per-layer.json" >"$logs/dma-per-layer.txt" 2>>"$logs/dma.log"
log "dma per-layer: exit $?"
if [ "$torch" -eq 1 ]; then
  timeout 60 python3 scripts/torch_dma_peer.py --block "4KiB,16KiB,64KiB,256KiB,2MiB,16MiB" --max-time 1 \
    -o "$logs/torch-$slug.json" >"$logs/torch.log" 2>&1
  log "torch peer: exit $?"
fi
if [ "$experiments" -eq 1 ]; then
  scripts/experiments/bidir_order.sh "$logs" >"$logs/bidir-order.txt" 2>&1; log "bidir order experiment: exit $?"
fi
cp /tmp/kvbench-sanitizer-*.log "$logs/" 2>/dev/null
log "results in $out (commit $slug*.json under reports/baselines/)"
