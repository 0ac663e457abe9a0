#!/usr/bin/env python3
"""Runs one CLI case: kvbench's exit code and what its output must contain (tests/cli/README.md).

usage: cli_case.py KVBENCH SRC_DIR BUILD_DIR TABLE NAME
       cli_case.py --inline KVBENCH CODE PATTERN [--stdout-json] -- ARGS...
The first form runs case NAME of TABLE (tests/cli/cases/*.cases); the second is the CMake
function kvbench_cli_test's, a pattern written inline (tests/cli/expect.sh's old contract).
Errors (exit 2 or 3) must be one line on stderr, start with "kvbench: " and print no trace.
"""
import json
import os
import re
import shlex
import subprocess
import sys

KEYWORDS = ("set", "case", "run", "has", "line", "regex", "json")


class TableError(Exception):
    pass


class Case:
    def __init__(self, name, code, where):
        self.name, self.code, self.where = name, code, where
        self.args = []        # words, placeholders unresolved
        self.checks = []      # ("has" | "regex", text, line)
        self.json = False
        self.ran = False


def top_level_bar(pattern):
    """True where a | sits outside every group: either side alone would pass."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def check_regex(pattern, where):
    if "\\n" in pattern:
        raise TableError(f"{where}: regex {pattern!r} names a newline; output is matched line by line")
    if top_level_bar(pattern):
        raise TableError(f"{where}: regex {pattern!r} has a top-level |: either side alone passes")
    try:
        re.compile(pattern)
    except re.error as e:
        raise TableError(f"{where}: regex {pattern!r}: {e}") from None


def read_table(path):
    """The cases of a table, by name, and its `set` definitions, checked."""
    cases, defs, case = {}, {}, None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            where = f"{path}:{number}"
            if line != line.rstrip():
                raise TableError(f"{where}: trailing whitespace (a substring cannot end in a space)")
            body = line.lstrip()
            if not body or body.startswith("#"):
                continue
            key, _, rest = body.partition(" ")
            if key not in KEYWORDS:
                raise TableError(f"{where}: '{key}': expected one of {', '.join(KEYWORDS)}")
            if key == "set":
                name, _, value = rest.partition(" ")
                defs[name] = shlex.split(value)
            elif key == "case":
                m = re.fullmatch(r"([A-Za-z0-9_]+) ([0-9]+)", rest)
                if not m or m.group(1) in cases:
                    raise TableError(f"{where}: expected 'case NAME CODE' with a new NAME")
                case = cases[m.group(1)] = Case(m.group(1), int(m.group(2)), where)
            elif case is None:
                raise TableError(f"{where}: '{key}' before the first case")
            elif key == "run":
                case.args += shlex.split(rest)
                case.ran = True
            elif key == "json":
                case.json = True
            else:
                if not rest:
                    raise TableError(f"{where}: '{key}' with nothing to look for")
                if key == "regex":
                    check_regex(rest, where)
                case.checks.append((key, rest, where))
    for c in cases.values():
        if not c.ran or not c.checks:
            raise TableError(f"{c.where}: case {c.name} needs a run line and at least one has, line or regex")
    return cases, defs


def resolve(word, places):
    def value(m):
        if m.group(1) not in places:
            raise TableError(f"${{{m.group(1)}}} is not defined: expected {', '.join(places)} or a set line")
        return places[m.group(1)]
    return re.sub(r"\$\{([A-Z0-9_]+)\}", value, word)


def resolved_args(case, defs, places):
    out = []
    for word in case.args:
        m = re.fullmatch(r"\$\{([A-Z0-9_]+)\}", word)
        if m and m.group(1) in defs:  # a list of words, as CMake's set() held them
            out += [resolve(w, places) for w in defs[m.group(1)]]
        else:
            out.append(resolve(word, places))
    return out


def failures(checks, stdout, stderr, places):
    """The checks that the output fails, each as a sentence."""
    lines = stdout.splitlines() + stderr.splitlines()
    bad = []
    for kind, text, where in checks:
        if kind == "has":
            wanted = resolve(text, places)
            if wanted not in stdout and wanted not in stderr:
                bad.append(f"output does not contain {wanted!r} ({where})")
        elif kind == "line":
            wanted = resolve(text, places)
            if wanted not in lines:
                bad.append(f"no output line is exactly {wanted!r} ({where})")
        elif not any(re.search(text, line) for line in lines):
            bad.append(f"no output line matches /{text}/ ({where})")
    return bad


def run(kvbench, args, code, checks, want_json, places):
    limit = float(os.environ.get("KVBENCH_EXPECT_TIMEOUT", "60"))
    try:
        p = subprocess.run([kvbench] + args, capture_output=True, timeout=limit)
        got, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        got, out, err = "timeout", e.stdout or b"", e.stderr or b""
    out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    bad = [] if got == code else [f"exited {got}, expected {code}"]
    bad += failures(checks, out, err, places)
    if code >= 2 and got == code:
        if len([line for line in err.splitlines() if line]) != 1:
            bad.append("the error is not exactly one line on stderr")
        if not err.startswith("kvbench: "):
            bad.append("the error does not start with 'kvbench: '")
    if want_json:
        try:
            json.loads(out)
        except ValueError as e:
            bad.append(f"stdout is not JSON: {e}")
    if not bad:
        return 0
    print("FAIL: kvbench " + shlex.join(args))
    print("\n".join("  " + b for b in bad))
    print("--- stdout")
    print("\n".join(out.splitlines()[:40]))
    print("--- stderr")
    print(err, end="")
    return 1


def main(argv):
    if argv[:1] == ["--inline"]:  # kvbench_cli_test(name code "regex" [--stdout-json] -- args)
        kvbench, code, pattern, rest = argv[1], int(argv[2]), argv[3], argv[4:]
        want_json = rest[:1] == ["--stdout-json"]
        rest = rest[1:] if want_json else rest
        rest = rest[1:] if rest[:1] == ["--"] else rest
        checks = [("regex", pattern, "kvbench_cli_test")] if pattern else []
        if pattern:
            check_regex(pattern, "kvbench_cli_test")
        return run(kvbench, rest, code, checks, want_json, {})
    kvbench, src, build, table, name = argv
    places = {"SRC": src, "BUILD": build, "DATA": os.path.join(src, "tests", "data"),
              "OUT": os.path.join(build, "out")}
    cases, defs = read_table(table)
    for key, words in defs.items():
        places[key] = " ".join(resolve(w, places) for w in words)
    if name not in cases:
        raise TableError(f"{table}: no case {name}")
    case = cases[name]
    return run(kvbench, resolved_args(case, defs, places), case.code, case.checks, case.json, places)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except TableError as e:
        print(f"cli_case.py: {e}")
        sys.exit(1)
