#!/usr/bin/env python3
"""Fits the h100 time model to every real vLLM measurement the fidelity suites replay (issues 22
and 32), by coordinate descent in log space, and reports leave-one-model-out errors: each model's
cases are held out of a refit and predicted by it.

The cases: residency-vllm (Qwen3-14B, vLLM 0.23.0), the vLLM blog's E1 (Llama-3.1-8B, computed
and loaded prefills) and the inference-sim training runs that do not saturate (Llama-2-7B TP 1,
Llama-2-70B TP 4, Mixtral-8x7B TP 2, CodeLlama-34B TP 2; vLLM 0.15.1). The keys: the calibration's
(one figure each for every model and release) and the H100 fabric's latency per synchronisation
(`gpu_link_latency_us`: a ring or two-shot step, of which vLLM's custom one-shot pays two;
perf/all_reduce.hpp), set by the TP runs alone.

  fit_calibration.py KVBENCH DATA_DIR [--rounds N] [--step S] [--no-loo] [--jobs N] [KEY=VALUE ...]

KEY=VALUE starts the search there (the keys below); --step is the first move, in log space (0.2).

Prints the fitted keys (for scenarios/hardware/h100.yaml) and the held-out errors. Slow: each
evaluation replays every case (about 10 s).
"""
import math
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity  # noqa: E402
import training  # noqa: E402

KEYS = ["compute-efficiency", "attention-efficiency", "memory-efficiency", "step-overhead-us",
        "request-overhead-us", "load-efficiency", "gemm-half-tokens", "ring-step-latency-us"]
LIMITS = {"compute-efficiency": (0.05, 1), "attention-efficiency": (0.05, 1), "memory-efficiency": (0.05, 1),
          "step-overhead-us": (1, 5000), "request-overhead-us": (1, 100000), "load-efficiency": (0.05, 1),
          "gemm-half-tokens": (1, 5000), "ring-step-latency-us": (0.1, 100)}
FITTED = {"TTFT mean", "TPOT mean", "E2E mean", "E1 computed", "E1 loaded", "training TTFT mean",
          "training E2E mean"}
E1_FIT_LENGTHS = {"E1 10K", "E1 40K", "E1 70K", "E1 100K"}
# Every model scored, and the cases that are its own.
MODELS = ["qwen3-14b", "llama-3.1-8b", "llama-2-7b", "llama-2-70b", "mixtral-8x7b", "codellama-34b"]
# A figure more than this far off (a run pushed past saturation by a trial) counts as this far.
ERROR_CAP = 0.5


def hardware_file(work, ring_us):
    """h100.yaml with the trial's fabric latency."""
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "scenarios", "hardware", "h100.yaml")).read()
    lines = [line for line in text.splitlines() if not line.startswith("gpu_link_latency_us")]
    path = os.path.join(work, "h100-trial.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + f"\ngpu_link_latency_us: {ring_us:.6g}\n")
    return path


def calibration_of(params, work):
    """The scenario's calibration block for a trial (the ring latency goes into the hardware file)."""
    path = os.path.join(work, "cal.yaml")
    with open(path, "w") as f:
        f.write("".join(f"{k}: {v:.6g}\n" for k, v in params.items() if k != "ring-step-latency-us"))
    return fidelity.calibration_block(path)


def evaluate(kvbench, data, params, skip_model=None):
    with tempfile.TemporaryDirectory() as work:
        cal = calibration_of(params, work)
        rows = []
        if skip_model != "qwen3-14b":
            rows += fidelity.residency_rows(kvbench, data, cal, work)
        if skip_model != "llama-3.1-8b":
            rows += fidelity.e1_rows(kvbench, data, cal, work, lengths=E1_FIT_LENGTHS)
        rows += training.fidelity_rows(kvbench, data, cal, hardware_file(work, params["ring-step-latency-us"]), work,
                                       skip_model=skip_model)
    groups = {}
    for _case, metric, measured, simulated in rows:
        if metric in FITTED:
            groups.setdefault(metric, []).append(min(ERROR_CAP, abs(simulated - measured) / measured) ** 2)
    return sum(sum(v) / len(v) for v in groups.values()) / len(groups)


def fit(kvbench, data, start, rounds, jobs, skip_model=None, step=0.2):
    params = dict(start)
    best = evaluate(kvbench, data, params, skip_model)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for _ in range(rounds):
            improved = False
            for key in KEYS:
                lo, hi = LIMITS[key]
                trials = [dict(params, **{key: min(hi, max(lo, params[key] * math.exp(d * step)))}) for d in (1, -1)]
                costs = list(pool.map(lambda t: evaluate(kvbench, data, t, skip_model), trials))
                cost, trial = min(zip(costs, trials), key=lambda ct: ct[0])
                if cost < best:
                    best, params, improved = cost, trial, True
            if not improved:
                step /= 2
                if step < 0.01:
                    break
    return params, best


def held_out_errors(kvbench, data, params, model):
    """The held-out model's figures predicted with `params`: metric -> list of relative errors."""
    with tempfile.TemporaryDirectory() as work:
        cal = calibration_of(params, work)
        if model == "qwen3-14b":
            rows = fidelity.residency_rows(kvbench, data, cal, work)
        elif model == "llama-3.1-8b":
            rows = fidelity.e1_rows(kvbench, data, cal, work)
        else:
            hw = hardware_file(work, params["ring-step-latency-us"])
            rows = [r for r in training.fidelity_rows(kvbench, data, cal, hw, work) if f" {model} " in f" {r[0]} "]
    errors = {}
    for _case, metric, measured, simulated in rows:
        if metric in FITTED:
            errors.setdefault(metric, []).append((simulated - measured) / measured)
    return errors


def main(argv):
    kvbench, data = argv[1:3]
    # The previous fit (residency and E1 alone, before async scheduling and the training runs).
    start = {"compute-efficiency": 0.76, "attention-efficiency": 0.57, "memory-efficiency": 0.82,
             "step-overhead-us": 190, "request-overhead-us": 10260, "load-efficiency": 0.88, "gemm-half-tokens": 250,
             "ring-step-latency-us": 5}
    for arg in argv:  # KEY=VALUE: start there instead
        if "=" in arg and arg.split("=")[0] in start:
            start[arg.split("=")[0]] = float(arg.split("=")[1])
    step = float(argv[argv.index("--step") + 1]) if "--step" in argv else 0.2
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 12
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    params, cost = fit(kvbench, data, start, rounds, jobs, step=step)
    print("fitted (all cases):", {k: round(v, 4) for k, v in params.items()}, f"cost {cost:.5f}", flush=True)
    if "--no-loo" in argv:
        return 0
    for model in MODELS:
        held, _ = fit(kvbench, data, params, max(2, rounds // 3), jobs, skip_model=model, step=step)
        errors = held_out_errors(kvbench, data, held, model)
        summary = ", ".join(f"{m} mean |error| {100 * sum(abs(e) for e in v) / len(v):.1f}% "
                            f"(worst {100 * max(abs(e) for e in v):.1f}%)" for m, v in errors.items())
        print(f"held out {model}: {summary}; refit {({k: round(v, 3) for k, v in held.items()})}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
