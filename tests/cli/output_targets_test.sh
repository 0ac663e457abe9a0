#!/usr/bin/env bash
# Where -o and standard output point decides how kvbench writes (issue 13, section 1): a symlink's
# target is replaced and the link kept; a character device or FIFO is written in place and stays
# what it was; a directory is refused (exit 2); a failed write to a device or to standard output is
# an error (exit 2 for -o, exit 1 for stdout), never a silent success.
# usage: output_targets_test.sh KVBENCH
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
size=(size --model llama-8b --hw h100 --ctx 8K)

# A symlink: the target file gets the result, the link stays a link.
echo old >"$work/target.json"
ln -s target.json "$work/link.json"
"$bin" "${size[@]}" --json -o "$work/link.json" >/dev/null || fail "-o symlink exited $?"
[ -L "$work/link.json" ] || fail "the symlink was replaced by a file"
grep -q '"schema": "kvbench/size/v1"' "$work/target.json" || fail "the symlink's target did not get the result"

# A dangling symlink: the file it names is created.
ln -s created.json "$work/dangling.json"
"$bin" "${size[@]}" --json -o "$work/dangling.json" >/dev/null || fail "-o dangling symlink exited $?"
[ -L "$work/dangling.json" ] && [ -f "$work/created.json" ] || fail "a dangling symlink's target was not created"

# A FIFO: written in place for the reader on the other end, and still a FIFO afterwards.
mkfifo "$work/fifo"
cat "$work/fifo" >"$work/from-fifo" &
reader=$!
"$bin" "${size[@]}" --json -o "$work/fifo" >/dev/null || fail "-o FIFO exited $?"
wait "$reader"
[ -p "$work/fifo" ] || fail "the FIFO was replaced"
grep -q '"schema": "kvbench/size/v1"' "$work/from-fifo" || fail "the FIFO's reader got no result"

# A null and a full device of the test's own (mknod, as root), so a regression that renames over
# a device node breaks a file in the temporary folder, not the machine's /dev/null.
if [ "$(id -u)" -eq 0 ] && mknod "$work/null" c 1 3 2>/dev/null && mknod "$work/full" c 1 7 2>/dev/null; then
  "$bin" "${size[@]}" --json -o "$work/null" >/dev/null || fail "-o a null device exited $?"
  [ -c "$work/null" ] || fail "the null device was replaced by a file"
  "$bin" "${size[@]}" --json -o "$work/full" >/dev/null 2>"$work/err"; code=$?
  [ "$code" -eq 2 ] || fail "-o a full device exited $code, expected 2"
  grep -q "output '$work/full': write failed" "$work/err" || fail "-o a full device: $(cat "$work/err")"
  [ -c "$work/full" ] || fail "the full device was replaced by a file"
else
  echo "note: not root or no mknod: device targets not checked"
fi
if [ -w /dev/full ]; then
  # Standard output on a full device: exit 1 with a message, for each subcommand that prints.
  for args in "size --model llama-8b --json" "simulate ttft-reload --no-sweep --json" \
              "compare $(dirname "$0")/../data/host-dma-profile.json $(dirname "$0")/../data/host-dma-profile.json"; do
    # shellcheck disable=SC2086
    "$bin" $args >/dev/full 2>"$work/err"; code=$?
    [ "$code" -eq 1 ] || fail "kvbench $args >/dev/full exited $code, expected 1"
    grep -q "writing standard output failed" "$work/err" || fail "kvbench $args >/dev/full: $(cat "$work/err")"
  done
fi

# A directory is refused before anything runs.
mkdir "$work/dir"
"$bin" "${size[@]}" --json -o "$work/dir" >/dev/null 2>"$work/err"; code=$?
[ "$code" -eq 2 ] || fail "-o directory exited $code, expected 2"
grep -q "is a directory" "$work/err" || fail "-o directory: $(cat "$work/err")"
[ -d "$work/dir" ] || fail "the directory was touched"
echo "ok: symlink, dangling symlink, FIFO, devices, stdout on a full device, directory"
