#!/usr/bin/env bash
# Runs kvbench and checks its exit code and output.
# usage: expect.sh KVBENCH CODE PATTERN [--stdout-json] -- ARGS...
#   CODE     the exit code wanted
#   PATTERN  an extended regex that stdout+stderr must match ("" = anything)
# Errors (exit 2 or 3) must be one line on stderr, start with "kvbench: ", and print no stack trace.
set -u
bin=$1; want=$2; pattern=$3; shift 3
json=0
if [ "${1:-}" = "--stdout-json" ]; then json=1; shift; fi
[ "${1:-}" = "--" ] && shift
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# A minute, or KVBENCH_EXPECT_TIMEOUT seconds for a case that is long under the sanitizers.
timeout "${KVBENCH_EXPECT_TIMEOUT:-60}" "$bin" "$@" >"$out" 2>"$err"
code=$?
fail() { echo "FAIL: kvbench $*"; echo "--- stdout"; head -40 "$out"; echo "--- stderr"; cat "$err"; exit 1; }
[ "$code" -eq "$want" ] || fail "$@ exited $code, expected $want"
if [ -n "$pattern" ] && ! cat "$out" "$err" | grep -Eq -- "$pattern"; then
  fail "$@ output does not match /$pattern/"
fi
if [ "$want" -ge 2 ]; then
  [ "$(grep -c . "$err")" -eq 1 ] || fail "$@: error is not exactly one line on stderr"
  grep -q '^kvbench: ' "$err" || fail "$@: error does not start with 'kvbench: '"
fi
if [ "$json" -eq 1 ]; then
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" || fail "$@: stdout is not JSON"
fi
exit 0
