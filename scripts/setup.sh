#!/usr/bin/env bash
# Installs what kvbench's build needs from Debian 12's packages; with --tests also what the tests
# need (chromium renders the HTML report headless; clang builds the libFuzzer targets). As root it runs apt-get; otherwise it prints
# the one command to run and exits 2. Safe to run repeatedly.
set -euo pipefail

packages=(
  build-essential cmake python3
  libcli11-dev libfmt-dev nlohmann-json3-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev libnuma-dev libcurl4-openssl-dev
  liburing-dev  # kvbench storage's io_uring engine (optional: found with pkg-config)
)
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium clang libclang-rt-14-dev clang-format-14)  # clang + libFuzzer: fuzz.sh; check-format.sh
  packages+=(help2man man-db ccache)  # man pages in the .deb and `man` on them; the compiler cache
  packages+=(fio)  # scripts/storage-vs-fio.sh: kvbench storage beside fio on one directory
fi
# Debian's HIP toolchain (clang-15, LLVM-15, ROCm libraries) compiles the HIP backend: installed for
# the tests (which compile it) and on AMD GPU machines (/dev/kfd), not for every user.
if [ "${1:-}" = "--tests" ] || [ -e /dev/kfd ]; then
  packages+=(hipcc libamdhip64-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
else
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages; run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 2
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# CUDA is not a Debian package here: the CUDA toolkit's nvcc is used where it is installed.
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null 2>&1; then
  echo "setup: nvcc found; scripts/test.sh builds the CUDA backend (scripts/run.sh where an NVIDIA driver is loaded)"
else
  echo "setup: nvcc not found; the CUDA backend is skipped (install the CUDA toolkit to build it)"
fi
