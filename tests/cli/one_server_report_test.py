#!/usr/bin/env python3
"""The default assessment's report describes one server (issue 34 §1): the scenario it simulates
carries a deliberately small kv-cache-memory (1.5 GiB) and sweeps an 8 GiB tier, and its simulation, its simulated tier
recommendation and the page's headline must all be of the server the sizing describes (vLLM's
memory defaults on the GPU, --max-model-len), never the scenario file's. Before the fix the page
showed a 1.5 GiB pool in the simulation and the GPU's whole pool in the recommendation.

Checked from the files the run writes (--save-json) and the page: the simulation's GPU blocks and
context length equal the simulated sizing's; the sizing table has one row per model (the simulated
model is not sized a second time by the rule); the headline names that pool.

usage: one_server_report_test.py KVBENCH DATA_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

kvbench, data = sys.argv[1:3]
failures = []
with tempfile.TemporaryDirectory() as out:
    page = os.path.join(out, "report.html")
    done = subprocess.run([kvbench, "report", "--backend", "host", "--block", "64KiB", "--max-time", "0.2",
                           "--models", "llama-8b,qwen3-32b", "--scenario",
                           os.path.join(data, "scenario-small-pool-sweep.yaml"), "--max-model-len", "32K",
                           "--save-json", out, "-o", page], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"FAIL: kvbench report exited {done.returncode}: {done.stderr.strip()[-500:]}")
    sim = json.load(open(os.path.join(out, "simulate.json")))
    size = json.load(open(os.path.join(out, "size.json")))
    html = open(page, encoding="utf-8").read()

    simulated = size["results"][0]
    if simulated.get("recommendation", {}).get("basis") != "simulation":
        failures.append("the first sizing is not the simulated one")
    blocks = {p["gpu_blocks"] for p in sim["points"]}
    lengths = {p["max_model_len"] for p in sim["points"]}
    if blocks != {simulated["num_gpu_blocks"]}:
        failures.append(f"the simulation ran {sorted(blocks)} GPU blocks; the sizing describes "
                        f"{simulated['num_gpu_blocks']}")
    if lengths != {32768}:
        failures.append(f"the simulation ran max-model-len {sorted(lengths)}; the sizing describes 32,768")
    # 1.5 GiB of Llama-3.1-8B's 128 KiB per token is 768 blocks of 16: the scenario file's pool.
    if 768 in blocks:
        failures.append("the simulation kept the scenario file's 1.5 GiB kv-cache-memory")
    models = [r["model"] for r in size["results"]]
    if len(models) != len(set(models)):
        failures.append(f"a model is sized twice on one page: {models}")
    shown = re.findall(r"([\d,]+) GPU KV blocks, max-model-len ([\d,]+)", html)
    if not shown or any(int(b.replace(",", "")) != simulated["num_gpu_blocks"] for b, _ in shown):
        failures.append(f"the headline's server {shown} is not the sizing's ({simulated['num_gpu_blocks']} blocks)")

for f in failures:
    print("FAIL:", f)
print(f"one server per report: {len(failures)} failures")
sys.exit(1 if failures else 0)
