#!/usr/bin/env bash
# kvbench storage beside fio on the same directory, same access: one preallocated file, chunk-sized
# requests, O_DIRECT, io_uring, one thread with QD requests in flight, the writes flushed at the
# end (fio --end_fsync=1, as kvbench's write pass includes its fdatasync). Prints both write and
# read throughputs (GB/s, 10^9 B/s) and, with OUT, writes them as JSON. A benchmark, not a test:
# the two tools should agree within run-to-run noise; a large gap is worth a look.
#
# usage: scripts/storage-vs-fio.sh DIR [SIZE=256MiB] [CHUNK=2MiB] [QD=8] [OUT.json]
#   KVBENCH=path/to/kvbench (default build/src/kvbench). Needs fio (scripts/setup.sh --tests).
set -euo pipefail
dir=${1:?usage: scripts/storage-vs-fio.sh DIR [SIZE] [CHUNK] [QD] [OUT.json]}
size=${2:-256MiB}
chunk=${3:-2MiB}
qd=${4:-8}
out=${5:-}
kvbench=${KVBENCH:-$(dirname "$0")/../build/src/kvbench}
command -v fio >/dev/null || { echo "storage-vs-fio: fio is not installed (scripts/setup.sh --tests)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; rm -f "$dir/kvbench-fio.bin"' EXIT

"$kvbench" storage --dir "$dir" --size "$size" --chunk "$chunk" --layout per-rank-file --mode direct \
  --engine io_uring --threads 1 --queue-depth "$qd" --repeat 3 --json >"$work/kvbench.json"
# fio's sizes: k/m/g are binary (1024-based) by default, as kvbench's KiB/MiB are.
fio_size=$(echo "$size" | sed -e 's/iB$//' -e 's/B$//')
fio_chunk=$(echo "$chunk" | sed -e 's/iB$//' -e 's/B$//')
for rw in write read; do
  fio --name=kv --filename="$dir/kvbench-fio.bin" --size="$fio_size" --bs="$fio_chunk" --rw="$rw" \
    --ioengine=io_uring --direct=1 --iodepth="$qd" --numjobs=1 --end_fsync=1 --fallocate=posix \
    --output-format=json >"$work/fio-$rw.json"
done

python3 - "$work" "$out" <<'PY'
import json, sys
work, out = sys.argv[1], sys.argv[2]
k = json.load(open(f"{work}/kvbench.json"))
rec = next(r for r in k["records"] if not r["waived"])
result = {"dir": k["dir"], "fs_type": k["fs_type"], "chunk_bytes": rec["chunk_bytes"],
          "bytes": rec["bytes_per_pass"], "queue_depth": rec["queue_depth"],
          "kvbench": {"write_gbps": rec["write"]["median_gbps"], "read_gbps": rec["read"]["median_gbps"],
                      "verified": rec["verified"]}, "fio": {}}
for rw in ("write", "read"):
    job = json.load(open(f"{work}/fio-{rw}.json"))["jobs"][0][rw]
    result["fio"][f"{rw}_gbps"] = job["bw_bytes"] / 1e9
print(f"{k['dir']} ({k['fs_type']}), {rec['chunk_bytes']} B chunks, O_DIRECT, io_uring QD {rec['queue_depth']}:")
for rw in ("write", "read"):
    a, b = result["kvbench"][f"{rw}_gbps"], result["fio"][f"{rw}_gbps"]
    print(f"  {rw:5}  kvbench storage {a:6.2f} GB/s   fio {b:6.2f} GB/s   ratio {a / b:5.2f}")
if out:
    json.dump(result, open(out, "w"), indent=2)
PY
