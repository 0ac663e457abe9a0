#!/usr/bin/env python3
"""Mixture-of-experts servers with MXFP4 experts against real vLLM (issue 53 §5): gpt-oss-120b on H100s
and A100s, on each GPU's default calibration. Nothing was fitted to these runs (the calibrations are
fitted to dense servers and Mixtral-8x7B), so every figure here is held out.

- gpustack (tests/data/ground-truth/gpustack-gpt-oss-120b-sharegpt-c4.csv): 100 ShareGPT prompts,
  four in flight at a time, on one H100 (vLLM 0.10.2), two H100s (TP 2, async scheduling) and one
  A100 (vLLM 0.11.0, two server configurations);
- InferenceMAX (tests/data/ground-truth/inferencemax-h100-gpt-oss-120b.csv): vLLM 0.11.2 at TP 2, 4
  and 8, 4 to 64 requests in flight, random prompts and outputs of about 1K and 8K tokens.

Each run's TTFT, TPOT and E2E means are compared with the client's (gpustack's E2E mean is derived:
mean TTFT + (mean output - 1) x mean TPOT, as a100.py derives it). fidelity.py and a100.py state the
figures per class of server (mixture-of-experts mxfp4 on N ranks of a GPU) with every simulation of
that class; this script prints the runs, the classes and issue 53's done-when (a low-concurrency
decode on one H100 within 25%). With --check it fails when a class's mean absolute TPOT or E2E error
passes CLASS_BOUND, except the classes in KNOWN_OFF, printed with their reason (docs/accuracy.md).

  moe.py KVBENCH DATA_DIR [--check]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tier_cost  # noqa: E402

DONE_WHEN_BOUND = 0.25  # issue 53: gpt-oss-120b on one H100 at low concurrency, TPOT within 25%
CLASS_BOUND = 0.25      # a class's mean absolute TPOT and E2E error
# Classes whose error passes CLASS_BOUND, each with the mechanism found (not fixed: docs/accuracy.md).
KNOWN_OFF = {
    ("h100", 1): "a fixed cost per step of about 2-4 ms that kvbench lacks (the MoE layers' routing and "
                 "grouped-GEMM kernels, and vLLM 0.10.2's synchronous scheduling)",
    ("h100", 8): "the ring all-reduce's 2 (n - 1) latency steps: 4.8 ms a step at TP 8 where vLLM's custom "
                 "all-reduce takes about 1 ms",
    ("a100-80gb", 1): "the expert GEMMs' compute floor (T/(T+82) per expert of about one row) above their "
                      "weight reads on the A100's lower FP16 peak",
}
GPUSTACK = "gpustack's docs/performance-lab/gpt-oss-120b/{hw}.md (vLLM {version})"
INFERENCEMAX = "InferenceMAX run 20667906037 (vLLM 0.11.2)"

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


def version_tag(version):
    """vLLM's release as a scenario's vllm-version takes it: kvbench knows releases from 0.11 (the
    native CPU tier's first); 0.10.2 schedules as 0.11 does (synchronously: async scheduling is the
    default from 0.14) and no tier is enabled here, so it runs as 0.11."""
    major, minor = (int(x) for x in version.split(".")[:2])
    return f"{major}.{max(minor, 11) if major == 0 else minor}"


def gpustack_rows(kvbench, data, calibration, hardware, work):
    """(source, hardware, tp, concurrency, run, metric, measured ms, simulated ms) of gpustack's runs."""
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
        out += [(source, run["hardware"], int(run["tp"]), int(run["concurrency"]), name, metric, mv, sv)
                for metric, mv, sv in zip(METRICS, measured, simulated)]
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
            out.append((INFERENCEMAX, "h100", int(run["tp"]), conc, name, metric, float(run[column]),
                        m[key]["mean"] * 1e3))
    return out


def rows(kvbench, data, calibration="", hardware=None):
    """Every run's figures, or those on one GPU (hardware: h100, a100-80gb)."""
    with tempfile.TemporaryDirectory() as work:
        out = gpustack_rows(kvbench, data, calibration, hardware, work)
        if hardware in (None, "h100"):
            out += inferencemax_rows(kvbench, data, calibration, work)
    return out


def abs_error(row):
    return abs(row[7] - row[6]) / row[6]


def class_name(ranks):
    return f"moe-mxfp4-{ranks}"


def class_figures(rows_, ranks):
    """One class's figures as kvbench states them (perf/calibration.hpp's ScoredClass)."""
    mine = [r for r in rows_ if r[2] == ranks]
    errors = {m: [abs_error(r) for r in mine if r[5] == m] for m in ("TTFT mean", "E2E mean")}
    described = []
    for source in sorted({r[0] for r in mine}):
        runs = sorted({r[4] for r in mine if r[0] == source})
        concurrency = sorted({r[3] for r in mine if r[0] == source})
        span = f"{concurrency[0]}" if len(concurrency) == 1 else f"{concurrency[0]}-{concurrency[-1]}"
        described.append(f"{len(runs)} of gpt-oss-120b at {span} requests in flight ({source})")
    return {"moe": True, "weights": "mxfp4", "ranks": ranks,
            "ttft_mean_abs_error": round(sum(errors["TTFT mean"]) / len(errors["TTFT mean"]), 3),
            "ttft_worst_abs_error": round(max(errors["TTFT mean"]), 3),
            "e2e_mean_abs_error": round(sum(errors["E2E mean"]) / len(errors["E2E mean"]), 3),
            "e2e_worst_abs_error": round(max(errors["E2E mean"]), 3),
            "runs": len(errors["TTFT mean"]), "runs_described": "; ".join(described)}


def add_figures(figures, rows_):
    """The MXFP4 MoE classes of these rows (one GPU's) added to a fidelity file's figures."""
    for ranks in sorted({r[2] for r in rows_}):
        figures["scored_classes"].append(class_name(ranks))
        figures[class_name(ranks)] = class_figures(rows_, ranks)
    return figures


def class_errors(rows_):
    """Per class (hardware, ranks): mean and worst absolute error per metric, and the runs."""
    out = {}
    for row in rows_:
        out.setdefault((row[1], row[2]), {}).setdefault(row[5], []).append(abs_error(row))
    return {k: {m: (sum(v) / len(v), max(v), len(v)) for m, v in metrics.items()} for k, metrics in sorted(out.items())}


def check_classes(rows_):
    """The classes past CLASS_BOUND on TPOT or E2E (those in KNOWN_OFF printed, not failed)."""
    failed = []
    print("\nmean absolute error per class (worst):")
    for (hw, tp), metrics in class_errors(rows_).items():
        words = ", ".join(f"{m} {100 * mean:.1f}% ({100 * worst:.1f}%)" for m, (mean, worst, _n) in metrics.items())
        print(f"  mixture-of-experts mxfp4 on {tp} rank(s) of an {hw}, {metrics['TPOT mean'][2]} runs: {words}")
        past = [m for m in ("TPOT mean", "E2E mean") if metrics[m][0] > CLASS_BOUND]
        if past and (hw, tp) in KNOWN_OFF:
            print(f"    past {100 * CLASS_BOUND:.0f}%, not failed: {KNOWN_OFF[(hw, tp)]}")
        elif past:
            failed += [f"{hw} TP {tp} {m}" for m in past]
    return failed


def done_when(rows_):
    """Issue 53's done-when: the lowest-concurrency TPOT on one H100 within DONE_WHEN_BOUND."""
    tp1 = [r for r in rows_ if r[1] == "h100" and r[2] == 1 and r[5] == "TPOT mean"]
    for r in sorted(tp1, key=lambda r: r[3])[:1]:
        met = abs_error(r) <= DONE_WHEN_BOUND
        print(f"\nissue 53 done-when (one H100, {r[3]} in flight: no concurrency-1 run found): TPOT "
              f"{r[6]:.2f} ms measured, {r[7]:.2f} simulated, {100 * (r[7] - r[6]) / r[6]:+.1f}%: "
              f"{'met' if met else 'not met'} (bound {100 * DONE_WHEN_BOUND:.0f}%)")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    rows_ = rows(argv[1], argv[2])
    print(f"{'run':<36} {'metric':<10} {'measured':>10} {'simulated':>10} {'error':>8}")
    for _source, _hw, _tp, _conc, run, metric, measured, simulated in rows_:
        print(f"{run:<36} {metric:<10} {measured:>10.2f} {simulated:>10.2f} {100 * (simulated - measured) / measured:>+7.1f}%")
    failed = check_classes(rows_)
    done_when(rows_)
    if "--check" in argv and failed:
        print("FAIL: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
