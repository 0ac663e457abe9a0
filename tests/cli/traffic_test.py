#!/usr/bin/env python3
"""Traffic in (issue 23 §1, §3, §4): simulate --trace and size --trace against counts made here from
the trace itself, and size --workload simulating exactly the server its flags describe.

usage: traffic_test.py KVBENCH DATA_DIR
"""
import json
import subprocess
import sys

kvbench, data = sys.argv[1:3]
trace = f"{data}/traces/mooncake-conversation-head2000.jsonl"
failures = []


def run(*args, code=0):
    done = subprocess.run([kvbench, *args], capture_output=True, text=True, timeout=240)
    if done.returncode != code:
        sys.exit(f"FAIL: kvbench {' '.join(args)} exited {done.returncode}, expected {code}: {done.stderr}")
    return done


def check(ok, what):
    if not ok:
        failures.append(what)


requests = [json.loads(line) for line in open(trace)]
max_model_len = 131072  # llama-3.1-8b's own length, what the scenario's server leaves it at below
accepted = [r for r in requests if r["input_length"] + max(1, r["output_length"]) <= max_model_len]

# Unbounded prefix hits: a block is served when it and every block before it were seen before.
seen, hit, total = set(), 0, 0
for r in accepted:
    prefix = True
    for j, h in enumerate(r["hash_ids"]):
        tokens = min(512, r["input_length"] - 512 * j)
        total += tokens
        prefix = prefix and h in seen
        hit += tokens if prefix else 0
        seen.add(h)
unbounded = hit / total

# 1. simulate --trace replays every request once: finished + refused = the file's lines, and the
# tokens are the file's.
sim = json.loads(run("simulate", "chat-multi-turn", "--trace", trace, "--set", "max-model-len=131072",
                     "--set", "kv-cache-memory=20GiB", "--no-sweep", "--json").stdout)
m = sim["points"][0]["metrics"]
check(m["requests"] == len(accepted), f"simulated {m['requests']} requests, the trace accepts {len(accepted)}")
check(m["rejected_requests"] == len(requests) - len(accepted), f"rejected {m['rejected_requests']}")
check(m["finished"] == m["requests"], f"finished {m['finished']} of {m['requests']}")
check(m["prompt_tokens"] == sum(r["input_length"] for r in accepted), "prompt tokens differ from the trace's")
check(m["output_tokens"] == sum(max(1, r["output_length"]) for r in accepted), "output tokens differ from the trace's")
# A 20 GiB GPU cache cannot serve more than an unbounded one; block granularity (16-token blocks in
# 512-token trace blocks) can only lose hits.
check(m["gpu_hit_rate"] <= unbounded + 1e-9, f"GPU hit rate {m['gpu_hit_rate']} above the unbounded {unbounded}")
check(sim["scenario"]["trace"]["path"] == trace, "the JSON does not name the trace")

# 2. size --trace: candidates from the curve, all above vLLM's floor and within the cap; no size
# serves more than an unbounded cache would.
doc = json.loads(run("size", "--model", "llama-3.1-8b", "--hw", "h100", "--trace", trace, "--json").stdout)
rec = doc["results"][0]["recommendation"]
check(rec["basis"] == "simulation", f"basis {rec['basis']}")
sizes = [p["kv_offloading_size_gib"] for p in rec["curve"]]
check(sizes[0] == 0 and len(sizes) >= 3, f"curve sizes {sizes}")
check(all(rec["floor_gib"] < s <= rec["cap_gib"] for s in sizes[1:]), f"sizes {sizes} outside floor/cap")
for p in rec["curve"]:
    check(p["gpu_hit_rate"] + p["cpu_hit_rate"] <= unbounded + 1e-9,
          f"{p['kv_offloading_size_gib']} GiB serves {p['gpu_hit_rate'] + p['cpu_hit_rate']} > unbounded {unbounded}")
curve_steps = [s for s in rec["steps"] if s["kind"] == "trace-curve"]
check(len(curve_steps) == 1 and abs(curve_steps[0]["unbounded_hit_rate"] - unbounded) < 1e-9,
      f"the steps do not cite the trace's curve: {rec['steps']}")
check(rec["objective"] == "balanced" and rec["decided_by"] in ("ttft-p99", "throughput"), "objective")

# 3. size --workload simulates the flags' machine (issue 23: --gpu-memory changed the sizing only).
full = json.loads(run("size", "--model", "llama-3.1-8b", "--ctx", "32k", "--workload", "doc-qa", "--requests", "300",
                      "--json").stdout)["results"][0]
small = json.loads(run("size", "--model", "llama-3.1-8b", "--ctx", "32k", "--workload", "doc-qa", "--requests", "300",
                       "--gpu-memory", "20GiB", "--json").stdout)["results"][0]
check(small["gpu_kv_tokens"] < full["gpu_kv_tokens"], "--gpu-memory 20GiB did not shrink the GPU pool")
check(small["recommendation"]["floor_gib"] < full["recommendation"]["floor_gib"], "the floor did not move")
g_full, g_small = full["recommendation"]["curve"][0]["gpu_hit_rate"], small["recommendation"]["curve"][0]["gpu_hit_rate"]
check(g_small < g_full, f"without a tier the 20 GiB machine hits the GPU cache as often ({g_small} vs {g_full})")
check("kv-cache-memory" not in full["vllm_command"], "doc-qa's kv-cache-memory key reached the command")

# 4. Bad combinations: one line, exit 2.
for args, words in [(["size", "--model", "llama-3.1-8b", "--trace", trace, "--workload", "doc-qa"], "one traffic"),
                    (["size", "--trace", trace], "expected --model"),
                    (["size", "--model", "llama-3.1-8b", "--trace", f"{data}/traces/nosuch.jsonl"], "cannot read"),
                    (["simulate", "--trace", trace, "--requests", "10"], "--trace-limit"),
                    (["size", "--model", "llama-3.1-8b", "--trace", f"{data}/traces/bad-hash-count.jsonl"], ":2: 1 hash_ids")]:
    err = run(*args, code=2).stderr
    check(words in err and err.count("\n") == 1, f"kvbench {' '.join(args)}: {err!r}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"traffic: {len(accepted)} requests replayed, unbounded prefix hit {unbounded:.3f}, "
      f"size --trace simulated {len(sizes)} sizes")
