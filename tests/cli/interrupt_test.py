#!/usr/bin/env python3
"""Interrupted runs keep what was measured (issue 25 §2), with real signals: SIGINT or SIGTERM
during dma, simulate and size --workload writes the cases finished so far, atomically, with
"interrupted": true and the case that was running, and exits 130 / 143; a second signal exits at
once without writing half a file.

usage: interrupt_test.py KVBENCH WORKDIR
"""
import json
import os
import signal
import subprocess
import sys
import time

kvbench, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def start(args):
    return subprocess.Popen([kvbench, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_stderr(proc, needle, limit_s=120):
    """Reads stderr line by line until `needle` shows (the run is past its first case)."""
    seen = []
    deadline = time.time() + limit_s
    while time.time() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return "".join(seen)
    proc.kill()
    sys.exit(f"FAIL: '{needle}' never showed on stderr: {''.join(seen)[-2000:]}")


def finish(proc, limit_s=120):
    out, err = proc.communicate(timeout=limit_s)
    return proc.returncode, out, err


# 1. dma: SIGINT after the second case started: the first is kept, exit 130.
dma_out = f"{work}/dma.json"
with open(dma_out, "w") as f:
    f.write("old result\n")
blocks = "4KiB,8KiB,16KiB,32KiB,64KiB,128KiB,256KiB,512KiB,1MiB,2MiB"


def start_dma_past_first_case():
    """A host dma sweep of 10 cases of about a second each, once its second case has started."""
    p = start(["dma", "--backend", "host", "--block", blocks, "--direction", "h2d", "--method", "ce",
               "--min-time", "0.5", "--max-time", "1", "--json", "-o", dma_out])
    wait_for_stderr(p, "[2/10]")
    return p

proc = start_dma_past_first_case()
proc.send_signal(signal.SIGINT)
code, out, err = finish(proc)
check(code == 130, f"dma after SIGINT exited {code}, expected 130: {err[-500:]}")
doc = json.load(open(dma_out))
check(doc.get("interrupted") is True, "dma JSON lacks interrupted: true")
check(1 <= len(doc["records"]) < 10, f"dma kept {len(doc['records'])} records, expected the finished ones (1-9)")
check("h2d" in doc.get("interrupted_during", ""), f"dma interrupted_during: {doc.get('interrupted_during')}")
check(json.loads(out) == doc, "dma stdout and -o differ")
check("SIGINT during" in err, f"dma did not say what it stopped: {err[-300:]}")

# 2. The same with SIGTERM (a Slurm or Kubernetes time limit): exit 143.
proc = start_dma_past_first_case()
proc.send_signal(signal.SIGTERM)
code, _, err = finish(proc)
check(code == 143, f"dma after SIGTERM exited {code}, expected 143")
check(json.load(open(dma_out)).get("interrupted") is True, "dma JSON after SIGTERM lacks interrupted: true")

# 3. simulate: a sweep of six tier sizes, about 2 s each here; the progress line (printed once a
#    sweep runs past 2 s) says points have finished; the signal lands in a later one. One job: a
#    signal keeps the leading points whole, and with several jobs the first point to finish need not
#    be the first of the sweep (the progress line counts it; the document keeps none before it).
sim_out = f"{work}/sim.json"
proc = start(["simulate", "chat-multi-turn", "--requests", "50000", "--sweep",
              "kv-offloading-size=0,16,32,48,64,96", "--jobs", "1", "--json", "-o", sim_out])
wait_for_stderr(proc, "kvbench: simulated ", limit_s=600)
proc.send_signal(signal.SIGINT)
code, out, err = finish(proc, limit_s=600)
check(code == 130, f"simulate after SIGINT exited {code}, expected 130: {err[-500:]}")
doc = json.load(open(sim_out))
check(doc.get("interrupted") is True, "simulate JSON lacks interrupted: true")
check(1 <= len(doc["points"]) < 6, f"simulate kept {len(doc['points'])} points, expected 1-5")
check("kv-offloading-size=" in doc.get("interrupted_during", ""),
      f"simulate interrupted_during: {doc.get('interrupted_during')}")

# 4. size --workload (about 8 s of simulation here): no size from a partial curve; the curve so
#    far is written.
size_out = f"{work}/size.json"
proc = start(["size", "--model", "llama-3.1-8b", "--hw", "h100", "--ctx", "32k", "--workload", "doc-qa",
              "--requests", "8000", "--json", "-o", size_out])
time.sleep(2.0)
proc.send_signal(signal.SIGTERM)
code, out, err = finish(proc, limit_s=600)
check(code == 143, f"size --workload after SIGTERM exited {code}, expected 143 (finished before the signal?)")
if code == 143:
    doc = json.load(open(size_out))
    rec = doc["results"][0]["recommendation"]
    check(doc.get("interrupted") is True, "size JSON lacks interrupted: true")
    check(rec["bound"] == "interrupted" and rec["kv_offloading_size_gib"] == 0,
          f"size recommended {rec['kv_offloading_size_gib']} GiB ({rec['bound']}) from a partial curve")
    verdict = rec.get("verdict") or {}
    check(verdict.get("kind") == "interrupted" and verdict.get("signal") == "SIGTERM"
          and verdict.get("sizes") == len(rec["curve"]), f"size verdict: {verdict}")

# 5. A second signal exits at once: the old file stays whole, or the first signal's result was
#    complete before the second landed. Never half a file. (Two signals pending together are
#    delivered lowest number first, so either may be the "second": the status is 130 or 143.)
with open(dma_out, "w") as f:
    f.write("old result\n")
proc = start_dma_past_first_case()
proc.send_signal(signal.SIGTERM)
proc.send_signal(signal.SIGINT)
code, _, _ = finish(proc)
text = open(dma_out).read()
check(code in (130, 143), f"double signal: exit {code}, expected 130 or 143")
if text != "old result\n":
    check(json.loads(text).get("interrupted") is True, f"double signal left {text[:80]!r}")
leftovers = [n for n in os.listdir(work) if n.startswith(".") or ".tmp" in n]
check(not leftovers, f"temporary files left behind: {leftovers}")

if failures:
    sys.exit("FAIL:\n  " + "\n  ".join(failures))
print("interrupt: dma, simulate, size --workload keep what finished; 130/143; a second signal exits at once")
