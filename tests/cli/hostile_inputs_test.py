#!/usr/bin/env python3
"""Hostile but realistic inputs (issue 26): each case is one class of defect that once exited 0 with
a wrong answer, hung, grew without bound or escaped as exit 3. Each must now exit 2 (or the code
given) with one 'kvbench: ' line on stderr that matches the pattern, within a few seconds and a few
hundred MB. The crafted files are written here, under WORK_DIR, from the healthy node fixture and
the shipped formats, so each case reads as what it tests.

usage: hostile_inputs_test.py KVBENCH DATA_DIR WORK_DIR
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time

kvbench, data_dir, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
SECONDS = 20        # "nothing hangs past a few seconds": generous for a sanitized build on 2 cores
MAX_RSS_MB = 1200   # "nor grows past a few hundred MB" (the sanitizers' shadow memory counts here)


def path(name):
    return os.path.join(work, name)


def write(name, text, mode="w"):
    p = path(name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, mode) as f:
        f.write(text)
    return p


def expect(name, args, code, pattern):
    start = time.monotonic()
    try:
        p = subprocess.run([kvbench] + args, capture_output=True, timeout=SECONDS * 3)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: still running after {SECONDS * 3} s")
        return
    took = time.monotonic() - start
    err = p.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    if p.returncode != code:
        failures.append(f"{name}: exit {p.returncode}, expected {code}: {err[-300:]}")
    elif code >= 2 and (len(lines) != 1 or not lines[0].startswith("kvbench: ")):
        failures.append(f"{name}: stderr is not one 'kvbench: ' line: {lines[:3]}")
    elif pattern and not re.search(pattern, err + p.stdout.decode("utf-8", "replace")):
        failures.append(f"{name}: output does not match /{pattern}/: {err[-300:]}")
    elif took > SECONDS:
        failures.append(f"{name}: took {took:.1f} s")


SCENARIO = """name: hostile
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 8GiB
workload:
  requests: {requests}
  arrival: {arrival}
  prompt: 512
  output: 16
"""


def scenario(name, requests="50", arrival="{process: poisson, rate: 4}", extra=""):
    return write(name, SCENARIO.format(requests=requests, arrival=arrival) + extra)


def node(name, edit):
    """A copy of the healthy node fixture with edit(root) applied."""
    root = path(name)
    shutil.copytree(os.path.join(data_dir, "nodes", "healthy"), root)
    edit(root)
    return root


def replace_in(root, rel, old, new):
    p = os.path.join(root, rel)
    with open(p) as f:
        text = f.read()
    assert old in text, (rel, old)
    with open(p, "w") as f:
        f.write(text.replace(old, new))


# 1. Integers past 2^32 are refused, never wrapped.
for flag, value in [("--tp", "4294967297"), ("--pp", "4294967298"), ("--block-size", "4294967312"),
                    ("--draft-layers", "4294967297"), ("--max-num-seqs", "99999999999999999999")]:
    expect(f"size {flag} {value}", ["size", "--model", "llama-8b", flag, value], 2, re.escape(value))
for key, extra in [("documents", "  documents: 4294967297\n  document-tokens: 100\n"),
                   ("system-prefixes", "  system-prefixes: 4294967297\n")]:
    f = scenario(f"wrap-{key}.yaml", extra=extra)
    expect(f"workload {key}: 4294967297", ["simulate", f, "--no-sweep"], 2, f"key '{key}' must be a whole number")
f = scenario("wrap-users.yaml", arrival="{process: closed, users: 4294967296}")
expect("workload users: 4294967296", ["simulate", f, "--no-sweep"], 2, "key 'users' must be a whole number from 1 to 1000000")
expect("max-num-batched-tokens past the GPU", ["size", "--model", "llama-8b", "--max-num-batched-tokens", "99999999999",
                                                "--kv-cache-memory", "8GiB"], 0, "cannot be honoured")

# 2. Inputs that would hang or exhaust memory stop at a cap, named.
levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
for i in range(1, 9):
    levels.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
bomb = write("alias-bomb.yaml", "\n".join(levels) + "\n")
expect("YAML alias bomb (scenario)", ["simulate", bomb], 2, "more than 100000 YAML nodes")
expect("YAML alias bomb (calibration)", ["size", "--model", "llama-8b", "--calibration", bomb], 2, "more than 100000 YAML nodes")
expect("YAML alias bomb (--set)", ["simulate", "--no-sweep", "--set", "description={" + ", ".join(levels) + "}"], 2,
       "more than 100000 YAML nodes")
f = scenario("requests-huge.yaml", requests="1000000000")
expect("workload requests: 1e9", ["simulate", f, "--no-sweep"], 2, "key 'requests' must be a whole number from 1 to 10000000")
expect("--set workload.requests=1e9", ["simulate", "--no-sweep", "--set", "workload.requests=1000000000"], 2,
       "'requests' must be a whole number from 1 to 10000000")
write("sweep-huge.yaml", SCENARIO.format(requests="10", arrival="{process: poisson, rate: 4}") + "sweep:\n  seed: ["
      + ", ".join(str(i) for i in range(20000)) + "]\n")
expect("a sweep of 20,000 points", ["simulate", path("sweep-huge.yaml")], 2, "more than 10000 points")
for cmd in (["report", "/dev/zero", "-o", path("zero.html")], ["compare", "/dev/zero", "/dev/zero"],
            ["simulate", "--no-sweep", "--link-profile", "/dev/zero"],
            ["size", "--model", "llama-8b", "--calibration", "/dev/zero"]):
    expect(f"{cmd[0]} reading /dev/zero", cmd, 2, "larger than [0-9]+ MiB")
for cmd in (["trace", "/dev/zero", "--model", "llama-8b"],):
    expect(f"{cmd[0]} reading /dev/zero", cmd, 2, "larger than [0-9]+ MiB|longer than 16 MiB")

# 3. Input errors are input errors (exit 2), never "runtime error" (exit 3).
write("non-utf8.yaml", "", "w")
with open(path("non-utf8.yaml"), "wb") as fb:
    fb.write(SCENARIO.format(requests="10", arrival="{process: poisson, rate: 4}").replace(
        "name: hostile", "name: caf\xe9").encode("latin-1") + b"description: \xff\xfe\n")
expect("non-UTF-8 scenario name", ["simulate", path("non-utf8.yaml"), "--no-sweep"], 2, "not valid UTF-8")
expect("non-UTF-8 scenario name (--json)", ["simulate", path("non-utf8.yaml"), "--no-sweep", "--json"], 2, "not valid UTF-8")
for value in ("junk", "1e999", "-5"):
    root = node(f"shm-file-{value}", lambda r, v=value: write(os.path.relpath(os.path.join(r, "dev/shm/leftover"), work),
                                                              f"size: {v}\n"))
    expect(f"/dev/shm file of size {value}", ["doctor", "--root", root], 2, re.escape(f"dev/shm/leftover: 'size: {value}'"))

# 4. Absurd values are refused where they are read.
cal_inf = write("cal-inf.yaml", "step-overhead-us: .inf\n")
expect("calibration step-overhead-us: .inf", ["size", "--model", "llama-8b", "--calibration", cal_inf], 2,
       "'step-overhead-us' has the wrong type; expected a finite number")
cal_tiny = write("cal-tiny.yaml", "compute-efficiency: 1e-300\n")
expect("calibration compute-efficiency: 1e-300", ["size", "--model", "llama-8b", "--calibration", cal_tiny], 2,
       "expected a fraction of peak from 0.01 to 1")
f = scenario("rate-tiny.yaml", arrival="{process: poisson, rate: 1e-300}")
expect("arrival rate 1e-300", ["simulate", f, "--no-sweep"], 2, "key 'rate' is 1e-300 requests/s")
# A recorded tree (--root) holding junk is a broken input: exit 2 naming the file and the value.
# (On this node the same reading makes the check skip with the reason: the node_facts fuzzer and
# the unit tests hold that.)
for name, rel, old, new, check in [
        ("memlock nan", "proc/self/limits", "unlimited            unlimited", "nan            nan",
         "proc/self/limits: Max locked memory 'nan' is not a figure"),
        ("memlock inf", "proc/self/limits", "unlimited            unlimited", "inf            inf",
         "Max locked memory 'inf' is not a figure"),
        ("MemAvailable 1e400", "proc/meminfo", "MemAvailable:   500000000", "MemAvailable:   1e400",
         "proc/meminfo: MemAvailable '1e400' is not a figure"),
        ("negative MemTotal", "proc/meminfo", "MemTotal:       527000000", "MemTotal:       -527000000",
         "proc/meminfo: MemTotal '-527000000' is not a figure"),
        ("/dev/shm size -1e15", "proc/mounts", "tmpfs rw,nosuid,nodev", "tmpfs rw,nosuid,nodev,size=-1e15",
         "proc/mounts: /dev/shm size=-1e15 is not a size")]:
    root = node(name.replace(" ", "-").replace("/", ""), lambda r, a=rel, b=old, c=new: replace_in(r, a, b, c))
    expect(f"doctor: {name}", ["doctor", "--root", root, "--tier-size", "64"], 2, re.escape(check))
root = node("no-meminfo", lambda r: os.remove(os.path.join(r, "proc/meminfo")))
expect("doctor: no /proc/meminfo is not a failure", ["doctor", "--root", root], 0, "memory +skip +/proc/meminfo unreadable")
root = node("no-memavailable", lambda r: replace_in(r, "proc/meminfo", "MemAvailable:   500000000 kB\n", ""))
expect("doctor: a missing MemAvailable is named", ["doctor", "--root", root], 0, "MemAvailable missing from /proc/meminfo")


def crafted_size(name, edit):
    subprocess.run([kvbench, "size", "--model", "llama-8b", "--ctx", "8K", "--json", "-o", path("size-ok.json")],
                   capture_output=True, check=True)
    doc = json.load(open(path("size-ok.json")))
    edit(doc["results"][0])
    return write(name, json.dumps(doc))


for field, value in [("tensor_parallel_size", 10000000000), ("gpu_kv_tokens", 1e300), ("gpu_kv_tokens", -5),
                     ("max_model_len", -8192)]:
    f = crafted_size(f"size-{field}.json", lambda r, k=field, v=value: r.__setitem__(k, v))
    expect(f"report: size {field} {value}", ["report", f, "-o", path("r.html")], 2, f"field '{field}' is")
cal = json.load(open(os.path.join(data_dir, "calibrate-format.json")))
for where, field, value in [("calibration", "step_overhead_us", -30), ("", "peak_tflops", -989)]:
    doc = json.loads(json.dumps(cal))
    (doc[where] if where else doc)[field] = value
    f = write(f"cal-{field}.json", json.dumps(doc))
    expect(f"report: calibrate {field} {value}", ["report", f, "-o", path("r.html")], 2, f"field '{field}' is")
dma = json.load(open(os.path.join(data_dir, "host-dma-profile.json")))
fast = json.loads(json.dumps(dma))
fast["records"][0]["bytes_per_transfer"] = 4e300
expect("compare: 4e300 GB/s is a broken file", ["compare", os.path.join(data_dir, "host-dma-profile.json"),
                                                write("fast.json", json.dumps(fast))], 2, "field 'bytes_per_transfer'")
tiny = json.loads(json.dumps(dma))
tiny["records"][0]["samples"] = [1e-300] * len(tiny["records"][0]["samples"])
expect("compare: samples of 1e-300 s", ["compare", os.path.join(data_dir, "host-dma-profile.json"),
                                        write("tiny.json", json.dumps(tiny))], 2, r"has a sample of 1e-300 s \(samples_s\[0\]\); expected seconds from")

# 6. doctor and calibrate on what is not a node or a device.
for root in ("/nonexistent", os.path.join(data_dir, "zero-block.json"), work + "/empty-dir"):
    os.makedirs(work + "/empty-dir", exist_ok=True)
    expect(f"doctor --root {os.path.basename(root)}", ["doctor", "--root", root], 2, "no proc/ directory there")
expect("doctor --backend tpu", ["doctor", "--backend", "tpu", "--root", os.path.join(data_dir, "nodes", "healthy")], 2,
       "--backend 'tpu': expected auto, cuda, hip or host")
expect("doctor --device 99999999999999", ["doctor", "--device", "99999999999999"], 2, "from 0 to 65535")
expect("calibrate --device -1", ["calibrate", "--device", "-1"], 2, "--device")

# 7. Contradictions and messages.
expect("sglang with lmcache", ["size", "--model", "llama-8b", "--engine", "sglang", "--kv-offloading-backend", "lmcache"],
       2, "--engine sglang with --kv-offloading-backend lmcache")
expect("report FILE --models bogus", ["report", os.path.join(data_dir, "host-dma-profile.json"), "--models", "bogus",
                                      "-o", path("r.html")], 2, "--models: applies to the default assessment")
expect("--tier-size -1 names the range", ["doctor", "--tier-size", "-1"], 2, "above 0 and at most 1000000")
expect("--alpha 1", ["compare", "a", "b", "--alpha", "1"], 2, "above 0 and below 0.5")
expect("--min-effect 2", ["compare", "a", "b", "--min-effect", "2"], 2, "e.g. 5% or 0.05")
expect("--step-overhead-us 0", ["calibrate", "--step-overhead-us", "0"], 2, "e.g. 30")
expect("--save-json FILE", ["report", "--backend", "host", "--save-json", os.path.join(data_dir, "zero-block.json"),
                            "-o", path("r.html")], 2, "not a directory; expected an existing directory")
if os.path.exists("/dev/loop0") and os.stat("/dev/loop0").st_mode & 0o170000 == 0o060000:
    expect("-o a block device", ["size", "--model", "llama-8b", "-o", "/dev/loop0"], 2,
           "is a block device; expected a regular file")
expect("a 1e-10 GiB tier is refused, not printed as 0 B", ["doctor", "--tier-size", "0.0000000001"], 2, "below 1 MiB")

# size --from-vllm-log: a vLLM start-up log crafted to break the reader (catalog/vllm_startup_log).
LOGLINE = "(EngineCore pid=1) INFO 01-01 00:00:00 [x.py:1] "
expect("a vLLM log's args nested 100,000 deep",
       ["size", "--from-vllm-log", write("deep.log", LOGLINE + "non-default args: " + "[" * 100000 + "\n")], 2,
       "nested deeper than 64")
expect("a vLLM log of one 2 MiB line", ["size", "--from-vllm-log",
       write("long.log", LOGLINE + "GPU KV cache size: 16 tokens" + "x" * (2 << 20))], 2, "not a vLLM start-up log")
expect("a vLLM log with a forged petabyte pool", ["size", "--model", "qwen3-14b", "--from-vllm-log",
       write("huge.log", LOGLINE + "GPU KV cache size: 9,000,000,000,000,000,000 tokens\n")], 2, "over 1 PiB")
expect("a vLLM log with a pool of 0", ["size", "--model", "qwen3-14b", "--from-vllm-log",
       write("zero.log", LOGLINE + "GPU KV cache size: 0 tokens\n")], 2, "0 blocks")
expect("a vLLM log's TP out of range", ["size", "--model", "qwen3-14b", "--from-vllm-log",
       write("tp.log", LOGLINE + "non-default args: {'tensor_parallel_size': 99999}\n" + LOGLINE +
             "GPU KV cache size: 16 tokens\n")], 2, "as logged, ")

# An observe document edited by hand (output/observe/observe_json): the report words its verdict as measured.
OBS = os.path.join(data_dir, "observe")
subprocess.run([kvbench, "observe", "--from", os.path.join(OBS, "vllm_pays_before.prom"), "--to",
                os.path.join(OBS, "vllm_pays_after.prom"), "--seconds", "60", "--json", "-o", path("obs.json")],
               capture_output=True, check=True)
obs = json.load(open(path("obs.json")))
for name, edit, pattern in [
        ("queried and hit tokens 1e20 (it printed '-0 of -0 tokens')", lambda d: d["verdict"]["evidence"].update(
            hit_tokens=1e20, queried_tokens=1e20), "field 'queried_tokens' is 1e\\+20; expected a number from 0 to 1e\\+18"),
        ("more hits than lookups (it printed 1250%)", lambda d: d["verdict"]["evidence"].update(hit_tokens=900000.0),
         "the verdict's evidence 'hit_tokens' does not follow from the readings"),
        ("a verdict the readings do not give", lambda d: d["verdict"].update(kind="not_used"),
         "the verdict 'not_used' does not follow from the readings \\(they give 'pays'\\)"),
        ("a delta that is not after - before", lambda d: d["readings"][0].update(delta=7.0),
         "expected delta = after - before")]:
    doc = json.loads(json.dumps(obs))
    edit(doc)
    expect(f"report: observe {name}", ["report", write("obs-bad.json", json.dumps(doc)), "-o", path("r.html")], 2,
           pattern)

# A scenario's secondary-rates-source is printed after "measured by kvbench storage:": one line only.
expect("secondary-rates-source with a line break",
       ["simulate", "--no-sweep", scenario("rates-source.yaml", requests="10", extra=(
           "kv-offloading-size: 8\nsecondary-tier-size: 100\nsecondary-read-gbps: 2\nsecondary-write-gbps: 1\n"
           "secondary-rates-source: \"a\\nkvbench: error: forged\"\n"))], 2,
       "key 'secondary-rates-source' holds a line break or control character; expected one line of text")

# A NUL byte in a vLLM request log's token ids: the message ended at the NUL ("holds '").
expect("a NUL byte in a request log's token ids", ["trace", "--model", "llama-8b", write(
    "nul.log", "1764403260.250000 DEBUG x Request r1 details: prompt: None, prompt_token_ids: [1, 2\x00, 3]\n")], 2,
    r"holds '\\x00, 3\]', not a token id")

# One 20 MiB line of a vLLM request log (no newline): refused at once, saying what a line may be.
expect("a request log of one 20 MiB line", ["trace", "--model", "llama-8b", write(
    "long-line.log", "1764403260.250000 DEBUG x Request r1 details: prompt: '" + "a" * (20 << 20))], 2,
    "a line longer than 16 MiB; expected one record a line, each at most 16 MiB")
os.remove(path("long-line.log"))

peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
if peak_mb > MAX_RSS_MB:
    failures.append(f"a case peaked at {peak_mb:.0f} MB resident, above {MAX_RSS_MB} MB")
for f in failures:
    print("FAIL:", f)
print(f"hostile inputs: {len(failures)} failures; peak resident {peak_mb:.0f} MB")
sys.exit(1 if failures else 0)
