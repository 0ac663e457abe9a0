#!/usr/bin/env python3
"""kvbench observe against a local HTTP server (issue 56, item 1). A server on 127.0.0.1 (a free
port) serves the metric dumps of tests/data/observe/, whose names and types come from vLLM's and
SGLang's sources (cited at the top of each dump): each path answers its "before" dump first and its
"after" dump from then on, so the counters grow between kvbench's scrapes. Checked:

* a vLLM tier that pays, one that only stores (the first releases' names), an SGLang HiCache pool:
  the JSON's deltas are the dumps' differences (worked out by hand in tests/unit/observe), the
  rates are those deltas over the seconds kvbench measured, and the verdict is the expected one;
* a server that stalls past --timeout, answers garbage, HTML, 404, loops on redirects, restarts
  between the scrapes (a counter falls) or is not there: exit 2 with one 'kvbench: ' line naming
  the URL, within its timeout and a margin;
* the same two dumps read from files (--from/--to --seconds) give the same verdict.

usage: observe_test.py KVBENCH DATA_DIR
"""
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

kvbench, data_dir = sys.argv[1:3]
dumps = os.path.join(data_dir, "observe")
failures = []


def read(name):
    with open(os.path.join(dumps, name), "rb") as f:
        return f.read()


SEQUENCES = {  # path: the bodies answered in turn (the last one repeats)
    "/vllm-pays": [read("vllm_pays_before.prom"), read("vllm_pays_after.prom")],
    "/vllm-stores": [read("vllm_stores_before.prom"), read("vllm_stores_after.prom")],
    "/sglang": [read("sglang_hicache_before.prom"), read("sglang_hicache_after.prom")],
    "/vllm-pays-text": [read("vllm_pays_before.prom"), read("vllm_pays_after.prom")],
    "/restart": [read("vllm_pays_after.prom"), read("vllm_pays_before.prom")],
}
served = {}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="text/plain; version=0.0.4; charset=utf-8", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path in SEQUENCES:
            with lock:
                n = served.get(self.path, 0)
                served[self.path] = n + 1
            bodies = SEQUENCES[self.path]
            self.answer(200, bodies[min(n, len(bodies) - 1)])
        elif self.path == "/stall":
            time.sleep(6)  # past kvbench's --timeout 1
            try:
                self.answer(200, read("vllm_pays_before.prom"))
            except OSError:
                pass  # kvbench gave up, as it should
        elif self.path == "/garbage":
            self.answer(200, b"vllm:prefix_cache_hits_total{engine=\"0\" 12\n\x01\x02 not metrics\n")
        elif self.path == "/html":
            self.answer(200, b"<html><body>login</body></html>", "text/html")
        elif self.path == "/loop":
            self.answer(302, b"", extra=[("Location", "/loop")])
        else:
            self.answer(404, b"not found\n")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_address[1]}"


def run(args, limit=30):
    start = time.monotonic()
    p = subprocess.run([kvbench, "observe"] + args, capture_output=True, timeout=limit)
    return p, time.monotonic() - start


def check_window(name, path, verdict, deltas):
    p, _ = run([base + path, "--interval", "1", "--duration", "1", "--json"])
    if p.returncode != 0:
        failures.append(f"{name}: exit {p.returncode}: {p.stderr.decode()[-300:]}")
        return
    doc = json.loads(p.stdout)
    got = {r["figure"]: r for r in doc["readings"]}
    if doc["schema"] != "kvbench/observe/v1" or doc["sources"]["scrapes"] != 2:
        failures.append(f"{name}: schema/scrapes {doc['schema']} {doc['sources']['scrapes']}")
    if not 0.9 <= doc["seconds"] <= 5:
        failures.append(f"{name}: a 1 s window measured as {doc['seconds']} s")
    for figure, delta in deltas.items():
        r = got.get(figure)
        if r is None or abs(r["delta"] - delta) > 1e-6 * max(1, delta):
            failures.append(f"{name}: {figure} delta {r and r['delta']}, expected {delta}")
        elif abs(r["per_second"] * doc["seconds"] - delta) > 1e-6 * max(1, delta):
            failures.append(f"{name}: {figure} rate {r['per_second']}/s is not its delta over {doc['seconds']} s")
    if doc["verdict"]["kind"] != verdict:
        failures.append(f"{name}: verdict {doc['verdict']['kind']}, expected {verdict}: {doc['verdict']['text']}")


check_window("vllm pays", "/vllm-pays", "pays",
             {"tier_hits": 36000, "tier_queries": 72000, "store_bytes": 6e9, "load_bytes": 4.5e9, "preemptions": 3})
check_window("vllm only stores", "/vllm-stores", "costs", {"store_bytes": 8e9, "load_bytes": 2e7})
check_window("sglang hicache", "/sglang", "pays",
             {"prompt_tokens": 240000, "host_cached_tokens": 60000, "gpu_cached_tokens": 96000})

p, _ = run([base + "/vllm-pays-text", "--interval", "1", "--duration", "1"])  # the table
if p.returncode != 0 or not re.search(r"^Verdict: the tier pays: 36,000 of 72,000 tokens", p.stdout.decode(), re.M):
    failures.append(f"vllm pays, text: exit {p.returncode}: {p.stdout.decode()[-400:]}")


def refused(name, args, pattern, limit_s):
    p, took = run(args)
    err = p.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    if p.returncode != 2:
        failures.append(f"{name}: exit {p.returncode}, expected 2: {err[-300:]}")
    elif len(lines) != 1 or not lines[0].startswith("kvbench: error: "):
        failures.append(f"{name}: stderr is not one 'kvbench: error:' line: {lines[:3]}")
    elif not re.search(pattern, err):
        failures.append(f"{name}: /{pattern}/ not in: {err.strip()}")
    elif took > limit_s:
        failures.append(f"{name}: took {took:.1f} s, expected under {limit_s} s")


quick = ["--interval", "1", "--duration", "1", "--timeout", "1"]
refused("stall", [base + "/stall"] + quick, r"/stall: no complete answer within 1 s", 4)
refused("garbage", [base + "/garbage"] + quick, r"/garbage line 1: .*Prometheus text format", 4)
refused("html", [base + "/html"] + quick, r"content type 'text/html'", 4)
refused("404", [base + "/nothing"] + quick, r"HTTP status 404", 4)
refused("redirect loop", [base + "/loop"] + quick, r"more than 3 redirects", 4)
refused("restart", [base + "/restart"] + quick, r"fell from .* the server restarted", 6)
closed = socket.socket()
closed.bind(("127.0.0.1", 0))
closed_port = closed.getsockname()[1]
closed.close()  # nothing listens there now
refused("nobody there", [f"http://127.0.0.1:{closed_port}/metrics"] + quick, rf"127.0.0.1:{closed_port}/metrics: ", 4)
refused("not a URL", ["ftp://127.0.0.1/metrics"] + quick, r"not an http:// or https:// URL", 4)
refused("url and dumps", [base + "/sglang", "--from", "a", "--to", "b"], r"either a URL", 4)

# The same dumps read from files give the same verdicts, with no network.
for before, after, verdict in [("vllm_pays", "vllm_pays", "pays"), ("vllm_stores", "vllm_stores", "costs"),
                               ("sglang_hicache", "sglang_hicache", "pays")]:
    p, _ = run(["--from", os.path.join(dumps, before + "_before.prom"),
                "--to", os.path.join(dumps, after + "_after.prom"), "--seconds", "60", "--json"])
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    if doc.get("verdict", {}).get("kind") != verdict or doc.get("seconds") != 60:
        failures.append(f"dumps {before}: exit {p.returncode}, {doc.get('verdict')}: {p.stderr.decode()[-200:]}")

server.shutdown()
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("observe: 3 windows, 9 refusals and 3 dump pairs as expected")
