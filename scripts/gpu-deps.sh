#!/usr/bin/env bash
# Run here (Debian 12, with network) before a GPU session: downloads the .deb files of kvbench's
# C++ dependencies into .gpu-deps/ (git-ignored), to carry to a device machine that has CUDA and
# PyTorch but no package registry. scripts/gpu-session.sh unpacks them there. Beside them, for
# measuring beside NVIDIA's own tool: nvbandwidth v0.8's source (a clone of $NVBANDWIDTH_SRC, or
# of GitHub) and the Boost program_options packages it builds with.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu-deps
cd .gpu-deps
apt-get download libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 libyaml-cpp-dev libyaml-cpp0.7 \
  libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian libnuma-dev libnuma1 \
  libboost1.74-dev libboost-program-options1.74-dev libboost-program-options1.74.0 >/dev/null
if [ ! -f nvbandwidth-v0.8.tar.gz ]; then
  src=$(mktemp -d)
  git -c advice.detachedHead=false clone -q --branch v0.8 "${NVBANDWIDTH_SRC:-https://github.com/NVIDIA/nvbandwidth}" "$src/nvbandwidth"
  git -C "$src/nvbandwidth" archive --format=tar.gz --prefix=nvbandwidth/ v0.8 >nvbandwidth-v0.8.tar.gz
  rm -rf "$src"
fi
du -sh . | sed 's/^/gpu-deps: /'
