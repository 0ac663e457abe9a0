#!/usr/bin/env python3
"""Renders a kvbench HTML report in headless Chromium and checks that it really draws.

usage: check_report.py REPORT.html --min-charts N [--forbid-text TEXT] [--chromium PATH]
       check_report.py --self-test   (shows each check can fail: a blank page, a page that logs)

Checks: Chromium logs no console message at all (a script error or a blocked fetch would log
one; the report has no script); the rendered DOM holds at least N <svg class="chart"> elements,
each with a drawn series, and no <script> element; a screenshot is not blank (enough non-white
pixels, and the chart palette's first colour is present). Layout, as Chromium lays it out (a copy
of the page with a measuring script appended; the report itself stays script-free): no two x-axis
labels of a chart overlap, every chart title ends inside its chart, and every chart is at least
40% of its section's width (the charts use the page, two to a row at most). Exits 1 with one line
per failure.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

FIRST_SERIES_RGB = (0x00, 0x72, 0xB2)  # series_color(0) in src/report/svg_chart.cpp


def find_chromium(given):
    for name in ([given] if given else []) + ["chromium", "chromium-browser", "google-chrome"]:
        path = shutil.which(name) if name else None
        if path:
            return path
    sys.exit("check_report: chromium not found; scripts/setup.sh installs Debian's chromium package")


def run_chromium(chromium, url, extra, workdir):
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0", f"--user-data-dir={workdir}/profile", *extra, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc, console


def png_pixels(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) into rows of bytes."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace != 0:
                raise ValueError(f"unsupported PNG (depth {depth}, colour type {color}, interlace {interlace})")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def screenshot_stats(path):
    width, height, channels, rows = png_pixels(path)
    non_white, palette_hits = 0, 0
    for row in rows:
        for x in range(0, width * channels, channels):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if r < 235 or g < 235 or b < 235:
                non_white += 1
            if abs(r - FIRST_SERIES_RGB[0]) < 12 and abs(g - FIRST_SERIES_RGB[1]) < 12 and abs(b - FIRST_SERIES_RGB[2]) < 12:
                palette_hits += 1
    return non_white / float(width * height), palette_hits


# Appended to a copy of the page: measures in the laid-out page and writes one line per defect.
LAYOUT_SCRIPT = """<script>
window.addEventListener('load', () => {
  const out = [];
  document.querySelectorAll('svg.chart').forEach((svg, i) => {
    const name = 'chart ' + (i + 1) + ' (' + (svg.getAttribute('aria-label') || '') + ')';
    const ticks = [...svg.querySelectorAll('text.tick-x')].map(t => t.getBBox());
    for (let k = 1; k < ticks.length; ++k) {
      if (ticks[k].x < ticks[k - 1].x + ticks[k - 1].width) out.push(name + ': x labels ' + k + ' and ' + (k + 1) + ' overlap');
    }
    const title = svg.querySelector('text.chart-title');
    const view = svg.viewBox.baseVal;
    if (title) {
      const b = title.getBBox();
      if (b.x + b.width > view.width + 0.5) out.push(name + ': the title runs off the chart');
    }
    const section = svg.closest('section') || document.body;
    if (svg.getBoundingClientRect().width < 0.4 * section.clientWidth) out.push(name + ': narrower than 40% of its section');
  });
  const pre = document.createElement('pre');
  pre.id = 'kvb-layout';
  pre.textContent = 'LAYOUT-BEGIN\\n' + out.join('\\n') + '\\nLAYOUT-END';
  document.body.appendChild(pre);
});
</script>"""


def layout_failures(report, chromium, work):
    page = open(report, encoding="utf-8").read()
    measured = os.path.join(work, "measured.html")
    # The copy drops the page's Content-Security-Policy (it forbids every script) so the measuring
    # script may run; the layout it measures is the same.
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    open(measured, "w", encoding="utf-8").write(page.replace("</body>", LAYOUT_SCRIPT + "</body>"))
    proc, _ = run_chromium(chromium, "file://" + measured,
                           ["--window-size=1400,3000", "--virtual-time-budget=5000", "--dump-dom"], work)
    found = re.search(r"LAYOUT-BEGIN\n(.*?)LAYOUT-END", proc.stdout, flags=re.S)
    if not found:
        return [f"the layout could not be measured (chromium exit {proc.returncode})"]
    return ["layout: " + line for line in found.group(1).splitlines() if line.strip()]


def check(report, min_charts, forbid, chromium):
    failures = []
    url = "file://" + os.path.abspath(report)
    with tempfile.TemporaryDirectory() as work:
        shot = os.path.join(work, "shot.png")
        proc, console = run_chromium(chromium, url, ["--window-size=1280,2400", f"--screenshot={shot}"], work)
        failures += [f"console message: {line.split('] ', 1)[-1][:200]}" for line in console]
        if not os.path.exists(shot):
            failures.append(f"no screenshot (chromium exit {proc.returncode}): {proc.stderr[-300:]}")
        else:
            ink, blue = screenshot_stats(shot)
            if ink < 0.02:
                failures.append(f"screenshot is blank: {ink:.2%} non-white pixels, expected at least 2%")
            if blue < 50:
                failures.append(f"screenshot shows no chart series colour (#0072B2): {blue} pixels")
        proc, console = run_chromium(chromium, url, ["--dump-dom"], work)
        dom = proc.stdout
        failures += [f"console message: {line.split('] ', 1)[-1][:200]}" for line in console]
        failures += layout_failures(report, chromium, work)
    charts = re.findall(r'<svg class="chart".*?</svg>', dom, flags=re.S)
    if len(charts) < min_charts:
        failures.append(f"{len(charts)} charts in the rendered DOM, expected at least {min_charts}")
    for i, svg in enumerate(charts):
        if "no data to draw" not in svg and '<polyline class="series"' not in svg:
            failures.append(f"chart {i + 1} has no drawn series")
    if re.search(r"<script", dom, flags=re.I):
        failures.append("the rendered DOM holds a <script> element")
    for text in forbid:
        if text in dom:
            failures.append(f"the rendered DOM holds forbidden text {text!r}")
    return failures, len(charts)


def self_test(chromium):
    """Each check must be able to fail: a blank page and a page that logs are both rejected."""
    with tempfile.TemporaryDirectory() as work:
        blank = os.path.join(work, "blank.html")
        open(blank, "w").write("<!DOCTYPE html><html><body></body></html>")
        noisy = os.path.join(work, "noisy.html")
        open(noisy, "w").write('<!DOCTYPE html><html><body><svg class="chart"></svg>'
                               '<script>console.error("x"); missing();</script></body></html>')
        cramped = os.path.join(work, "cramped.html")
        open(cramped, "w").write(
            '<!DOCTYPE html><html><body><section><svg class="chart" viewBox="0 0 600 300" width="200" height="100">'
            '<text class="chart-title" x="10" y="24">' + "A title far too long to fit " * 4 + '</text>'
            '<text class="tick tick-x" x="100" y="200">39</text><text class="tick tick-x" x="104" y="200">43</text>'
            '<polyline class="series" points="0,0 10,10"/></svg></section></body></html>')
        f_blank, _ = check(blank, 1, [], chromium)
        f_noisy, _ = check(noisy, 1, [], chromium)
        f_cramped = layout_failures(cramped, chromium, work)
    ok = True
    if not any("blank" in f for f in f_blank) or not any("charts in the rendered DOM" in f for f in f_blank):
        print("self-test: a blank page was not rejected:", f_blank)
        ok = False
    if not any("console message" in f for f in f_noisy) or not any("<script>" in f for f in f_noisy):
        print("self-test: a page with a script and console errors was not rejected:", f_noisy)
        ok = False
    if not any("no drawn series" in f for f in f_noisy):
        print("self-test: an empty chart was not rejected:", f_noisy)
        ok = False
    for defect in ("overlap", "title runs off", "narrower than 40%"):
        if not any(defect in f for f in f_cramped):
            print(f"self-test: a chart whose {defect} was not rejected:", f_cramped)
            ok = False
    print("self-test: " + ("each check rejects a bad page" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report", nargs="?")
    ap.add_argument("--min-charts", type=int, default=1)
    ap.add_argument("--forbid-text", action="append", default=[])
    ap.add_argument("--chromium")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    chromium = find_chromium(args.chromium)
    if args.self_test:
        return self_test(chromium)
    failures, charts = check(args.report, args.min_charts, args.forbid_text, chromium)
    for f in failures:
        print(f"FAIL: {args.report}: {f}")
    if not failures:
        print(f"ok: {args.report}: {charts} charts drawn, screenshot not blank, no console messages")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
