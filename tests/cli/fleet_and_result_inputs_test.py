#!/usr/bin/env python3
"""Fleets, results read back and the flags a fleet ignores (issue 59). One case per
row of the issue's table that this file covers; each failed before its fix (a silent wrong answer, a
refusal naming the wrong thing, a document kvbench wrote that its own report refused).

usage: fleet_and_result_inputs_test.py KVBENCH DATA_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

kvbench, data_dir, work = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
LIMIT = 120  # seconds: generous for a sanitized build on 2 cores
SESSIONS = os.path.join(data_dir, "traces", "sessions.jsonl")  # 3 requests
MOONCAKE = os.path.join(data_dir, "traces", "mooncake-conversation-head2000.jsonl")
FLEET_WORKLOAD = os.path.join(data_dir, "scenario-fleet-shared-prefix.yaml")
FLEET_SERVER = ["--model", "llama-3.1-8b", "--hw", "h100", "--kv-cache-memory", "1.5GiB", "--max-model-len", "8192"]


def path(name):
    return os.path.join(work, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def run(row, args, code, *patterns):
    """Runs kvbench in WORK_DIR; checks the exit code, one 'kvbench: ' line for an error, each pattern."""
    try:
        p = subprocess.run([kvbench] + args, capture_output=True, timeout=LIMIT, cwd=work)
    except subprocess.TimeoutExpired:
        failures.append(f"row {row}: still running after {LIMIT} s: {args}")
        return None
    err = p.stderr.decode("utf-8", "replace")
    out = p.stdout.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    if p.returncode != code:
        failures.append(f"row {row}: exit {p.returncode}, expected {code}: {args}: {err[-500:]}")
    elif code == 2 and (len(lines) != 1 or not lines[0].startswith("kvbench: ")):
        failures.append(f"row {row}: stderr is not one 'kvbench: ' line: {lines[:3]}")
    else:
        for pattern in patterns:
            if pattern not in err + out:
                failures.append(f"row {row}: output lacks '{pattern}': {args}: {(err + out)[-500:]}")
    return p


# Row 26: a JSON array given to --from-vllm is JSON, refused as what it is (it was read as a CSV:
# "no column 'send_us'").
array = write("array.json", '[{"ttft": 0.1, "itl": [0.01]}]\n')
run(26, ["calibrate", "--from-vllm", array, "--model", "llama-3.1-8b"], 2, "a JSON array, not an object")
padded = write("padded.json", '\n  [1, 2, 3]\n')
run(26, ["calibrate", "--from-vllm", padded, "--model", "llama-3.1-8b"], 2, "a JSON array, not an object")

# Row 17: trace refuses least-loaded over a fleet; its refusal names every router it accepts (it
# left out prefix-approx).
p = run(17, ["trace", SESSIONS, "--model", "llama-3.1-8b", "--replicas", "4", "--router", "least-loaded"], 2,
        "expected round-robin, prefix-aware, session, prefix-approx")
for router in ("round-robin", "prefix-aware", "session", "prefix-approx"):
    run(17, ["trace", SESSIONS, "--model", "llama-3.1-8b", "--replicas", "4", "--router", router], 0)

# Row 15: --seeds with a trace (one recorded traffic) was ignored without a word; --seeds without a
# traffic was refused by a line that listed the other flags but not --seeds.
run(15, ["size", "--trace", SESSIONS, "--model", "llama-3.1-8b", "--seeds", "5"], 2, "--seeds draws a generated")
run(15, ["size", "--model", "llama-3.1-8b", "--seeds", "5"], 2, "--seeds/", "judge a simulated traffic")

# Row 16: a fleet replays a cluster's trace whole; --trace-sample over a fleet shrinks the cluster's
# traffic, which was not said.
NOTE16 = "a fleet's trace is the whole cluster's traffic, and the 4 replicas share 20% of it"
run(16, ["simulate", "chat-multi-turn", "--trace", MOONCAKE, "--trace-limit", "100", "--replicas", "4",
         "--trace-sample", "0.2", "--no-sweep"], 0, NOTE16)
run(16, ["trace", MOONCAKE, "--model", "llama-3.1-8b", "--replicas", "4", "--trace-sample", "0.2"], 0, NOTE16)
p = run(16, ["simulate", "chat-multi-turn", "--trace", MOONCAKE, "--trace-limit", "100", "--replicas", "4",
             "--no-sweep"], 0)
if p is not None and b"--trace-sample" in p.stderr:
    failures.append("row 16: a fleet without --trace-sample was given the sample's note")

# Row 14: all and none stand alone; beside each other or a mechanism one was silently dropped.
for costs in ("[all,none]", "[none,kernel-sms]", "[kernel-sms,all]"):
    run(14, ["simulate", "chat-multi-turn", "--set", f"tier-costs={costs}", "--no-sweep"], 2,
        "key 'tier-costs'", "expected all or none alone, or a list of mechanisms")
for costs in ("all", "none", "[kernel-sms]"):
    run(14, ["simulate", "chat-multi-turn", "--set", f"tier-costs={costs}", "--no-sweep", "--requests", "20"], 0)

# Row 10: a trace shorter than a minute was rated per calendar minute (its count over 60 s, below
# its own mean); over the span it covers, 20 requests in 10 s are 2 req/s in every window.
short = write("short.jsonl", "".join(
    json.dumps({"timestamp": 1000 * (50 + i * 10 / 19), "input_length": 600, "output_length": 10,
                "hash_ids": [i, i + 100]}) + "\n" for i in range(20)))
p = run(10, ["trace", short, "--model", "llama-3.1-8b", "--json"], 0)
if p is not None and p.returncode == 0:
    doc = json.loads(p.stdout)
    mean, peak = doc.get("mean_rate_per_s"), doc.get("peak_minute_rate_per_s")
    median = doc.get("median_minute_rate_per_s")
    if mean is None or peak is None or abs(mean - 2.0) > 1e-6 or abs(peak - mean) > 1e-6 or abs(median - mean) > 1e-6:
        failures.append(f"row 10: mean {mean}, median {median}, peak {peak}; expected 2 req/s each")
# 130 s: minutes 0 and 1 from the first arrival, the 10 s tail rated with minute 1 over 70 s.
steady = write("steady.jsonl", "".join(
    json.dumps({"timestamp": 1000 * i, "input_length": 600, "output_length": 10, "hash_ids": [i, 1000 + i]}) + "\n"
    for i in range(131)))
p = run(10, ["trace", steady, "--model", "llama-3.1-8b", "--json"], 0)
if p is not None and p.returncode == 0:
    doc = json.loads(p.stdout)
    # 60 arrivals in [0, 60) s, 71 in [60, 130] s: 1.0 and 71/70 req/s.
    if abs(doc["peak_minute_rate_per_s"] - 71 / 70) > 1e-6:
        failures.append(f"row 10: peak {doc['peak_minute_rate_per_s']}; expected 71/70 req/s")

# Row 2: a traffic the server served none of was sized anyway ("0 requests per point", no tier):
# exit 2 naming why.
too_long = write("too-long.jsonl", "".join(
    json.dumps({"timestamp": 1000 * i, "input_length": 20000, "output_length": 10,
                "hash_ids": list(range(100 * i, 100 * i + 40))}) + "\n"
    for i in range(30)))
run(2, ["size", "--model", "llama-3.1-8b", "--max-model-len", "8192", "--trace", too_long], 2,
    "all 30 requests are longer than max-model-len 8192")
with open(os.path.join(data_dir, "scenario-client-timeout.yaml")) as f:
    impatient = write("impatient.yaml", f.read().replace("client-timeout: 4", "client-timeout: 1e-9")
                      .replace("requests: 300", "requests: 40"))
run(2, ["size", "--model", "llama-3.1-8b", "--workload", impatient], 2,
    "workload.client-timeout 1e-09 s: the client gave up on all 40 requests")
run(2, ["size"] + FLEET_SERVER + ["--workload", FLEET_WORKLOAD, "--requests", "20", "--replicas", "64"], 2,
    "--replicas 64", "holds 20 requests, fewer than one per replica")
run(2, ["size"] + FLEET_SERVER + ["--trace", MOONCAKE, "--trace-limit", "5", "--replicas", "8"], 2,
    "--replicas 8", "holds 5 requests, fewer than one per replica")

# Row 1: size --replicas wrote engine_busy_share summed over the replicas (3.33 over 4), which its
# own report refused. A share is now the mean replica's, in 0..1; every document each subcommand
# writes, with and without --replicas, is read back by report.
def round_trip(row, name, args):
    out = path(name)
    p = run(row, args + ["--json", "-o", out], 0)
    if p is None or p.returncode != 0:
        return None
    run(row, ["report", out, "-o", path(name + ".html")], 0)
    with open(out) as f:
        return json.load(f)


for replicas in ("1", "4"):
    doc = round_trip(1, f"size-{replicas}.json", ["size"] + FLEET_SERVER + [
        "--workload", FLEET_WORKLOAD, "--requests", "200", "--replicas", replicas])
    curve = [p for sizing in (doc or {}).get("results", [])
             for p in (sizing.get("recommendation") or {}).get("curve", [])]
    if doc is not None and not curve:
        failures.append(f"row 1: {replicas} replicas: no simulated curve in size's document")
    for point in curve:
        if not 0 < point["engine_busy_share"] <= 1:
            failures.append(f"row 1: {replicas} replicas: engine_busy_share {point['engine_busy_share']}")
    round_trip(1, f"simulate-{replicas}.json", ["simulate", FLEET_WORKLOAD, "--requests", "100", "--no-sweep",
                                               "--replicas", replicas])
    round_trip(1, f"trace-{replicas}.json", ["trace", MOONCAKE, "--model", "llama-3.1-8b", "--trace-limit", "200",
                                            "--replicas", replicas, "--router", "prefix-aware"])
    round_trip(1, f"size-trace-{replicas}.json", ["size"] + FLEET_SERVER + [
        "--trace", MOONCAKE, "--trace-limit", "200", "--replicas", replicas])
round_trip(1, "size-table.json", ["size", "--model", "llama-3.1-8b,qwen3-14b", "--hw", "h100,h200"])

# Row 24: a simulate result that no run writes was drawn without a word (a second 'fleet' key won:
# 8 replicas over 4 of data). Each is refused naming the field.
fleet_doc = None
if os.path.exists(path("simulate-4.json")):
    with open(path("simulate-4.json")) as f:
        text = f.read()
    fleet_doc = json.loads(text)
if fleet_doc is None:
    failures.append("row 24: no simulate --replicas 4 document to alter")
else:
    twice = text.replace('"fleet": {', '"fleet": {"replicas": 8, "router": "round-robin"}, "fleet": {', 1)
    run(24, ["report", write("fleet-twice.json", twice)], 2, "key 'fleet' appears twice")

    def altered(name, change):
        doc = json.loads(text)
        change(doc)
        return write(name, json.dumps(doc))

    def two_entries(d):
        d["points"][0]["replicas"] = d["points"][0]["replicas"][:2]

    def no_entries(d):
        d["points"][0]["replicas"] = []

    def string_costs(d):
        d["points"][0]["metrics"]["tier_cost_engine_s"] = "lots"

    run(24, ["report", altered("two-entries.json", two_entries)], 2, "field 'replicas' holds 2 entries; expected 4")
    run(24, ["report", altered("no-entries.json", no_entries)], 2, "field 'replicas' holds 0 entries; expected 4")
    run(24, ["report", altered("string-costs.json", string_costs)], 2,
        "field 'tier_cost_engine_s' is a string; expected an object")

# Row 3: every replica's block table was allocated up front (24 GB a replica here) into
# std::bad_alloc, exit 3, naming nothing. The tables are estimated before the run: past the machine's
# available memory (any machine's: 4,096 x 1e9 blocks), exit 2 naming the input, at once.
run(3, ["simulate", "chat-multi-turn", "--set", "num-gpu-blocks-override=1000000000", "--replicas", "4096",
        "--no-sweep"], 2, "num-gpu-blocks-override 1000000000 on 4096 replica(s)", "GiB this machine has available")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("fleet and result inputs: every row behaves as issue 59 says")
