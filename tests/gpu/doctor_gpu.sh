#!/usr/bin/env bash
# doctor on a GPU (label gpu): the link is measured on every device, and pinning is timed both
# ways through the GPU runtime (vLLM's /dev/shm mapping + cudaHostRegister, and cudaHostAlloc).
# Whether the node passes (a container's small /dev/shm fails the tier) is not what this checks.
# usage: doctor_gpu.sh KVBENCH BACKEND
set -uo pipefail
out=$("$1" doctor --backend "$2" --device all --tier-size 1 --format json)
code=$?
if [ "$code" -gt 1 ]; then echo "doctor exited $code"; exit 1; fi
python3 - "$out" <<'PY'
import json, sys
doc = json.loads(sys.argv[1])
checks = {c["name"]: c for c in doc["checks"]}
links = [c for n, c in checks.items() if n.startswith("link measured h2d GPU")]
assert links and all(c["status"] != "skip" and c["value"] > 0 for c in links), links
pin = checks["pinning"]
assert "HostRegister" in pin["detail"] and ("HostAlloc" in pin["detail"] or "HostMalloc" in pin["detail"]), pin
print("ok:", [c["detail"] for c in links], pin["detail"])
PY
