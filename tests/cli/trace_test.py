#!/usr/bin/env python3
"""kvbench trace against an independent count (issue 23 §2): on the vendored head of Mooncake's
conversation trace, the unbounded prefix hit rate and points of the miss-ratio curve must equal a
naive LRU cache simulated here in Python (an OrderedDict: every block of a request becomes most
recent in order; a block is served when it and all blocks before it in its request are cached).
With --secondary-tier-size (issue 55 item 2), points of the two-level curve must equal three LRU
tiers simulated here, no stack distances: GPU, CPU tier, secondary, each with its own OrderedDict;
a request's blocks are looked up GPU first, then the CPU tier, then the secondary, stopping at the
first block in none, each block counted in the deepest tier its prefix needed so far; then every
block of the request is most recent in every tier (computed on the GPU, written through, promoted).

usage: trace_test.py KVBENCH DATA_DIR
"""
import collections
import json
import subprocess
import sys

kvbench, data = sys.argv[1:3]
trace = f"{data}/traces/mooncake-conversation-head2000.jsonl"
doc = json.loads(subprocess.run([kvbench, "trace", trace, "--model", "llama-3.1-8b", "--json"], check=True,
                                capture_output=True, text=True).stdout)
requests = [json.loads(line) for line in open(trace)]


def hit_rate(capacity):
    lru, hit, total = collections.OrderedDict(), 0, 0
    for r in requests:
        prefix = True
        for j, h in enumerate(r["hash_ids"]):
            tokens = min(512, r["input_length"] - 512 * j)
            total += tokens
            cached = h in lru
            prefix = prefix and cached
            if prefix:
                hit += tokens
            if cached:
                lru.move_to_end(h, last=False)
            else:
                lru[h] = True
                lru.move_to_end(h, last=False)
                if capacity is not None and len(lru) > capacity:
                    lru.popitem(last=True)
    return hit / total


def tier_shares(gpu, cpu, secondary):
    tiers = [collections.OrderedDict() for _ in range(3)]
    capacities = [gpu, cpu, secondary]
    hit, total = [0, 0, 0], 0
    for r in requests:
        deepest = 0  # the tier the run has needed so far; None once a block is in none
        for j, h in enumerate(r["hash_ids"]):
            tokens = min(512, r["input_length"] - 512 * j)
            total += tokens
            if deepest is not None:
                found = next((i for i in range(3) if h in tiers[i]), None)
                deepest = None if found is None else max(deepest, found)
                if deepest is not None:
                    hit[deepest] += tokens
        for h in r["hash_ids"]:
            for lru, capacity in zip(tiers, capacities):
                lru[h] = True
                lru.move_to_end(h, last=False)
                if capacity is not None and len(lru) > capacity:
                    lru.popitem(last=True)
    return [x / total for x in hit]


failures, two_level_checked = [], 0
if abs(doc["unbounded_prefix_hit_rate"] - hit_rate(None)) > 1e-12:
    failures.append(f"unbounded: kvbench {doc['unbounded_prefix_hit_rate']} vs {hit_rate(None)}")
curve = doc["miss_ratio_curve"]
for p in curve[:: max(1, len(curve) // 8)]:
    want = hit_rate(p["blocks"])
    if abs(p["prefix_hit_rate"] - want) > 1e-12:
        failures.append(f"{p['blocks']} blocks: kvbench {p['prefix_hit_rate']} vs {want}")
gib = 512 * 131072 / 2**30  # llama-3.1-8b: 131,072 B per token (32 layers x 2 x 8 heads x 128 x 2 B)
if abs(curve[-1]["size_gib"] - curve[-1]["blocks"] * gib) > 1e-9:
    failures.append(f"size_gib {curve[-1]['size_gib']} for {curve[-1]['blocks']} blocks; expected {curve[-1]['blocks'] * gib}")
for size in ["100", "unbounded"]:
    two = json.loads(subprocess.run([kvbench, "trace", trace, "--model", "llama-3.1-8b", "--secondary-tier-size", size,
                                     "--json"], check=True, capture_output=True, text=True).stdout)["two_level_curve"]
    points = two["points"]
    for p in points[:: max(1, len(points) // 4)]:
        got = [p["gpu_hit_rate"], p["cpu_tier_hit_rate"], p["secondary_tier_hit_rate"]]
        want = tier_shares(two["gpu_pool_blocks"], p["cpu_tier_blocks"], two["secondary_tier_blocks"])
        two_level_checked += 1
        if any(abs(a - b) > 1e-12 for a, b in zip(got, want)):
            failures.append(f"two levels, secondary {size}, CPU tier {p['cpu_tier_blocks']}: kvbench {got} vs {want}")
for f in failures:
    print("FAIL:", f)
print(f"trace: unbounded prefix hit rate {doc['unbounded_prefix_hit_rate']:.4f}, {len(curve)} curve points, "
      f"{two_level_checked} two-level points, {len(failures)} failures")
sys.exit(1 if failures else 0)
