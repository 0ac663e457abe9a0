#!/usr/bin/env python3
"""One request at a time against real vLLM (issue 53's first done-when): TEASBench's vLLM runs at batch 1
(--max-num-seqs 1, one request in flight) of gpt-oss-120b on one H100, H200 and A100
(tests/data/ground-truth/teasbench-gpt-oss-120b-batch1.csv) and of gpt-oss-120b (B200, MI355X, two H100s),
Qwen3-235B-A22B-FP8 (TP 2-4), DeepSeek-R1 (TP 8) and Qwen3-4B on A100, H100, H200, B200 and MI355X
(teasbench-batch1-vllm.csv): where each comes from and how TEASBench measured it is in that folder's
README. Nothing was fitted to these runs: all are held out.

Each run is simulated with its dataset's mean prompt and output and its TPOT compared with the measured one.
TPOT is TEASBench's mean decode step, measured in the server, which is what kvbench's TPOT is at one request
in flight. TTFT is printed, not scored: the prompt lengths are derived from the same TTFT (ttft x the
measured prefill rate), so it could not fail on its own.

With --check it fails when a run of gpt-oss-120b on one H100 (the done-when: within 25%) or any run of a
model and GPU outside KNOWN_OFF is past BOUND, or when a KNOWN_OFF pair has no run past it (stale).
--write DIR writes the figures kvbench states for a server at one request in flight
(scenarios/single-user/<hardware>.yaml: each class's TPOT error range); --compare DIR fails where a rerun
differs from them.

  single_user.py KVBENCH DATA_DIR [--check] [--write DIR] [--compare DIR]
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tier_cost  # noqa: E402

BOUND = 0.25  # issue 53: gpt-oss-120b on one H100 at batch 1, TPOT within 25% of a public measurement
# What every known-off pair shares, measured on these runs (printed once, before them): the step per layer
# (printed with each pair) does not follow the GPU's HBM, where kvbench's roofline reads the weights at its rate.
FLOOR = ("the measured step does not follow the HBM: per layer it stays at 79-280 us (the us/layer column), "
         "where kvbench reads the active weights at the HBM's rate plus one fitted per-step overhead; "
         "TEASBench's servers also record every forward pass (MoE-CAP: a GPU sync per step), which stock "
         "vLLM does not (tests/data/ground-truth/README.md)")
# (model, GPU) whose batch-1 decode kvbench is known to be off for, with the measured mechanism.
KNOWN_OFF = {
    ("gpt-oss-120b", "h200"): "its step is within 4% of the H100's though its HBM is 1.43x faster",
    ("gpt-oss-120b", "a100-80gb"): "its steps are 1.40-1.53x the H100's, the ratio of the SM clocks (1.41 vs "
                                   "1.98 GHz), not of the HBM (1.64)",
    ("gpt-oss-120b", "b200"): "its step is the H100's and H200's (4.8-5.1 ms) on 2.4x the H100's HBM",
    ("gpt-oss-120b", "mi355x"): "its step is 4.2-4.4 ms on 2.4x the H100's HBM",
    ("qwen3-235b-fp8", "h100"): "94 layers at TP 4: 14.1-14.7 ms measured, 4.6-4.8 simulated",
    ("qwen3-235b-fp8", "h200"): "94 layers at TP 2: 14.5-15.3 ms measured",
    ("qwen3-235b-fp8", "b200"): "94 layers at TP 2: 9.9-10.5 ms measured",
    ("qwen3-235b-fp8", "mi355x"): "94 layers at TP 2: 20.0-20.2 ms measured, the slowest of the five GPUs",
    ("deepseek-r1", "h200"): "61 layers at TP 8: 16.4-17.1 ms measured (1.6x the B200's)",
    ("deepseek-r1", "b200"): "61 layers at TP 8: 10.2-10.7 ms measured",
    ("qwen3-4b", "h100"): "a 4B dense model's step (5.0-5.4 ms) is gpt-oss-120b's on the same GPU",
    ("qwen3-4b", "h200"): "its step (4.7-5.1 ms) is within 6% of the H100's on 1.43x the HBM",
    ("qwen3-4b", "b200"): "3.2-3.9 ms measured (two runs under vLLM 0.22)",
    ("qwen3-4b", "mi355x"): "2.9-3.3 ms measured on ROCm",
}
# TEASBench's model -> kvbench's model (a catalog name, or a config.json under DATA_DIR), extra keys, the
# weight format of its class (scenarios/fidelity's class names) and its decoder layers.
MODELS = {"gpt-oss-120b": ("gpt-oss-120b", "", "mxfp4", 36),
          "qwen3-235b-fp8": ("qwen3-235b-a22b", "quantization: fp8\n", "fp8", 94),
          "deepseek-r1": ("deepseek-r1", "", "fp8", 61),
          "qwen3-4b": ("{data}/qwen3-4b.config.json", "", "bf16", 36)}
SOURCE = "TEASBench (GitHub TEAS-project/TEAS-Bench-Web public/data/db.json)"
SERVER = """name: teasbench-{name}-{hardware}-{workload}
model: {model}
hardware: {hardware}
tensor-parallel-size: {tp}
max-model-len: 32768
max-num-seqs: 1
vllm-version: "{version}"
{extra}seed: 42
workload:
  requests: 8
  arrival: {{process: closed, users: 1}}
  prompt: {prompt}
  output: {output}
"""


def runs(data):
    """Both files' runs as (model, workload, hardware, tp, vLLM version, prompt, output, ttft s, tpot ms)."""
    out = []
    for r in tier_cost.ground_truth(data, "teasbench-gpt-oss-120b-batch1.csv"):
        out.append(("gpt-oss-120b", r["workload"], r["hardware"], 1, r["vllm_version"], r["prompt_tokens"],
                    r["output_tokens_mean"], r["ttft_s"], r["tpot_ms"]))
    for r in tier_cost.ground_truth(data, "teasbench-batch1-vllm.csv"):
        out.append((r["model"], r["workload"], r["hardware"], int(r["tp"]), r["engine_version"].split("+")[0],
                    r["prompt_tokens"], r["output_tokens_mean"], r["ttft_s"], r["tpot_ms"]))
    return out


def scenario(model, path, extra, run):
    _, workload, hardware, tp, version, prompt, output, _, _ = run
    return SERVER.format(name=model, model=path, hardware=hardware, workload=workload, tp=tp,
                         version=".".join(version.split(".")[:2]), extra=extra, prompt=int(prompt),
                         output=round(float(output)))


def rows(kvbench, data):
    """One dict per run: its name, model, hardware, tp, version, TTFTs and TPOTs (ms, measured and simulated)."""
    out = []
    with tempfile.TemporaryDirectory() as work:
        for run in runs(data):
            model, workload, hardware, tp, version, _, _, ttft, tpot = run
            name, extra, _, _ = MODELS[model]
            m = tier_cost.simulate(kvbench, scenario(model, name.format(data=os.path.abspath(data)), extra, run),
                                   work)
            out.append({"run": f"{model} {hardware}x{tp} {workload}", "model": model, "hardware": hardware,
                        "tp": tp, "version": version, "ttft": None if ttft == "null" else 1e3 * float(ttft),
                        "sim_ttft": 1e3 * m["ttft_s"]["mean"], "tpot": float(tpot),
                        "sim_tpot": 1e3 * m["tpot_s"]["mean"]})
    return out


def error(r):
    return (r["sim_tpot"] - r["tpot"]) / r["tpot"]


def summary(rows_):
    """The table per model x GPU: mean absolute and signed range of the TPOT error, the step per layer."""
    print(f"{'model':<16} {'GPU':<10} {'runs':>4} {'mean |err|':>10} {'range':>15} {'us/layer':>10}")
    print(f"known off (KNOWN_OFF), the mechanism each shares: {FLOOR}")
    for key in sorted({(r["model"], r["hardware"]) for r in rows_}):
        mine = [r for r in rows_ if (r["model"], r["hardware"]) == key]
        errors = [error(r) for r in mine]
        per_layer = [1e3 * r["tpot"] / MODELS[key[0]][3] for r in mine]
        print(f"{key[0]:<16} {key[1]:<10} {len(mine):>4} {100 * sum(map(abs, errors)) / len(errors):>9.1f}% "
              f"{100 * min(errors):>+6.0f}..{100 * max(errors):>+4.0f}% {min(per_layer):>4.0f}-{max(per_layer):<4.0f}")
        if key in KNOWN_OFF:
            print(f"    known off: {KNOWN_OFF[key]}")


def class_name(r):
    moe = r["model"] != "qwen3-4b"
    return f"{'moe' if moe else 'dense'}-{MODELS[r['model']][2]}-{r['tp']}"


def figures(rows_):
    """Per GPU, per class of server: the TPOT error range kvbench states at one request in flight."""
    out = {}
    for r in rows_:
        out.setdefault(r["hardware"], {}).setdefault(class_name(r), []).append(r)
    files = {}
    for hardware, classes in sorted(out.items()):
        f = {"one_in_flight_classes": sorted(classes)}
        for name, mine in sorted(classes.items()):
            moe, weights, ranks = name.split("-")
            models = sorted({r["model"] for r in mine})
            versions = sorted({".".join(r["version"].split(".")[:2]) for r in mine})
            f[name] = {"moe": moe == "moe", "weights": weights, "ranks": int(ranks),
                       "tpot_error_min": round(min(map(error, mine)), 3),
                       "tpot_error_max": round(max(map(error, mine)), 3), "runs": len(mine),
                       "runs_described": f"{len(mine)} runs of {', '.join(models)} at --max-num-seqs 1 under "
                                         f"vLLM {', '.join(versions)}, {SOURCE}"}
        files[hardware] = f
    return files


def write(directory, files):
    for hardware, f in files.items():
        with open(os.path.join(directory, f"{hardware}.yaml"), "w") as out:
            out.write("# Written by tests/fidelity/single_user.py --write from its last run (the default calibration\n"
                      f"# against TEASBench's real vLLM servers at one request in flight); kvbench states these with\n"
                      f"# every simulation of a server of one of these classes on an {hardware} at one request in\n"
                      "# flight, and the fidelity test fails when a rerun differs.\n")
            for key, value in f.items():
                out.write(f"{key}: {json.dumps(value)}\n")


def compare(directory, files):
    """Where this run's figures differ from the committed ones (errors by more than 0.002)."""
    out = []
    for hardware, f in files.items():
        path = os.path.join(directory, f"{hardware}.yaml")
        committed = {}
        if os.path.exists(path):
            for line in open(path):
                if not line.startswith("#") and ":" in line:
                    key, value = line.split(":", 1)
                    committed[key.strip()] = json.loads(value)
        for key, value in f.items():
            old = committed.get(key)
            if isinstance(value, dict) and isinstance(old, dict):
                for k, v in value.items():
                    if isinstance(v, float) and abs(old.get(k, -9) - v) <= 0.002:
                        continue
                    if v != old.get(k):
                        out.append(f"{path}: {key} {k} is {old.get(k)!r}, this run {v!r} (rerun with --write)")
            elif value != old:
                out.append(f"{path}: {key} is {old!r}, this run {value!r} (rerun with --write)")
    return out


def check(rows_):
    """The runs past BOUND outside KNOWN_OFF, the KNOWN_OFF pairs with none past it, and the done-when."""
    failed = [f"{r['run']} TPOT {100 * error(r):+.1f}%" for r in rows_
              if abs(error(r)) > BOUND and (r["model"], r["hardware"]) not in KNOWN_OFF]
    for key in KNOWN_OFF:
        if all(abs(error(r)) <= BOUND for r in rows_ if (r["model"], r["hardware"]) == key):
            failed.append(f"{key[0]} on {key[1]} is in KNOWN_OFF but no run is past {100 * BOUND:.0f}%")
    h100 = [r for r in rows_ if r["model"] == "gpt-oss-120b" and r["hardware"] == "h100" and r["tp"] == 1]
    met = bool(h100) and all(abs(error(r)) <= BOUND for r in h100)
    print(f"issue 53 done-when (gpt-oss-120b on one H100, one request at a time, {len(h100)} runs): "
          f"{'met' if met else 'not met'} (bound {100 * BOUND:.0f}%)")
    return failed + ([] if met else ["the done-when"])


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    rows_ = rows(argv[1], argv[2])
    print(f"one request at a time: {SOURCE}")
    print(f"{'run':<36} {'TTFT ms':>8} {'sim':>8} {'TPOT ms':>8} {'sim':>8} {'TPOT error':>10}")
    for r in rows_:
        ttft = "-" if r["ttft"] is None else f"{r['ttft']:.1f}"
        print(f"{r['run']:<36} {ttft:>8} {r['sim_ttft']:>8.1f} {r['tpot']:>8.2f} {r['sim_tpot']:>8.2f} "
              f"{100 * error(r):>+9.1f}%")
    summary(rows_)
    print(f"all {len(rows_)} runs: TPOT mean absolute error "
          f"{100 * sum(abs(error(r)) for r in rows_) / len(rows_):.1f}%")
    failed = check(rows_)
    files = figures(rows_)
    if "--write" in argv:
        write(argv[argv.index("--write") + 1], files)
    if "--compare" in argv:
        failed += compare(argv[argv.index("--compare") + 1], files)
    if "--check" in argv and failed:
        print("FAIL: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
