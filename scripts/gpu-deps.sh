#!/usr/bin/env bash
# Run here (Debian 12, with network) before a GPU session: downloads the .deb files of kvbench's
# C++ dependencies into .gpu-deps/ (git-ignored), to carry to a device machine that has CUDA and
# PyTorch but no package registry. scripts/gpu-session.sh unpacks them there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu-deps
cd .gpu-deps
apt-get download libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 libyaml-cpp-dev libyaml-cpp0.7 \
  libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian libnuma-dev libnuma1 >/dev/null
du -sh . | sed 's/^/gpu-deps: /'
