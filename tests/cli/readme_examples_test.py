#!/usr/bin/env python3
"""Every `kvbench` command in the README's ```sh blocks runs (issue 24 §5). A command is followed by
its shown output (the next ```text block), and:

* it must exit as the shown output says: 0, or 1 where it shows "SLOWER", 2 or 3 where it shows
  "kvbench: error" or "kvbench: device error";
* for computed commands (size, simulate, compare of committed files: same inputs, same figures)
  every shown line must appear in what the command prints, so a changed figure fails here;
* measured commands (dma, doctor, report, calibrate) depend on the machine: they must not exit 2,
  and may exit 0 (or 1 for doctor, whose checks fail on some machines) instead of a shown error.

usage: readme_examples_test.py KVBENCH README REPO_ROOT
"""
import re
import shlex
import subprocess
import sys

kvbench, readme, root = sys.argv[1:4]
MEASURED = {"dma", "doctor", "report", "calibrate"}
blocks = re.findall(r"```(\w*)\n(.*?)```", open(readme, encoding="utf-8").read(), flags=re.S)
failures, ran = [], 0
for i, (lang, body) in enumerate(blocks):
    if lang != "sh":
        continue
    shown = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "text" else ""
    for line in body.splitlines():
        if not line.startswith("kvbench "):
            continue
        args = shlex.split(line.split(" #")[0])[1:]
        p = subprocess.run([kvbench] + args, cwd=root, capture_output=True, text=True, timeout=600)
        ran += 1
        out = (p.stdout + p.stderr).splitlines()
        printed = {o.rstrip() for o in out}
        want = 3 if "kvbench: device error" in shown else 2 if "kvbench: error" in shown else 1 if "SLOWER" in shown else 0
        measured = args[0] in MEASURED
        allowed = {want, 0} | ({1} if args[0] == "doctor" else set()) if measured else {want}
        if p.returncode not in allowed or (measured and p.returncode == 2):
            failures.append(f"{line}: exit {p.returncode}, the README shows {want}: {p.stderr.strip()[-300:]}")
            continue
        if measured:
            continue
        for s in shown.splitlines():
            if s.strip() and s.rstrip() not in printed:
                failures.append(f"{line}: the README shows a line it no longer prints:\n    {s}")
for f in failures:
    print("FAIL:", f)
print(f"README examples: {ran} commands run, {len(failures)} failures")
sys.exit(1 if failures or ran == 0 else 0)
