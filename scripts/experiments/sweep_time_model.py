#!/usr/bin/env python3
"""What a `kvbench dma` sweep would take with smaller transfers or a shorter minimum time, computed
from a measured sweep's own per-case times (a model, not a measurement: a GPU lease checks it).

Per case, from the JSON: timed work (timed_seconds) and the rest (case_seconds - timed_seconds:
warm-ups, clearing, verification, bookkeeping). A transfer of `--pool`/4 bytes (at most 1000
blocks) instead of the measured one scales both by the byte ratio; timed work never falls below
--min-time; a case that met its precision only through its sample count keeps that count; a case
that ran to its cap stays as measured. The pools' set-up (pool_setup_seconds, in the first case)
scales with the pool size.

usage: sweep_time_model.py SWEEP_JSON [--pool-mib 512] [--min-time 0.03] [--measured-pool-mib 2048]
                           [--measured-min-time 0.05]
"""
import argparse
import json
import sys


def transfer_bytes(block, pool):
    """Bytes one transfer moves: 1000 blocks, or a quarter of the pool's (all of them in a pool of
    fewer than 4), as dma/dma_sweep.cpp's blocks_per_transfer picks without --blocks."""
    pool_blocks = pool // block
    blocks = min(1000, pool_blocks // 4 if pool_blocks >= 4 else pool_blocks)
    return blocks * block


def model(records, pool, measured_pool, min_time, measured_min_time):
    total = 0.0
    for r in records:
        b, timed = r["block_bytes"], r["timed_seconds"]
        pools = r.get("pool_setup_seconds", 0.0)  # the first case built the run's pools
        case = r["case_seconds"] - pools
        scale = transfer_bytes(b, pool) / transfer_bytes(b, measured_pool)
        per_sample = timed / max(1, len(r["samples"])) * scale
        if not r["converged"]:
            new_timed = timed  # ran to its cap: the cap stays
        elif timed > measured_min_time * 1.01:
            new_timed = max(min_time, timed * scale)  # its sample count set the time
        else:  # the minimum time set it; assumed: 10 samples still meet the precision
            new_timed = max(min_time, 10 * per_sample)
        total += new_timed + (case - timed) * scale + pools * pool / measured_pool
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweep")
    ap.add_argument("--pool-mib", type=int, default=512)
    ap.add_argument("--min-time", type=float, default=0.03)
    ap.add_argument("--measured-pool-mib", type=int, default=2048)
    ap.add_argument("--measured-min-time", type=float, default=0.05)
    a = ap.parse_args()
    try:
        with open(a.sweep) as f:
            records = json.load(f)["records"]
        measured = sum(r["case_seconds"] for r in records)
        predicted = model(records, a.pool_mib << 20, a.measured_pool_mib << 20, a.min_time, a.measured_min_time)
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as e:
        print(f"sweep_time_model: {a.sweep}: {e!r}: expected a kvbench/dma/v1 JSON of GPU cases", file=sys.stderr)
        sys.exit(2)
    print(f"{len(records)} cases: measured {measured:.1f} s (pools included); with {a.pool_mib} MiB pools and "
          f"--min-time {a.min_time}: {predicted:.1f} s predicted (pools included, process start not)")


if __name__ == "__main__":
    main()
