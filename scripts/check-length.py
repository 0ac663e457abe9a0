#!/usr/bin/env python3
"""The project's length rules, checked in the test command: no C++ function over 60 lines and no
source file over 400 (src/, tests/unit/, tests/fuzz/, tests/bench/, kernels/). A function is counted
from the first line of its signature (however many lines it spans, and member functions defined
inside a class too) to its closing brace; braces in strings, characters and comments are ignored.
A brace-level reading, not a C++ parser: lambdas and local classes count toward the function that
holds them.   usage: scripts/check-length.py [ROOT]   (exit 1 listing each violation)"""
import pathlib
import re
import sys

MAX_FUNCTION = 60
MAX_FILE = 400
FOLDERS = ("src", "tests/unit", "tests/fuzz", "tests/bench", "kernels")
SUFFIXES = {".cpp", ".hpp", ".cu", ".h"}
# What opens a scope that holds functions rather than a function body.
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;()]*$|extern\s+\"C\"\s*$")
CONTROL = re.compile(r"^\s*(if|for|while|switch|do|else|try|catch)\b")


def strip_code(text):
    """The text with string and character literals, and comments, blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', text[i:]):
            delim = re.match(r'R"([^(\s]*)\(', text[i:]).group(1)
            j = text.find(")" + delim + '"', i)
            j = n if j < 0 else j + len(delim) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(code):
    """(first line, last line, head) of each function body at scope level, 1-based."""
    found, stack = [], []  # stack: True for a scope brace (namespace/class), False otherwise
    start = 0  # offset where the current declaration began
    line_of = lambda pos: code.count("\n", 0, pos) + 1
    for pos, ch in enumerate(code):
        if ch in ";}" and all(stack):
            start = pos + 1
        if ch == "{":
            head = code[start:pos].strip()
            in_scope = all(stack)
            is_scope = bool(SCOPE.search(head)) or head.endswith("=") or not head
            stack.append(is_scope)
            if in_scope and not is_scope and ")" in head and not CONTROL.match(head):
                found.append([line_of(start + len(code[start:pos]) - len(code[start:pos].lstrip())), None, head])
                found[-1].append(len(stack))
            if in_scope and is_scope:
                start = pos + 1
        elif ch == "}":
            if stack:
                depth = len(stack)
                stack.pop()
                if found and found[-1][1] is None and found[-1][3] == depth:
                    found[-1][1] = line_of(pos)
            if all(stack):
                start = pos + 1
    return [(a, b, h) for a, b, h, _ in found if b is not None]


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            text = path.read_text(errors="ignore")
            rel = path.relative_to(root)
            lines = text.count("\n") + (0 if text.endswith("\n") else 1)
            if lines > MAX_FILE:
                problems.append(f"{rel}: {lines} lines (at most {MAX_FILE} a file)")
            for first, last, head in functions(strip_code(text)):
                if last - first + 1 > MAX_FUNCTION:
                    name = " ".join(head.split())[:70]
                    problems.append(f"{rel}:{first}: {last - first + 1} lines (at most {MAX_FUNCTION}): {name}")
    for p in problems:
        print(p)
    if problems:
        print(f"check-length: {len(problems)} over the limits")
        return 1
    print("check-length: no function over 60 lines, no file over 400")
    return 0


if __name__ == "__main__":
    sys.exit(main())
