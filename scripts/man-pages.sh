#!/usr/bin/env bash
# Writes kvbench.1.gz and kvbench-<subcommand>.1.gz into OUT_DIR with help2man, from the binary's
# own --help (the build runs it: cmake/Package.cmake).   usage: scripts/man-pages.sh KVBENCH OUT_DIR
set -euo pipefail
bin=$(readlink -f "$1")
out=$2
mkdir -p "$out"
version=$("$bin" --version)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
page() {  # page NAME DESCRIPTION PROGRAM  (the page is titled by the name in its version string)
  help2man --no-info --no-discard-stderr --version-string="$1 ${version#kvbench }" --name="$2" \
    --output="$work/$1.1" "$3"
  gzip -9n -c "$work/$1.1" >"$out/$1.1.gz.tmp" && mv "$out/$1.1.gz.tmp" "$out/$1.1.gz"
}
# help2man runs a program: one wrapper per subcommand.
subcommands=$("$bin" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[ -n "$subcommands" ] || { echo "man-pages: no subcommands in '$bin --help'" >&2; exit 1; }
for sub in $subcommands; do
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin" "$sub" >"$work/kvbench-$sub"
  chmod +x "$work/kvbench-$sub"
  summary=$("$bin" --help | awk -v s="$sub" '$1 == s {$1 = ""; sub(/^ +/, ""); print; exit}')
  page "kvbench-$sub" "${summary:-kvbench $sub}" "$work/kvbench-$sub"
done
# The main page last: the build's output that says every page is written.
page kvbench "KV-cache offloading benchmark, simulator and sizing tool" "$bin"
