#!/usr/bin/env python3
"""Prints which folders of src/ include which (from the sources' #include "folder/..." lines) and
any cycle between folders; exit 1 on a cycle. The build enforces each folder's allowed includes
(cmake/CheckLayer.cmake); this shows the graph they form.

usage: scripts/layer-graph.py [REPO_ROOT]
"""
import os
import re
import sys

root = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "src")
folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
edges = {f: set() for f in folders}
include = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
for folder in folders:
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith((".cpp", ".hpp", ".cu", ".h")):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = include.match(line)
                    if m and m.group(1) in edges and m.group(1) != folder:
                        edges[folder].add(m.group(1))

for folder in folders:
    print(f"{folder:>10} -> {', '.join(sorted(edges[folder])) or '(nothing)'}")


def cycle_from(start):
    """A path back to `start`, if any (depth-first)."""
    stack = [(start, [start])]
    seen = set()
    while stack:
        node, path = stack.pop()
        for nxt in edges[node]:
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return None


cycles = [c for c in (cycle_from(f) for f in folders) if c]
for c in cycles:
    print("cycle: " + " -> ".join(c))
sys.exit(1 if cycles else 0)
