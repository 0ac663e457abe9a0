#!/usr/bin/env python3
"""Mutated inputs never crash kvbench: each file kvbench reads (dma results, simulate and size
results, Hugging Face config.json, scenario YAML) is mutated many ways (a field deleted, given
another type, a negative or huge number; a YAML value replaced, a line dropped or re-indented)
and fed to the subcommand that reads it. The property: exit 0, 1 or 2, never 3 (a JSON or YAML
exception escaping) or a signal; exit 2 is one line on stderr starting "kvbench: "; no sanitizer
report. Deterministic (seeded), about a hundred runs.

usage: input_mutation_test.py KVBENCH DATA_DIR SCENARIO_DIR WORK_DIR
"""
import copy
import glob
import json
import os
import random
import re
import subprocess
import sys

kvbench, data_dir, scenario_dir, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
rng = random.Random(20261121)
REPLACEMENTS = {"string": "x", "null": None, "negative": -1, "list": [], "object": {}, "huge": 1e308, "half": 0.5}
failures = []


def run(args, what):
    try:
        p = subprocess.run([kvbench] + args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        failures.append(f"{what}: timed out")
        return
    lines = p.stderr.strip().splitlines()
    if "Sanitizer" in p.stderr or "runtime error:" in p.stderr.replace("kvbench: runtime error:", ""):
        failures.append(f"{what}: sanitizer report: {p.stderr[-400:]}")
    elif p.returncode not in (0, 1, 2):
        failures.append(f"{what}: exit {p.returncode}: {' / '.join(lines[-2:])}")
    elif p.returncode == 2 and (len(lines) != 1 or not lines[0].startswith("kvbench: ")):
        failures.append(f"{what}: exit 2 but stderr is not one 'kvbench: ' line: {lines[:3]}")


def json_paths(doc):
    out = []

    def walk(x, path):
        out.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, path + [k])
        elif isinstance(x, list):
            for i, v in enumerate(x[:2]):
                walk(v, path + [i])

    walk(doc, [])
    return out[1:]


def mutate_json(doc):
    d = copy.deepcopy(doc)
    path = rng.choice(json_paths(d))
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    how = rng.choice(["delete"] + sorted(REPLACEMENTS))
    if how == "delete":
        parent.pop(path[-1])  # a key, or an index
    else:
        parent[path[-1]] = REPLACEMENTS[how]
    return d, f"{'.'.join(map(str, path))} {how}"


def json_cases(base_path, count, args_for):
    base = json.load(open(base_path))
    for i in range(count):
        doc, what = mutate_json(base)
        path = os.path.join(work, f"{os.path.basename(base_path)}.{i}.json")
        json.dump(doc, open(path, "w"))
        for args in args_for(path):
            run(args, f"{args[0]} on {os.path.basename(base_path)} with {what}")


profile = os.path.join(data_dir, "host-dma-profile.json")
report_out = os.path.join(work, "r.html")
json_cases(profile, 20, lambda p: [["compare", profile, p], ["report", p, "-o", report_out],
                                    ["simulate", "ttft-reload", "--no-sweep", "--link-profile", p]])
for name in ("qwen3-14b.config.json", "deepseek-v3.config.json", "nemotron-h.config.json"):
    json_cases(os.path.join(data_dir, name), 10, lambda p: [["size", "--model", p, "--hw", "h100"]])

# Result documents written by kvbench itself, then mutated.
sim_doc = os.path.join(work, "simulate.json")
size_doc = os.path.join(work, "size.json")
subprocess.run([kvbench, "simulate", "ttft-reload", "-o", sim_doc], capture_output=True, check=True)
subprocess.run([kvbench, "size", "--model", "llama-8b,deepseek-v3", "-o", size_doc], capture_output=True, check=True)
for doc in (sim_doc, size_doc):
    json_cases(doc, 10, lambda p: [["report", p, "-o", report_out]])

values = ["abc", "[]", "{}", "-1", "1e999", "", "~", "[1, 2", "0", "1.5", "99999999999999999999", "nan", "{a: 1}", "true"]
scenarios = sorted(glob.glob(os.path.join(scenario_dir, "*.yaml")))
for i in range(30):
    src = rng.choice(scenarios)
    lines = open(src).read().splitlines()
    j = rng.choice([n for n, line in enumerate(lines) if re.match(r"^\s*[\w.-]+:\s*\S", line)])
    original = lines[j]
    op = rng.random()
    if op < 0.8:
        lines[j] = re.match(r"^(\s*[\w.-]+:)", original).group(1) + " " + rng.choice(values)
    elif op < 0.9:
        del lines[j]
    else:
        lines[j] = "  " + original
    path = os.path.join(work, f"scenario.{i}.yaml")
    open(path, "w").write("\n".join(lines) + "\n")
    run(["simulate", path, "--no-sweep", "--requests", "30"], f"simulate {os.path.basename(src)}: {original!r} mutated")

for f in failures:
    print("FAIL:", f)
print(f"input mutation: {len(failures)} failures")
sys.exit(1 if failures else 0)
