#!/usr/bin/env python3
"""The A100's time model, fitted and held out by model (docs/accuracy.md): the H100's real-vLLM fit
(scenarios/hardware/h100.yaml) with two figures of the GPU's own, a factor on its compute and
attention shares (the kernels' share of the A100's peak against the H100's) and the decode's
share of HBM bandwidth, searched on a grid against a100.py's scored runs (mean absolute TTFT and
E2E error). Then each model is left out in turn: the grid point that fits the others, and how far
it is on the model left out.

  fit_a100.py KVBENCH DATA_DIR
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import a100  # noqa: E402

H100_FIT = {"compute": 0.84, "attention": 0.56, "step-overhead-us": 770, "request-overhead-us": 8570,
            "load-efficiency": 0.89, "gemm-half-tokens": 82}
SCALES = [0.65, 0.70, 0.75, 0.80, 0.85]
MEMORY = [0.55, 0.60, 0.65, 0.70, 0.75, 0.82]


def calibration_file(work, scale, memory):
    path = os.path.join(work, f"a100-{scale}-{memory}.yaml")
    with open(path, "w") as f:
        f.write(f"compute-efficiency: {H100_FIT['compute'] * scale:.3f}\n"
                f"attention-efficiency: {H100_FIT['attention'] * scale:.3f}\n"
                f"memory-efficiency: {memory}\n")
        for key in ("step-overhead-us", "request-overhead-us", "load-efficiency", "gemm-half-tokens"):
            f.write(f"{key}: {H100_FIT[key]}\n")
    return path


def cost(rows):
    errors = a100.mean_errors(rows)
    return (errors["TTFT mean"][0] + errors["E2E mean"][0]) / 2


def main(argv):
    kvbench, data = argv[1:3]
    grid = {}
    with tempfile.TemporaryDirectory() as work:
        for scale in SCALES:
            for memory in MEMORY:
                grid[(scale, memory)] = a100.rows(kvbench, data, calibration_file(work, scale, memory))
    best = min(grid, key=lambda k: cost(grid[k]))
    print(f"all runs: compute x {best[0]} (compute {H100_FIT['compute'] * best[0]:.3f}, attention "
          f"{H100_FIT['attention'] * best[0]:.3f}), memory {best[1]}: mean error {100 * cost(grid[best]):.1f}%")
    models = sorted({r[1] for r in grid[best] if r[7]})
    for model in models:
        others = {k: [r for r in rows if r[1] != model] for k, rows in grid.items()}
        pick = min(others, key=lambda k: cost(others[k]))
        held = a100.mean_errors([r for r in grid[pick] if r[1] == model])
        print(f"without {model}: compute x {pick[0]}, memory {pick[1]}; {model} TTFT mean "
              f"{100 * held['TTFT mean'][0]:.1f}% ({100 * held['TTFT mean'][1]:.1f}%), E2E mean "
              f"{100 * held['E2E mean'][0]:.1f}% ({100 * held['E2E mean'][1]:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
