#!/usr/bin/env python3
"""kvbench trace against an independent count (issue 23 §2): on the vendored head of Mooncake's
conversation trace, the unbounded prefix hit rate and points of the miss-ratio curve must equal a
naive LRU cache simulated here in Python (an OrderedDict: every block of a request becomes most
recent in order; a block is served when it and all blocks before it in its request are cached).

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


failures = []
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
for f in failures:
    print("FAIL:", f)
print(f"trace: unbounded prefix hit rate {doc['unbounded_prefix_hit_rate']:.4f}, {len(curve)} curve points, "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)
