#!/usr/bin/env python3
"""PyTorch pinned-memory copies of scattered KV blocks: a peer for `kvbench dma` on a GPU node.

Moves the same pattern kvbench does (N blocks of B bytes picked by a seeded random block map from
a GPU pool and a pinned host pool, one copy per block, as vLLM's swap_blocks) with torch's
`copy_(non_blocking=True)`, timed with CUDA events, and writes kvbench/dma/v1 JSON with backend
"torch", so `kvbench report` draws it beside kvbench's own figures.

usage: torch_dma_peer.py --block 4KiB,64KiB,2MiB [--blocks 1000] [--pool 8GiB] [--min-time 0.5]
                         [--max-time 5] -o torch.json
"""
import argparse
import json
import re
import statistics
import sys
import time

UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}


def parse_bytes(text):
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in UNITS:
        sys.exit(f"torch_dma_peer: size '{text}': expected e.g. 4KiB, 2MiB, 8GiB")
    return int(m.group(1)) * UNITS[m.group(2).upper()]


def percentile(values, q):
    s = sorted(values)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--block", default="4KiB,16KiB,64KiB,256KiB,2MiB,16MiB")
    ap.add_argument("--blocks", type=int, default=1000)
    ap.add_argument("--pool", default="8GiB")
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--max-time", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    import torch  # the device image's python3 holds it

    if not torch.cuda.is_available():
        sys.exit("torch_dma_peer: no CUDA device visible to torch")
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(0)
    pool = parse_bytes(args.pool)
    records = []
    for block in [parse_bytes(b) for b in args.block.split(",")]:
        # The same counts as kvbench dma: 1000 blocks or what the pool holds; pools up to 4x that.
        blocks = max(1, min(args.blocks, pool // block))
        pool_blocks = min(pool // block, 4 * blocks)
        gen = torch.Generator().manual_seed(args.seed)
        gpu_ids = torch.randperm(pool_blocks, generator=gen)[:blocks].tolist()
        host_ids = torch.randperm(pool_blocks, generator=gen)[:blocks].tolist()
        gpu = torch.zeros((pool_blocks, block), dtype=torch.uint8, device=dev)
        host = torch.zeros((pool_blocks, block), dtype=torch.uint8, pin_memory=True)
        # Each host block starts with its own index, so a block copied to the wrong place shows.
        host.view(torch.int64)[:, 0] = torch.arange(pool_blocks, dtype=torch.int64) + 1
        for direction in ("h2d", "d2h"):
            def once():
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for g, h in zip(gpu_ids, host_ids):
                    if direction == "h2d":
                        gpu[g].copy_(host[h], non_blocking=True)
                    else:
                        host[h].copy_(gpu[g], non_blocking=True)
                stop.record()
                stop.synchronize()
                return start.elapsed_time(stop) / 1e3

            for _ in range(3):
                once()
            samples, t0 = [], time.monotonic()
            while (time.monotonic() - t0 < args.min_time or len(samples) < 10) and time.monotonic() - t0 < args.max_time:
                samples.append(once())
            # Verify: every moved block equals its source.
            torch.cuda.synchronize()
            if direction == "h2d":
                ok = all(torch.equal(gpu[g].cpu(), host[h]) for g, h in zip(gpu_ids[:64], host_ids[:64]))
            else:
                ok = all(torch.equal(host[h], gpu[g].cpu()) for g, h in zip(gpu_ids[:64], host_ids[:64]))
            nbytes = block * blocks
            med = statistics.median(samples)
            records.append({
                "id": f"ce/{direction}/contiguous/{block}B/x{blocks}/pinned", "backend": "torch", "device": name,
                "driver_version": "", "runtime_version": f"torch {torch.__version__} / CUDA {torch.version.cuda}",
                "timing": "torch.cuda.Event around one copy_(non_blocking=True) per block", "link": "",
                "link_ceiling_gbps": 0.0, "host_cpu": "", "numa_node": -1, "host_mem": "pinned", "method": "ce",
                "direction": direction, "layout": "contiguous", "layers": 1, "block_bytes": block, "blocks": blocks,
                "gpu_pool_blocks": pool_blocks, "host_pool_blocks": pool_blocks, "ctas": 0, "seed": args.seed,
                "with_compute": False, "waived": False, "bytes_per_transfer": float(nbytes), "samples": samples,
                "median_gbps": nbytes / med / 1e9, "p10_gbps": nbytes / percentile(samples, 0.9) / 1e9,
                "p90_gbps": nbytes / percentile(samples, 0.1) / 1e9, "verified": ok,
            })
            print(f"torch {direction} {block} B x {blocks}: {nbytes / med / 1e9:.2f} GB/s ({len(samples)} samples)")
        del gpu, host
        torch.cuda.empty_cache()
    doc = {"schema": "kvbench/dma/v1", "tool": "scripts/torch_dma_peer.py", "unit": "GB/s", "records": records}
    with open(args.output + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    import os
    os.replace(args.output + ".tmp", args.output)


if __name__ == "__main__":
    main()
