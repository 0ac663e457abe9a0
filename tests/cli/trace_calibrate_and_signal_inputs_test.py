#!/usr/bin/env python3
"""Hostile inputs to trace, calibrate --from-vllm, doctor's cgroup trees, signals and implicit outputs,
one case per row of issue 33's table. Each row's case failed before the fix: it hung,
exited 3, wrote a partial answer or lost data. Each must now do what the row's last column says.

usage: trace_calibrate_and_signal_inputs_test.py KVBENCH DATA_DIR WORK_DIR
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

kvbench, data_dir, work = (os.path.abspath(a) for a in sys.argv[1:4])  # kvbench runs in WORK_DIR
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
SECONDS = 20  # generous for a sanitized build on 2 cores
SERVER = ["--model", "qwen3-14b", "--hw", "h100", "--max-model-len", "40960", "--num-gpu-blocks", "18038"]
SESSIONS = os.path.join(data_dir, "traces", "sessions.jsonl")


def path(name):
    return os.path.join(work, name)


def write(name, text, mode="w"):
    p = path(name if isinstance(name, str) else os.fsdecode(name))  # bytes: kept by surrogateescape
    with open(p, mode) as f:
        f.write(text)
    return p


def run(row, args, code, pattern=None, env=None, preexec=None, limit=SECONDS):
    """Runs kvbench; checks the exit code, one 'kvbench: ' line on stderr for errors, the pattern."""
    start = time.monotonic()
    try:
        p = subprocess.run([kvbench] + args, capture_output=True, timeout=limit * 3, env=env, preexec_fn=preexec,
                           cwd=work)  # implicit outputs (kvbench-calibration.yaml) land here
    except subprocess.TimeoutExpired:
        failures.append(f"row {row}: still running after {limit * 3} s: {args}")
        return None
    took = time.monotonic() - start
    err = p.stderr.decode("utf-8", "replace")
    out = p.stdout.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    if p.returncode != code:
        failures.append(f"row {row}: exit {p.returncode}, expected {code}: {err[-400:]}")
    elif code >= 2 and (len(lines) != 1 or not lines[0].startswith("kvbench: ")):
        failures.append(f"row {row}: stderr is not one 'kvbench: ' line: {lines[:3]}")
    elif pattern and pattern not in err + out:
        failures.append(f"row {row}: output lacks '{pattern}': {err[-400:]}")
    elif took > limit:
        failures.append(f"row {row}: took {took:.1f} s")
    return p


def json_of(row, p):
    """stdout as JSON, which must be valid UTF-8 (no raw byte of a path)."""
    if p is None:
        return None
    try:
        return json.loads(p.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        failures.append(f"row {row}: stdout is not UTF-8 JSON ({e})")
        return None


def residency_csv(name, rows, header="send_us,server_input_tokens,output_tokens,ttft_us,e2e_us"):
    return write(name, header + "\n" + "".join(",".join(str(c) for c in r) + "\n" for r in rows))


def healthy(name):
    root = path(name if isinstance(name, str) else os.fsdecode(name))
    shutil.copytree(os.path.join(data_dir, "nodes", "healthy"), root)
    return root


RUNS = [(i * 250_000, 512 + 64 * (i % 5), 32, 40_000, 40_000 + 31 * 12_000) for i in range(200)]

# 1. A legal name with a byte that is not UTF-8: every subcommand works; JSON carries it escaped.
bad_trace = write(b"bad\xff.jsonl", open(SESSIONS).read())
doc = json_of(1, run(1, ["trace", bad_trace, "--model", "llama-3.1-8b", "--json"], 0))
if doc is not None and doc["trace"] != path("bad\\xff.jsonl"):
    failures.append(f"row 1: trace JSON names {doc['trace']!r}, expected the \\xff spelling")
json_of(1, run(1, ["simulate", "chat-multi-turn", "--trace", bad_trace, "--model", "llama-3.1-8b", "--json"], 0))
json_of(1, run(1, ["size", "--model", "llama-3.1-8b", "--trace", bad_trace, "--json"], 0, limit=60))
bad_config = write(b"cfg\xfe.json", open(os.path.join(data_dir, "qwen3-14b.config.json")).read())
json_of(1, run(1, ["size", "--model", bad_config, "--json"], 0))
bad_root = healthy(b"node\xff")
json_of(1, run(1, ["doctor", "--root", bad_root, "--json"], 0))
p = run(1, ["trace", write(b"broken\xff\n.jsonl", "{}\n"), "--model", "llama-3.1-8b"], 2, "broken\\xff\\n.jsonl")
bad_workload = write(b"wl\xff.yaml", open(os.path.join(data_dir, "scenario-small.yaml")).read())
json_of(1, run(1, ["size", "--model", "llama-3.1-8b", "--workload", bad_workload, "--requests", "50", "--json"], 0,
               limit=60))
json_of(1, run(1, ["simulate", bad_workload, "--json"], 0))
bad_cal = write(b"cal\xff.yaml", open(os.path.join(data_dir, "calibration-calibrate-format.yaml")).read())
json_of(1, run(1, ["simulate", "chat-multi-turn", "--requests", "20", "--calibration", bad_cal, "--json"], 0))
bad_dma = write(b"dma\xff.json", open(os.path.join(data_dir, "host-dma-profile.json")).read())
json_of(1, run(1, ["simulate", "chat-multi-turn", "--requests", "20", "--link-profile", bad_dma, "--json"], 0))
json_of(1, run(1, ["compare", bad_dma, bad_dma, "--json"], 0))
p = run(1, ["compare", bad_dma, os.path.join(data_dir, "host-dma-slow.json")], 1)
for stream in (p.stdout, p.stderr) if p else ():
    try:
        stream.decode("utf-8")
    except UnicodeDecodeError:
        failures.append("row 1: compare's text carries a raw byte of a path")
run(1, ["report", bad_dma, "-o", path("bad.html")], 0)
try:
    open(path("bad.html"), "rb").read().decode("utf-8")
except (OSError, UnicodeDecodeError) as e:
    failures.append(f"row 1: the report page is not UTF-8 ({e})")

# 2. doctor --root: a cgroup memory.max that is a FIFO or a link to /dev/zero is named, never read.
for kind in ("fifo", "zero"):
    root = healthy(f"node-{kind}")
    with open(os.path.join(root, "proc", "self", "cgroup"), "w") as f:
        f.write("0::/\n")
    cg = os.path.join(root, "sys", "fs", "cgroup")
    os.makedirs(cg, exist_ok=True)
    target = os.path.join(cg, "memory.max")
    if os.path.lexists(target):
        os.remove(target)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero", target)
    run(2, ["doctor", "--root", root], 2, "is a FIFO" if kind == "fifo" else "is a character device", limit=10)


# 3. SIGINT/SIGTERM during trace: a FIFO without a writer stops at once (130); a pass stopped
#    half-way says interrupted: true (143) and covers what was read.
def fifo(name):
    p = path(name)
    os.mkfifo(p)
    return p


def wait_open(proc, target, limit=60):
    """Waits until proc holds target open: its signal handlers are installed by then (a slow start
    under the sanitizers must not take the signal first)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
            if any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == target for fd in fds):
                time.sleep(0.3)  # now blocked in the read
                return
        except OSError:
            pass
        time.sleep(0.05)


# Every input waits the same way, and a signal stops the wait: a trace, a result or a vLLM run read
# from a FIFO without a writer.
for name, args, sig, want in [
        ("nowriter.fifo", ["trace", "--model", "llama-3.1-8b", "--json"], signal.SIGINT, 130),
        ("base.fifo", ["compare", os.path.join(data_dir, "host-dma-profile.json")], signal.SIGTERM, 143),
        ("results.fifo", ["calibrate", *SERVER, "--from-vllm"], signal.SIGTERM, 143)]:
    waiting = fifo(name)
    proc = subprocess.Popen([kvbench, *args, waiting], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_open(proc, waiting)
    proc.send_signal(sig)
    try:
        proc.communicate(timeout=5)
        if proc.returncode != want:
            failures.append(f"row 3: {args[0]} on a FIFO without a writer exited {proc.returncode} after "
                            f"{sig.name}, expected {want}")
    except subprocess.TimeoutExpired:
        proc.kill()
        failures.append(f"row 3: {args[0]} on a FIFO without a writer ignored {sig.name}")
half = fifo("half.fifo")
proc = subprocess.Popen([kvbench, "trace", half, "--model", "llama-3.1-8b", "--json"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
writer = open(half, "w")
writer.write("".join(json.dumps({"arrival_s": i, "prompt_tokens": 100, "output_tokens": 4, "session": f"s{i}"})
                     + "\n" for i in range(10)))
writer.flush()
time.sleep(2)  # the reader opened the FIFO (the writer's open returned): it reads the 10 lines and waits
proc.send_signal(signal.SIGTERM)
try:
    out, _ = proc.communicate(timeout=5)
    doc = json.loads(out) if proc.returncode == 143 else None
    if doc is None or doc.get("interrupted") is not True or doc.get("requests") != 10:
        failures.append(f"row 3: trace after SIGTERM exited {proc.returncode}, expected 143 and interrupted: true "
                        f"over 10 requests: {out[:200]!r}")
except subprocess.TimeoutExpired:
    proc.kill()
    failures.append("row 3: trace reading a FIFO ignored SIGTERM")
writer.close()

# 4. simulate --trace and size --trace read the trace once per run: a pipe is refused, not read twice.
r, w = os.pipe()
threading.Thread(target=lambda: (os.write(w, open(SESSIONS, "rb").read()[:60000]), os.close(w)), daemon=True).start()
p = subprocess.run([kvbench, "simulate", "chat-multi-turn", "--trace", f"/dev/fd/{r}", "--model", "llama-3.1-8b"],
                   capture_output=True, text=True, pass_fds=(r,), timeout=60)
os.close(r)
if p.returncode != 2 or "can be read only once" not in p.stderr:
    failures.append(f"row 4: simulate --trace on a pipe exited {p.returncode}: {p.stderr[-300:]}")
run(4, ["size", "--model", "llama-3.1-8b", "--trace", fifo("size.fifo")], 2, "can be read only once", limit=10)

# 5. calibrate --from-vllm with a full TMPDIR (a file-size limit stands in): exit 2, no temp file left.
tmp5 = path("tmp5")
os.makedirs(tmp5)
runs = residency_csv("runs.csv", RUNS)


def small_files():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))


run(5, ["calibrate", "--from-vllm", runs, *SERVER], 2, "write failed", env={**os.environ, "TMPDIR": tmp5},
    preexec=small_files)
if os.listdir(tmp5):
    failures.append(f"row 5: temporary files left in TMPDIR: {os.listdir(tmp5)}")

# 6. cgroup v2: the usage is the one of the cgroup with the limit; garbage there is named.
root = path("node-ancestor")
shutil.copytree(os.path.join(data_dir, "nodes", "pod-limit"), root)
pod = os.path.join(root, "sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod7c1e.slice")
write(os.path.join(pod, "memory.current"), str(95 << 30))
write(os.path.join(pod, "cri-containerd-4f2a.scope", "memory.current"), str(1 << 30))
doc = json_of(6, run(6, ["doctor", "--root", root, "--json"], 1))
if doc is not None and doc["node_memory"]["cgroup_usage_bytes"] != 95 << 30:
    failures.append(f"row 6: cgroup usage {doc['node_memory']['cgroup_usage_bytes']}, expected the pod's 95 GiB")
write(os.path.join(pod, "memory.current"), "lots\n")
run(6, ["doctor", "--root", root], 2, "memory.current: 'lots' is not a byte count")

# 7. Absurd speeds and rates are refused.
far = write("far.jsonl", '{"arrival_s": 0, "prompt_tokens": 100, "output_tokens": 4, "session": "a"}\n'
                         '{"arrival_s": 5000, "prompt_tokens": 100, "output_tokens": 4, "session": "b"}\n')
run(7, ["simulate", "chat-multi-turn", "--trace", far, "--model", "llama-3.1-8b", "--trace-speed", "0.000001"], 2,
    "expected at most 1e9 s")
bench = {"request_rate": 1e-300, "input_lens": [100, 200], "output_lens": [10, 20], "ttfts": [0.02, 0.03],
         "itls": [[0.01] * 9, [0.01] * 19]}
run(7, ["calibrate", "--from-vllm", write("rate.json", json.dumps(bench)), *SERVER], 2, "field 'request_rate' is 1e-300")

# 8. CSV traces: bad arrivals are refused with the line number.
for name, cell in [("negative", "-5"), ("huge", "1e300"), ("junk", "46.68junk"),
                   ("date-junk", "2023-11-16 18:15:46.68junk")]:
    csv = write(f"{name}.csv", f"arrival_s,prompt_tokens,output_tokens\n0,100,4\n{cell},100,4\n")
    run(8, ["trace", csv, "--model", "llama-3.1-8b"], 2, f"{name}.csv:3: arrival")

# 9. A sample that keeps no request is refused.
run(9, ["size", "--model", "llama-3.1-8b", "--trace", SESSIONS, "--trace-sample", "0.0000000001"], 2,
    "no request left after --trace-sample")

# 10. --from-vllm: each bad field named with the file and its index.
for field, value, said in [("input_lens", [100_000_000, 200], "input_lens[0] is 100000000"),
                           ("output_lens", [10, -3], "output_lens[1] is -3")]:
    doc = dict(bench, request_rate=4)
    doc[field] = value
    run(10, ["calibrate", "--from-vllm", write(f"{field}.json", json.dumps(doc)), *SERVER], 2,
        f"{field}.json: {said}")
run(10, ["calibrate", "--from-vllm", residency_csv("e2e.csv", [(0, 100, 10, 5000, 4000)]), *SERVER], 2,
    "e2e.csv:2: e2e_us 4000 is below ttft_us 5000")

# 11. TMPDIR that does not exist: exit 2 naming TMPDIR.
run(11, ["calibrate", "--from-vllm", runs, *SERVER], 2, "TMPDIR '/nonexistent'",
    env={**os.environ, "TMPDIR": "/nonexistent"})

# 12. A byte-order mark is stripped; the format is chosen by the first record's keys.
bom = write("bom.csv", "\ufeffarrival_s,prompt_tokens,output_tokens\n0,100,4\n1,200,8\n")
doc = json_of(12, run(12, ["trace", bom, "--model", "llama-3.1-8b", "--json"], 0))
if doc is not None and (doc["requests"] != 2 or not doc["format"].startswith("CSV")):
    failures.append(f"row 12: the BOM CSV read as {doc['format']} with {doc['requests']} requests")
nested = write("nested.jsonl", '{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 1, "session": "a", '
                               '"meta": {"timestamp": 1, "hash_ids": []}}\n')
doc = json_of(12, run(12, ["trace", nested, "--model", "llama-3.1-8b", "--json"], 0))
if doc is not None and doc["format"] != "kvbench JSONL":
    failures.append(f"row 12: nested keys made it {doc['format']}")

# 13. A path with a newline is escaped in the calibration file's comment (one key, read back).
newline_runs = residency_csv("runs\ncompute-efficiency: 9.csv", RUNS[:20])
cal = path("fitted.yaml")
run(13, ["calibrate", "--from-vllm", newline_runs, *SERVER, "-o", cal], 0, limit=120)
if os.path.exists(cal):
    keys = [line for line in open(cal) if line.startswith("compute-efficiency:")]
    if len(keys) != 1:
        failures.append(f"row 13: the calibration file has {len(keys)} compute-efficiency keys")
    run(13, ["simulate", "chat-multi-turn", "--requests", "20", "--calibration", cal], 0)

# 14. A legal 251-byte output name works, and nothing is left beside it.
out14 = path("o14")
os.makedirs(out14)
long_name = os.path.join(out14, "n" * 251)
run(14, ["size", "--model", "llama-3.1-8b", "--json", "-o", long_name], 0)
if os.listdir(out14) != ["n" * 251]:
    failures.append(f"row 14: {os.listdir(out14)} in the output directory, expected the one file")

# 15. Output = input is refused before any work: the trace's last line is broken, so a run that
#     read the trace before checking its output would stop there, with another message.
big = path("big.jsonl")
with open(big, "w") as f:
    for i in range(40_000):
        f.write(json.dumps({"arrival_s": i * 0.05, "prompt_tokens": 2000, "output_tokens": 64,
                            "session": f"s{i % 500}"}) + "\n")
    f.write("not a record\n")
before = open(big, "rb").read()
run(15, ["size", "--model", "llama-3.1-8b", "--trace", big, "-o", big], 2, "is one of this command's input files")
run(15, ["trace", big, "--model", "llama-3.1-8b", "-o", big], 2, "is one of this command's input files")
if open(big, "rb").read() != before:
    failures.append("row 15: the input trace was changed")

# 16. report --save-json DIR: a link planted at DIR/dma.json is replaced, its target untouched.
save = path("save")
os.makedirs(save)
outside = write("outside.txt", "precious\n")
os.symlink(outside, os.path.join(save, "dma.json"))
# The lightest shipped scenario: what is checked is where the JSON lands, not the simulation (with
# chat-multi-turn this run took 330 s under the sanitizers on a 2-core machine).
run(16, ["report", "--backend", "host", "--block", "64KiB", "--compute-block", "none", "--max-time", "0.05",
         "--models", "llama-3.1-8b", "--scenario", "ttft-reload", "--save-json", save, "-o",
         os.path.join(save, "r.html")], 0, limit=300)
if open(outside).read() != "precious\n":
    failures.append("row 16: the planted link's target was overwritten")
if os.path.islink(os.path.join(save, "dma.json")):
    failures.append("row 16: dma.json is still the planted link")

# calibrate's default kvbench-calibration.yaml (in the working directory) follows the same rule.
outside_cal = write("outside-cal.txt", "precious\n")
os.symlink(outside_cal, path("kvbench-calibration.yaml"))
run(16, ["calibrate", "--from-vllm", residency_csv("runs16.csv", RUNS[:20]), *SERVER], 0, limit=120)
if open(outside_cal).read() != "precious\n" or os.path.islink(path("kvbench-calibration.yaml")):
    failures.append("row 16: calibrate's default output followed the planted link")

# 17. compare: samples of 1e300 s are named as such.
dma = json.load(open(os.path.join(data_dir, "host-dma-profile.json")))
dma["records"][0]["samples"] = [1e300] * len(dma["records"][0]["samples"])
run(17, ["compare", os.path.join(data_dir, "host-dma-profile.json"), write("slow.json", json.dumps(dma))], 2,
    "has a sample of 1e+300 s")

for f in failures:
    print("FAIL:", f)
print(f"trace, calibrate and signal inputs: {len(failures)} failures")
sys.exit(1 if failures else 0)
