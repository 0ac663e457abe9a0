#!/usr/bin/env python3
"""Fits the h100 time model to the real vLLM measurements the fidelity suite replays (issue 22 §3),
by coordinate descent in log space over the calibration's keys, and reports leave-one-out errors:
each residency run is held out of a refit and predicted, and the E1 family is predicted from a fit
without it.

  fit_calibration.py KVBENCH DATA_DIR [--start FILE] [--rounds N] [--no-loo]

Prints the fitted keys (for scenarios/hardware/h100.yaml) and the held-out errors. Slow: each
evaluation replays every case (several seconds).
"""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity  # noqa: E402

KEYS = ["compute-efficiency", "attention-efficiency", "memory-efficiency", "step-overhead-us",
        "request-overhead-us", "load-efficiency", "gemm-half-tokens"]
LIMITS = {"compute-efficiency": (0.05, 1), "attention-efficiency": (0.05, 1), "memory-efficiency": (0.05, 1),
          "step-overhead-us": (1, 5000), "request-overhead-us": (1, 100000), "load-efficiency": (0.05, 1),
          "gemm-half-tokens": (1, 5000)}
FITTED = {"TTFT mean", "TPOT mean", "E2E mean", "E1 computed", "E1 loaded"}
E1_FIT_LENGTHS = {"E1 10K", "E1 40K", "E1 70K", "E1 100K"}


def evaluate(kvbench, data, params, work, skip_case=None, skip_e1=False):
    path = os.path.join(work, "cal.yaml")
    with open(path, "w") as f:
        for k, v in params.items():
            f.write(f"{k}: {v:.6g}\n")
    cal = fidelity.calibration_block(path)
    rows = fidelity.residency_rows(kvbench, data, cal, work)
    if not skip_e1:
        rows += fidelity.e1_rows(kvbench, data, cal, work, lengths=E1_FIT_LENGTHS)
    groups = {}
    for case, metric, measured, simulated in rows:
        if metric in FITTED and case != skip_case:
            groups.setdefault(metric, []).append(((simulated - measured) / measured) ** 2)
    return sum(sum(v) / len(v) for v in groups.values()) / len(groups), rows


def fit(kvbench, data, start, rounds, work, **skip):
    params = dict(start)
    best, _ = evaluate(kvbench, data, params, work, **skip)
    step = 0.2
    for _ in range(rounds):
        improved = False
        for key in KEYS:
            for direction in (1, -1):
                trial = dict(params)
                lo, hi = LIMITS[key]
                trial[key] = min(hi, max(lo, params[key] * math.exp(direction * step)))
                cost, _ = evaluate(kvbench, data, trial, work, **skip)
                if cost < best:
                    best, params, improved = cost, trial, True
                    break
        if not improved:
            step /= 2
            if step < 0.01:
                break
    return params, best


def main(argv):
    kvbench, data = argv[1:3]
    start = {"compute-efficiency": 0.76, "attention-efficiency": 0.57, "memory-efficiency": 0.82,
             "step-overhead-us": 420, "request-overhead-us": 8400, "load-efficiency": 0.88, "gemm-half-tokens": 250}
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 8
    with tempfile.TemporaryDirectory() as work:
        params, cost = fit(kvbench, data, start, rounds, work)
        print("fitted (all cases):", {k: round(v, 4) for k, v in params.items()}, f"cost {cost:.5f}")
        if "--no-loo" in argv:
            return 0
        for name, _rate in fidelity.RESIDENCY:
            case = f"residency {name}"
            held, _ = fit(kvbench, data, params, max(2, rounds // 3), work, skip_case=case)
            _, rows = evaluate(kvbench, data, held, work)
            errs = {m: (s - me) / me for c, m, me, s in rows if c == case}
            print(f"held out {case}: " + ", ".join(f"{m} {100 * e:+.1f}%" for m, e in errs.items()))
        held, _ = fit(kvbench, data, params, max(2, rounds // 3), work, skip_e1=True)
        _, rows = evaluate(kvbench, data, held, work)
        for metric in ("E1 computed", "E1 loaded"):
            errs = [abs((s - me) / me) for c, m, me, s in rows if m == metric]
            print(f"held out the E1 family: {metric} mean |error| {100 * sum(errs) / len(errs):.1f}% "
                  "(load efficiency and attention are set by E1 alone: held out, they stay at the all-case fit)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
