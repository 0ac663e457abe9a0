#!/usr/bin/env python3
"""scripts/nvbandwidth_ratio.py on hand-made inputs: each share is checked against the division done
by hand, the bidirectional reference is the sum of nvbandwidth's two directions, and records that
are not the default sweep's kind (a CTA budget, a compute load, small blocks) are left out."""
import json
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]


def rec(method, d, b, gbps, **extra):
    r = {"method": method, "direction": d, "block_bytes": b, "median_gbps": gbps, "ctas": 0,
         "layout": "contiguous", "host_mem": "pinned", "with_compute": False}
    r.update(extra)
    return r


def case(name, status, value):
    return {"name": name, "status": status, "sum": value, "bandwidth_matrix": [[str(value)]]}


records = [rec("ce", "h2d", 2 << 20, 50.0), rec("ce-batch", "h2d", 2 << 20, 54.0), rec("kernel", "h2d", 2 << 20, 51.0),
           rec("kernel", "h2d", 2 << 20, 60.0, ctas=8),        # a CTA budget: not the default kind
           rec("ce", "h2d", 2 << 20, 70.0, with_compute=True),  # beside a compute load: left out
           rec("ce", "h2d", 4096, 2.0),                         # below --min-block
           rec("ce-batch", "bidir", 2 << 20, 99.0)]
nvb = {"nvbandwidth": {"testcases": [
    case("host_to_device_memcpy_ce", "Passed", 55.0), case("host_to_device_memcpy_sm", "Passed", 51.5),
    case("host_to_device_bidirectional_memcpy_ce", "Passed", 51.0),
    case("device_to_host_bidirectional_memcpy_ce", "Passed", 50.0),
    case("device_to_host_memcpy_ce", "Waived", 0.0)]}}
with tempfile.TemporaryDirectory() as tmp:
    kv, nv, out = (os.path.join(tmp, n) for n in ("kv.json", "nv.json", "out.json"))
    json.dump({"records": records}, open(kv, "w"))
    json.dump(nvb, open(nv, "w"))
    subprocess.run([sys.executable, script, kv, nv, "--json", out], check=True, capture_output=True)
    doc = json.load(open(out))
    rows = {(r["direction"], r["block_bytes"]): r for r in doc["rows"]}
    assert set(rows) == {("h2d", 2 << 20), ("bidir", 2 << 20)}, rows
    h2d = rows[("h2d", 2 << 20)]
    assert h2d["ce_method"] == "ce-batch" and abs(h2d["ce_share"] - 54.0 / 55.0) < 1e-12, h2d
    assert abs(h2d["kernel_share"] - 51.0 / 51.5) < 1e-12, h2d
    bidir = rows[("bidir", 2 << 20)]
    assert abs(bidir["nvbandwidth_ce_gbps"] - 101.0) < 1e-12 and abs(bidir["ce_share"] - 99.0 / 101.0) < 1e-12
    assert "ce_d2h" not in doc["nvbandwidth"], "a waived testcase is no reference"
    bad = subprocess.run([sys.executable, script, kv, os.path.join(tmp, "missing.json")], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "expected kvbench/dma/v1 JSON" in bad.stderr, bad.stderr
print("nvbandwidth_ratio: ok")
