#!/usr/bin/env python3
"""The simulator against real vLLM on an A100 (tests/data/ground-truth/gpustack-a100-qwen3-14b.csv):
gpustack's baseline runs of Qwen3-14B under vLLM 0.11.0 with every server flag at its default, each
random dataset's prompts sent at once. Each run is simulated on kvbench's a100-80gb with its default
calibration (the hardware file's time model) and its TTFT and E2E means compared with the client's.
With --check it fails when a mean absolute error passes 10% or a run 25% (fidelity.py's bounds);
--write FILE writes the figures kvbench states with every simulation on an a100-80gb
(scenarios/fidelity/a100-80gb.yaml), --compare FILE fails when they differ from that file.

  a100.py KVBENCH DATA_DIR [--calibration FILE] [--check] [--write FILE] [--compare FILE]
"""
import csv
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity  # noqa: E402
import tier_cost  # noqa: E402

MEAN_BOUND, WORST_BOUND = fidelity.BOUNDS["TTFT mean"], fidelity.WORST_CASE
# 1,000 chat requests of 128 tokens at once measure the API server taking them in, not the engine.
PRINTED_ONLY_INPUT_LEN = 128
RUNS_DESCRIBED = ("3 of Qwen3-14B at 2,000-32,000 prompt tokens, every prompt sent at once, under vLLM "
                  "0.11.0 (GitHub gpustack/gpustack, docs/performance-lab/qwen3-14b/a100.md)")

# vLLM 0.11.0's `vllm serve Qwen/Qwen3-14B` with nothing set: kvbench's defaults are vLLM's (TP 1,
# gpu-memory-utilization 0.9, the A100's 2,048 batched tokens and 256 sequences, prefix caching on).
SERVER = """name: gpustack-a100-qwen3-14b-{input_len}
model: qwen3-14b
hardware: a100-80gb
max-model-len: 40960
vllm-version: "0.11"
seed: 42
{calibration}workload:
  requests: {prompts}
  arrival: {{process: closed, users: {prompts}}}
  prompt: {prompt}
  output: {output}
"""


def measured_runs(data):
    with open(os.path.join(data, "ground-truth", "gpustack-a100-qwen3-14b.csv")) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def simulate(kvbench, run, calibration, work):
    prompts = int(run["num_prompts"])
    return tier_cost.simulate(kvbench, SERVER.format(input_len=run["random_input_len"], prompts=prompts,
                                                     calibration=calibration,
                                                     prompt=round(int(run["total_input_tokens"]) / prompts),
                                                     output=round(int(run["total_generated_tokens"]) / prompts)),
                              work)


def rows(kvbench, data, calibration_path):
    """(run, metric, measured, simulated) for TTFT mean and E2E mean (ms) and output tok/s."""
    out = []
    calibration = fidelity.calibration_block(calibration_path)
    with tempfile.TemporaryDirectory() as work:
        for run in measured_runs(data):
            m = simulate(kvbench, run, calibration, work)
            name = f"{run['random_input_len']} in / {run['random_output_len']} out"
            mean_output = int(run["total_generated_tokens"]) / int(run["num_prompts"])
            ttft, tpot = float(run["ttft_mean_ms"]), float(run["tpot_mean_ms"])
            out += [(name, "TTFT mean", ttft, m["ttft_s"]["mean"] * 1e3),
                    (name, "E2E mean", ttft + (mean_output - 1) * tpot, m["e2e_s"]["mean"] * 1e3),
                    (name, "output tok/s", float(run["output_tok_s"]), m["output_tokens_per_s"])]
    return out


def scored(rows_):
    return [r for r in rows_ if r[1] != "output tok/s" and not r[0].startswith(f"{PRINTED_ONLY_INPUT_LEN} in")]


def figures(rows_):
    errors = {k: [abs(s - m) / m for _run, metric, m, s in scored(rows_) if metric == k]
              for k in ("TTFT mean", "E2E mean")}
    dense = {"moe": False, "weights": "bf16", "ranks": 1,
             "ttft_mean_abs_error": round(sum(errors["TTFT mean"]) / len(errors["TTFT mean"]), 3),
             "ttft_worst_abs_error": round(max(errors["TTFT mean"]), 3),
             "e2e_mean_abs_error": round(sum(errors["E2E mean"]) / len(errors["E2E mean"]), 3),
             "e2e_worst_abs_error": round(max(errors["E2E mean"]), 3),
             "runs": len(errors["TTFT mean"]), "runs_described": RUNS_DESCRIBED}
    return {"scored_classes": ["dense-bf16-1"], "dense-bf16-1": dense}


def write_figures(path, figures_):
    fidelity.write_figures(path, figures_, "a100.py", "a100-80gb")


def main(argv):
    kvbench, data = argv[1:3]
    calibration = argv[argv.index("--calibration") + 1] if "--calibration" in argv else None
    rows_ = rows(kvbench, data, calibration)
    print(f"{'run':<20} {'metric':<12} {'measured':>10} {'simulated':>10} {'error':>8}")
    for run, metric, measured, simulated in rows_:
        note = "  (printed, not scored)" if (run, metric, measured, simulated) not in scored(rows_) else ""
        print(f"{run:<20} {metric:<12} {measured:>10.1f} {simulated:>10.1f} "
              f"{100 * (simulated - measured) / measured:>+7.1f}%{note}")
    figures_ = figures(rows_)
    dense = figures_["dense-bf16-1"]
    failed = []
    for kind in ("ttft", "e2e"):
        mean, worst = dense[f"{kind}_mean_abs_error"], dense[f"{kind}_worst_abs_error"]
        ok = mean <= MEAN_BOUND and worst <= WORST_BOUND
        print(f"{kind.upper()} mean absolute error {100 * mean:.1f}% (worst {100 * worst:.1f}%): "
              f"bound {100 * MEAN_BOUND:.0f}% mean, {100 * WORST_BOUND:.0f}% worst: {'ok' if ok else 'FAIL'}")
        if not ok:
            failed.append(f"{kind} mean")
    return fidelity.finish(argv, figures_, failed, write_figures)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
