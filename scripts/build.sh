#!/usr/bin/env bash
# Configures and builds kvbench. usage: scripts/build.sh [--sanitize] [extra cmake args...]
#   default     build/        release build with every backend the machine can compile
#   --sanitize  build-asan/   host code only, with AddressSanitizer and UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
# Warnings are errors where KVBENCH_WERROR=ON is in the environment (scripts/test.sh, CI).
werror=-DKVBENCH_WERROR=${KVBENCH_WERROR:-OFF}
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVBENCH_GPU_BACKEND=auto "$werror")
if [ "${1:-}" = "--sanitize" ]; then
  shift
  dir=build-asan
  args=(-DCMAKE_BUILD_TYPE=Debug -DKVBENCH_SANITIZE=ON -DKVBENCH_BUILD_BENCH=OFF -DKVBENCH_GPU_BACKEND=none "$werror")
fi
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B "$dir" "${args[@]}" "$@" >/dev/null
cmake --build "$dir" -j "${KVBENCH_JOBS:-2}"
echo "build: $dir/src/kvbench"
