#!/usr/bin/env python3
"""What a `kvbench dma` sweep would take with smaller transfers or a shorter minimum time, computed
from a measured sweep's own per-case times (a model, not a measurement: a GPU lease checks it).

Per case, from the JSON: timed work (timed_seconds) and the rest (case_seconds - timed_seconds:
warm-ups, clearing, verification, bookkeeping). A transfer of `--pool`/4 bytes (at most 1000
blocks) instead of the measured one scales both by the byte ratio; timed work never falls below
--min-time; a case that met its precision only through its sample count keeps that count; a case
that ran to its cap stays as measured. The first case also built the pools (its set-up is
replaced by the measured pool time scaled by the pool ratio).

usage: sweep_time_model.py SWEEP_JSON [--pool-mib 512] [--min-time 0.03] [--measured-pool-mib 2048]
                           [--measured-min-time 0.05] [--pools-seconds 2.0]
"""
import argparse
import json


def transfer_bytes(block, pool):
    return min(1000 * block, max(block, (pool // block // 4) * block)) if pool // block >= 4 else block * (pool // block)


def model(records, pool, measured_pool, min_time, measured_min_time, pools_seconds):
    total = 0.0
    for i, r in enumerate(records):
        b, timed, case = r["block_bytes"], r["timed_seconds"], r["case_seconds"]
        scale = transfer_bytes(b, pool) / transfer_bytes(b, measured_pool)
        if i == 0:
            case = timed + 0.01  # its pools are counted apart below
        per_sample = timed / max(1, len(r["samples"])) * scale
        if not r["converged"]:
            new_timed = timed  # ran to its cap: the cap stays
        elif timed > measured_min_time * 1.01:
            new_timed = max(min_time, timed * scale)  # its sample count set the time
        else:  # the minimum time set it; assumed: 10 samples still meet the precision
            new_timed = max(min_time, 10 * per_sample)
        total += new_timed + (case - timed) * scale
    return total + pools_seconds * pool / measured_pool


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweep")
    ap.add_argument("--pool-mib", type=int, default=512)
    ap.add_argument("--min-time", type=float, default=0.03)
    ap.add_argument("--measured-pool-mib", type=int, default=2048)
    ap.add_argument("--measured-min-time", type=float, default=0.05)
    ap.add_argument("--pools-seconds", type=float, default=2.0)
    a = ap.parse_args()
    records = json.load(open(a.sweep))["records"]
    measured = sum(r["case_seconds"] for r in records)
    predicted = model(records, a.pool_mib << 20, a.measured_pool_mib << 20, a.min_time, a.measured_min_time,
                      a.pools_seconds)
    print(f"{len(records)} cases: measured {measured:.1f} s (pools included); with {a.pool_mib} MiB pools and "
          f"--min-time {a.min_time}: {predicted:.1f} s predicted (pools included, process start not)")


if __name__ == "__main__":
    main()
