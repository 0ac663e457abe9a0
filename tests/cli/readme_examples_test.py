#!/usr/bin/env python3
"""Every `kvbench` command in the README's ```sh blocks runs (issue 24 §5). A command is followed by
its shown output (the next ```text block), and:

* it must exit as the shown output says: 0, or 1 where it shows "SLOWER", 2 or 3 where it shows
  "kvbench: error" or "kvbench: device error";
* for computed commands (size, simulate, compare of committed files, trace of a committed trace:
  same inputs, same figures) every shown line must appear in what the command prints, so a changed
  figure fails here;
* measured commands (dma, storage, doctor, report, calibrate) depend on the machine: they must not exit 2,
  and may exit 0 (or 1 for doctor, whose checks fail on some machines) instead of a shown error.

Figures quoted in the prose around a computed example (issue 34 B) must be printed by its
command(s), so that a sentence such as "TTFT falls from 228.46 ms to 41.00 ms" cannot go stale:

* which prose: the paragraphs between the example's output block (its ```sh block where it shows
  none) and the next heading or code block; and the paragraph that introduces the example, which
  is the last paragraph before its ```sh block when it ends with ':' (that paragraph is checked
  against the command it introduces, not against the example before it);
* a figure is a number followed by a unit (optionally after a space or a hyphen: "8 GiB",
  "8192-token"): one of UNITS below, a percentage ("-18.7%") or a factor ("110.5x"); a range
  ("1-2%", "2-10 req/s", "512- to 8192-token") is one figure whose two numbers are both checked;
* it is found when its number, as quoted, is a whole number in the output, and for a percentage
  or a factor when the output prints that number with '%' or 'x' after it. Thousands separators
  and the sign are ignored ("2,000" matches "2000", "falls by 18.7%" matches "-18.7%"); decimals
  are not ("41.0" does not match "41.00": quote figures as printed). Other units are not compared,
  since tables print them once, in a column's header;
* not checked: text in `code spans` (flags, paths, command text) and link targets;
* a figure that is legitimately not in the output (a datasheet figure, a property of the input
  files, a measurement from elsewhere) is exempted by an HTML comment in its paragraph, which the
  rendered page does not show: `<!-- readme-test: not output: 3350 GB/s (datasheet); 20% -->`
  (figures separated by ';', each written exactly as in the prose, each optionally followed by
  its reason in brackets). An exemption that names no figure of its paragraph fails, so that
  exemptions do not outlive their figures.

usage: readme_examples_test.py KVBENCH README REPO_ROOT
"""
import re
import shlex
import subprocess
import sys

kvbench, readme, root = sys.argv[1:4]
MEASURED = {"dma", "storage", "doctor", "report", "calibrate"}
# Units a prose figure may carry, the longest first so that "GB/s" is not read as "GB".
UNITS = sorted(
    "ns us µs ms s min B KB MB GB TB KiB MiB GiB TiB MB/s GB/s TB/s GiB/s TFLOP/s tok/s req/s "
    "token tokens request requests".split(), key=len, reverse=True)
NUMBER = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
# A number not inside a word or another number ("h100", "x86-64", "1.2.3"), then its unit; a range
# ("1-2%", "2-10 req/s", "512- to 8192-token") is one figure of two numbers.
FIGURE = re.compile(r"(?<![\w.,])(?:(" + NUMBER + r")(?:-|-? to ))?(" + NUMBER + r")(%|x\b|[ -]?(?:" +
                    "|".join(map(re.escape, UNITS)) + r")(?![\w/]))")
PRINTED = re.compile(r"(?<![\w.,])(" + NUMBER + r")(?![\d])(%|x\b)?")
EXEMPT = re.compile(r"<!--\s*readme-test:\s*not output:(.*?)-->", re.S)


def plain(number):
    """The number as compared: no sign, no thousands separators; decimals as written."""
    return number.lstrip("-+−").replace(",", "")


def kind(unit):
    return unit if unit in ("%", "x") else ""


def prose_figures(paragraph):
    """(figure as quoted, its number, '%', 'x' or '') for each figure of a paragraph, less its
    exemptions; and the exemptions that name no figure of it."""
    exempt = {re.sub(r"\s*\(.*\)$", "", f.strip()) for m in EXEMPT.finditer(paragraph)
              for f in m.group(1).split(";") if f.strip()}
    text = EXEMPT.sub(" ", paragraph)
    text = re.sub(r"`[^`]*`", " ", text)  # code spans: flags, paths, command text
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    text = re.sub(r"\s+", " ", text)
    figures, quoted = [], set()
    for m in FIGURE.finditer(text):
        quoted.add(m.group(0))
        if m.group(0) not in exempt:
            figures += [(m.group(0), plain(n), kind(m.group(3))) for n in m.groups()[:2] if n]
    return figures, sorted(exempt - quoted)


def paragraphs(prose):
    return [p.strip() for p in re.split(r"\n\s*\n", prose) if p.strip()]


def introduces(paragraph):
    return re.split(r"<!--", paragraph)[0].rstrip().endswith(":")


text = open(readme, encoding="utf-8").read()
blocks = [(m.group(1), m.group(2), m.start(), m.end()) for m in re.finditer(r"```(\w*)\n(.*?)```", text, flags=re.S)]
failures, ran, figures_checked = [], 0, 0
for i, (lang, body, sh_start, sh_end) in enumerate(blocks):
    if lang != "sh":
        continue
    has_shown = i + 1 < len(blocks) and blocks[i + 1][0] == "text"
    shown = blocks[i + 1][1] if has_shown else ""
    computed_output, computed_cmds, all_ok = [], [], True
    for line in body.splitlines():
        if not line.startswith("kvbench "):
            continue
        args = shlex.split(line.split(" #")[0])[1:]
        p = subprocess.run([kvbench] + args, cwd=root, capture_output=True, text=True, timeout=1400)
        ran += 1
        out = (p.stdout + p.stderr).splitlines()
        printed = {o.rstrip() for o in out}
        want = 3 if "kvbench: device error" in shown else 2 if "kvbench: error" in shown else 1 if "SLOWER" in shown else 0
        measured = args[0] in MEASURED
        allowed = {want, 0} | ({1} if args[0] == "doctor" else set()) if measured else {want}
        if p.returncode not in allowed or (measured and p.returncode == 2):
            failures.append(f"{line}: exit {p.returncode}, the README shows {want}: {p.stderr.strip()[-300:]}")
            all_ok = False
            continue
        if measured:
            continue
        computed_output.append(p.stdout + p.stderr)
        computed_cmds.append(line)
        for s in shown.splitlines():
            if s.strip() and s.rstrip() not in printed:
                failures.append(f"{line}: the README shows a line it no longer prints:\n    {s}")
    if not computed_cmds or not all_ok:
        continue
    # The prose around the example: the paragraph that introduces it, and those after its output
    # up to the next heading or code block (less one that introduces the next command).
    before = re.split(r"^#.*$", text[blocks[i - 1][3] if i else 0:sh_start], flags=re.M)[-1]
    prose = [p for p in paragraphs(before)[-1:] if introduces(p)]
    nxt = i + 2 if has_shown else i + 1
    after = text[blocks[i + 1][3] if has_shown else sh_end:blocks[nxt][2] if nxt < len(blocks) else len(text)]
    after = paragraphs(re.split(r"^#", after, maxsplit=1, flags=re.M)[0])
    if after and nxt < len(blocks) and blocks[nxt][0] == "sh" and introduces(after[-1]):
        after.pop()
    printed_numbers = {(plain(n), k) for o in computed_output for n, k in PRINTED.findall(o)}
    printed_numbers |= {(n, "") for n, _ in printed_numbers}
    for para in prose + after:
        figures, stale = prose_figures(para)
        for quoted, number, k in figures:
            figures_checked += 1
            if (number, k) not in printed_numbers:
                flat = re.sub(r"\s+", " ", para)
                at = flat.find(quoted)
                failures.append(f"{computed_cmds[0]}: the README's prose quotes {quoted!r}; it does not print "
                                f"{number}{k}:\n    ...{flat[max(0, at - 120):at + len(quoted) + 60]}...")
        for f in stale:
            failures.append(f"{computed_cmds[0]}: an exemption names {f!r}, which its paragraph does not quote")
for f in failures:
    print("FAIL:", f)
print(f"README examples: {ran} commands run, {figures_checked} prose figures checked, {len(failures)} failures")
sys.exit(1 if failures or ran == 0 else 0)
