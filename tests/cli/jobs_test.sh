#!/usr/bin/env bash
# --jobs (issue 57): independent simulations run at once, and the output does not depend on how
# many: size --workload (tier sizes x draws), size --trace (the trace's candidate sizes) and simulate
# (sweep points and their baselines) write byte-identical JSON at 1, 2 and the default job count.
# A count outside 0..1024 is refused naming the flag.   usage: jobs_test.sh KVBENCH DATA_DIR
set -euo pipefail
bin=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: jobs: $*" >&2; exit 1; }

same_at_every_count() {  # NAME ARGS...: the JSON at --jobs 1, 2 and the default is the same
  local name=$1
  shift
  "$bin" "$@" --jobs 1 --json -o "$work/$name-1.json" >/dev/null
  "$bin" "$@" --jobs 2 --json -o "$work/$name-2.json" >/dev/null
  "$bin" "$@" --json -o "$work/$name-default.json" >/dev/null
  cmp -s "$work/$name-1.json" "$work/$name-2.json" || fail "$name: --jobs 1 and --jobs 2 differ"
  cmp -s "$work/$name-1.json" "$work/$name-default.json" || fail "$name: --jobs 1 and the default differ"
  echo "jobs: $name: the same JSON at 1, 2 and the default job count"
}

same_at_every_count size-workload size --model llama-3.1-8b --hw h100 --ctx 32k --workload doc-qa --requests 300
same_at_every_count size-trace size --model llama-3.1-8b --hw h100 \
  --trace "$data/traces/mooncake-conversation-head2000.jsonl" --trace-sample 0.2 --trace-limit 300
same_at_every_count simulate simulate chat-multi-turn --requests 300 --sweep kv-offloading-size=0,8,16

for bad in -1 1025 two 1.5; do
  code=0
  err=$("$bin" simulate chat-multi-turn --requests 10 --jobs "$bad" 2>&1 >/dev/null) || code=$?
  [ "$code" -eq 2 ] || fail "--jobs $bad exited $code, expected 2"
  grep -q -- "--jobs" <<<"$err" || fail "--jobs $bad: the error does not name --jobs: $err"
done
echo "jobs: counts outside 0..1024 refused"
