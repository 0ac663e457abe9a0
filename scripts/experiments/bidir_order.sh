#!/usr/bin/env bash
# Builds and runs bidir_order.cpp on a CUDA machine (issue 14's bidir question); prints its table
# for 256 and 1000 blocks of 2 MiB. usage: scripts/experiments/bidir_order.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp}
export PATH="$PATH:/usr/local/cuda/bin"
nvcc -O2 -std=c++17 -arch=sm_90 -DKVB_HAVE_BATCH_COPY=1 -x cu -Isrc -Ikernels \
  scripts/experiments/bidir_order.cpp -o "$out/bidir_order"
for n in 256 1000; do "$out/bidir_order" "$n"; done
