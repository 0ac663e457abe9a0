#!/usr/bin/env python3
"""deploy/grafana/kvbench.json against what kvbench exports (issue 25 §5): every panel has a query,
every metric a query names is one `kvbench dma --format prom` or `kvbench doctor --format prom`
prints (run here, host backend), and every label a query selects, groups or joins on is one those
series carry (or one Prometheus adds when it scrapes: instance, job).

A metric kvbench declares (# HELP) but this machine has no series of (the link ceiling, unknown on
the host backend) takes its labels from the printer's format string in the source.

usage: grafana_dashboard_test.py KVBENCH DASHBOARD_JSON SOURCE_DIR
"""
import json
import re
import subprocess
import sys

kvbench, path, source = sys.argv[1:4]
SCRAPE_LABELS = {"instance", "job"}


def exported(*args):
    done = subprocess.run([kvbench, *args], capture_output=True, text=True, timeout=120)
    if done.returncode not in (0, 1):  # doctor exits 1 when a check fails on this machine
        sys.exit(f"FAIL: kvbench {' '.join(args)} exited {done.returncode}: {done.stderr}")
    labels = {}
    for line in done.stdout.splitlines():
        declared = re.match(r"^# HELP (kvbench_[a-z0-9_]+) ", line)
        if declared:
            labels.setdefault(declared.group(1), set())
        m = re.match(r"^(kvbench_[a-z0-9_]+)\{(.*)\} ", line)
        if m:
            labels.setdefault(m.group(1), set()).update(re.findall(r'([a-z_]+)="', m.group(2)))
    return labels


metrics = exported("dma", "--backend", "host", "--block", "4KiB,2MiB", "--max-time", "0.05", "--format", "prom")
metrics.update(exported("dma", "--backend", "host", "--block", "2MiB", "--max-time", "0.05", "--with-compute", "--format", "prom"))
metrics.update(exported("doctor", "--format", "prom"))
for printer in ("dma/dma_prometheus.cpp", "doctor/doctor_output.cpp"):
    text = open(f"{source}/src/output/{printer}").read()
    for name, fmt_labels in re.findall(r'"(kvbench_[a-z0-9_]+)\{\{([^}]*)\}\}', text):
        if not metrics.get(name):
            metrics[name] = set(re.findall(r'([a-z_]+)=\\?"', fmt_labels))
dash = json.load(open(path))
failures = []
for key in ("title", "uid", "schemaVersion", "panels", "templating"):
    if key not in dash:
        failures.append(f"the dashboard has no '{key}'")


def check_expr(expr, where):
    names = re.findall(r"\bkvbench_[a-z0-9_]+", expr)
    if not names:
        failures.append(f"{where}: names no kvbench metric: {expr}")
    known = set(SCRAPE_LABELS)
    for name in names:
        if name not in metrics:
            failures.append(f"{where}: {name} is not exported by kvbench")
        else:
            known |= metrics[name]
    for name, selector in re.findall(r"(kvbench_[a-z0-9_]+)\{([^}]*)\}", expr):
        for label in re.findall(r"([a-z_]+)\s*(?:=~|!=|!~|=)", selector):
            if label not in metrics.get(name, set()) | SCRAPE_LABELS:
                failures.append(f"{where}: {name} has no label '{label}'")
    for group in re.findall(r"\b(?:by|on|without|ignoring)\s*\(([^)]*)\)", expr):
        for label in filter(None, (g.strip() for g in group.split(","))):
            if label not in known:
                failures.append(f"{where}: groups on '{label}', which no series in the query carries")


for panel in dash.get("panels", []):
    where = f"panel {panel.get('id')} '{panel.get('title')}'"
    targets = panel.get("targets", [])
    if not targets:
        failures.append(f"{where}: no query")
    for t in targets:
        check_expr(t.get("expr", ""), where)
for var in dash.get("templating", {}).get("list", []):
    m = re.match(r"label_values\((kvbench_[a-z0-9_]+),\s*([a-z_]+)\)", str(var.get("query", "")))
    if var.get("type") == "query":
        if not m:
            failures.append(f"variable {var.get('name')}: expected label_values(kvbench_..., label)")
        elif m.group(1) not in metrics or m.group(2) not in metrics[m.group(1)] | SCRAPE_LABELS:
            failures.append(f"variable {var.get('name')}: {m.group(1)} has no label {m.group(2)}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"grafana: {len(dash['panels'])} panels, every query on exported kvbench metrics and labels")
