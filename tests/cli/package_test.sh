#!/usr/bin/env bash
# kvbench as a user installs it: CPack builds the .deb from this build folder, it is unpacked into a
# scratch root, and the installed binary answers from an unrelated folder (no repository files):
# --version names the release and commit, size and simulate run, the installed hardware file sizes
# the same server as the compiled-in one, and `man kvbench-size` shows its page.
# usage: package_test.sh BUILD_DIR
set -euo pipefail
build=$(readlink -f "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "package: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/pkg/kvbench_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack wrote no kvbench_*.deb"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libfmt libyaml-cpp libc6 libstdc++6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
dpkg-deb -x "$deb" "$work/root"
root=$work/root
bin=$root/usr/bin/kvbench
[ -x "$bin" ] || fail "no usr/bin/kvbench in the package"
cd "$work"

version=$("$bin" --version)
grep -Eq '^kvbench [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$' <<<"$version" ||
  fail "--version says '$version'"

sized=$("$bin" size --model llama-3.1-8b --hw h100 --ctx 32k)
blocks=$(grep -Eo 'num_gpu_blocks [0-9,]+' <<<"$sized" | head -1)
[ -n "$blocks" ] || fail "size printed no num_gpu_blocks: $sized"
hw=$root/usr/share/kvbench/scenarios/hardware/h100.yaml
[ -f "$hw" ] || fail "the hardware catalog is not installed ($hw)"
from_file=$("$bin" size --model llama-3.1-8b --hw "$hw" --ctx 32k | grep -Eo 'num_gpu_blocks [0-9,]+' | head -1)
[ "$from_file" = "$blocks" ] || fail "the installed h100.yaml sizes '$from_file', the compiled-in h100 '$blocks'"

"$bin" simulate ttft-reload --requests 20 | grep -q '^Simulated' || fail "simulate printed no 'Simulated' line"

[ -f "$root/usr/share/kvbench/grafana/kvbench.json" ] || fail "the Grafana dashboard is not installed"
page=$(MANPATH=$root/usr/share/man MANWIDTH=100 man -P cat kvbench-size 2>/dev/null) || fail "man kvbench-size found no page"
grep -q -- '--model' <<<"$page" || fail "man kvbench-size does not document --model"
MANPATH=$root/usr/share/man man -w kvbench >/dev/null 2>&1 || fail "man kvbench found no page"
echo "package: $(basename "$deb"): installed into a scratch root; --version, size, simulate and man pages work"
