#!/usr/bin/env python3
"""Mixture-of-experts servers against real vLLM (issue 53 §5): gpt-oss-120b and gpt-oss-20b (MXFP4
experts) on H100s and A100s, Qwen3-235B-A22B (BF16 and FP8) on H100s, on each GPU's default calibration. The
calibrations are fitted to dense servers and Mixtral-8x7B; one figure is set from these runs: the
MXFP4 Triton MoE layer's 40 us (perf/step_time_model.cpp), from gpt-oss-120b's InferenceMAX 1K/1K
runs at 4 in flight (TP 2, 4 and 8). Every other run holds it out (gpt-oss-20b, another model;
gpt-oss-120b at other loads and servers), and the per-model lines show whether an error is one model's or the class's.

- gpustack (tests/data/ground-truth/gpustack-gpt-oss-120b-sharegpt-c4.csv): 100 ShareGPT prompts,
  four in flight at a time, on one H100 (vLLM 0.10.2), two H100s (TP 2, async scheduling) and one
  A100 (vLLM 0.11.0, two server configurations);
- gpustack's random datasets sent at once (tests/data/ground-truth/gpustack-moe-all-at-once.csv):
  gpt-oss-120b and gpt-oss-20b on the same servers (gpt-oss-20b under vLLM 0.11.0, TP 1), and
  Qwen3-235B-A22B on H100s (BF16 at TP 8, FP8 at TP 4), 2K, 4K and 32K-token prompts (the 128-token
  runs, the API server's, printed, not scored);
- InferenceMAX (tests/data/ground-truth/inferencemax-h100-gpt-oss-120b.csv): vLLM 0.11.2 at TP 2, 4
  and 8, 4 to 64 requests in flight, random prompts and outputs of about 1K and 8K tokens.

Each run's TTFT, TPOT and E2E means are compared with the client's (gpustack's E2E mean is derived:
mean TTFT + (mean output - 1) x mean TPOT, as a100.py derives it). fidelity.py and a100.py state the
figures per class of server (mixture-of-experts, weight format, N ranks of a GPU) with every simulation of
that class; this script prints the runs, the classes and issue 53's done-when (a low-concurrency
decode on one H100 within 25%). With --check it fails when a class's mean absolute TPOT or E2E error
passes CLASS_BOUND, except the classes in KNOWN_OFF, printed with their reason (docs/accuracy.md).

  moe.py KVBENCH DATA_DIR [--check]
"""
import collections
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tier_cost  # noqa: E402

DONE_WHEN_BOUND = 0.25  # issue 53: gpt-oss-120b on one H100 at low concurrency, TPOT within 25%
CLASS_BOUND = 0.25      # a class's mean absolute TPOT and E2E error
# Classes whose error passes CLASS_BOUND, each with the mechanism found (not fixed: docs/accuracy.md).
KNOWN_OFF = {
    ("h100", "mxfp4", 1): "the every-prompt-at-once runs (100-500 prompts of 2K-32K tokens): MXFP4 MoE prefill on Hopper "
                 "at about half the modelled rate (gpt-oss-20b alike), their decodes 25-53% fast; the 4-in-flight "
                 "run is within 20%",
    ("h100", "fp8", 4): "prefill-bound runs: MoE prefill below the GEMM rate kvbench gives it (block-FP8 experts at "
                        "the FP8 peak's share); Qwen3-235B-A22B in BF16 at TP 8 and gpt-oss on Hopper alike, 20-51% fast",
    ("a100-80gb", "mxfp4", 1): "the expert GEMMs derated per expert (T/(T+82) of each expert's rows): gpt-oss-120b's "
                      "few-row experts run slow (+40% at 2K/4K prompts, TTFT +233% at 4 in flight) where "
                      "gpt-oss-20b's 4x fuller ones are within 4%",
}
GPUSTACK = "GitHub gpustack/gpustack, docs/performance-lab/gpt-oss-120b/{hw}.md, vLLM {version}"
INFERENCEMAX = "InferenceMAX run 20667906037, GitHub SemiAnalysisAI/InferenceX, vLLM 0.11.2"

GPUSTACK_SERVER = """name: gpustack-gpt-oss-120b-{hardware}-tp{tp}
model: gpt-oss-120b
hardware: {hardware}
tensor-parallel-size: {tp}
max-model-len: 32768
vllm-version: "{version}"
{batched}seed: 42
{calibration}workload:
  requests: {prompts}
  arrival: {{process: closed, users: {users}}}
  prompt: {prompt}
  output: {output}
"""
INFERENCEMAX_SERVER = """name: inferencemax-gpt-oss-120b-tp{tp}-c{conc}-{isl}-{osl}
model: gpt-oss-120b
hardware: h100
tensor-parallel-size: {tp}
max-model-len: 10240
max-num-batched-tokens: 8192
max-num-seqs: {conc}
enable-prefix-caching: false
vllm-version: "0.11"
seed: 42
{calibration}workload:
  requests: {requests}
  arrival: {{process: closed, users: {conc}}}
  prompt: {{distribution: uniform, min: {isl_min}, max: {isl}}}
  output: {{distribution: uniform, min: {osl_min}, max: {osl}}}
"""
METRICS = ("TTFT mean", "TPOT mean", "E2E mean")
# 1,000 chat requests of 128 tokens at once measure the API server taking them in (as a100.py's).
PRINTED_ONLY_INPUT_LEN = "128"
ALL_AT_ONCE_SERVER = """name: gpustack-{model}-{hardware}-tp{tp}-{input_len}
model: {model}
hardware: {hardware}
tensor-parallel-size: {tp}
{quantization}{max_model_len}vllm-version: "{version}"
{batched}seed: 42
{calibration}workload:
  requests: {prompts}
  arrival: {{process: closed, users: {prompts}}}
  prompt: {prompt}
  output: {output}
"""
# The weights of each checkpoint as published (a row's quantization, where given, replaces them).
CHECKPOINT_WEIGHTS = {"gpt-oss-120b": "mxfp4", "gpt-oss-20b": "mxfp4", "qwen3-235b-a22b": "bf16"}
Row = collections.namedtuple("Row", "source model weights hardware tp concurrency run metric measured simulated scored")


def version_tag(version):
    """vLLM's release as a scenario's vllm-version takes it: kvbench knows releases from 0.11 (the
    native CPU tier's first); 0.10.2 schedules as 0.11 does (synchronously: async scheduling is the
    default from 0.14) and no tier is enabled here, so it runs as 0.11."""
    major, minor = (int(x) for x in version.split(".")[:2])
    return f"{major}.{max(minor, 11) if major == 0 else minor}"


def gpustack_rows(kvbench, data, calibration, hardware, work):
    """gpustack's runs at 4 in flight, one Row per metric (ms)."""
    out = []
    for run in tier_cost.ground_truth(data, "gpustack-gpt-oss-120b-sharegpt-c4.csv"):
        if hardware and run["hardware"] != hardware:
            continue
        prompts = int(run["num_prompts"])
        output = int(run["total_generated_tokens"]) / prompts
        batched = f"max-num-batched-tokens: {run['max_num_batched_tokens']}\n" if run["max_num_batched_tokens"] else ""
        m = tier_cost.simulate(kvbench, GPUSTACK_SERVER.format(
            hardware=run["hardware"], tp=run["tp"], version=version_tag(run["vllm_version"]), batched=batched,
            calibration=calibration, prompts=prompts, users=run["concurrency"],
            prompt=round(int(run["total_input_tokens"]) / prompts), output=round(output)), work)
        ttft, tpot = float(run["ttft_mean_ms"]), float(run["tpot_mean_ms"])
        measured = (ttft, tpot, ttft + (output - 1) * tpot)
        simulated = (m["ttft_s"]["mean"] * 1e3, m["tpot_s"]["mean"] * 1e3, m["e2e_s"]["mean"] * 1e3)
        source = GPUSTACK.format(hw=run["hardware"].split("-")[0], version=run["vllm_version"])
        name = f"gpustack {run['hardware']} TP{run['tp']} c{run['concurrency']}" + (
            " async" if run["async_scheduling"] == "true" else "")
        out += [Row(source, "gpt-oss-120b", "mxfp4", run["hardware"], int(run["tp"]), int(run["concurrency"]), name,
                    metric, mv, sv, True) for metric, mv, sv in zip(METRICS, measured, simulated)]
    return out


def all_at_once_rows(kvbench, data, calibration, hardware, work):
    """gpustack's random datasets, every prompt sent at once."""
    out = []
    for run in tier_cost.ground_truth(data, "gpustack-moe-all-at-once.csv"):
        if hardware and run["hardware"] != hardware:
            continue
        prompts = int(run["num_prompts"])
        output = int(run["total_generated_tokens"]) / prompts
        batched = f"max-num-batched-tokens: {run['max_num_batched_tokens']}\n" if run["max_num_batched_tokens"] else ""
        max_model_len = f"max-model-len: {run['max_model_len']}\n" if run["max_model_len"] else ""
        quantization = f"quantization: {run['quantization']}\n" if run["quantization"] else ""
        m = tier_cost.simulate(kvbench, ALL_AT_ONCE_SERVER.format(
            model=run["model"], hardware=run["hardware"], tp=run["tp"], input_len=run["random_input_len"],
            quantization=quantization,
            max_model_len=max_model_len, version=version_tag(run["vllm_version"]), batched=batched,
            calibration=calibration, prompts=prompts, prompt=round(int(run["total_input_tokens"]) / prompts),
            output=round(output)), work)
        ttft, tpot = float(run["ttft_mean_ms"]), float(run["tpot_mean_ms"])
        measured = (ttft, tpot, ttft + (output - 1) * tpot)
        simulated = (m["ttft_s"]["mean"] * 1e3, m["tpot_s"]["mean"] * 1e3, m["e2e_s"]["mean"] * 1e3)
        source = GPUSTACK.format(hw=run["hardware"].split("-")[0], version=run["vllm_version"]).replace(
            "gpt-oss-120b", run["model"])
        weights = run["quantization"] or CHECKPOINT_WEIGHTS[run["model"]]
        name = f"{run['model']} {weights} {run['hardware']} TP{run['tp']} {prompts} x {run['random_input_len']}" + (
            " async" if run["async_scheduling"] == "true" else "")
        scored = run["random_input_len"] != PRINTED_ONLY_INPUT_LEN
        out += [Row(source, run["model"], weights, run["hardware"], int(run["tp"]), prompts, name, metric, mv, sv,
                    scored) for metric, mv, sv in zip(METRICS, measured, simulated)]
    return out


def inferencemax_rows(kvbench, data, calibration, work):
    """The same for InferenceMAX's H100 runs."""
    out = []
    for run in tier_cost.ground_truth(data, "inferencemax-h100-gpt-oss-120b.csv"):
        conc, isl, osl = int(run["concurrency"]), int(run["input_len"]), int(run["output_len"])
        m = tier_cost.simulate(kvbench, INFERENCEMAX_SERVER.format(
            tp=run["tp"], conc=conc, isl=isl, osl=osl, requests=10 * conc, calibration=calibration,
            isl_min=round(0.8 * isl), osl_min=round(0.8 * osl)), work)
        name = f"inferencemax TP{run['tp']} c{conc} {isl // 1024}K/{osl // 1024}K"
        for metric, key, column in zip(METRICS, ("ttft_s", "tpot_s", "e2e_s"),
                                       ("ttft_mean_ms", "tpot_mean_ms", "e2e_mean_ms")):
            out.append(Row(INFERENCEMAX, "gpt-oss-120b", "mxfp4", "h100", int(run["tp"]), conc, name, metric,
                           float(run[column]), m[key]["mean"] * 1e3, True))
    return out


def rows(kvbench, data, calibration="", hardware=None):
    """Every run's figures, or those on one GPU (hardware: h100, a100-80gb)."""
    with tempfile.TemporaryDirectory() as work:
        out = gpustack_rows(kvbench, data, calibration, hardware, work)
        out += all_at_once_rows(kvbench, data, calibration, hardware, work)
        if hardware in (None, "h100"):
            out += inferencemax_rows(kvbench, data, calibration, work)
    return out


def abs_error(row):
    return abs(row.simulated - row.measured) / row.measured


def class_name(weights, ranks):
    return f"moe-{weights}-{ranks}"


def described(mine):
    """Which runs a class's figures rest on: per source, how many and at what load."""
    out = []
    for source in sorted({r.source for r in mine}):
        runs = {r.run: r for r in mine if r.source == source}
        load = sorted({r.concurrency for r in runs.values()})
        span = f"{load[0]}" if len(load) == 1 else f"{load[0]}-{load[-1]}"
        models = " and ".join(sorted({r.model for r in runs.values()}))
        out.append(f"{len(runs)} run{'s' if len(runs) > 1 else ''} of {models} at {span} requests in flight ({source})")
    return "; ".join(out)


def class_figures(rows_, weights, ranks):
    """One class's figures as kvbench states them (perf/calibration.hpp's ScoredClass)."""
    mine = [r for r in rows_ if r.weights == weights and r.tp == ranks and r.scored]
    errors = {m: [abs_error(r) for r in mine if r.metric == m] for m in ("TTFT mean", "E2E mean")}
    return {"moe": True, "weights": weights, "ranks": ranks,
            "ttft_mean_abs_error": round(sum(errors["TTFT mean"]) / len(errors["TTFT mean"]), 3),
            "ttft_worst_abs_error": round(max(errors["TTFT mean"]), 3),
            "e2e_mean_abs_error": round(sum(errors["E2E mean"]) / len(errors["E2E mean"]), 3),
            "e2e_worst_abs_error": round(max(errors["E2E mean"]), 3),
            "runs": len(errors["TTFT mean"]), "runs_described": described(mine)}


def add_figures(figures, rows_):
    """The MoE classes of these rows (one GPU's) added to a fidelity file's figures."""
    for weights, ranks in sorted({(r.weights, r.tp) for r in rows_ if r.scored}):
        name = class_name(weights, ranks)
        if name in figures:
            sys.exit(f"moe.py: class {name} is scored twice (fidelity.py's and moe.py's runs)")
        figures["scored_classes"].append(name)
        figures[name] = class_figures(rows_, weights, ranks)
    return figures


def errors_by(rows_, key):
    """Mean and worst absolute error per metric and the runs, per key(row), over the scored rows."""
    out = {}
    for row in rows_:
        if row.scored:
            out.setdefault(key(row), {}).setdefault(row.metric, []).append(abs_error(row))
    return {k: {m: (sum(v) / len(v), max(v), len(v)) for m, v in metrics.items()} for k, metrics in sorted(out.items())}


def words(metrics):
    return ", ".join(f"{m} {100 * mean:.1f}% ({100 * worst:.1f}%)" for m, (mean, worst, _n) in metrics.items())


def check_classes(rows_):
    """The classes past CLASS_BOUND on TPOT or E2E (those in KNOWN_OFF printed, not failed)."""
    failed = []
    print("\nmean absolute error per class (worst), scored runs:")
    for key, metrics in errors_by(rows_, lambda r: (r.hardware, r.weights, r.tp)).items():
        hw, weights, tp = key
        print(f"  mixture-of-experts {weights} on {tp} rank(s) of an {hw}, {metrics['TPOT mean'][2]} runs: "
              f"{words(metrics)}")
        past = [m for m in ("TPOT mean", "E2E mean") if metrics[m][0] > CLASS_BOUND]
        if past and key in KNOWN_OFF:
            print(f"    past {100 * CLASS_BOUND:.0f}%, not failed: {KNOWN_OFF[key]}")
        elif past:
            failed += [f"{hw} {weights} TP {tp} {m}" for m in past]
    print("\nper model and source within each class (one figure set from gpt-oss-120b at 4 in flight, InferenceMAX 1K/1K):")
    for (hw, weights, tp, model, source), metrics in errors_by(
            rows_, lambda r: (r.hardware, r.weights, r.tp, r.model, r.source)).items():
        print(f"  {hw} {weights} TP {tp} {model}, {source}: {words(metrics)}")
    return failed


def done_when(rows_):
    """The lowest-concurrency TPOT on one H100 here, within DONE_WHEN_BOUND (issue 53's done-when itself, one request
    at a time, is single_user.py's)."""
    tp1 = [r for r in rows_ if r.hardware == "h100" and r.tp == 1 and r.model == "gpt-oss-120b" and
           r.metric == "TPOT mean"]
    for r in sorted(tp1, key=lambda r: r.concurrency)[:1]:
        met = abs_error(r) <= DONE_WHEN_BOUND
        print(f"\nlowest load on one H100 here ({r.concurrency} in flight; one request at a time: single_user.py): TPOT "
              f"{r.measured:.2f} ms measured, {r.simulated:.2f} simulated, {100 * (r.simulated - r.measured) / r.measured:+.1f}%: "
              f"{'met' if met else 'not met'} (bound {100 * DONE_WHEN_BOUND:.0f}%)")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    rows_ = rows(argv[1], argv[2])
    print(f"{'run':<44} {'metric':<10} {'measured':>10} {'simulated':>10} {'error':>8}")
    for r in rows_:
        note = "" if r.scored else "  (printed, not scored)"
        print(f"{r.run:<44} {r.metric:<10} {r.measured:>10.2f} {r.simulated:>10.2f} "
              f"{100 * (r.simulated - r.measured) / r.measured:>+7.1f}%{note}")
    failed = check_classes(rows_)
    done_when(rows_)
    if "--check" in argv and failed:
        print("FAIL: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
