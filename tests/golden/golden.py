#!/usr/bin/env python3
"""Golden-output check: run one kvbench case from cases.txt and diff its JSON with the saved file.

  golden.py KVBENCH CASES_FILE NAME            check one case (exit 1 on a difference)
  golden.py KVBENCH CASES_FILE --update [NAME] rewrite the saved file(s)

Numbers are compared with a tight relative tolerance (1e-9) so that a re-ordered floating-point sum
passes and a changed result does not; strings, keys and list lengths must match exactly. Volatile
fields (the tool's version) are left out.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

REL_TOL = 1e-9
ABS_TOL = 1e-12
VOLATILE_KEYS = {"tool", "kvbench_version", "version"}


def read_cases(path):
    cases = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, args = line.partition(":")
            cases[name.strip()] = args.split()
    return cases


def strip_volatile(value):
    if isinstance(value, dict):
        return {k: strip_volatile(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [strip_volatile(v) for v in value]
    return value


def run_case(kvbench, args):
    done = subprocess.run([kvbench, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"golden: kvbench {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return strip_volatile(json.loads(done.stdout))


def differences(expected, actual, path="$"):
    """Yield one line per difference, naming its JSON path."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        if expected is not actual:
            yield f"{path}: expected {expected!r}, got {actual!r}"
    elif isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if not math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            yield f"{path}: expected {expected!r}, got {actual!r}"
    elif isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys()):
            if key not in actual:
                yield f"{path}.{key}: missing"
            elif key not in expected:
                yield f"{path}.{key}: new field"
            else:
                yield from differences(expected[key], actual[key], f"{path}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            yield f"{path}: expected {len(expected)} items, got {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            yield from differences(e, a, f"{path}[{i}]")
    elif expected != actual:
        yield f"{path}: expected {expected!r}, got {actual!r}"


def write_atomically(path, value):
    folder = os.path.dirname(path)
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, encoding="utf-8") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")
    os.chmod(f.name, 0o644)
    os.replace(f.name, path)


def self_test():
    """The comparison itself must find what it exists to find."""
    same = {"a": 1.0, "b": [1, "x"], "tool": "kvbench 0.1.0"}
    assert not list(differences(strip_volatile(same), strip_volatile(dict(same, tool="kvbench 9"))))
    assert not list(differences({"a": 1.0}, {"a": 1.0 + 1e-12}))
    assert list(differences({"a": 1.0}, {"a": 1.0 + 1e-6}))
    assert list(differences({"a": 1}, {"a": 1, "b": 2}))
    assert list(differences({"a": [1, 2]}, {"a": [1]}))
    assert list(differences({"a": "x"}, {"a": "y"}))
    assert list(differences({"a": True}, {"a": 1}))
    print("golden: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    kvbench, cases_file = sys.argv[1], sys.argv[2]
    cases = read_cases(cases_file)
    folder = os.path.dirname(os.path.abspath(cases_file))
    if sys.argv[3] == "--update":
        names = sys.argv[4:] or list(cases)
        for name in names:
            write_atomically(os.path.join(folder, name + ".json"), run_case(kvbench, cases[name]))
            print(f"golden: wrote tests/golden/{name}.json")
        return
    name = sys.argv[3]
    if name not in cases:
        sys.exit(f"golden: no case '{name}' in {cases_file}")
    saved = os.path.join(folder, name + ".json")
    with open(saved, encoding="utf-8") as f:
        expected = json.load(f)
    found = list(differences(expected, run_case(kvbench, cases[name])))
    for line in found[:40]:
        print(line)
    if found:
        print(f"golden: {name}: {len(found)} difference(s) from {saved}"
              " (scripts/update-golden.sh rewrites it; say why in the commit)")
        sys.exit(1)
    print(f"golden: {name}: matches")


if __name__ == "__main__":
    main()
