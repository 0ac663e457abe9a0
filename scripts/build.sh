#!/usr/bin/env bash
# Configures and builds kvbench. usage: scripts/build.sh [--main | --sanitize] [extra cmake args...]
#   default     build/        release build with every backend the machine can compile, tests and
#                             benchmarks (scripts/test.sh; ctest runs there)
#   --sanitize  build-asan/   host code only, with AddressSanitizer and UndefinedBehaviorSanitizer,
#                             built by clang with libFuzzer's coverage (not in the simulation
#                             engine, which no fuzz target reaches): the unit and CLI tests and
#                             the fuzz targets (scripts/fuzz.sh) share this one build
#   --main      build-main/   only the kvbench binary (no tests, no benchmarks), with the GPU backend
#                             of the GPU this machine has (scripts/run.sh: the main job)
# Each has its own folder: one folder configured two ways would rebuild everything at each switch
# between scripts/run.sh and scripts/test.sh, and hold no tests after scripts/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
target=()
# Warnings are errors where KVBENCH_WERROR=ON is in the environment (scripts/test.sh, CI).
werror=-DKVBENCH_WERROR=${KVBENCH_WERROR:-OFF}
# Line tables only (-g1): file and line in a failing test's backtrace, at about half the compile
# time that full debug information adds (measured on ten of the project's files with gcc 12).
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DKVBENCH_GPU_BACKEND=auto
      -DKVBENCH_BUILD_TESTS=ON -DKVBENCH_BUILD_BENCH=ON "$werror")
if [ "${1:-}" = "--main" ]; then
  shift
  dir=build-main
  # A backend is compiled only where its toolkit and a device driver are both present: the CUDA
  # backend alone takes most of a first build, and without a GPU dma falls back to the host.
  gpu=none
  if { [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; } && [ -e /proc/driver/nvidia/version ]; then gpu=cuda; fi
  if command -v hipcc >/dev/null && [ -e /dev/kfd ]; then [ "$gpu" = cuda ] && gpu=all || gpu=hip; fi
  args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVBENCH_GPU_BACKEND=$gpu -DKVBENCH_BUILD_TESTS=OFF -DKVBENCH_BUILD_BENCH=OFF "$werror")
  target=(--target kvbench)
  echo "build: the kvbench binary only, GPU backend: $gpu"
elif [ "${1:-}" = "--sanitize" ]; then
  shift
  dir=build-asan
  # clang, for libFuzzer: one sanitized build serves the tests and the fuzzers (a second would
  # compile every library again). Its warnings are gcc's build's to enforce (-Werror there).
  export CC=clang CXX=clang++
  # -O1, as ASan's own documentation advises: the sanitized unit and CLI tests run simulations,
  # which at -O0 took most of the test command's time. Line tables (-g1) are what a sanitizer's
  # report needs for file and line.
  args=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1" -DKVBENCH_SANITIZE=ON -DKVBENCH_FUZZ=ON
        -DKVBENCH_BUILD_BENCH=OFF -DKVBENCH_GPU_BACKEND=none)
fi
# A compiler cache where one is installed (scripts/setup.sh --tests installs ccache): paths are
# taken relative to this checkout, so another clone of the same commit hits the same entries;
# precompiled headers only where that cache has nothing to hit (scripts/pch-choice.sh).
pch=$(scripts/pch-choice.sh)
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,pch_defines,time_macros
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
args+=("-DKVBENCH_PCH=$pch")
echo "build: precompiled headers $pch"
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B "$dir" "${args[@]}" "$@" >/dev/null
cmake --build "$dir" -j "${KVBENCH_JOBS:-2}" "${target[@]}"
echo "build: $dir/src/kvbench"
