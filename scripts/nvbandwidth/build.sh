#!/usr/bin/env bash
# Builds nvbandwidth (NVIDIA's own copy-bandwidth tool) from a source tarball, for a GPU lease that
# measures kvbench dma beside it: scripts/gpu-deps.sh fetches the tarball and Boost's .deb files,
# scripts/gpu-session.sh unpacks the .deb files and calls this. Where the CUDA image lacks the
# toolkit's nvml.h, or an unversioned libnvidia-ml.so / libcuda.so, it uses this folder's nvml.h
# and links the driver's .so.1 files. Prints the binary's path.
# usage: scripts/nvbandwidth/build.sh TARBALL BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tarball=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/extra"
tar -C "$dir/src" --strip-components=1 -xzf "$tarball"
cuda_inc=$(dirname "$(command -v nvcc)")/../include
if [ ! -f "$cuda_inc/nvml.h" ]; then cp "$here/nvml.h" "$dir/extra/nvml.h"; fi
for lib in nvidia-ml cuda; do
  if ! ldconfig -p | grep -q "lib$lib\.so " && [ ! -f "$cuda_inc/../lib64/lib$lib.so" ]; then
    so=$(ldconfig -p | awk -v n="lib$lib.so.1" '$1 == n { print $NF; exit }')
    [ -n "$so" ] && ln -sf "$so" "$dir/extra/lib$lib.so"
  fi
done
export CPATH="$dir/extra${CPATH:+:$CPATH}" LIBRARY_PATH="$dir/extra${LIBRARY_PATH:+:$LIBRARY_PATH}"
cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >&2
cmake --build "$dir/build" -j "$(nproc)" >&2
echo "$dir/build/nvbandwidth"
