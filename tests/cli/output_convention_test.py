#!/usr/bin/env python3
"""One output interface for every subcommand that writes a result (issue 21 §7, docs/conventions.md):
--json is --format json; -o FILE also writes the machine-readable form (the --format chosen, JSON
for a table) and leaves standard output as it was; --json with another --format is refused.

usage: output_convention_test.py KVBENCH DATA_DIR WORKDIR
"""
import json
import os
import subprocess
import sys

kvbench, data, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []

COMMANDS = {  # subcommand: (arguments, the JSON's schema; None: a list, not a document)
    "size": (["size", "--model", "llama-3.1-8b", "--hw", "h100"], "kvbench/size/v1"),
    "simulate": (["simulate", "chat-multi-turn", "--requests", "200", "--no-sweep"], "kvbench/simulate/v1"),
    "trace": (["trace", f"{data}/traces/sessions.jsonl", "--model", "llama-8b"], "kvbench/trace/v1"),
    "doctor": (["doctor", "--root", f"{data}/nodes/healthy"], "kvbench/doctor/v1"),
    "compare": (["compare", f"{data}/host-dma-profile.json", f"{data}/host-dma-profile.json"], None),
    "observe": (["observe", "--from", f"{data}/observe/vllm_pays_before.prom", "--to",
                 f"{data}/observe/vllm_pays_after.prom", "--seconds", "60"], "kvbench/observe/v1"),
    "dma": (["dma", "--backend", "host", "--block", "64KiB", "--direction", "h2d", "--method", "ce",
             "--min-time", "0.01", "--max-time", "0.05"], "kvbench/dma/v1"),
    "storage": (["storage", "--dir", "/dev/shm", "--size", "1MiB", "--chunk", "256KiB", "--layout",
                 "per-rank-file", "--mode", "buffered", "--engine", "threads", "--repeat", "1"], "kvbench/storage/v1"),
}
MEASURED = {"dma", "storage"}  # two runs measure twice: compared by structure, not value


def run(args, code=0):
    done = subprocess.run([kvbench, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != code:
        failures.append(f"kvbench {' '.join(args)} exited {done.returncode}, expected {code}: {done.stderr[-300:]}")
    return done


def check_schema(doc, schema, what):
    if schema is None:
        ok = isinstance(doc, list)
    else:
        ok = isinstance(doc, dict) and doc.get("schema") == schema
    if not ok:
        failures.append(f"{what}: not a {schema or 'JSON list'} document")


for name, (args, schema) in COMMANDS.items():
    by_flag = run([*args, "--json"]).stdout
    by_format = run([*args, "--format", "json"]).stdout
    try:
        a, b = json.loads(by_flag), json.loads(by_format)
    except json.JSONDecodeError:
        failures.append(f"{name}: --json or --format json printed something that is not JSON")
        continue
    check_schema(a, schema, f"{name} --json")
    if name not in MEASURED and a != b:
        failures.append(f"{name}: --json and --format json differ")
    out = f"{work}/{name}.out"
    table = run([*args, "-o", out]).stdout
    try:
        json.loads(table)
        failures.append(f"{name}: -o changed standard output to JSON")
    except json.JSONDecodeError:
        pass
    try:
        written = json.load(open(out))
    except (OSError, json.JSONDecodeError):
        failures.append(f"{name}: -o with the table did not write JSON")
        continue
    check_schema(written, schema, f"{name} -o")
    if name not in MEASURED and written != a:
        failures.append(f"{name}: -o wrote other JSON than --json printed")
    refused = run([*args, "--json", "--format", "prom"], code=2)
    if "--json and --format prom" not in refused.stderr and "--format 'prom'" not in refused.stderr:
        failures.append(f"{name}: --json --format prom not refused by name: {refused.stderr[-200:]}")
    # --format table given as well (not its default) contradicts --json just the same.
    refused = run([*args, "--json", "--format", "table"], code=2)
    if "--json and --format table" not in refused.stderr:
        failures.append(f"{name}: --json --format table not refused by name: {refused.stderr[-200:]}")

# A format that is not a table: -o writes that format, the same text as standard output.
prom_out = f"{work}/doctor.prom"
shown = run(["doctor", "--root", f"{data}/nodes/healthy", "--format", "prom", "-o", prom_out]).stdout
if open(prom_out).read() != shown or "kvbench_doctor_check_status" not in shown:
    failures.append("doctor --format prom -o: the file is not what standard output showed")

if failures:
    sys.exit("FAIL:\n  " + "\n  ".join(failures))
print(f"output convention: {len(COMMANDS)} subcommands agree on --json, --format json and -o")
