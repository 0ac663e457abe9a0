#!/usr/bin/env bash
# Outputs that cannot destroy (issue 26 §5): an output that is one of the command's inputs is
# refused (exit 2) and the input is left byte for byte; a symlink planted where a temporary could
# be is never followed; an existing output keeps its mode.
# usage: output_safety_test.sh KVBENCH DATA_DIR
set -u
bin=$1; data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# refused KVBENCH_ARGS...: exit 2, "is one of this command's input files", input unchanged.
refused() {
  local input=$1; shift
  local before; before=$(sha256sum "$input")
  "$bin" "$@" >"$work/out" 2>"$work/err"
  local code=$?
  [ "$code" -eq 2 ] || fail "kvbench $* exited $code, expected 2: $(cat "$work/err")"
  grep -q "is one of this command's input files" "$work/err" || fail "kvbench $*: $(cat "$work/err")"
  [ "$(sha256sum "$input")" = "$before" ] || fail "kvbench $* changed its input $input"
}

cp "$data/host-dma-profile.json" "$work/b.json"
cp "$data/host-dma-slow.json" "$work/h.json"
refused "$work/b.json" compare "$work/b.json" "$work/h.json" -o "$work/b.json"
refused "$work/h.json" compare "$work/b.json" "$work/h.json" --markdown-output "$work/h.json"
# The same file by another spelling and through a link is still the input.
ln -s b.json "$work/b-link.json"
refused "$work/b.json" compare "$work/b.json" "$work/h.json" -o "$work/b-link.json"
refused "$work/b.json" compare "$work/b.json" "$work/h.json" -o "$work/./b.json"
refused "$work/b.json" report "$work/b.json" -o "$work/b.json"
cp "$data/scenario-small.yaml" "$work/w.yaml"
refused "$work/w.yaml" size --model llama-8b --workload "$work/w.yaml" --requests 20 -o "$work/w.yaml"
refused "$work/w.yaml" simulate "$work/w.yaml" --no-sweep -o "$work/w.yaml"
cat >"$work/cal.yaml" <<'EOF'
compute-efficiency: 0.5
EOF
refused "$work/cal.yaml" size --model llama-8b --calibration "$work/cal.yaml" -o "$work/cal.yaml"

# Temporaries are created O_EXCL: links planted at every name of the old pattern
# (OUT.tmp.<pid> for the pids kvbench may get next) are never followed into their target.
echo precious >"$work/victim"
for pid in $(seq $(( $$ + 1 )) $(( $$ + 400 ))); do ln -s victim "$work/out.json.tmp.$pid"; done
"$bin" size --model llama-8b --json -o "$work/out.json" >/dev/null 2>"$work/err" || fail "size -o exited $?: $(cat "$work/err")"
[ "$(cat "$work/victim")" = precious ] || fail "a planted symlink's target was overwritten"
[ -f "$work/out.json" ] && [ ! -L "$work/out.json" ] || fail "out.json is not a regular file"
grep -q '"schema": "kvbench/size/v1"' "$work/out.json" || fail "out.json does not hold the result"

# An existing file keeps its mode (a 0600 result stays private).
echo old >"$work/private.json"
chmod 600 "$work/private.json"
"$bin" size --model llama-8b --json -o "$work/private.json" >/dev/null || fail "size -o private exited $?"
[ "$(stat -c %a "$work/private.json")" = 600 ] || fail "mode became $(stat -c %a "$work/private.json"), expected 600"
# A new file gets 0666 less the umask, as the shell's > would.
(umask 027; "$bin" size --model llama-8b --json -o "$work/new.json" >/dev/null) || fail "size -o new exited $?"
[ "$(stat -c %a "$work/new.json")" = 640 ] || fail "a new file has mode $(stat -c %a "$work/new.json"), expected 640"
# Nothing left behind.
ls "$work" | grep -q '\.tmp\.[A-Za-z0-9]\{6\}$' && fail "a temporary file was left: $(ls "$work" | grep tmp | head -3)"
echo "output safety: all cases held"
