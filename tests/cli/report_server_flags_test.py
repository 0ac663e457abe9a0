#!/usr/bin/env python3
"""report's default assessment takes the server flags that size a GPU pool (cli/server_flags,
FieldScope::kPoolOnly) and applies them to its sizing and its simulation alike: with
--kv-cache-dtype fp8 and --ctx 32K, every sizing is of an FP8 KV cache at 32,768 tokens, and
Llama-3.1-8B's KV bytes per token are 32 layers x 8 KV heads x 128 x 2 (K, V) x 1 B = 65,536, half
of bf16's; the simulation ran the simulated sizing's pool (its GPU blocks) at the same length.

Checked from the files the run writes (--save-json).

usage: report_server_flags_test.py KVBENCH
"""
import json
import os
import subprocess
import sys
import tempfile

kvbench = sys.argv[1]
failures = []
with tempfile.TemporaryDirectory() as out:
    done = subprocess.run([kvbench, "report", "--backend", "host", "--block", "64KiB", "--max-time", "0.2",
                           "--models", "llama-8b,qwen3-32b", "--scenario", "ttft-reload", "--ctx", "32K",
                           "--kv-cache-dtype", "fp8", "--save-json", out, "-o", os.path.join(out, "r.html")],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"FAIL: kvbench report exited {done.returncode}: {done.stderr.strip()[-500:]}")
    size = json.load(open(os.path.join(out, "size.json")))
    sim = json.load(open(os.path.join(out, "simulate.json")))

results = size["results"]
if len(results) != 2:
    failures.append(f"expected 2 sizings (llama-8b, qwen3-32b), got {len(results)}")
for r in results:
    if r["kv_cache_dtype"] != "fp8":
        failures.append(f"{r['model']}: kv_cache_dtype {r['kv_cache_dtype']}, expected fp8 (--kv-cache-dtype)")
    if r["max_model_len"] != 32768:
        failures.append(f"{r['model']}: max_model_len {r['max_model_len']}, expected 32768 (--ctx 32K)")
llama = [r for r in results if r["model"] == "llama-3.1-8b"]
if not llama or llama[0]["kv_bytes_per_token"] != 65536:
    failures.append(f"llama-3.1-8b: KV bytes per token {llama[0]['kv_bytes_per_token'] if llama else None}, "
                    "expected 65,536 (32 x 8 x 128 x 2 x 1 B)")
simulated = results[0]
blocks = {p["gpu_blocks"] for p in sim["points"]}
lengths = {p["max_model_len"] for p in sim["points"]}
if blocks != {simulated["num_gpu_blocks"]}:
    failures.append(f"the simulation ran {sorted(blocks)} GPU blocks; the FP8 sizing describes "
                    f"{simulated['num_gpu_blocks']}")
if lengths != {32768}:
    failures.append(f"the simulation ran max-model-len {sorted(lengths)}; expected 32,768")

for f in failures:
    print("FAIL:", f)
print(f"report's server flags: {len(failures)} failures")
sys.exit(1 if failures else 0)
