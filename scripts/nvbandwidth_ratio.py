#!/usr/bin/env python3
"""kvbench dma's figures as a share of nvbandwidth's, both measured in the same GPU lease.

Reads a kvbench/dma/v1 JSON (`kvbench dma -o`) and nvbandwidth's JSON (`nvbandwidth -j`) and prints,
per direction and block size, the best copy-engine method (ce or ce-batch) over nvbandwidth's
copy-engine figure and the copy kernel over nvbandwidth's SM figure. nvbandwidth copies one large
buffer (512 MiB by default); kvbench copies many scattered blocks, so the share says what the block
size costs. Bidirectional: nvbandwidth reports each direction while the other runs; their sum is
compared with kvbench's bidir figure (both directions' bytes over the union of their spans).

usage: nvbandwidth_ratio.py KVBENCH_JSON NVBANDWIDTH_JSON [--min-block 16384] [--json OUT]
"""
import argparse
import json
import os
import sys

NVB = {
    ("ce", "h2d"): ["host_to_device_memcpy_ce"],
    ("ce", "d2h"): ["device_to_host_memcpy_ce"],
    ("ce", "bidir"): ["host_to_device_bidirectional_memcpy_ce", "device_to_host_bidirectional_memcpy_ce"],
    ("sm", "h2d"): ["host_to_device_memcpy_sm"],
    ("sm", "d2h"): ["device_to_host_memcpy_sm"],
    ("sm", "bidir"): ["host_to_device_bidirectional_memcpy_sm", "device_to_host_bidirectional_memcpy_sm"],
}


def nvbandwidth_figures(doc):
    passed = {t["name"]: float(t["sum"]) for t in doc["nvbandwidth"]["testcases"]
              if t.get("status") == "Passed" and "sum" in t}
    out = {}
    for key, names in NVB.items():
        if all(n in passed for n in names):
            out[key] = sum(passed[n] for n in names)
    return out


def plain(r):
    """A record of the default sweep's kind: contiguous, pinned, every SM, no compute load."""
    return (r.get("layout", "contiguous") == "contiguous" and r.get("host_mem", "pinned") == "pinned"
            and not r.get("with_compute", False) and int(r.get("ctas", 0)) == 0 and not r.get("waived"))


def ratios(records, nvb, min_block):
    rows = []
    for d in ("h2d", "d2h", "bidir"):
        blocks = sorted({r["block_bytes"] for r in records if r["direction"] == d and r["block_bytes"] >= min_block})
        for b in blocks:
            here = {r["method"]: r for r in records if plain(r) and r["direction"] == d and r["block_bytes"] == b}
            ce = max((here[m] for m in ("ce", "ce-batch") if m in here), key=lambda r: r["median_gbps"],
                     default=None)
            row = {"direction": d, "block_bytes": b}
            if ce and ("ce", d) in nvb:
                row.update(ce_method=ce["method"], ce_gbps=ce["median_gbps"], nvbandwidth_ce_gbps=nvb[("ce", d)],
                           ce_share=ce["median_gbps"] / nvb[("ce", d)])
            if "kernel" in here and ("sm", d) in nvb:
                row.update(kernel_gbps=here["kernel"]["median_gbps"], nvbandwidth_sm_gbps=nvb[("sm", d)],
                           kernel_share=here["kernel"]["median_gbps"] / nvb[("sm", d)])
            rows.append(row)
    return rows


def size_text(b):
    return f"{b // 2**20} MiB" if b >= 2**20 else f"{b // 2**10} KiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kvbench")
    ap.add_argument("nvbandwidth")
    ap.add_argument("--min-block", type=int, default=16384)
    ap.add_argument("--json")
    a = ap.parse_args()
    try:
        with open(a.kvbench) as f:
            records = json.load(f)["records"]
        with open(a.nvbandwidth) as f:
            nvb = nvbandwidth_figures(json.load(f))
        rows = ratios(records, nvb, a.min_block)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"nvbandwidth_ratio: {e!r}: expected kvbench/dma/v1 JSON and nvbandwidth -j JSON", file=sys.stderr)
        sys.exit(2)
    print("dir    block     best ce   GB/s  / nvbandwidth CE  share   kernel GB/s  / nvbandwidth SM  share")
    for r in rows:
        ce = (f"{r['ce_method']:8} {r['ce_gbps']:6.1f}  {r['nvbandwidth_ce_gbps']:16.1f}  {r['ce_share']:5.1%}"
              if "ce_share" in r else f"{'-':>49}")
        k = (f"   {r['kernel_gbps']:11.1f}  {r['nvbandwidth_sm_gbps']:15.1f}  {r['kernel_share']:5.1%}"
             if "kernel_share" in r else "")
        print(f"{r['direction']:6} {size_text(r['block_bytes']):>8}  {ce}{k}")
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump({"schema": "kvbench/nvbandwidth-ratio/v1", "min_block_bytes": a.min_block,
                       "nvbandwidth": {f"{k[0]}_{k[1]}": v for k, v in nvb.items()}, "rows": rows}, f, indent=1)
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()
